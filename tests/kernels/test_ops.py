"""Per-operator checks of libexecutorch_kernels against NumPy references, through executorch_op_harness.

Every case calls one registered operator with given arguments (schema order) and compares each output
(dtype, shape, values) with an independent NumPy computation, or expects a clean error exit (never a crash).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from conftest import BF16, TL, Doubles, Ints, Out, OutList, Runner, T, bf16_bits, bf16_value, registered_operators

REPO = Path(__file__).resolve().parent.parent.parent
rng = np.random.default_rng(1234)
f32 = np.float32
f64 = np.float64
i64 = np.int64
i32 = np.int32
u8 = np.uint8
b8 = np.bool_
CL = (0, 2, 3, 1)  # channels-last dim order


def r(*shape: int, dtype: Any = f32, lo: float = -2.0, hi: float = 2.0) -> np.ndarray:
    if np.issubdtype(np.dtype(dtype), np.floating):
        return rng.uniform(lo, hi, size=shape).astype(dtype)
    if dtype == b8:
        return rng.integers(0, 2, size=shape).astype(b8)
    return rng.integers(int(lo), int(hi) + 1, size=shape).astype(dtype)


def pos(*shape: int) -> np.ndarray:
    return rng.uniform(0.1, 3.0, size=shape).astype(f32)


def like(a: np.ndarray, **kw: Any) -> Out:
    return Out(a.dtype, a.shape, **kw)


@dataclass
class Case:
    id: str
    op: str
    args: tuple[Any, ...]
    expect: list[np.ndarray] | None  # None: the call must fail
    rtol: float = 1e-5
    atol: float = 1e-6
    reason: str | None = None  # for a failing call: a regex its reason must match


CASES: list[Case] = []


def ok(id: str, op: str, args: tuple[Any, ...], *expect: np.ndarray, rtol: float = 1e-5, atol: float = 1e-6) -> None:
    CASES.append(Case(id, op, args, list(expect), rtol, atol))


def bad(id: str, op: str, args: tuple[Any, ...], reason: str | None = None) -> None:
    CASES.append(Case(id, op, args, None, reason=reason))


_erf = np.vectorize(math.erf, otypes=[f64])

# ---------------------------------------------------------------------------------------------------------------
# Binary arithmetic.
a, b = r(2, 3, 4), r(2, 3, 4)
x4 = r(2, 3, 4, 5)
ok("add", "aten::add.out", (a, b, 1, like(a)), a + b)
ok("add-alpha", "aten::add.out", (a, b, 2.5, like(a)), a + f32(2.5) * b)
ok("add-bcast", "aten::add.out", (r(2, 1, 4), r(3, 1), 1, Out(f32, (2, 3, 4))), None)  # filled below
c1, c2 = CASES[-1].args[0], CASES[-1].args[1]
CASES[-1].expect = [c1 + c2]
ok("add-empty", "aten::add.out", (r(0, 3), r(1, 3), 1, Out(f32, (0, 3))), np.zeros((0, 3), f32))
ok("add-channels-last", "aten::add.out", (T(x4, CL), x4[:1, :, :1], 1, Out(f32, x4.shape, CL)), x4 + x4[:1, :, :1])
ok("add-dynamic-out", "aten::add.out", (a, b, 1, Out(f32, (5, 5, 5), dynamic=True)), a + b)
ia, ib = np.array([2**31 - 1, -(2**31), 5], i32), np.array([1, -1, 7], i32)
with np.errstate(over="ignore"):
    ok("add-int32-wraps", "aten::add.out", (ia, ib, 1, like(ia)), ia + ib)
    la = np.array([2**62, -3, 2**40], i64)
    ok("mul-int64-wraps", "aten::mul.out", (la, np.array([4, 5, 2**30], i64), like(la)), la * np.array([4, 5, 2**30]))
ok(
    "add-int-float-promote",
    "aten::add.out",
    (np.arange(6, dtype=i64).reshape(2, 3), a[0, :2, :3], 1, Out(f32, (2, 3))),
    np.arange(6).reshape(2, 3).astype(f32) + a[0, :2, :3],
)
ok("add-0dim-long", "aten::add.out", (a, np.array(3, i64), 1, like(a)), a + 3)
ok(
    "add-bool",
    "aten::add.out",
    (np.array([True, False]), np.array([True, True]), 1, Out(b8, (2,))),
    np.array([1, 1], b8),
)
ok(
    "add-nan-inf",
    "aten::add.out",
    (np.array([np.nan, np.inf, -np.inf], f32), np.array([1, 1, np.inf], f32), 1, Out(f32, (3,))),
    np.array([np.nan, np.inf, np.nan], f32),
)
bad("add-shape-mismatch", "aten::add.out", (r(2, 3), r(3, 2), 1, Out(f32, (2, 3))), r"\[2, 3\] and \[3, 2\]")
bad("add-wrong-out-shape", "aten::add.out", (r(2, 3), r(2, 3), 1, Out(f32, (3, 2))))
bad("add-out-too-small-dynamic", "aten::add.out", (r(2, 3), r(2, 3), 1, Out(f32, (2, 2), dynamic=True)))
bad("add-missing-args", "aten::add.out", (r(2, 3), r(2, 3)))
bad(
    "add-scalar-as-tensor",
    "aten::add.out",
    (r(2, 3), 1.0, 1, Out(f32, (2, 3))),
    r"argument 1 \(other\) is a float, expected a Tensor",
)
ok("add.Scalar", "aten::add.Scalar_out", (a, 1.5, 2, like(a)), a + f32(3.0))
ok("add.Scalar-int", "aten::add.Scalar_out", (ia[2:], 4, 1, Out(i32, (1,))), np.array([9], i32))
ok("sub", "aten::sub.out", (a, b, 1, like(a)), a - b)
ok("sub.Scalar", "aten::sub.Scalar_out", (a, 0.5, 1, like(a)), a - f32(0.5))
ok("rsub.Scalar", "aten::rsub.Scalar_out", (a, 2.0, 3, like(a)), f32(2.0) - f32(3) * a)
ok("mul", "aten::mul.out", (a, b, like(a)), a * b)
ok("mul-bcast-cl", "aten::mul.out", (T(x4, CL), r(5), Out(f32, x4.shape, CL)), None)
CASES[-1].expect = [x4 * CASES[-1].args[1]]
ok("mul.Scalar", "aten::mul.Scalar_out", (a, 3, like(a)), a * 3)
ok("div", "aten::div.out", (a, b, like(a)), a / b)
ok(
    "div-int-to-float",
    "aten::div.out",
    (np.array([7, -7], i64), np.array([2, 2], i64), Out(f32, (2,))),
    np.array([3.5, -3.5], f32),
)
ok(
    "div-by-zero-float",
    "aten::div.out",
    (np.array([1, -1, 0], f32), np.zeros(3, f32), Out(f32, (3,))),
    np.array([np.inf, -np.inf, np.nan], f32),
)
ok("div.Scalar", "aten::div.Scalar_out", (a, 4.0, like(a)), a / f32(4))
ok("div.mode-floor", "aten::div.out_mode", (a, b, "floor", like(a)), np.floor(a / b))
ok("div.mode-trunc", "aten::div.out_mode", (a, b, "trunc", like(a)), np.trunc(a / b))
ok("div.mode-none", "aten::div.out_mode", (a, b, None, like(a)), a / b)
bad("div.mode-bogus", "aten::div.out_mode", (a, b, "round", like(a)), r"argument 2 \(rounding_mode\) is 'round'")
nanv = np.array([1.0, np.nan, 3.0, -np.inf], f32)
other = np.array([2.0, 0.0, np.nan, 1.0], f32)
ok("maximum", "aten::maximum.out", (a, b, like(a)), np.maximum(a, b))
ok("maximum-nan", "aten::maximum.out", (nanv, other, like(nanv)), np.maximum(nanv, other))
ok("minimum", "aten::minimum.out", (a, b, like(a)), np.minimum(a, b))
ok("minimum-nan", "aten::minimum.out", (nanv, other, like(nanv)), np.minimum(nanv, other))
p = pos(3, 4)
ok("pow.Tensor_Scalar", "aten::pow.Tensor_Scalar_out", (p, 2.5, like(p)), p**2.5, rtol=1e-5)
ok("pow.Tensor_Scalar-sq", "aten::pow.Tensor_Scalar_out", (a, 2, like(a)), a * a)
ok("pow.Tensor_Tensor", "aten::pow.Tensor_Tensor_out", (p, a[0], like(p)), p ** a[0], rtol=1e-5)
ok(
    "pow.Tensor_Tensor-int",
    "aten::pow.Tensor_Tensor_out",
    (np.array([2, 3, -2], i64), np.array([10, 3, 3], i64), Out(i64, (3,))),
    np.array([1024, 27, -8], i64),
)
ok("pow.Scalar", "aten::pow.Scalar_out", (2.0, a[0], like(a[0])), np.power(f32(2), a[0]), rtol=1e-5)
num, den = r(4, 5, lo=-9, hi=9), r(4, 5, lo=-9, hi=9)
den[den == 0] = 1.5
ok("remainder", "aten::remainder.Tensor_out", (num, den, like(num)), np.remainder(num, den), atol=1e-5)
ok("remainder.Scalar", "aten::remainder.Scalar_out", (num, -2.5, like(num)), np.remainder(num, f32(-2.5)), atol=1e-5)
ni, di = np.array([7, -7, 7, -7, 0], i64), np.array([3, 3, -3, -3, 5], i64)
ok("remainder-int", "aten::remainder.Tensor_out", (ni, di, like(ni)), np.remainder(ni, di))
bad("remainder-int-zero", "aten::remainder.Tensor_out", (ni, np.zeros(5, i64), like(ni)), r"division by zero")
ok("fmod", "aten::fmod.Tensor_out", (num, den, like(num)), np.fmod(num, den), atol=1e-5)
ok("fmod-int", "aten::fmod.Tensor_out", (ni, di, like(ni)), np.fmod(ni, di))
ok("fmod.Scalar", "aten::fmod.Scalar_out", (ni, 4, like(ni)), np.fmod(ni, 4))
bad("fmod.Scalar-int-zero", "aten::fmod.Scalar_out", (ni, 0, like(ni)))
ok("floor_divide-int", "aten::floor_divide.out", (ni, di, like(ni)), np.floor_divide(ni, di))
ok("floor_divide", "aten::floor_divide.out", (num, den, like(num)), np.floor_divide(num, den))
ok("atan2", "aten::atan2.out", (a, b, like(a)), np.arctan2(a, b))

# Comparisons and logic.
ca, cb = r(3, 4, lo=-2, hi=2, dtype=i64).astype(f32), r(3, 4, lo=-2, hi=2, dtype=i64).astype(f32)
for name, fn in [
    ("eq", np.equal),
    ("ne", np.not_equal),
    ("lt", np.less),
    ("le", np.less_equal),
    ("gt", np.greater),
    ("ge", np.greater_equal),
]:
    ok(f"{name}.Tensor", f"aten::{name}.Tensor_out", (ca, cb, Out(b8, ca.shape)), fn(ca, cb))
    ok(f"{name}.Scalar", f"aten::{name}.Scalar_out", (ca, 1, Out(b8, ca.shape)), fn(ca, 1))
    ok(
        f"{name}.Tensor-int-bcast",
        f"aten::{name}.Tensor_out",
        (ca.astype(i64), cb[0].astype(i64), Out(b8, ca.shape)),
        fn(ca, cb[0]),
    )
ok("eq.Tensor-nan", "aten::eq.Tensor_out", (nanv, nanv, Out(b8, (4,))), nanv == nanv)
ok(
    "lt.Scalar-float-on-int",
    "aten::lt.Scalar_out",
    (np.array([0, 1, 2], i64), 1.5, Out(b8, (3,))),
    np.array([True, True, False]),
)
ba, bb = r(3, 4, dtype=b8), r(3, 4, dtype=b8)
ok("logical_not", "aten::logical_not.out", (ba, like(ba)), ~ba)
ok(
    "logical_not-float",
    "aten::logical_not.out",
    (np.array([0.0, 2.0, np.nan], f32), Out(b8, (3,))),
    np.array([True, False, False]),
)
ok("logical_and", "aten::logical_and.out", (ba, bb, like(ba)), ba & bb)
ok("logical_or", "aten::logical_or.out", (ba, bb, like(ba)), ba | bb)
ok("logical_xor", "aten::logical_xor.out", (ba, ca, like(ba)), ba ^ (ca != 0))
ok("bitwise_and-bool", "aten::bitwise_and.Tensor_out", (ba, bb, like(ba)), ba & bb)
ok("bitwise_or-bool", "aten::bitwise_or.Tensor_out", (ba, bb, like(ba)), ba | bb)
ok("bitwise_xor-bool", "aten::bitwise_xor.Tensor_out", (ba, bb, like(ba)), ba ^ bb)
ok("bitwise_not-bool", "aten::bitwise_not.out", (ba, like(ba)), ~ba)
bi1, bi2 = r(3, 4, dtype=i64, lo=-100, hi=100), r(3, 4, dtype=i64, lo=-100, hi=100)
ok("bitwise_and-int", "aten::bitwise_and.Tensor_out", (bi1, bi2, like(bi1)), bi1 & bi2)
ok("bitwise_or-int", "aten::bitwise_or.Tensor_out", (bi1, bi2, like(bi1)), bi1 | bi2)
ok("bitwise_xor-int", "aten::bitwise_xor.Tensor_out", (bi1, bi2, like(bi1)), bi1 ^ bi2)
ok("bitwise_not-int", "aten::bitwise_not.out", (bi1.astype(i32), Out(i32, bi1.shape)), ~bi1.astype(i32))
ok("bitwise_not-u8", "aten::bitwise_not.out", (bi1.astype(u8), Out(u8, bi1.shape)), ~bi1.astype(u8))
ok("bitwise_and.Scalar", "aten::bitwise_and.Scalar_out", (bi1, 12, like(bi1)), bi1 & 12)
ok("bitwise_or.Scalar", "aten::bitwise_or.Scalar_out", (bi1, 12, like(bi1)), bi1 | 12)
ok("bitwise_xor.Scalar", "aten::bitwise_xor.Scalar_out", (bi1, 12, like(bi1)), bi1 ^ 12)
bad("bitwise_and-float", "aten::bitwise_and.Tensor_out", (a, b, like(a)), r"argument 0 has dtype Float, expected")
bad("bitwise_not-float", "aten::bitwise_not.out", (a, like(a)))
cond = r(2, 3, 4, dtype=b8)
ok("where", "aten::where.self_out", (cond, a, b, like(a)), np.where(cond, a, b))
ok("where-bcast", "aten::where.self_out", (cond[0], a, np.array(0.0, f32), like(a)), np.where(cond[0], a, 0))
ok(
    "where-int",
    "aten::where.self_out",
    (cond, bi1[:2, :3, None].repeat(4, 2), np.array(7, i64), Out(i64, a.shape)),
    np.where(cond, bi1[:2, :3, None].repeat(4, 2), 7),
)
# A row mask (one condition per row, broadcast along it: the safe softmax of exported attention) picks whole rows,
# in each element size.
row = np.array([[[True], [False], [True]], [[False], [True], [False]]])
for dt in (f32, np.float64, u8, np.int16):
    x, y = a.astype(dt), b.astype(dt)
    ok(f"where-rows-{np.dtype(dt).name}", "aten::where.self_out", (row, x, y, like(x)), np.where(row, x, y))
ok("logical_and-bcast", "aten::logical_and.out", (ba, bb[:1], like(ba)), ba & bb[:1])
ok("any-u8", "aten::any.out", (ba.astype(u8) * 3, 1, True, Out(b8, (3, 1))), ba.any(1, keepdims=True))
bad("where-float-cond", "aten::where.self_out", (a, a, b, like(a)), r"argument 0 \(condition\) has dtype Float")
mask = r(3, 4, dtype=b8)
ok("masked_fill", "aten::masked_fill.Scalar_out", (a, mask, -1e9, like(a)), np.where(mask, f32(-1e9), a))
ok(
    "masked_fill-inf",
    "aten::masked_fill.Scalar_out",
    (a, mask[0], float("-inf"), like(a)),
    np.where(mask[0], -np.inf, a),
)
bad("masked_fill-float-mask", "aten::masked_fill.Scalar_out", (a, a, 0.0, like(a)))
lo_t, hi_t = np.full((4,), -0.5, f32), np.array([0.5, 1.0, np.nan, 2.0], f32)
ok("clamp.Tensor", "aten::clamp.Tensor_out", (a, lo_t, hi_t, like(a)), np.minimum(np.maximum(a, lo_t), hi_t))
ok("clamp.Tensor-min-only", "aten::clamp.Tensor_out", (a, lo_t, None, like(a)), np.maximum(a, lo_t))
bad("clamp.Tensor-none", "aten::clamp.Tensor_out", (a, None, None, like(a)))

# Int8 / int16 / uint8 have no typed loops: they take the converting loop, which must wrap like the typed ones.
for _dt in (np.int8, np.int16, u8):
    _info = np.iinfo(_dt)
    _x = np.array([[_info.min, _info.max, 0, 7], [-3 if _info.min else 3, 100, _info.max - 1, 1]], _dt)
    _y = np.array([[1, 2, _info.max, -1 if _info.min else 9], [5, 3, 2, _info.max]], _dt)
    _n = np.dtype(_dt).name
    with np.errstate(over="ignore"):
        ok(f"add-{_n}-wraps", "aten::add.out", (_x, _y, 1, like(_x)), _x + _y)
        ok(f"sub-{_n}-wraps", "aten::sub.out", (_x, _y, 1, like(_x)), _x - _y)
        ok(f"mul-{_n}-wraps", "aten::mul.out", (_x, _y[:1], like(_x)), _x * _y[:1])
        ok(f"neg-{_n}", "aten::neg.out", (_x, like(_x)), -_x)
        ok(f"abs-{_n}", "aten::abs.out", (_x, like(_x)), np.abs(_x))
    ok(f"floor_divide-{_n}", "aten::floor_divide.out", (_x, _y, like(_x)), np.floor_divide(_x, _y))
    ok(f"remainder-{_n}", "aten::remainder.Tensor_out", (_x, _y, like(_x)), np.remainder(_x, _y))
    ok(f"maximum-{_n}", "aten::maximum.out", (_x, _y, like(_x)), np.maximum(_x, _y))
    ok(f"lt-{_n}", "aten::lt.Tensor_out", (_x, _y, Out(b8, _x.shape)), _x < _y)
    ok(f"bitwise_xor-{_n}", "aten::bitwise_xor.Tensor_out", (_x, _y, like(_x)), _x ^ _y)
    ok(f"bitwise_not-{_n}", "aten::bitwise_not.out", (_x, like(_x)), ~_x)

# ---------------------------------------------------------------------------------------------------------------
# Unary.
u = r(3, 5, lo=-3, hi=3)
u[0, :3] = [np.nan, np.inf, -np.inf]
with np.errstate(all="ignore"):
    un = {
        "abs": np.abs(u),
        "neg": -u,
        "relu": np.maximum(u, 0) if False else np.where(u > 0, u, np.where(np.isnan(u), u, 0)),
        "exp": np.exp(u),
        "tanh": np.tanh(u),
        "sigmoid": 1 / (1 + np.exp(-u)),
        "silu": u / (1 + np.exp(-u)),
        "sin": np.sin(u),
        "cos": np.cos(u),
        "erf": _erf(u).astype(f32),
        "floor": np.floor(u),
        "ceil": np.ceil(u),
        "round": np.round(u),
        "trunc": np.trunc(u),
        "atan": np.arctan(u),
        "sinh": np.sinh(u),
        "asinh": np.arcsinh(u),
        "expm1": np.expm1(u),
        "tan": np.tan(u),
        "cosh": np.cosh(u),
        "hardswish": u * np.clip(u + 3, 0, 6) / 6,
        "hardsigmoid": np.clip(u + 3, 0, 6) / 6,
        "reciprocal": 1 / u,
        "sign": np.sign(u),
    }
    for name, ref in un.items():
        ok(name, f"aten::{name}.out", (u, like(u)), ref.astype(f32), rtol=2e-5, atol=1e-6)
    pu = pos(3, 5)
    pu[0, 0] = 0.0
    for name, fn in [
        ("log", np.log),
        ("sqrt", np.sqrt),
        ("log2", np.log2),
        ("log10", np.log10),
        ("log1p", np.log1p),
        ("acosh", np.arccosh),
    ]:
        ok(
            name,
            f"aten::{name}.out",
            (pu + (1 if name == "acosh" else 0), like(pu)),
            fn(pu + (1 if name == "acosh" else 0)),
            rtol=2e-5,
        )
    ok("rsqrt", "aten::rsqrt.out", (pu, like(pu)), 1 / np.sqrt(pu), rtol=2e-5)
    ok("log-negative-nan", "aten::log.out", (np.array([-1.0], f32), Out(f32, (1,))), np.array([np.nan], f32))
    uu = r(3, 5, lo=-0.99, hi=0.99)
    for name, fn in [("asin", np.arcsin), ("acos", np.arccos), ("atanh", np.arctanh)]:
        ok(name, f"aten::{name}.out", (uu, like(uu)), fn(uu), rtol=2e-5)
ok(
    "exp-int-to-float",
    "aten::exp.out",
    (np.array([0, 1, 2], i64), Out(f32, (3,))),
    np.exp(np.array([0, 1, 2])).astype(f32),
)
ok("exp-channels-last", "aten::exp.out", (T(x4, CL), Out(f32, x4.shape, CL)), np.exp(x4), rtol=2e-5)
ok("exp-f64", "aten::exp.out", (u.astype(f64), Out(f64, u.shape)), np.exp(u.astype(f64)), rtol=1e-12)
ok("abs-int", "aten::abs.out", (bi1, like(bi1)), np.abs(bi1))
ok("neg-int", "aten::neg.out", (bi1, like(bi1)), -bi1)
ok("relu-int", "aten::relu.out", (bi1, like(bi1)), np.maximum(bi1, 0))
ok("sign-int", "aten::sign.out", (bi1, like(bi1)), np.sign(bi1))
bad("exp-empty-wrong-rank", "aten::exp.out", (r(0, 3), Out(f32, (3,))))
ok("exp-empty", "aten::exp.out", (r(0, 3), Out(f32, (0, 3))), np.zeros((0, 3), f32))
ok("clamp", "aten::clamp.out", (u, -1.0, 1.5, like(u)), np.clip(u, -1, 1.5))
ok("clamp-min-only", "aten::clamp.out", (u, 0.0, None, like(u)), np.where(np.isnan(u), u, np.maximum(u, 0)))
ok("clamp-int", "aten::clamp.out", (bi1, -5, 5, like(bi1)), np.clip(bi1, -5, 5))
ok("hardtanh", "aten::hardtanh.out", (u, -1.0, 1.0, like(u)), np.clip(u, -1, 1))
ok("hardtanh-relu6", "aten::hardtanh.out", (u, 0.0, 6.0, like(u)), np.clip(u, 0, 6))
ok("leaky_relu", "aten::leaky_relu.out", (u, 0.01, like(u)), np.where(u > 0, u, u * f32(0.01)))
ok("elu", "aten::elu.out", (u, 1.0, 1.0, 1.0, like(u)), np.where(u > 0, u, np.expm1(u)), rtol=2e-5)
# Wide range (the float exp is computed without libm): large magnitudes, the overflow / underflow edges, +-inf
# and NaN, and values near 0 where elu's expm1 must keep relative precision.
wide = np.concatenate(
    [
        r(400, lo=-100, hi=100),
        r(200, lo=-0.3, hi=0.3),
        np.array([0, -0.0, 1e-8, -1e-8, 88.5, 88.8, -87.2, -87.5, -104, np.inf, -np.inf, np.nan], f32),
    ]
).astype(f32)
with np.errstate(over="ignore", invalid="ignore"):
    ok(
        "sigmoid-wide",
        "aten::sigmoid.out",
        (wide, like(wide)),
        (1 / (1 + np.exp(-wide.astype(f64)))).astype(f32),
        rtol=2e-5,
        atol=1e-6,
    )
    ok(
        "silu-wide",
        "aten::silu.out",
        (wide[:-3], like(wide[:-3])),
        (wide[:-3] / (1 + np.exp(-wide[:-3].astype(f64)))).astype(f32),
        rtol=2e-5,
        atol=1e-6,
    )
    ok(
        "elu-wide",
        "aten::elu.out",
        (wide, 1.0, 1.0, 1.0, like(wide)),
        np.where(wide > 0, wide, np.expm1(wide.astype(f64))).astype(f32),
        rtol=2e-5,
        atol=1e-6,
    )
ok(
    "elu-params",
    "aten::elu.out",
    (u, 0.5, 2.0, 1.5, like(u)),
    np.where(u > 0, 2 * u, 2 * 0.5 * np.expm1(1.5 * u)),
    rtol=2e-5,
)
gx = r(4, 6, lo=-4, hi=4)
ok(
    "gelu",
    "aten::gelu.out",
    (gx, "none", like(gx)),
    (0.5 * gx * (1 + _erf(gx / np.sqrt(2)))).astype(f32),
    rtol=1e-5,
    atol=1e-6,
)
ok(
    "gelu-tanh",
    "aten::gelu.out",
    (gx, "tanh", like(gx)),
    (0.5 * gx * (1 + np.tanh(np.sqrt(2 / np.pi) * (gx + 0.044715 * gx**3)))).astype(f32),
    rtol=1e-5,
    atol=1e-6,
)
bad("gelu-bogus", "aten::gelu.out", (gx, "fast", like(gx)), r"argument 1 \(approximate\) is 'fast'")
lg = rng.uniform(0.01, 0.99, (3, 4)).astype(f32)
ok("logit", "aten::logit.out", (lg, None, like(lg)), np.log(lg / (1 - lg)), rtol=1e-5)
ok(
    "logit-eps",
    "aten::logit.out",
    (np.array([0.0, 1.0, 0.5], f32), 1e-3, Out(f32, (3,))),
    np.log(np.array([1e-3, 0.999, 0.5]) / (1 - np.array([1e-3, 0.999, 0.5]))).astype(f32),
    rtol=1e-4,
)
gl = r(2, 6, 3)
ok("glu", "aten::glu.out", (gl, 1, Out(f32, (2, 3, 3))), gl[:, :3] / (1 + np.exp(-gl[:, 3:])), rtol=1e-5)
bad("glu-odd-dim", "aten::glu.out", (r(2, 5), -1, Out(f32, (2, 2))), r"its size 5 at dim 1 must be even")

# ---------------------------------------------------------------------------------------------------------------
# Reductions.
rx = r(3, 4, 5)
ok("sum", "aten::sum.IntList_out", (rx, Ints([1]), False, None, Out(f32, (3, 5))), rx.sum(1), rtol=1e-5)
ok(
    "sum-keepdim-multi",
    "aten::sum.IntList_out",
    (rx, Ints([0, -1]), True, None, Out(f32, (1, 4, 1))),
    rx.sum((0, 2), keepdims=True),
    rtol=1e-5,
)
ok("sum-all", "aten::sum.IntList_out", (rx, None, False, None, Out(f32, ())), np.array(rx.sum(), f32), rtol=1e-5)
ok("sum-int", "aten::sum.IntList_out", (bi1, Ints([0]), False, None, Out(i64, (4,))), bi1.sum(0))
ok("sum-bool-to-long", "aten::sum.IntList_out", (ba, Ints([1]), False, None, Out(i64, (3,))), ba.sum(1))
ok("sum-empty", "aten::sum.IntList_out", (r(0, 3), Ints([0]), False, None, Out(f32, (3,))), np.zeros(3, f32))
ok(
    "sum-channels-last",
    "aten::sum.IntList_out",
    (T(x4, CL), Ints([1]), False, None, Out(f32, (2, 4, 5))),
    x4.sum(1),
    rtol=1e-5,
)
bad("sum-dup-dims", "aten::sum.IntList_out", (rx, Ints([1, 1]), False, None, Out(f32, (3, 5))))
bad(
    "sum-bad-dim",
    "aten::sum.IntList_out",
    (rx, Ints([3]), False, None, Out(f32, (3, 4))),
    r"dim 3 \(argument 1\) is out of range for a 3-d tensor",
)
ok("mean", "aten::mean.out", (rx, Ints([-1]), True, None, Out(f32, (3, 4, 1))), rx.mean(-1, keepdims=True), rtol=1e-5)
ok("mean-nan", "aten::mean.out", (nanv, Ints([0]), False, None, Out(f32, ())), np.array(np.nan, f32))
bad("mean-int-out", "aten::mean.out", (bi1, Ints([0]), False, None, Out(i64, (4,))))


def seq_sum(x: np.ndarray, axis: int) -> np.ndarray:
    """Sums float32 `x` along `axis` one element after another in float32, from zero: how upstream's portable
    sum / mean / avg_pool2d / _adaptive_avg_pool2d accumulate (np.add.accumulate adds sequentially, unlike sum)."""
    return np.add.accumulate(x, axis=axis, dtype=f32).take(-1, axis=axis)


def exact_float_case(id: str, op: str, args: tuple[Any, ...], ref: np.ndarray, wide: np.ndarray) -> None:
    # `ref` accumulates in float32 in upstream's order; `wide` is the same reduction accumulated in float64. The
    # case only counts where the two differ somewhere, so a kernel that sums in double (or in another order) fails.
    assert (ref != wide.astype(f32)).any(), id
    ok(id, op, args, ref, rtol=0, atol=0)


# Large and small magnitudes mixed, so the order and width of the accumulation show in the last bits.
ax = (r(3, 40, 6, 7) * np.exp2(r(3, 40, 6, 7, lo=-8, hi=8))).astype(f32)
exact_float_case(
    "mean-float32-accumulation-trailing",
    "aten::mean.out",
    (ax, Ints([2, 3]), False, None, Out(f32, (3, 40))),
    seq_sum(ax.reshape(3, 40, 42), -1) / f32(42),
    ax.astype(f64).mean((2, 3)),
)
exact_float_case(
    "mean-float32-accumulation-inner-dim",
    "aten::mean.out",
    (ax, Ints([1]), True, None, Out(f32, (3, 1, 6, 7))),
    (seq_sum(ax, 1) / f32(40))[:, None],
    ax.astype(f64).mean(1, keepdims=True),
)
exact_float_case(
    "sum-float32-accumulation-inner-dim",
    "aten::sum.IntList_out",
    (ax, Ints([1]), False, None, Out(f32, (3, 6, 7))),
    seq_sum(ax, 1),
    ax.astype(f64).sum(1),
)
ok(
    "sum-float-to-long-truncates-each",
    "aten::sum.IntList_out",
    (np.array([[0.5, 0.75, 1.5], [-0.5, 2.9, -1.9]], f32), Ints([1]), False, None, Out(i64, (2,))),
    np.array([1, 1], i64),
)

ok("amax", "aten::amax.out", (rx, Ints([1]), False, Out(f32, (3, 5))), rx.max(1))
ok("amax-nan", "aten::amax.out", (nanv, Ints([0]), False, Out(f32, ())), np.array(np.nan, f32))
ok("amin", "aten::amin.out", (rx, Ints([0, 2]), True, Out(f32, (1, 4, 1))), rx.min((0, 2), keepdims=True))
ok("amin-int", "aten::amin.out", (bi1, Ints([1]), False, Out(i64, (3,))), bi1.min(1))
bad("amax-empty-dim", "aten::amax.out", (r(0, 3), Ints([0]), False, Out(f32, (3,))))
ok("argmax", "aten::argmax.out", (rx, 2, False, Out(i64, (3, 4))), rx.argmax(2))
ok("argmax-flat", "aten::argmax.out", (rx, None, False, Out(i64, ())), np.array(rx.argmax(), i64))
ok("argmin", "aten::argmin.out", (rx, 0, True, Out(i64, (1, 4, 5))), rx.argmin(0)[None])
ok("argmax-nan", "aten::argmax.out", (nanv, 0, False, Out(i64, ())), np.array(1, i64))
bad("argmax-float-out", "aten::argmax.out", (rx, 0, False, Out(f32, (4, 5))))
ok("max.dim", "aten::max.dim_max", (rx, 1, False, Out(f32, (3, 5)), Out(i64, (3, 5))), rx.max(1), rx.argmax(1))
ok(
    "min.dim-keepdim",
    "aten::min.dim_min",
    (rx, -1, True, Out(f32, (3, 4, 1)), Out(i64, (3, 4, 1))),
    rx.min(-1, keepdims=True),
    rx.argmin(-1)[..., None],
)
ok("any", "aten::any.out", (ba, 1, False, Out(b8, (3,))), ba.any(1))
ok("any.dims", "aten::any.dims_out", (ca, Ints([0]), True, Out(b8, (1, 4))), (ca != 0).any(0, keepdims=True))
ok("any.all", "aten::any.all_out", (ba, Out(b8, ())), np.array(ba.any()))
ok("any.all-empty", "aten::any.all_out", (np.zeros((0,), b8), Out(b8, ())), np.array(False))
ok(
    "var.correction",
    "aten::var.correction_out",
    (rx, Ints([1]), None, False, Out(f32, (3, 5))),
    rx.var(1, ddof=1),
    rtol=1e-5,
)
ok(
    "var.correction-0",
    "aten::var.correction_out",
    (rx, Ints([0, 2]), 0, True, Out(f32, (1, 4, 1))),
    rx.var((0, 2), keepdims=True),
    rtol=1e-5,
)
ok("var", "aten::var.out", (rx, Ints([2]), False, False, Out(f32, (3, 4))), rx.var(2), rtol=1e-5)
ok("cumsum", "aten::cumsum.out", (rx, 1, None, like(rx)), np.cumsum(rx, 1), rtol=1e-5, atol=1e-5)
ok("cumsum-int-to-long", "aten::cumsum.out", (bi1.astype(i32), -1, None, Out(i64, bi1.shape)), np.cumsum(bi1, -1))
ok(
    "cumsum-cl",
    "aten::cumsum.out",
    (T(x4, CL), 3, None, Out(f32, x4.shape, CL)),
    np.cumsum(x4, 3),
    rtol=1e-5,
    atol=1e-5,
)
sm = r(2, 3, 7, lo=-5, hi=5)
sm_ref = np.exp(sm - sm.max(-1, keepdims=True))
sm_ref /= sm_ref.sum(-1, keepdims=True)
ok("softmax", "aten::_softmax.out", (sm, -1, False, like(sm)), sm_ref, rtol=1e-5)
sm1 = np.exp(sm - sm.max(1, keepdims=True))
ok("softmax-dim1", "aten::_softmax.out", (sm, 1, False, like(sm)), sm1 / sm1.sum(1, keepdims=True), rtol=1e-5)
ok(
    "softmax-masked-inf",
    "aten::_softmax.out",
    (np.array([[0.0, -np.inf, 1.0]], f32), 1, False, Out(f32, (1, 3))),
    np.array([[1 / (1 + np.e), 0, np.e / (1 + np.e)]], f32),
    rtol=1e-5,
)
ok("log_softmax", "aten::_log_softmax.out", (sm, 2, False, like(sm)), np.log(sm_ref), rtol=1e-5, atol=1e-5)
bad("softmax-half-to-float", "aten::_softmax.out", (sm, 2, True, like(sm)))
bad("softmax-int", "aten::_softmax.out", (bi1, 1, False, like(bi1)), r"argument 0 has dtype Long")
tk = rng.permutation(60).astype(f32).reshape(3, 4, 5)
srt = -np.sort(-tk, axis=-1)[..., :2]
ok(
    "topk",
    "aten::topk.values",
    (tk, 2, -1, True, True, Out(f32, (3, 4, 2)), Out(i64, (3, 4, 2))),
    srt,
    np.argsort(-tk, axis=-1)[..., :2],
)
ok(
    "topk-smallest-dim0",
    "aten::topk.values",
    (tk, 3, 0, False, True, Out(f32, (3, 4, 5)), Out(i64, (3, 4, 5))),
    np.sort(tk, 0),
    np.argsort(tk, 0),
)
bad(
    "topk-k-too-big",
    "aten::topk.values",
    (tk, 6, -1, True, True, Out(f32, (3, 4, 6)), Out(i64, (3, 4, 6))),
    r"k 6 \(argument 1\) is out of range \[0, 5\]",
)

# ---------------------------------------------------------------------------------------------------------------
# Shape and copy.
sx = r(2, 3, 4)
ok("permute", "aten::permute_copy.out", (sx, Ints([2, 0, 1]), Out(f32, (4, 2, 3))), sx.transpose(2, 0, 1))
ok(
    "permute-cl-in",
    "aten::permute_copy.out",
    (T(x4, CL), Ints([0, 2, 3, 1]), Out(f32, (2, 4, 5, 3))),
    x4.transpose(0, 2, 3, 1),
)
bad("permute-dup", "aten::permute_copy.out", (sx, Ints([0, 0, 1]), Out(f32, (2, 2, 3))))
ok("transpose", "aten::transpose_copy.int_out", (sx, 0, -1, Out(f32, (4, 3, 2))), sx.swapaxes(0, -1))
ok("t", "aten::t_copy.out", (sx[0], Out(f32, (4, 3))), sx[0].T)
ok("view", "aten::view_copy.out", (sx, Ints([6, -1]), Out(f32, (6, 4))), sx.reshape(6, 4))
ok("view-cl", "aten::view_copy.out", (T(x4, CL), Ints([2, -1]), Out(f32, (2, 60))), x4.reshape(2, 60))
bad(
    "view-bad-numel",
    "aten::view_copy.out",
    (sx, Ints([5, 5]), Out(f32, (5, 5))),
    r"\[5, 5\] has 25 elements, argument 0 \(shape \[2, 3, 4\]\) has 24",
)
bad("view-two-infer", "aten::view_copy.out", (sx, Ints([-1, -1]), Out(f32, (6, 4))))
s1 = r(2, 1, 3, 1)
ok("squeeze.dims", "aten::squeeze_copy.dims_out", (s1, Ints([1, 3]), Out(f32, (2, 3))), s1.reshape(2, 3))
ok("squeeze.dim", "aten::squeeze_copy.dim_out", (s1, 1, Out(f32, (2, 3, 1))), s1.reshape(2, 3, 1))
ok("squeeze", "aten::squeeze_copy.out", (s1, Out(f32, (2, 3))), s1.reshape(2, 3))
ok("unsqueeze", "aten::unsqueeze_copy.out", (sx, -1, Out(f32, (2, 3, 4, 1))), sx[..., None])
ok("select", "aten::select_copy.int_out", (sx, 1, -1, Out(f32, (2, 4))), sx[:, -1])
bad("select-oob", "aten::select_copy.int_out", (sx, 1, 3, Out(f32, (2, 4))))
ok("slice-step", "aten::slice_copy.Tensor_out", (sx, 2, 1, None, 2, Out(f32, (2, 3, 2))), sx[:, :, 1::2])
ok("slice-neg-clamp", "aten::slice_copy.Tensor_out", (sx, 0, -10, 100, 1, Out(f32, (2, 3, 4))), sx)
ok("slice-empty", "aten::slice_copy.Tensor_out", (sx, 1, 2, 1, 1, Out(f32, (2, 0, 4))), sx[:, 2:1])
bad("slice-step0", "aten::slice_copy.Tensor_out", (sx, 1, 0, 2, 0, Out(f32, (2, 2, 4))))
ok("cat", "aten::cat.out", (TL((sx, sx[:, :1])), 1, Out(f32, (2, 4, 4))), np.concatenate([sx, sx[:, :1]], 1))
ok("cat-legacy-empty", "aten::cat.out", (TL((sx, np.zeros((0,), f32))), 0, Out(f32, (2, 3, 4))), sx)
ok("cat-cl-out", "aten::cat.out", (TL((x4, x4)), 1, Out(f32, (2, 6, 4, 5), CL)), np.concatenate([x4, x4], 1))
ok("cat-int", "aten::cat.out", (TL((bi1, bi1)), -1, Out(i64, (3, 8))), np.concatenate([bi1, bi1], -1))
bad(
    "cat-mismatch",
    "aten::cat.out",
    (TL((sx, r(2, 2, 3))), 1, Out(f32, (2, 5, 4))),
    r"argument 0 have shapes \[2, 3, 4\] and \[2, 2, 3\]",
)
ok(
    "split_with_sizes",
    "aten::split_with_sizes_copy.out",
    (sx, Ints([1, 3]), 2, OutList((Out(f32, (2, 3, 1)), Out(f32, (2, 3, 3))))),
    sx[:, :, :1],
    sx[:, :, 1:],
)
bad(
    "split_with_sizes-bad-sum",
    "aten::split_with_sizes_copy.out",
    (sx, Ints([1, 2]), 2, OutList((Out(f32, (2, 3, 1)), Out(f32, (2, 3, 2))))),
)
ok(
    "split",
    "aten::split_copy.Tensor_out",
    (sx, 2, 1, OutList((Out(f32, (2, 2, 4)), Out(f32, (2, 1, 4))))),
    sx[:, :2],
    sx[:, 2:],
)
ok(
    "unbind",
    "aten::unbind_copy.int_out",
    (sx, 1, OutList(tuple(Out(f32, (2, 4)) for _ in range(3)))),
    sx[:, 0],
    sx[:, 1],
    sx[:, 2],
)
ok(
    "expand",
    "aten::expand_copy.out",
    (sx[:, :1], Ints([5, 2, 3, 4]), False, Out(f32, (5, 2, 3, 4))),
    np.broadcast_to(sx[:, :1], (5, 2, 3, 4)),
)
ok(
    "expand-minus1",
    "aten::expand_copy.out",
    (sx[:, :1], Ints([-1, 3, -1]), False, Out(f32, (2, 3, 4))),
    np.broadcast_to(sx[:, :1], (2, 3, 4)),
)
bad("expand-bad", "aten::expand_copy.out", (sx, Ints([2, 5, 4]), False, Out(f32, (2, 5, 4))))
ok("clone", "aten::clone.out", (sx, None, like(sx)), sx)
ok("clone-to-cl", "aten::clone.out", (x4, None, Out(f32, x4.shape, CL)), x4)
ok("alias_copy", "aten::alias_copy.out", (sx, like(sx)), sx)
ok("detach_copy", "aten::detach_copy.out", (bi1, like(bi1)), bi1)
ok("lift_fresh_copy", "aten::lift_fresh_copy.out", (sx, like(sx)), sx)
ok("to_copy", "aten::_to_copy.out", (sx, False, None, Out(i32, sx.shape)), sx.astype(i32))
ok("to_copy-nan-to-int", "aten::_to_copy.out", (nanv, False, None, Out(i64, (4,))), None)
CASES[-1].expect = None  # NaN/inf -> int is undefined in PyTorch; checked separately: it must not crash
CASES.pop()
ok(
    "to_copy-bool",
    "aten::_to_copy.out",
    (np.array([0.0, 0.5, -2.0], f32), False, None, Out(b8, (3,))),
    np.array([False, True, True]),
)
ok("to_dim_order_copy", "dim_order_ops::_to_dim_order_copy.out", (x4, False, Ints(CL), Out(f32, x4.shape, CL)), x4)
ok(
    "to_dim_order_copy-back",
    "dim_order_ops::_to_dim_order_copy.out",
    (T(x4, CL), False, Ints([0, 1, 2, 3]), Out(f32, x4.shape)),
    x4,
)
bad("to_dim_order_copy-mismatch", "dim_order_ops::_to_dim_order_copy.out", (x4, False, Ints(CL), Out(f32, x4.shape)))
ok("clone_dim_order", "dim_order_ops::_clone_dim_order.out", (T(x4, CL), False, None, Out(f32, x4.shape, CL)), x4)
ok("full_like", "aten::full_like.out", (sx, 2.5, None, like(sx)), np.full(sx.shape, 2.5, f32))
ok("full_like-int", "aten::full_like.out", (bi1, 7, None, like(bi1)), np.full(bi1.shape, 7, i64))
# Not the schema (out is the 4th argument): a 7-argument "long form" with out last must be rejected.
bad("full_like-long-form", "aten::full_like.out", (sx, 2.5, None, None, None, None, like(sx)))
bad("full_like-bad-memory-format", "aten::full_like.out", (sx, 2.5, 1.5, like(sx)))
ok("full", "aten::full.out", (Ints([2, 3]), -1.0, Out(f32, (2, 3))), np.full((2, 3), -1, f32))
ok("full-bool", "aten::full.out", (Ints([2]), True, Out(b8, (2,))), np.ones(2, b8))
ok("zeros", "aten::zeros.out", (Ints([2, 3]), Out(f32, (2, 3))), np.zeros((2, 3), f32))
ok("ones", "aten::ones.out", (Ints([4]), Out(i64, (4,))), np.ones(4, i64))
ok("scalar_tensor", "aten::scalar_tensor.out", (3.5, Out(f32, ())), np.array(3.5, f32))
ok("arange", "aten::arange.out", (5, Out(i64, (5,))), np.arange(5))
ok("arange-float", "aten::arange.start_out", (0.0, 1.0, 0.25, Out(f32, (4,))), np.arange(0, 1, 0.25, dtype=f32))
ok("arange-neg-step", "aten::arange.start_out", (10, 0, -3, Out(i64, (4,))), np.arange(10, 0, -3))
ok("arange-dynamic", "aten::arange.start_out", (2, 5, 1, Out(i64, (16,), dynamic=True)), np.arange(2, 5))
bad("arange-zero-step", "aten::arange.start_out", (0, 5, 0, Out(i64, (5,))))
bad("arange-wrong-size", "aten::arange.out", (5, Out(i64, (4,))))
emb_w = r(10, 4)
ids = np.array([[1, 9, 0], [3, 3, 2]], i64)
ok("embedding", "aten::embedding.out", (emb_w, ids, -1, False, False, Out(f32, (2, 3, 4))), emb_w[ids])
ok(
    "embedding-int32",
    "aten::embedding.out",
    (emb_w, ids.astype(i32), -1, False, False, Out(f32, (2, 3, 4))),
    emb_w[ids],
)
bad(
    "embedding-oob",
    "aten::embedding.out",
    (emb_w, np.array([10], i64), -1, False, False, Out(f32, (1, 4))),
    r"indices \(argument 1\) hold 10, out of range for 10 rows",
)
bad("embedding-float-ids", "aten::embedding.out", (emb_w, ids.astype(f32), -1, False, False, Out(f32, (2, 3, 4))))
ok(
    "constant_pad",
    "aten::constant_pad_nd.out",
    (sx, Ints([1, 2, 0, 1]), 0.5, Out(f32, (2, 4, 7))),
    np.pad(sx, ((0, 0), (0, 1), (1, 2)), constant_values=0.5),
)
ok(
    "constant_pad-negative",
    "aten::constant_pad_nd.out",
    (sx, Ints([-1, 1]), 0, Out(f32, (2, 3, 4))),
    np.pad(sx[:, :, 1:], ((0, 0), (0, 0), (0, 1))),
)
bad("constant_pad-odd", "aten::constant_pad_nd.out", (sx, Ints([1]), 0, Out(f32, (2, 3, 5))))
ok("flip", "aten::flip.out", (sx, Ints([0, 2]), like(sx)), sx[::-1, :, ::-1])
ok("flip-cl", "aten::flip.out", (T(x4, CL), Ints([1]), like(x4)), x4[:, ::-1])
ok("roll", "aten::roll.out", (sx, Ints([1, -2]), Ints([1, 2]), like(sx)), np.roll(sx, (1, -2), (1, 2)))
ok("roll-flat", "aten::roll.out", (sx, Ints([5]), Ints([]), like(sx)), np.roll(sx, 5))
ok("repeat", "aten::repeat.out", (sx[0], Ints([2, 1, 3]), Out(f32, (2, 3, 12))), np.tile(sx[0], (2, 1, 3)))
bad("repeat-too-few", "aten::repeat.out", (sx, Ints([2]), Out(f32, (2, 3, 8))))
sq = r(2, 4, 5)
ok("triu", "aten::triu.out", (sq, 1, like(sq)), np.triu(sq, 1))
ok("tril", "aten::tril.out", (sq, 0, like(sq)), np.tril(sq))
ok("tril-bool-mask", "aten::tril.out", (np.ones((4, 4), b8), -1, Out(b8, (4, 4))), np.tril(np.ones((4, 4), b8), -1))
bad("triu-1d", "aten::triu.out", (sq[0, 0], 0, like(sq[0, 0])))
ok("stack", "aten::stack.out", (TL((sx, sx * 2)), 1, Out(f32, (2, 2, 3, 4))), np.stack([sx, sx * 2], 1))
bad("stack-mismatch", "aten::stack.out", (TL((sx, sx[0])), 0, Out(f32, (2, 2, 3, 4))))

# Indexing.
ix = r(4, 5, 6)
ii = np.array([3, 0, -1], i64)
ok("index-1", "aten::index.Tensor_out", (ix, TL((ii,), opt=True), Out(f32, (3, 5, 6))), ix[ii])
ok("index-none-first", "aten::index.Tensor_out", (ix, TL((None, ii), opt=True), Out(f32, (4, 3, 6))), ix[:, ii])
ok(
    "index-two-adjacent",
    "aten::index.Tensor_out",
    (ix, TL((None, np.array([[0], [4]], i64), np.array([1, 2, 5], i64)), opt=True), Out(f32, (4, 2, 3))),
    ix[:, np.array([[0], [4]]), np.array([1, 2, 5])],
)
ok("index-non-adjacent", "aten::index.Tensor_out", (ix, TL((ii, None, ii), opt=True), Out(f32, (3, 5))), ix[ii, :, ii])
bm = ix[:, 0, 0] > 0
ok("index-bool", "aten::index.Tensor_out", (ix, TL((bm,), opt=True), Out(f32, (4, 5, 6), dynamic=True)), ix[bm])
bad(
    "index-oob",
    "aten::index.Tensor_out",
    (ix, TL((np.array([4], i64),), opt=True), Out(f32, (1, 5, 6))),
    r"indices \(argument 1\) hold 4, out of range for size 4",
)
bad("index-float", "aten::index.Tensor_out", (ix, TL((np.array([1.0], f32),), opt=True), Out(f32, (1, 5, 6))))
# index_put: out = self with out[indices] = values (broadcast), or += with accumulate (repeated indices add up).
ref_ip = ix.copy()
ref_ip[ii] = ix[0, :, :]
ok("index_put", "aten::index_put.out", (ix, TL((ii,), opt=True), ix[0], False, like(ix)), ref_ip)
ref_ipa = ix.copy()
np.add.at(ref_ipa, (slice(None), np.array([1, 1, 4])), 1.0)
ok(
    "index_put-accumulate-repeated",
    "aten::index_put.out",
    (ix, TL((None, np.array([1, 1, -1], i64)), opt=True), np.ones((1,), f32), True, like(ix)),
    ref_ipa,
)
# The KV-cache pattern of export_llama -kv: cache[:, :, input_pos] = k_new, in place.
kv = r(1, 2, 8, 4)
ref_kv = kv.copy()
ref_kv[:, :, [3, 4]] = 5.0
ok(
    "index_put-kv-cache",
    "aten::index_put.out",
    (kv, TL((None, None, np.array([3, 4], i64)), opt=True), np.full((1, 2, 2, 4), 5.0, f32), False, like(kv)),
    ref_kv,
)
bad(
    "index_put-values-shape",
    "aten::index_put.out",
    (ix, TL((ii,), opt=True), r(2, 5, 6), False, like(ix)),
    r"argument 2 \(values\) of shape \[2, 5, 6\] does not broadcast to the indexed shape \[3, 5, 6\]",
)
bad(
    "index_put-oob",
    "aten::index_put.out",
    (ix, TL((np.array([7], i64),), opt=True), ix[0], False, like(ix)),
    r"hold 7, out of range for size 4",
)
bad("index_put-dtype", "aten::index_put.out", (ix, TL((ii,), opt=True), ix[0].astype(i64), False, like(ix)))
# copy_ writes src (broadcast, converted) into self in place: self is the harness's first output here.
csrc = r(5, dtype=i64, lo=-9, hi=9)
ok("copy_", "aten::copy_", (Out(f32, (4, 5)), csrc, False, Out(f32, (4, 5))), np.broadcast_to(csrc, (4, 5)))
cs = r(1, 5)
ok("copy.out", "aten::copy.out", (r(4, 5), cs, False, Out(f32, (4, 5))), np.broadcast_to(cs, (4, 5)))
bad("copy.out-no-broadcast", "aten::copy.out", (r(4, 5), r(3, 5), False, Out(f32, (4, 5))), r"does not broadcast")
ok("index_select", "aten::index_select.out", (ix, 1, np.array([4, 0, 0], i64), Out(f32, (4, 3, 6))), ix[:, [4, 0, 0]])
bad("index_select-2d-index", "aten::index_select.out", (ix, 1, np.zeros((1, 1), i64), Out(f32, (4, 1, 6))))
gi = rng.integers(0, 5, (4, 3, 6)).astype(i64)
ok("gather", "aten::gather.out", (ix, 1, gi, False, Out(f32, gi.shape)), np.take_along_axis(ix, gi, 1))
bad("gather-oob", "aten::gather.out", (ix, 1, gi + 5, False, Out(f32, gi.shape)))
ok(
    "select_scatter",
    "aten::select_scatter.out",
    (ix, np.zeros((4, 6), f32), 1, 2, like(ix)),
    np.where(np.arange(5)[None, :, None] == 2, 0, ix).astype(f32),
)
ref_ss = ix.copy()
ref_ss[:, :, 1::2] = -1
ok("slice_scatter", "aten::slice_scatter.out", (ix, np.full((4, 5, 3), -1, f32), 2, 1, None, 2, like(ix)), ref_ss)
bad("slice_scatter-bad-src", "aten::slice_scatter.out", (ix, np.full((4, 5, 2), -1, f32), 2, 1, None, 2, like(ix)))

# ---------------------------------------------------------------------------------------------------------------
# Linear algebra.
ma, mb = r(5, 7), r(7, 3)
ok("mm", "aten::mm.out", (ma, mb, Out(f32, (5, 3))), ma @ mb, rtol=1e-4, atol=1e-5)
ok("mm-transposed-in", "aten::mm.out", (T(ma, (1, 0)), mb, Out(f32, (5, 3))), ma @ mb, rtol=1e-4, atol=1e-5)
bad("mm-mismatch", "aten::mm.out", (ma, ma, Out(f32, (5, 7))), r"shapes \[5, 7\] and \[5, 7\], expected \[M, K\]")
ba3, bb3 = r(2, 5, 7), r(2, 7, 3)
ok("bmm", "aten::bmm.out", (ba3, bb3, Out(f32, (2, 5, 3))), ba3 @ bb3, rtol=1e-4, atol=1e-5)
bias = r(3)
ok(
    "addmm",
    "aten::addmm.out",
    (bias, ma, mb, 0.5, 2.0, Out(f32, (5, 3))),
    0.5 * bias + 2.0 * (ma @ mb),
    rtol=1e-4,
    atol=1e-5,
)
lw = r(3, 7)
ok("linear", "aten::linear.out", (ba3, lw, bias, Out(f32, (2, 5, 3))), ba3 @ lw.T + bias, rtol=1e-4, atol=1e-5)
ok("linear-nobias", "aten::linear.out", (ma, lw, None, Out(f32, (5, 3))), ma @ lw.T, rtol=1e-4, atol=1e-5)


# ---------------------------------------------------------------------------------------------------------------
# Convolution and pooling (NumPy references, NCHW).
def conv2d_ref(
    x: np.ndarray,
    w: np.ndarray,
    bias: np.ndarray | None,
    stride: tuple[int, int],
    pad: tuple[int, int],
    dil: tuple[int, int],
    groups: int,
) -> np.ndarray:
    n, _, h, wd = x.shape
    cout, cig, kh, kw = w.shape
    xp = np.pad(x.astype(f64), ((0, 0), (0, 0), (pad[0], pad[0]), (pad[1], pad[1])))
    ho = (h + 2 * pad[0] - dil[0] * (kh - 1) - 1) // stride[0] + 1
    wo = (wd + 2 * pad[1] - dil[1] * (kw - 1) - 1) // stride[1] + 1
    y = np.zeros((n, cout, ho, wo))
    cog = cout // groups
    for g in range(groups):
        for i in range(kh):
            for j in range(kw):
                patch = xp[
                    :,
                    g * cig : (g + 1) * cig,
                    i * dil[0] : i * dil[0] + stride[0] * (ho - 1) + 1 : stride[0],
                    j * dil[1] : j * dil[1] + stride[1] * (wo - 1) + 1 : stride[1],
                ]
                y[:, g * cog : (g + 1) * cog] += np.einsum("nchw,oc->nohw", patch, w[g * cog : (g + 1) * cog, :, i, j])
    if bias is not None:
        y += bias[None, :, None, None]
    return y.astype(f32)


def conv_t2d_ref(
    x: np.ndarray, w: np.ndarray, stride: tuple[int, int], pad: tuple[int, int], opad: tuple[int, int]
) -> np.ndarray:
    n, _, h, wd = x.shape
    _, cout, kh, kw = w.shape
    ho = (h - 1) * stride[0] - 2 * pad[0] + kh + opad[0]
    wo = (wd - 1) * stride[1] - 2 * pad[1] + kw + opad[1]
    full = np.zeros((n, cout, (h - 1) * stride[0] + kh + opad[0], (wd - 1) * stride[1] + kw + opad[1]))
    for i in range(kh):
        for j in range(kw):
            full[:, :, i : i + stride[0] * (h - 1) + 1 : stride[0], j : j + stride[1] * (wd - 1) + 1 : stride[1]] += (
                np.einsum("nchw,co->nohw", x.astype(f64), w[:, :, i, j])
            )
    return full[:, :, pad[0] : pad[0] + ho, pad[1] : pad[1] + wo].astype(f32)


cx = r(2, 4, 9, 8)
cw = r(6, 4, 3, 3)
cb = r(6)
P = dict(rtol=1e-4, atol=1e-4)
ok(
    "conv2d",
    "aten::convolution.out",
    (cx, cw, cb, Ints([1, 1]), Ints([1, 1]), Ints([1, 1]), False, Ints([0, 0]), 1, Out(f32, (2, 6, 9, 8))),
    conv2d_ref(cx, cw, cb, (1, 1), (1, 1), (1, 1), 1),
    **P,
)
ok(
    "conv2d-stride-dil",
    "aten::convolution.out",
    (cx, cw, None, Ints([2, 2]), Ints([0, 1]), Ints([1, 2]), False, Ints([0, 0]), 1, Out(f32, (2, 6, 4, 3))),
    conv2d_ref(cx, cw, None, (2, 2), (0, 1), (1, 2), 1),
    **P,
)
ok(
    "conv2d-cl",
    "aten::convolution.out",
    (T(cx, CL), cw, cb, Ints([2, 2]), Ints([1, 1]), Ints([1, 1]), False, Ints([0, 0]), 1, Out(f32, (2, 6, 5, 4), CL)),
    conv2d_ref(cx, cw, cb, (2, 2), (1, 1), (1, 1), 1),
    **P,
)
gw = r(6, 2, 3, 3)
ok(
    "conv2d-groups",
    "aten::convolution.out",
    (cx, gw, cb, Ints([1, 1]), Ints([1, 1]), Ints([1, 1]), False, Ints([0, 0]), 2, Out(f32, (2, 6, 9, 8))),
    conv2d_ref(cx, gw, cb, (1, 1), (1, 1), (1, 1), 2),
    **P,
)
dw = r(4, 1, 3, 3)
ok(
    "conv2d-depthwise",
    "aten::convolution.out",
    (cx, dw, None, Ints([2, 2]), Ints([1, 1]), Ints([1, 1]), False, Ints([0, 0]), 4, Out(f32, (2, 4, 5, 4))),
    conv2d_ref(cx, dw, None, (2, 2), (1, 1), (1, 1), 4),
    **P,
)
dx = r(1, 4, 11, 10)
dw5 = r(8, 1, 5, 5)
dwb = r(8)
ok(
    "conv2d-depthwise-5x5-s2-mult",
    "aten::convolution.out",
    (dx, dw5, dwb, Ints([2, 2]), Ints([2, 2]), Ints([1, 1]), False, Ints([0, 0]), 4, Out(f32, (1, 8, 6, 5))),
    conv2d_ref(dx, dw5, dwb, (2, 2), (2, 2), (1, 1), 4),
    **P,
)
ok(
    "conv2d-depthwise-3x3-s1-nopad",
    "aten::convolution.out",
    (
        dx,
        dw5[:4, :, :3, :3].copy(),
        None,
        Ints([1, 1]),
        Ints([0, 0]),
        Ints([1, 1]),
        False,
        Ints([0, 0]),
        4,
        Out(f32, (1, 4, 9, 8)),
    ),
    conv2d_ref(dx, dw5[:4, :, :3, :3].copy(), None, (1, 1), (0, 0), (1, 1), 4),
    **P,
)
xd1 = r(2, 6, 13)
wd1 = r(6, 1, 3)
zb6 = np.zeros(6, f32)
ok(
    "conv1d-depthwise-pad",
    "aten::convolution.out",
    (xd1, wd1, zb6, Ints([1]), Ints([1]), Ints([1]), False, Ints([0]), 6, Out(f32, (2, 6, 13))),
    conv2d_ref(xd1[:, :, None], wd1[:, :, None], zb6, (1, 1), (0, 1), (1, 1), 6)[:, :, 0],
    **P,
)
x1 = r(2, 4, 16)
w1 = r(6, 2, 5)
ok(
    "conv1d-groups-stride",
    "aten::convolution.out",
    (x1, w1, cb, Ints([3]), Ints([2]), Ints([1]), False, Ints([0]), 2, Out(f32, (2, 6, 6))),
    conv2d_ref(x1[:, :, None], w1[:, :, None], cb, (1, 3), (0, 2), (1, 1), 2)[:, :, 0],
    **P,
)
tw = r(4, 3, 3, 3)
ok(
    "conv-transpose2d",
    "aten::convolution.out",
    (cx, tw, None, Ints([2, 2]), Ints([1, 1]), Ints([1, 1]), True, Ints([1, 0]), 1, Out(f32, (2, 3, 18, 15))),
    conv_t2d_ref(cx, tw, (2, 2), (1, 1), (1, 0)),
    **P,
)
bad(
    "conv-channel-mismatch",
    "aten::convolution.out",
    (cx, r(6, 3, 3, 3), None, Ints([1, 1]), Ints([0, 0]), Ints([1, 1]), False, Ints([0, 0]), 1, Out(f32, (2, 6, 7, 6))),
    r"argument 1 \(weight\) has shape \[6, 3, 3, 3\].*C_in/groups = 4",
)
bad(
    "conv-int",
    "aten::convolution.out",
    (
        cx.astype(i64),
        cw.astype(i64),
        None,
        Ints([1, 1]),
        Ints([0, 0]),
        Ints([1, 1]),
        False,
        Ints([0, 0]),
        1,
        Out(i64, (2, 6, 7, 6)),
    ),
)


def pool_windows(x: np.ndarray, k: tuple[int, int], s: tuple[int, int], p: tuple[int, int], fill: float) -> np.ndarray:
    xp = np.pad(x, ((0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])), constant_values=fill)
    ho = (x.shape[2] + 2 * p[0] - k[0]) // s[0] + 1
    wo = (x.shape[3] + 2 * p[1] - k[1]) // s[1] + 1
    win = np.empty((*x.shape[:2], ho, wo, k[0] * k[1]), x.dtype)
    for i in range(k[0]):
        for j in range(k[1]):
            win[..., i * k[1] + j] = xp[:, :, i : i + s[0] * (ho - 1) + 1 : s[0], j : j + s[1] * (wo - 1) + 1 : s[1]]
    return win


mp_win = pool_windows(cx, (3, 3), (2, 2), (1, 1), -np.inf)
mp_arg = mp_win.argmax(-1)
ho_i, wo_i = np.meshgrid(np.arange(mp_win.shape[2]), np.arange(mp_win.shape[3]), indexing="ij")
mp_idx = (ho_i * 2 - 1 + mp_arg // 3) * 8 + (wo_i * 2 - 1 + mp_arg % 3)
ok(
    "max_pool2d",
    "aten::max_pool2d_with_indices.out",
    (cx, Ints([3, 3]), Ints([2, 2]), Ints([1, 1]), Ints([1, 1]), False, Out(f32, (2, 4, 5, 4)), Out(i64, (2, 4, 5, 4))),
    mp_win.max(-1),
    mp_idx.astype(i64),
)
ok(
    "max_pool2d-cl",
    "aten::max_pool2d_with_indices.out",
    (
        T(cx, CL),
        Ints([2, 2]),
        Ints([2, 2]),
        Ints([0, 0]),
        Ints([1, 1]),
        False,
        Out(f32, (2, 4, 4, 4), CL),
        Out(i64, (2, 4, 4, 4), CL),
    ),
    pool_windows(cx, (2, 2), (2, 2), (0, 0), 0).max(-1),
    None,
)
CASES[-1].expect = CASES[-1].expect[:1]
bad(
    "max_pool2d-2d-input",
    "aten::max_pool2d_with_indices.out",
    (cx[0, 0], Ints([2, 2]), Ints([2, 2]), Ints([0, 0]), Ints([1, 1]), False, Out(f32, (1, 1)), Out(i64, (1, 1))),
    r"argument 0 has shape \[\d+, \d+\], expected 3-d or 4-d",
)
ap_win = pool_windows(cx, (3, 3), (2, 2), (1, 1), 0)
ok(
    "avg_pool2d",
    "aten::avg_pool2d.out",
    (cx, Ints([3, 3]), Ints([2, 2]), Ints([1, 1]), False, True, None, Out(f32, (2, 4, 5, 4))),
    ap_win.mean(-1),
    rtol=1e-5,
    atol=1e-6,
)
ones_win = pool_windows(np.ones_like(cx), (3, 3), (2, 2), (1, 1), 0)
ok(
    "avg_pool2d-exclude-pad",
    "aten::avg_pool2d.out",
    (cx, Ints([3, 3]), Ints([2, 2]), Ints([1, 1]), False, False, None, Out(f32, (2, 4, 5, 4))),
    ap_win.sum(-1) / ones_win.sum(-1),
    rtol=1e-5,
    atol=1e-6,
)
ok(
    "avg_pool2d-divisor",
    "aten::avg_pool2d.out",
    (cx, Ints([2, 2]), Ints([2, 2]), Ints([0, 0]), False, True, 2, Out(f32, (2, 4, 4, 4))),
    pool_windows(cx, (2, 2), (2, 2), (0, 0), 0).sum(-1) / 2,
    rtol=1e-5,
    atol=1e-6,
)
ok(
    "adaptive_avg_pool2d-global",
    "aten::_adaptive_avg_pool2d.out",
    (cx, Ints([1, 1]), Out(f32, (2, 4, 1, 1))),
    cx.mean((2, 3), keepdims=True),
    rtol=1e-5,
    atol=1e-6,
)
ok(
    "adaptive_avg_pool2d",
    "aten::_adaptive_avg_pool2d.out",
    (cx, Ints([3, 4]), Out(f32, (2, 4, 3, 4))),
    cx.reshape(2, 4, 3, 3, 4, 2).mean((3, 5)),
    rtol=1e-5,
    atol=1e-6,
)

pw = (r(2, 4, 9, 8) * np.exp2(r(2, 4, 9, 8, lo=-8, hi=8))).astype(f32)
pw_win = pool_windows(pw, (3, 3), (2, 2), (1, 1), 0)
exact_float_case(
    "avg_pool2d-float32-accumulation",
    "aten::avg_pool2d.out",
    (pw, Ints([3, 3]), Ints([2, 2]), Ints([1, 1]), False, True, None, Out(f32, (2, 4, 5, 4))),
    seq_sum(pw_win, -1) / f32(9),
    pw_win.astype(f64).mean(-1),
)
pw_ad = pw.reshape(2, 4, 3, 3, 4, 2).transpose(0, 1, 2, 4, 3, 5).reshape(2, 4, 3, 4, 6)
exact_float_case(
    "adaptive_avg_pool2d-float32-accumulation",
    "aten::_adaptive_avg_pool2d.out",
    (pw, Ints([3, 4]), Out(f32, (2, 4, 3, 4))),
    seq_sum(pw_ad, -1) / f32(6),
    pw_ad.astype(f64).mean(-1),
)

# Normalization.
bx = r(2, 3, 4, 5)
bm_, bv_, bw_, bb_ = r(3), pos(3), r(3), r(3)
bn_ref = (bx - bm_[:, None, None]) / np.sqrt(bv_[:, None, None] + 1e-5) * bw_[:, None, None] + bb_[:, None, None]
ok(
    "batch_norm",
    "aten::_native_batch_norm_legit_no_training.out",
    (bx, bw_, bb_, bm_, bv_, 0.1, 1e-5, like(bx), Out(f32, (0,)), Out(f32, (0,))),
    bn_ref,
    np.zeros(0, f32),
    np.zeros(0, f32),
    rtol=1e-5,
    atol=1e-5,
)
ok(
    "batch_norm-cl",
    "aten::_native_batch_norm_legit_no_training.out",
    (T(bx, CL), bw_, bb_, bm_, bv_, 0.1, 1e-5, Out(f32, bx.shape, CL), Out(f32, (0,)), Out(f32, (0,))),
    bn_ref,
    np.zeros(0, f32),
    np.zeros(0, f32),
    rtol=1e-5,
    atol=1e-5,
)
bad(
    "batch_norm-bad-c",
    "aten::_native_batch_norm_legit_no_training.out",
    (bx, r(4), None, r(4), pos(4), 0.1, 1e-5, like(bx), Out(f32, (0,)), Out(f32, (0,))),
)
lx = r(2, 5, 8)
lw_, lb_ = r(8), r(8)
mu = lx.mean(-1, keepdims=True)
rs = 1 / np.sqrt(lx.var(-1, keepdims=True) + 1e-5)
ok(
    "layer_norm",
    "aten::native_layer_norm.out",
    (lx, Ints([8]), lw_, lb_, 1e-5, like(lx), Out(f32, (2, 5, 1)), Out(f32, (2, 5, 1))),
    (lx - mu) * rs * lw_ + lb_,
    mu,
    rs,
    rtol=1e-4,
    atol=1e-5,
)
# Rows of 8 lanes and a tail (the partial sums' split), normalized over two dims, no weight or bias.
lx2 = r(3, 4, 5) + 3
mu2 = lx2.reshape(3, 20).mean(-1).reshape(3, 1, 1)
rs2 = 1 / np.sqrt(lx2.reshape(3, 20).var(-1).reshape(3, 1, 1) + 1e-5)
ok(
    "layer_norm-2d-tail",
    "aten::native_layer_norm.out",
    (lx2, Ints([4, 5]), None, None, 1e-5, like(lx2), Out(f32, (3, 1, 1)), Out(f32, (3, 1, 1))),
    (lx2 - mu2) * rs2,
    mu2,
    rs2,
    rtol=1e-4,
    atol=1e-5,
)
bad(
    "layer_norm-bad-shape",
    "aten::native_layer_norm.out",
    (lx, Ints([5]), None, None, 1e-5, like(lx), Out(f32, (2, 5, 1)), Out(f32, (2, 5, 1))),
    r"argument 1 \(normalized_shape\) \[5\] is not the trailing shape",
)
gx4 = r(2, 6, 3, 4)
gw_, gb_ = r(6), r(6)
gg = gx4.reshape(2, 3, -1)
gmu, grs = gg.mean(-1), 1 / np.sqrt(gg.var(-1) + 1e-5)
gn_ref = ((gg - gmu[..., None]) * grs[..., None]).reshape(gx4.shape) * gw_[:, None, None] + gb_[:, None, None]
ok(
    "group_norm",
    "aten::native_group_norm.out",
    (gx4, gw_, gb_, 2, 6, 12, 3, 1e-5, like(gx4), Out(f32, (2, 3)), Out(f32, (2, 3))),
    gn_ref,
    gmu,
    grs,
    rtol=1e-4,
    atol=1e-5,
)
bad(
    "group_norm-bad-groups",
    "aten::native_group_norm.out",
    (gx4, None, None, 2, 6, 12, 4, 1e-5, like(gx4), Out(f32, (2, 4)), Out(f32, (2, 4))),
)


# Upsampling (PyTorch's float index math).
def nearest_idx(out: int, inp: int, scale: float | None) -> np.ndarray:
    o = np.arange(out)
    if out == inp:
        return o
    if out == 2 * inp:
        return o >> 1
    s = f32(1.0 / scale) if scale else f32(inp) / f32(out)
    return np.minimum(np.floor(o.astype(f32) * s).astype(np.int64), inp - 1)


def bilinear_ref(x: np.ndarray, ho: int, wo: int, align: bool, scales: tuple[float, float] | None) -> np.ndarray:
    def table(inp: int, out: int, sc: float | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        o = np.arange(out).astype(f32)
        if align:
            s = f32(inp - 1) / f32(out - 1) if out > 1 else f32(0)
            src = s * o
        else:
            s = f32(1.0 / sc) if sc else f32(inp) / f32(out)
            src = np.maximum(s * (o + f32(0.5)) - f32(0.5), f32(0))
        i0 = np.minimum(src.astype(np.int64), inp - 1)
        i1 = i0 + (i0 < inp - 1)
        l1 = np.clip(src - i0.astype(f32), 0, 1).astype(f32)
        return i0, i1, l1

    h0, h1, lh = table(x.shape[2], ho, scales[0] if scales else None)
    w0, w1, lw = table(x.shape[3], wo, scales[1] if scales else None)
    top = x[:, :, h0][:, :, :, w0] * (1 - lw) + x[:, :, h0][:, :, :, w1] * lw
    bot = x[:, :, h1][:, :, :, w0] * (1 - lw) + x[:, :, h1][:, :, :, w1] * lw
    return (top * (1 - lh)[:, None] + bot * lh[:, None]).astype(f32)


ux = r(2, 3, 5, 4)
ok(
    "upsample_nearest2d.vec-scale",
    "aten::upsample_nearest2d.vec_out",
    (ux, None, Doubles([2.0, 2.0]), Out(f32, (2, 3, 10, 8))),
    ux[:, :, nearest_idx(10, 5, 2.0)][:, :, :, nearest_idx(8, 4, 2.0)],
)
ok(
    "upsample_nearest2d.vec-size",
    "aten::upsample_nearest2d.vec_out",
    (ux, Ints([7, 9]), None, Out(f32, (2, 3, 7, 9))),
    ux[:, :, nearest_idx(7, 5, None)][:, :, :, nearest_idx(9, 4, None)],
)
ok(
    "upsample_nearest2d-cl",
    "aten::upsample_nearest2d.out",
    (T(ux, CL), Ints([7, 9]), None, None, Out(f32, (2, 3, 7, 9), CL)),
    ux[:, :, nearest_idx(7, 5, None)][:, :, :, nearest_idx(9, 4, None)],
)
ok(
    "upsample_nearest2d-int",
    "aten::upsample_nearest2d.out",
    (bi1[None, None], Ints([6, 8]), None, None, Out(i64, (1, 1, 6, 8))),
    bi1[None, None][:, :, nearest_idx(6, 3, None)][:, :, :, nearest_idx(8, 4, None)],
)
bad(
    "upsample_nearest2d.vec-both",
    "aten::upsample_nearest2d.vec_out",
    (ux, Ints([7, 9]), Doubles([2.0, 2.0]), Out(f32, (2, 3, 7, 9))),
)
bad("upsample_nearest2d-3d", "aten::upsample_nearest2d.out", (ux[0], Ints([7, 9]), None, None, Out(f32, (3, 7, 9))))
ok(
    "upsample_bilinear2d",
    "aten::upsample_bilinear2d.out",
    (ux, Ints([9, 7]), False, None, None, Out(f32, (2, 3, 9, 7))),
    bilinear_ref(ux, 9, 7, False, None),
    rtol=1e-5,
    atol=1e-6,
)
ok(
    "upsample_bilinear2d-align",
    "aten::upsample_bilinear2d.out",
    (ux, Ints([9, 7]), True, None, None, Out(f32, (2, 3, 9, 7))),
    bilinear_ref(ux, 9, 7, True, None),
    rtol=1e-5,
    atol=1e-6,
)
ok(
    "upsample_bilinear2d.vec",
    "aten::upsample_bilinear2d.vec_out",
    (ux, None, False, Doubles([2.0, 2.0]), Out(f32, (2, 3, 10, 8))),
    bilinear_ref(ux, 10, 8, False, (2.0, 2.0)),
    rtol=1e-5,
    atol=1e-6,
)
ok(
    "upsample_bilinear2d.vec-cl",
    "aten::upsample_bilinear2d.vec_out",
    (T(ux, CL), Ints([10, 8]), True, None, Out(f32, (2, 3, 10, 8), CL)),
    bilinear_ref(ux, 10, 8, True, None),
    rtol=1e-5,
    atol=1e-6,
)
bad(
    "upsample_bilinear2d-int",
    "aten::upsample_bilinear2d.out",
    (bi1[None, None], Ints([6, 8]), False, None, None, Out(i64, (1, 1, 6, 8))),
    r"argument 0 has dtype Long, bilinear needs Float or Double",
)

# ---------------------------------------------------------------------------------------------------------------
# Half and BFloat16: every kernel runs on float32 copies and rounds each output once (src/reduced_float.h). BFloat16
# travels as uint16 bits (T(bits, view=BF16), Out(BF16, ...)). The references compute in float32 and round.
f16 = np.float16
ha, hb = r(3, 4).astype(f16), r(3, 4).astype(f16)
ok("add-f16", "aten::add.out", (ha, hb, 1, like(ha)), (ha.astype(f32) + hb.astype(f32)).astype(f16), rtol=0, atol=0)
hm1, hm2 = r(5, 7).astype(f16), r(7, 3).astype(f16)
ok("mm-f16", "aten::mm.out", (hm1, hm2, Out(f16, (5, 3))), (hm1.astype(f32) @ hm2.astype(f32)).astype(f16), rtol=1e-3)
ok(
    "cat-f16-list",
    "aten::cat.out",
    (TL((ha, hb[:1])), 0, Out(f16, (4, 4))),
    np.concatenate([ha, hb[:1]]),
    rtol=0,
    atol=0,
)
ok("to_copy-f16-to-f32", "aten::_to_copy.out", (ha, False, None, Out(f32, ha.shape)), ha.astype(f32), rtol=0, atol=0)
bsm = bf16_bits(r(2, 6))
bsm_f = bf16_value(bsm)
bsm_ref = np.exp(bsm_f - bsm_f.max(-1, keepdims=True))
ok(
    "softmax-bf16",
    "aten::_softmax.out",
    (T(bsm, view=BF16), -1, False, Out(BF16, (2, 6))),
    bf16_bits(bsm_ref / bsm_ref.sum(-1, keepdims=True)),
    rtol=0,
    atol=1,  # one bf16 step: float32 rounding differences before the final rounding
)
ok(
    "to_copy-f32-to-bf16",
    "aten::_to_copy.out",
    (bsm_f * f32(1.001), False, None, Out(BF16, (2, 6))),
    bf16_bits(bsm_f * f32(1.001)),
    rtol=0,
    atol=0,
)
ok(
    "index-f16-dynamic-out",
    "aten::index.Tensor_out",
    (ha, TL((np.array([2, 0], i64),), opt=True), Out(f16, (6, 4), dynamic=True)),
    ha[[2, 0]],
    rtol=0,
    atol=0,
)
ok(
    "sum-f16-dtype-arg",
    "aten::sum.IntList_out",
    (ha, Ints([1]), False, 5, Out(f16, (3,))),  # dtype=torch.float16 (5) names the shadowed output's dtype
    ha.astype(f32).sum(1).astype(f16),
    rtol=1e-3,
)
ok(
    "cumsum-bf16-dtype-arg",
    "aten::cumsum.out",
    (T(bsm, view=BF16), 1, 15, Out(BF16, (2, 6))),  # dtype=torch.bfloat16 (15)
    bf16_bits(np.cumsum(bsm_f, 1)),
    rtol=0,
    atol=1,
)
bad("add-f16-wrong-out-shape", "aten::add.out", (ha, hb, 1, Out(f16, (4, 3))))

# ---------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_op(run_op: Runner, case: Case) -> None:
    check(run_op, case)


def check(run: Runner, case: Case) -> None:
    res = run(case.op, *case.args)
    if case.expect is None:
        assert 0 < res.rc < 100, f"{case.op}: expected a clean error exit, got rc={res.rc}: {res.stderr}"
        # Every failure says why (the harness prints the kernel's reason after the error code).
        m = re.search(r"failed with error 0x[0-9a-f]+: (.*)", res.stderr)
        assert m and m.group(1).strip(), f"{case.op}: the kernel failed without a reason: {res.stderr}"
        if case.reason is not None:
            assert re.search(case.reason, m.group(1)), f"{case.op}: reason {m.group(1)!r} !~ {case.reason!r}"
        return
    assert res.rc == 0, f"{case.op} failed (rc={res.rc}): {res.stderr}"
    assert len(res.outs) >= len(case.expect)
    for k, (got, want) in enumerate(zip(res.outs, case.expect, strict=False)):
        want = np.asarray(want)
        assert got.shape == want.shape, f"output {k}: shape {got.shape} != {want.shape}"
        if np.issubdtype(got.dtype, np.floating):
            np.testing.assert_allclose(
                got, want.astype(got.dtype), rtol=case.rtol, atol=case.atol, equal_nan=True, err_msg=f"output {k}"
            )
        else:
            np.testing.assert_array_equal(got, want.astype(got.dtype), err_msg=f"output {k}")


def test_nan_to_int_does_not_crash(run_op: Runner) -> None:
    res = run_op("aten::_to_copy.out", nanv, False, None, Out(i64, (4,)))
    assert res.rc == 0


def test_every_kernel_has_a_case() -> None:
    registered = registered_operators("kernels")
    covered = {c.op for c in CASES if c.expect is not None}
    missing = sorted(registered - covered)
    assert not missing, f"operators without a NumPy-checked case: {missing}"


ASAN_CASES = [c for c in CASES if c.expect is None or "-" in c.id]


@pytest.mark.parametrize("case", ASAN_CASES, ids=[c.id for c in ASAN_CASES])
def test_op_asan(run_op_asan: Runner, case: Case) -> None:
    """Edge and error cases again under AddressSanitizer/UBSan (the sanitizer build's harness)."""
    check(run_op_asan, case)
