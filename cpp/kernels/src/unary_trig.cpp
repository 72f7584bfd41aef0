// Trigonometric and hyperbolic functions.
#include "ops.h"
#include "pointwise.h"

namespace etk {

ETK_UNARY_FLOAT(sin, std::sin(x))
ETK_UNARY_FLOAT(cos, std::cos(x))
ETK_UNARY_FLOAT(tan, std::tan(x))
ETK_UNARY_FLOAT(atan, std::atan(x))
ETK_UNARY_FLOAT(asin, std::asin(x))
ETK_UNARY_FLOAT(acos, std::acos(x))
ETK_UNARY_FLOAT(tanh, std::tanh(x))
ETK_UNARY_FLOAT(sinh, std::sinh(x))
ETK_UNARY_FLOAT(cosh, std::cosh(x))
ETK_UNARY_FLOAT(asinh, std::asinh(x))
ETK_UNARY_FLOAT(acosh, std::acosh(x))
ETK_UNARY_FLOAT(atanh, std::atanh(x))
#undef ETK_UNARY_FLOAT

}  // namespace etk
