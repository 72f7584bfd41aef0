// Trigonometric and hyperbolic functions.
#include "pointwise.h"

namespace etk {

ET_KERNEL_OP("aten::sin.out", sin_out, "(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
ETK_UNARY_FLOAT(sin, std::sin(x))
ET_KERNEL_OP("aten::cos.out", cos_out, "(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
ETK_UNARY_FLOAT(cos, std::cos(x))
ET_KERNEL_OP("aten::tan.out", tan_out, "(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
ETK_UNARY_FLOAT(tan, std::tan(x))
ET_KERNEL_OP("aten::atan.out", atan_out, "(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
ETK_UNARY_FLOAT(atan, std::atan(x))
ET_KERNEL_OP("aten::asin.out", asin_out, "(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
ETK_UNARY_FLOAT(asin, std::asin(x))
ET_KERNEL_OP("aten::acos.out", acos_out, "(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
ETK_UNARY_FLOAT(acos, std::acos(x))
ET_KERNEL_OP("aten::tanh.out", tanh_out, "(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
ETK_UNARY_FLOAT(tanh, std::tanh(x))
ET_KERNEL_OP("aten::sinh.out", sinh_out, "(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
ETK_UNARY_FLOAT(sinh, std::sinh(x))
ET_KERNEL_OP("aten::cosh.out", cosh_out, "(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
ETK_UNARY_FLOAT(cosh, std::cosh(x))
ET_KERNEL_OP("aten::asinh.out", asinh_out, "(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
ETK_UNARY_FLOAT(asinh, std::asinh(x))
ET_KERNEL_OP("aten::acosh.out", acosh_out, "(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
ETK_UNARY_FLOAT(acosh, std::acosh(x))
ET_KERNEL_OP("aten::atanh.out", atanh_out, "(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
ETK_UNARY_FLOAT(atanh, std::atanh(x))
#undef ETK_UNARY_FLOAT

}  // namespace etk
