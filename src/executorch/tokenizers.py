"""The C++ tokenizers of libexecutorch_llm in Python: no ``tokenizers``, ``tiktoken`` or ``sentencepiece`` package.

The classes and methods of upstream's ``pytorch_tokenizers_cpp`` module (meta-pytorch/tokenizers)::

    from executorch.tokenizers import HFTokenizer, load_tokenizer
    tok = HFTokenizer()
    tok.load("tokenizer.json")            # or a directory with tokenizer.json (+ tokenizer_config.json)
    ids = tok.encode("Hello", bos=1, eos=0)
    text = tok.decode_tokens(ids[1:])     # the text of a sequence; decode(token) is one token's text
    tok = load_tokenizer("tokenizer.model")  # probes tekken.json, HF tokenizer.json, tiktoken, SentencePiece, llama2.c

Failures raise RuntimeError naming the file and what is wrong with it (docs/llm.md, "C++ tokenizers").
"""

from __future__ import annotations

import executorch.runtime  # noqa: F401  (loads the package's shared libraries first)
from executorch._C.tokenizers import (  # type: ignore[import-not-found]
    Error,
    HFTokenizer,
    Llama2cTokenizer,
    SPTokenizer,
    Tekken,
    Tiktoken,
    TokenIndex,
    Tokenizer,
    load_tokenizer,
)

__all__ = [
    "Error",
    "HFTokenizer",
    "Llama2cTokenizer",
    "SPTokenizer",
    "Tekken",
    "Tiktoken",
    "TokenIndex",
    "Tokenizer",
    "load_tokenizer",
]
