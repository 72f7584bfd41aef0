"""``python -m executorch.llm --model m.pte --tokenizer tok.model --prompt "..."``: see ``executorch.llm.main``."""

import sys

from executorch.llm import main

sys.exit(main())
