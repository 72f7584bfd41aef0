#pragma once
// executorch._C.tokenizers (tokenizers.cpp).
#include <pybind11/pybind11.h>

void bind_tokenizers(pybind11::module_& parent);
