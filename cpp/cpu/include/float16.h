#pragma once
// Half and BFloat16 as 16-bit patterns, for the CPU components: the runtime's conversions
// (executorch/runtime/core/portable_type/half.h, exactly c10's: round to nearest even, NaN stays NaN).
#include <executorch/runtime/core/portable_type/half.h>

namespace etkb {

using ::executorch::runtime::float16::bf16_to_float;
using ::executorch::runtime::float16::f32_bits;
using ::executorch::runtime::float16::f32_from_bits;
using ::executorch::runtime::float16::float_to_bf16;
using ::executorch::runtime::float16::float_to_half;
using ::executorch::runtime::float16::half_to_float;

}  // namespace etkb
