#pragma once
// upstream's header for create_text_llm_runner (declared with the runner).
#include <executorch/extension/llm/runner/text_llm_runner.h>
