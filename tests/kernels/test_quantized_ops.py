"""Per-operator checks of libexecutorch_kernels_quantized against NumPy references, through executorch_op_harness.

Every operator of upstream's kernels/quantized/quantized.yaml is called with arguments in schema order. The
references below are written from upstream's arithmetic (float32 reciprocal and round-half-even for quantize,
an integer difference times a float32 scale for dequantize, upstream's choose_qparams steps in float32 / float64,
the sub-byte packing of the embeddings, the summation order of mixed_mm / mixed_linear) with NumPy dtypes, so
outputs are compared exactly (integers) or to the last bit (floats). Bad parameters must fail cleanly, and the
reason must name the argument (the harness, like Method::execute, names the operator).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from conftest import BF16, Out, Runner, T, bf16_bits, bf16_value, registered_operators

REPO = Path(__file__).resolve().parent.parent.parent
rng = np.random.default_rng(20240611)
f16, f32, f64 = np.float16, np.float32, np.float64
i8, u8, i16, u16, i32, i64 = np.int8, np.uint8, np.int16, np.uint16, np.int32, np.int64
CL = (0, 2, 3, 1)  # channels-last dim order

# ScalarType numbering (c10 / .pte).
BYTE, CHAR, SHORT, INT, LONG, HALF, FLOAT, DOUBLE, BFLOAT16, UINT16 = 0, 1, 2, 3, 4, 5, 6, 7, 15, 27
QDTYPE = {u8: BYTE, i8: CHAR, i16: SHORT, i32: INT, u16: UINT16}

Q = "quantized_decomposed::"


@dataclass
class Case:
    id: str
    op: str
    args: tuple[Any, ...]
    expect: list[np.ndarray] | None  # None: the call must fail
    reason: str | None = None  # for a failing call: a regex its reason must match
    exact: bool = True  # floats compared bit for bit (else to 1 ulp-ish tolerance)


CASES: list[Case] = []


def ok(id: str, op: str, args: tuple[Any, ...], *expect: np.ndarray, exact: bool = True) -> None:
    CASES.append(Case(id, Q + op, args, list(expect), exact=exact))


def bad(id: str, op: str, args: tuple[Any, ...], reason: str) -> None:
    CASES.append(Case(id, Q + op, args, None, reason=reason))


def rf(*shape: int, lo: float = -3.0, hi: float = 3.0, dtype: Any = f32) -> np.ndarray:
    return rng.uniform(lo, hi, size=shape).astype(dtype)


def ri(dtype: Any, *shape: int, lo: int | None = None, hi: int | None = None) -> np.ndarray:
    info = np.iinfo(dtype)
    return rng.integers(info.min if lo is None else lo, (info.max if hi is None else hi) + 1, size=shape).astype(dtype)


def like(a: np.ndarray, dtype: Any = None, **kw: Any) -> Out:
    return Out(a.dtype if dtype is None else dtype, a.shape, **kw)


# ---------------------------------------------------------------------------------------------------------------
# bfloat16 as uint16 bit patterns.


def to_dtype(x: np.ndarray, dtype: Any) -> np.ndarray:
    """A float32 result stored as `dtype` (BF16: its bit patterns)."""
    return bf16_bits(x) if dtype is BF16 else np.asarray(x, f32).astype(dtype)


# ---------------------------------------------------------------------------------------------------------------
# References.


def bshape(ndim: int, axis: int | None, n: int) -> tuple[int, ...]:
    return (1,) * ndim if axis is None else tuple(n if d == axis else 1 for d in range(ndim))


def quantize_ref(
    x: np.ndarray, scale: Any, zp: Any, qmin: int, qmax: int, qdtype: Any, axis: int | None = None
) -> np.ndarray:
    """inv = 1.0f / float(scale); q = clamp(int(float(int32(zp)) + rint(float(inv * x))), qmin, qmax)."""
    sc = np.asarray(scale, f64).astype(f32)
    inv = (f32(1.0) / sc).reshape(bshape(x.ndim, axis, sc.size))
    zpf = np.asarray(zp, i64).astype(i32).astype(f32).reshape(bshape(x.ndim, axis, sc.size))
    if x.dtype == f64:
        prod = (inv.astype(f64) * x).astype(f32)
    else:
        prod = x.astype(f32) * inv
    t = zpf + np.rint(prod)
    q = np.where(np.isnan(t), f32(qmin), np.clip(t, f32(qmin), f32(qmax)))
    return np.clip(q.astype(f64).astype(i64), qmin, qmax).astype(qdtype)


def dequantize_ref(
    q: np.ndarray, scale: Any, zp: Any, out: Any, axis: int | None = None, one_d: bool = False
) -> np.ndarray:
    """OUT(float(q - zp) * float(scale)); one_d: upstream's 1-d per-channel path, OUT(q - zp) * scale."""
    sc = np.asarray(scale, f64).astype(f32)
    z = np.zeros(sc.size, i64) if zp is None else np.asarray(zp, i64)
    sc = sc.reshape(bshape(q.ndim, axis, sc.size))
    z = z.reshape(bshape(q.ndim, axis, sc.size))
    d = q.astype(i64) - z
    if one_d and out == f64:
        return d.astype(f64) * sc.astype(f64)
    if one_d and out == f16:
        return (d.astype(f32).astype(f16).astype(f32) * sc).astype(f16)
    return (d.astype(f64).astype(f32) * sc).astype(out)


SMALL_SCALE = f32(6.1e-5)


def qparams_ref(x: np.ndarray, qmin: int, qmax: int) -> tuple[float, int]:
    """upstream's calculate_scale_and_zero_point over the non-NaN elements of x."""
    v = x[~np.isnan(x)]
    mn, mx = f32(min(f32(v.min()), f32(0))), f32(max(f32(v.max()), f32(0)))
    scale = (float(mx) - float(mn)) / float(qmax - qmin)
    if f32(scale) == 0 or np.isinf(f32(1) / f32(scale)):
        scale = 0.1
    if scale < float(SMALL_SCALE):
        org = f32(scale)
        scale = float(SMALL_SCALE)
        if mn == 0:
            mx = SMALL_SCALE * f32(qmax - qmin)
        elif mx == 0:
            mn = -SMALL_SCALE * f32(qmax - qmin)
        else:
            amp = SMALL_SCALE / org
            mn, mx = f32(mn * amp), f32(mx * amp)
    from_min = qmin - float(mn) / scale
    from_max = qmax - float(mx) / scale
    err_min = abs(qmin) - abs(float(mn) / scale)
    err_max = abs(qmax) - abs(float(mx) / scale)
    initial = from_min if err_min < err_max else from_max
    if initial < qmin:
        zp = qmin
    elif initial > qmax:
        zp = qmax
    else:
        zp = int(np.rint(f32(initial)))
    return scale, zp


def pack4(v: np.ndarray) -> np.ndarray:
    """[-8, 7] values, rows of even length -> bytes: element 2c in the high nibble, 2c+1 in the low one (+8)."""
    s = (v.astype(i32) + 8).astype(u8)
    return ((s[:, 0::2] << 4) | s[:, 1::2]).astype(u8)


def pack2(v: np.ndarray) -> np.ndarray:
    """[-2, 1] values -> bytes: element 4c+i in bits 2i..2i+1 (+2)."""
    s = (v.astype(i32) + 2).astype(u8)
    return (s[:, 0::4] | (s[:, 1::4] << 2) | (s[:, 2::4] << 4) | (s[:, 3::4] << 6)).astype(u8)


def param_f32(p: np.ndarray, dtype: Any) -> np.ndarray:
    return bf16_value(p) if dtype is BF16 else p.astype(f32)


def embedding_ref(
    w: np.ndarray,
    scales: np.ndarray,
    zps: np.ndarray | None,
    idx: np.ndarray,
    pdtype: Any,
    odtype: Any,
    zdtype: Any = None,
) -> np.ndarray:
    """out[..., j] = OUT((float(w[i, j]) - zp[i, g]) * scale[i, g]); w holds the unpacked values."""
    d = w.shape[1]
    s = param_f32(scales, pdtype).reshape(w.shape[0], -1)
    z = np.zeros_like(s) if zps is None else param_f32(zps, pdtype if zdtype is None else zdtype)
    z = z.reshape(w.shape[0], -1)
    g = d // s.shape[1]
    rows = idx.reshape(-1).astype(i64)
    out = (w[rows].astype(f32) - np.repeat(z[rows], g, axis=1)) * np.repeat(s[rows], g, axis=1)
    return to_dtype(out, odtype).reshape((*idx.shape, d))


def add_ref(
    a: np.ndarray, sa: float, za: int, b: np.ndarray, sb: float, zb: int, so: float, zo: int, omin: int, omax: int
) -> np.ndarray:
    da = ((a.astype(i64) - za).astype(f64) * f64(f32(sa))).astype(f32)
    db = ((b.astype(i64) - zb).astype(f64) * f64(f32(sb))).astype(f32)
    s = da + db
    inv = f32(1) / f32(so)
    t = f32(zo) + np.rint(inv * s)
    return np.clip(t, omin, omax).astype(i64).astype(a.dtype)


def mixed_mm_ref(x: np.ndarray, w: np.ndarray, s: np.ndarray) -> np.ndarray:
    """sum_k (x[:, k] * w[k, :]) * s[k], k ascending, every step in x's dtype."""
    t = x.dtype
    acc = np.zeros((x.shape[0], w.shape[1]), t)
    for k in range(x.shape[1]):
        acc = (acc + ((x[:, k : k + 1] * w[k : k + 1, :].astype(t)).astype(t) * s[k]).astype(t)).astype(t)
    return acc


def mixed_linear_ref(x: np.ndarray, w: np.ndarray, s: np.ndarray, out: Any) -> np.ndarray:
    """sum over groups of (sum_{k in group} x[:, k] * w[:, k]) * s[:, group]; products in x's dtype, sums in out's."""
    u = x.dtype
    acc_t = f64 if out == f64 else f32
    m, n = x.shape
    p = w.shape[0]
    s2 = s.reshape(p, -1)
    g = -(-n // s2.shape[1]) if s2.shape[1] > 0 else n
    total = np.zeros((m, p), out)
    for q in range(s2.shape[1]):
        psum = np.zeros((m, p), out)
        for k in range(q * g, min(n, (q + 1) * g)):
            prod = (x[:, k : k + 1] * w[None, :, k].astype(u)).astype(u)
            psum = (psum + prod.astype(out)).astype(out)
        prod2 = (psum.astype(acc_t) * s2[None, :, q].astype(acc_t)).astype(out)
        total = (total + prod2).astype(out)
    return total


# ---------------------------------------------------------------------------------------------------------------
# quantize_per_tensor.out(input, scale, zero_point, quant_min, quant_max, dtype, *, out)

halves = (np.arange(-9, 10, dtype=f32) * f32(0.25)).astype(f32)  # x * 2 = k + 0.5 exactly (scale 0.5)
ok(
    "quantize_per_tensor-half-even",
    "quantize_per_tensor.out",
    (halves, 0.5, 0, -128, 127, CHAR, like(halves, i8)),
    quantize_ref(halves, 0.5, 0, -128, 127, i8),
)
assert list(quantize_ref(np.array([0.25, 0.75, -0.25, -0.75], f32), 0.5, 0, -128, 127, i8)) == [0, 2, 0, -2]
x = rf(3, 4, 5, lo=-20, hi=40)
ok(
    "quantize_per_tensor",
    "quantize_per_tensor.out",
    (x, 0.1, 10, 0, 255, BYTE, like(x, u8)),
    quantize_ref(x, 0.1, 10, 0, 255, u8),
)
ok(
    "quantize_per_tensor-saturate",
    "quantize_per_tensor.out",
    (x, 0.05, -3, -8, 7, CHAR, like(x, i8)),
    quantize_ref(x, 0.05, -3, -8, 7, i8),
)
# Values at and next to the rounding ties of random scales: (k + 0.5) * scale and its float neighbours.
for n_case, scale in enumerate(rng.uniform(0.001, 0.5, 4)):
    k = np.arange(-300, 300, dtype=f32) + f32(0.5)
    near = (k * f32(scale)).astype(f32)
    xs = np.concatenate([near, np.nextafter(near, f32(np.inf)), np.nextafter(near, f32(-np.inf))]).astype(f32)
    zp = int(rng.integers(-20, 20))
    ok(
        f"quantize_per_tensor-ties-{n_case}",
        "quantize_per_tensor.out",
        (xs, float(scale), zp, -128, 127, CHAR, like(xs, i8)),
        quantize_ref(xs, float(scale), zp, -128, 127, i8),
    )
special = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e30, -1e30], f32)
ok(
    "quantize_per_tensor-nonfinite",
    "quantize_per_tensor.out",
    (special, 0.1, 3, -10, 20, CHAR, like(special, i8)),
    np.array([-10, 20, -10, 3, 3, 20, -10], i8),
)
xd = rf(4, 33, lo=-1, hi=1, dtype=f64)
ok(
    "quantize_per_tensor-f64",
    "quantize_per_tensor.out",
    (xd, 0.003, 2, -128, 127, CHAR, like(xd, i8)),
    quantize_ref(xd, 0.003, 2, -128, 127, i8),
)
xh = rf(5, 7, lo=-4, hi=4, dtype=f16)
ok(
    "quantize_per_tensor-f16",
    "quantize_per_tensor.out",
    (xh, 0.02, 128, 0, 255, BYTE, like(xh, u8)),
    quantize_ref(xh, 0.02, 128, 0, 255, u8),
)
x16 = rf(6, 9, lo=-1000, hi=1000)
ok(
    "quantize_per_tensor-i16",
    "quantize_per_tensor.out",
    (x16, 0.07, -5, -32768, 32767, SHORT, like(x16, i16)),
    quantize_ref(x16, 0.07, -5, -32768, 32767, i16),
)
ok(
    "quantize_per_tensor-u16",
    "quantize_per_tensor.out",
    (x16, 0.04, 30000, 0, 65535, UINT16, like(x16, u16)),
    quantize_ref(x16, 0.04, 30000, 0, 65535, u16),
)
x32 = rf(40, lo=-1e6, hi=1e6)
x32[:2] = [3e9, -3e9]
ok(
    "quantize_per_tensor-i32",
    "quantize_per_tensor.out",
    (x32, 0.001, 1000, -(2**31), 2**31 - 1, INT, like(x32, i32)),
    quantize_ref(x32, 0.001, 1000, -(2**31), 2**31 - 1, i32),
)
xcl = rf(2, 3, 4, 5)
ok(
    "quantize_per_tensor-cl",
    "quantize_per_tensor.out",
    (T(xcl, CL), 0.03, 1, -128, 127, CHAR, like(xcl, i8, dim_order=CL)),
    quantize_ref(xcl, 0.03, 1, -128, 127, i8),
)
ok(
    "quantize_per_tensor-cl-to-contiguous",
    "quantize_per_tensor.out",
    (T(xcl, CL), 0.03, 1, -128, 127, CHAR, like(xcl, i8)),
    quantize_ref(xcl, 0.03, 1, -128, 127, i8),
)
big = rf(300, 1024, lo=-10, hi=10)
ok(
    "quantize_per_tensor-big",
    "quantize_per_tensor.out",
    (big, 0.05, -7, -128, 127, CHAR, like(big, i8)),
    quantize_ref(big, 0.05, -7, -128, 127, i8),
)
empty = np.zeros((0, 4), f32)
ok(
    "quantize_per_tensor-empty",
    "quantize_per_tensor.out",
    (empty, 0.1, 0, 0, 255, BYTE, like(empty, u8)),
    np.zeros((0, 4), u8),
)
ok(
    "quantize_per_tensor-dynamic",
    "quantize_per_tensor.out",
    (x, 0.1, 10, 0, 255, BYTE, Out(u8, (4, 4, 5), dynamic=True)),
    quantize_ref(x, 0.1, 10, 0, 255, u8),
)

xq = rf(2, 6)
for bad_scale, label in (
    (0.0, "zero"),
    (float("nan"), "nan"),
    (-0.5, "negative"),
    (1e-50, "underflow"),
    (float("inf"), "inf"),
):
    bad(
        f"quantize_per_tensor-scale-{label}",
        "quantize_per_tensor.out",
        (xq, bad_scale, 0, -128, 127, CHAR, like(xq, i8)),
        r"argument 1 \(scale\)",
    )
bad(
    "quantize_per_tensor-zp-range",
    "quantize_per_tensor.out",
    (xq, 0.1, 200, -128, 127, CHAR, like(xq, i8)),
    r"argument 2 \(zero_point\) is 200, outside",
)
bad(
    "quantize_per_tensor-min-gt-max",
    "quantize_per_tensor.out",
    (xq, 0.1, 0, 10, -10, CHAR, like(xq, i8)),
    r"argument 3 \(quant_min\) 10 is greater than argument 4 \(quant_max\)",
)
bad(
    "quantize_per_tensor-min-below-dtype",
    "quantize_per_tensor.out",
    (xq, 0.1, 0, -1, 255, BYTE, like(xq, u8)),
    r"argument 3 \(quant_min\).*range \[0, 255\] of dtype Byte",
)
bad(
    "quantize_per_tensor-out-dtype",
    "quantize_per_tensor.out",
    (xq, 0.1, 0, -128, 127, CHAR, like(xq, u8)),
    r"argument 6 \(out\) has dtype Byte, but argument 5 \(dtype\) is Char",
)
bad(
    "quantize_per_tensor-dtype-long",
    "quantize_per_tensor.out",
    (xq, 0.1, 0, -128, 127, LONG, like(xq, i64)),
    r"argument 5 \(dtype\) is Long",
)
bad(
    "quantize_per_tensor-int-input",
    "quantize_per_tensor.out",
    (xq.astype(i32), 0.1, 0, -128, 127, CHAR, like(xq, i8)),
    r"argument 0 \(input\) has dtype Int",
)
bad(
    "quantize_per_tensor-shape",
    "quantize_per_tensor.out",
    (xq, 0.1, 0, -128, 127, CHAR, Out(i8, (3, 6))),
    r"argument 6 \(out\) has shape \[3, 6\]",
)
bad(
    "quantize_per_tensor-scale-kind",
    "quantize_per_tensor.out",
    (xq, None, 0, -128, 127, CHAR, like(xq, i8)),
    r"argument 1 \(scale\) is None",
)

# quantize_per_tensor.Tensor_out(input, Tensor scale, Tensor zero_point, quant_min, quant_max, dtype, *, out)
ok(
    "quantize_per_tensor.Tensor",
    "quantize_per_tensor.Tensor_out",
    (x, np.array([0.1], f64), np.array([10], i64), 0, 255, BYTE, like(x, u8)),
    quantize_ref(x, 0.1, 10, 0, 255, u8),
)
bad(
    "quantize_per_tensor.Tensor-scale-f32",
    "quantize_per_tensor.Tensor_out",
    (x, np.array([0.1], f32), np.array([10], i64), 0, 255, BYTE, like(x, u8)),
    r"argument 1 \(scale\) has dtype Float, expected Double",
)
bad(
    "quantize_per_tensor.Tensor-two-scales",
    "quantize_per_tensor.Tensor_out",
    (x, np.array([0.1, 0.2], f64), np.array([10], i64), 0, 255, BYTE, like(x, u8)),
    r"argument 1 \(scale\) has 2 elements",
)
bad(
    "quantize_per_tensor.Tensor-zp-i32",
    "quantize_per_tensor.Tensor_out",
    (x, np.array([0.1], f64), np.array([10], i32), 0, 255, BYTE, like(x, u8)),
    r"argument 2 \(zero_point\) has dtype Int, expected Long",
)
bad(
    "quantize_per_tensor.Tensor-scale-zero",
    "quantize_per_tensor.Tensor_out",
    (x, np.array([0.0], f64), np.array([10], i64), 0, 255, BYTE, like(x, u8)),
    r"argument 1 \(scale\) is 0",
)

# quantize_per_channel.out(input, scales, zero_points, axis, quant_min, quant_max, dtype, *, out)
xc = rf(4, 5, 6, lo=-5, hi=5)
for axis in (0, 1, 2, -1):
    n = xc.shape[axis]
    sc = rng.uniform(0.01, 0.2, n).astype(f64)
    zc = rng.integers(-20, 20, n).astype(i64)
    ok(
        f"quantize_per_channel-axis{axis}",
        "quantize_per_channel.out",
        (xc, sc, zc, axis, -128, 127, CHAR, like(xc, i8)),
        quantize_ref(xc, sc, zc, -128, 127, i8, axis=axis % 3),
    )
xc4 = rf(2, 3, 4, 5)
sc3 = np.array([0.5, 0.25, 0.125], f64)
zc3 = np.array([0, 5, 250], i64)
ok(
    "quantize_per_channel-cl",
    "quantize_per_channel.out",
    (T(xc4, CL), sc3, zc3, 1, 0, 255, BYTE, like(xc4, u8, dim_order=CL)),
    quantize_ref(xc4, sc3, zc3, 0, 255, u8, axis=1),
)
ok(
    "quantize_per_channel-cl-to-contiguous",
    "quantize_per_channel.out",
    (T(xc4, CL), sc3, zc3, 1, 0, 255, BYTE, like(xc4, u8)),
    quantize_ref(xc4, sc3, zc3, 0, 255, u8, axis=1),
)
bigc = rf(64, 48, 40, lo=-3, hi=3)
scb = rng.uniform(0.01, 0.1, 48).astype(f64)
zcb = rng.integers(-5, 5, 48).astype(i64)
ok(
    "quantize_per_channel-big",
    "quantize_per_channel.out",
    (bigc, scb, zcb, 1, -128, 127, CHAR, like(bigc, i8)),
    quantize_ref(bigc, scb, zcb, -128, 127, i8, axis=1),
)
bigl = rf(2000, 48, lo=-3, hi=3, dtype=f16)
ok(
    "quantize_per_channel-big-last",
    "quantize_per_channel.out",
    (bigl, scb, zcb, 1, -128, 127, CHAR, like(bigl, i8)),
    quantize_ref(bigl, scb, zcb, -128, 127, i8, axis=1),
)
s5 = np.full(5, 0.1, f64)
z5 = np.zeros(5, i64)
bad(
    "quantize_per_channel-count",
    "quantize_per_channel.out",
    (xc, s5[:4], z5[:4], 1, -128, 127, CHAR, like(xc, i8)),
    r"argument 1 \(scales\) has 4 elements, but input.size\(1\) is 5",
)
bad(
    "quantize_per_channel-zp-count",
    "quantize_per_channel.out",
    (xc, s5, z5[:3], 1, -128, 127, CHAR, like(xc, i8)),
    r"argument 2 \(zero_points\) has 3 elements",
)
bad(
    "quantize_per_channel-axis",
    "quantize_per_channel.out",
    (xc, s5, z5, 3, -128, 127, CHAR, like(xc, i8)),
    r"argument 3 \(axis\) is 3, outside \[-3, 3\)",
)
bad(
    "quantize_per_channel-scales-f32",
    "quantize_per_channel.out",
    (xc, s5.astype(f32), z5, 1, -128, 127, CHAR, like(xc, i8)),
    r"argument 1 \(scales\) has dtype Float, expected Double",
)
bad(
    "quantize_per_channel-scale-element",
    "quantize_per_channel.out",
    (xc, np.array([0.1, 0.0, 0.1, 0.1, 0.1]), z5, 1, -128, 127, CHAR, like(xc, i8)),
    r"argument 1 \(scales\) element 1 is 0",
)
bad(
    "quantize_per_channel-zp-element",
    "quantize_per_channel.out",
    (xc, s5, np.array([0, 0, 0, 300, 0], i64), 1, -128, 127, CHAR, like(xc, i8)),
    r"argument 2 \(zero_points\) element 3 is 300, outside",
)

# quantize_per_token.out(input, scales, zero_points, quant_min, quant_max, dtype, *, out)
xt = rf(2, 3, 8, lo=-4, hi=4)
st = rng.uniform(0.01, 0.05, (2, 3, 1)).astype(f64)
zt = rng.integers(-10, 10, (2, 3, 1)).astype(i64)
ok(
    "quantize_per_token",
    "quantize_per_token.out",
    (xt, st, zt, -128, 127, CHAR, like(xt, i8)),
    quantize_ref(xt.reshape(6, 8), st.reshape(-1), zt.reshape(-1), -128, 127, i8, axis=0).reshape(xt.shape),
)
x1 = rf(8)
ok(
    "quantize_per_token-1d",
    "quantize_per_token.out",
    (x1, np.array([0.02]), np.array([3], i64), -128, 127, CHAR, like(x1, i8)),
    quantize_ref(x1, 0.02, 3, -128, 127, i8),
)
bad(
    "quantize_per_token-count",
    "quantize_per_token.out",
    (xt, st.reshape(-1)[:5], zt.reshape(-1)[:5], -128, 127, CHAR, like(xt, i8)),
    r"argument 1 \(scales\) has 5 elements, but the number of tokens is 6",
)

# ---------------------------------------------------------------------------------------------------------------
# dequantize_per_tensor.out(input, scale, zero_point, quant_min, quant_max, dtype, *, out_dtype=None, out)
qu8 = ri(u8, 3, 4, 5)
ok(
    "dequantize_per_tensor",
    "dequantize_per_tensor.out",
    (qu8, 0.1, 10, 0, 255, BYTE, None, like(qu8, f32)),
    dequantize_ref(qu8, 0.1, 10, f32),
)
qi8 = ri(i8, 7, 9)
ok(
    "dequantize_per_tensor-f16",
    "dequantize_per_tensor.out",
    (qi8, 0.0123, -3, -128, 127, CHAR, HALF, like(qi8, f16)),
    dequantize_ref(qi8, 0.0123, -3, f16),
)
qi16 = ri(i16, 50)
ok(
    "dequantize_per_tensor-f64",
    "dequantize_per_tensor.out",
    (qi16, 0.0007, 12, -32768, 32767, SHORT, DOUBLE, like(qi16, f64)),
    dequantize_ref(qi16, 0.0007, 12, f64),
)
qi32 = ri(i32, 64)
ok(
    "dequantize_per_tensor-i32",
    "dequantize_per_tensor.out",
    (qi32, 1e-4, -7, -(2**31), 2**31 - 1, INT, None, like(qi32, f32)),
    dequantize_ref(qi32, 1e-4, -7, f32),
)
qu16 = ri(u16, 33)
ok(
    "dequantize_per_tensor-u16",
    "dequantize_per_tensor.out",
    (qu16, 0.01, 32768, 0, 65535, UINT16, None, like(qu16, f32)),
    dequantize_ref(qu16, 0.01, 32768, f32),
)
qcl = ri(i8, 2, 3, 4, 5)
ok(
    "dequantize_per_tensor-cl",
    "dequantize_per_tensor.out",
    (T(qcl, CL), 0.5, 1, -128, 127, CHAR, None, like(qcl, f32, dim_order=CL)),
    dequantize_ref(qcl, 0.5, 1, f32),
)
qbig = ri(u8, 500, 700)
ok(
    "dequantize_per_tensor-big",
    "dequantize_per_tensor.out",
    (qbig, 0.02, 128, 0, 255, BYTE, None, like(qbig, f32)),
    dequantize_ref(qbig, 0.02, 128, f32),
)
ok(
    "dequantize_per_tensor-zero-scale",
    "dequantize_per_tensor.out",
    (qu8, 0.0, 10, 0, 255, BYTE, None, like(qu8, f32)),
    np.zeros(qu8.shape, f32),
)
bad(
    "dequantize_per_tensor-float-input",
    "dequantize_per_tensor.out",
    (qu8.astype(f32), 0.1, 10, 0, 255, FLOAT, None, like(qu8, f32)),
    r"argument 0 \(input\) has dtype Float",
)
bad(
    "dequantize_per_tensor-dtype",
    "dequantize_per_tensor.out",
    (qu8, 0.1, 10, 0, 255, CHAR, None, like(qu8, f32)),
    r"argument 5 \(dtype\) is Char, but argument 0 \(input\) has dtype Byte",
)
bad(
    "dequantize_per_tensor-out-dtype",
    "dequantize_per_tensor.out",
    (qu8, 0.1, 10, 0, 255, BYTE, HALF, like(qu8, f32)),
    r"argument 7 \(out\) has dtype Float, but argument 6 \(out_dtype\) is Half",
)
bad(
    "dequantize_per_tensor-int-out",
    "dequantize_per_tensor.out",
    (qu8, 0.1, 10, 0, 255, BYTE, None, like(qu8, i32)),
    r"argument 7 \(out\) has dtype Int, expected Float, Double or Half",
)
bad(
    "dequantize_per_tensor-scale-nan",
    "dequantize_per_tensor.out",
    (qu8, float("nan"), 10, 0, 255, BYTE, None, like(qu8, f32)),
    r"argument 1 \(scale\) is nan",
)
bad(
    "dequantize_per_tensor-scale-negative",
    "dequantize_per_tensor.out",
    (qu8, -1.0, 10, 0, 255, BYTE, None, like(qu8, f32)),
    r"argument 1 \(scale\) is -1",
)
bad(
    "dequantize_per_tensor-zp-range",
    "dequantize_per_tensor.out",
    (qu8, 0.1, 300, 0, 255, BYTE, None, like(qu8, f32)),
    r"argument 2 \(zero_point\) is 300, outside \[quant_min, quant_max\] = \[0, 255\]",
)
bad(
    "dequantize_per_tensor-min-gt-max",
    "dequantize_per_tensor.out",
    (qu8, 0.1, 10, 255, 0, BYTE, None, like(qu8, f32)),
    r"argument 3 \(quant_min\) 255 is greater than argument 4 \(quant_max\) 0",
)

# dequantize_per_tensor.Tensor_out(input, Tensor scale, Tensor zero_point, quant_min, quant_max, dtype, *,
#                                  out_dtype=None, out)
ok(
    "dequantize_per_tensor.Tensor",
    "dequantize_per_tensor.Tensor_out",
    (qi8, np.array([0.0123], f64), np.array([-3], i64), -128, 127, CHAR, None, like(qi8, f32)),
    dequantize_ref(qi8, 0.0123, -3, f32),
)
bad(
    "dequantize_per_tensor.Tensor-zp-count",
    "dequantize_per_tensor.Tensor_out",
    (qi8, np.array([0.1], f64), np.array([1, 2], i64), -128, 127, CHAR, None, like(qi8, f32)),
    r"argument 2 \(zero_point\) has 2 elements",
)

# dequantize_per_channel.out(input, scales, zero_points?, axis, quant_min, quant_max, dtype, *, out_dtype=None, out)
qc = ri(i8, 4, 5, 6)
for axis in (0, 1, -1):
    n = qc.shape[axis]
    sc = rng.uniform(0.01, 0.2, n).astype(f64)
    zc = rng.integers(-20, 20, n).astype(i64)
    ok(
        f"dequantize_per_channel-axis{axis}",
        "dequantize_per_channel.out",
        (qc, sc, zc, axis, -128, 127, CHAR, None, like(qc, f32)),
        dequantize_ref(qc, sc, zc, f32, axis=axis % 3),
    )
sc5 = rng.uniform(0.01, 0.2, 5).astype(f32)
ok(
    "dequantize_per_channel-no-zp-f32-scales",
    "dequantize_per_channel.out",
    (qc, sc5, None, 1, -128, 127, CHAR, None, like(qc, f32)),
    dequantize_ref(qc, sc5, None, f32, axis=1),
)
ok(
    "dequantize_per_channel-no-zp-positive-range",
    "dequantize_per_channel.out",
    (qcu8 := ri(u8, 3, 5, lo=1), sc5, None, 1, 1, 255, BYTE, None, like(qcu8, f32)),
    dequantize_ref(qcu8, sc5, None, f32, axis=1),
)
zc5i = rng.integers(-20, 20, 5).astype(i32)
ok(
    "dequantize_per_channel-zp-int",
    "dequantize_per_channel.out",
    (qc, sc5, zc5i, 1, -128, 127, CHAR, HALF, like(qc, f16)),
    dequantize_ref(qc, sc5, zc5i, f16, axis=1),
)
qcu = ri(u8, 2, 3, 4, 5)
ok(
    "dequantize_per_channel-cl",
    "dequantize_per_channel.out",
    (T(qcu, CL), sc3, zc3, 1, 0, 255, BYTE, None, like(qcu, f32, dim_order=CL)),
    dequantize_ref(qcu, sc3, zc3, f32, axis=1),
)
ok(
    "dequantize_per_channel-cl-to-contiguous",
    "dequantize_per_channel.out",
    (T(qcu, CL), sc3, zc3, 1, 0, 255, BYTE, DOUBLE, like(qcu, f64)),
    dequantize_ref(qcu, sc3, zc3, f64, axis=1),
)
q1d = np.array([2049, 3001, -4097, 5, 32767, -32768, 1234, 7], i16)
s1d = np.array([0.1, 0.3, 0.7, 1.5, 0.01, 0.02, 0.333, 2.0], f64)
z1d = np.array([0, 1, -1, 2, 0, 0, 3, -5], i64)
one_d_f64 = dequantize_ref(q1d, s1d, z1d, f64, axis=0, one_d=True)
assert not np.array_equal(one_d_f64, dequantize_ref(q1d, s1d, z1d, f64, axis=0)), "the 1-d quirk case must differ"
ok(
    "dequantize_per_channel-1d-f64",
    "dequantize_per_channel.out",
    (q1d, s1d, z1d, 0, -32768, 32767, SHORT, DOUBLE, like(q1d, f64)),
    one_d_f64,
)
ok(
    "dequantize_per_channel-1d-f16",
    "dequantize_per_channel.out",
    (q1d, s1d, z1d, 0, -32768, 32767, SHORT, HALF, like(q1d, f16)),
    dequantize_ref(q1d, s1d, z1d, f16, axis=0, one_d=True),
)
ok(
    "dequantize_per_channel-1d-f32",
    "dequantize_per_channel.out",
    (q1d, s1d, z1d, 0, -32768, 32767, SHORT, None, like(q1d, f32)),
    dequantize_ref(q1d, s1d, z1d, f32, axis=0),
)
qcb = ri(i8, 3000, 40)
scb40 = rng.uniform(0.001, 0.1, 40).astype(f32)
ok(
    "dequantize_per_channel-big-last",
    "dequantize_per_channel.out",
    (qcb, scb40, None, 1, -128, 127, CHAR, None, like(qcb, f32)),
    dequantize_ref(qcb, scb40, None, f32, axis=1),
)
bad(
    "dequantize_per_channel-count",
    "dequantize_per_channel.out",
    (qc, sc5[:3], None, 1, -128, 127, CHAR, None, like(qc, f32)),
    r"argument 1 \(scales\) has 3 elements, but input.size\(1\) is 5",
)
bad(
    "dequantize_per_channel-zp-dtype",
    "dequantize_per_channel.out",
    (qc, sc5, zc5i.astype(f32), 1, -128, 127, CHAR, None, like(qc, f32)),
    r"argument 2 \(zero_points\) has dtype Float, expected Long or Int",
)
bad(
    "dequantize_per_channel-scale-element",
    "dequantize_per_channel.out",
    (qc, np.array([0.1, 0.1, np.nan, 0.1, 0.1], f32), None, 1, -128, 127, CHAR, None, like(qc, f32)),
    r"argument 1 \(scales\) element 2 is nan",
)
bad(
    "dequantize_per_channel-axis",
    "dequantize_per_channel.out",
    (qc, sc5, None, -4, -128, 127, CHAR, None, like(qc, f32)),
    r"argument 3 \(axis\) is -4",
)

# dequantize_per_token.out(input, scales, zero_points, quant_min, quant_max, dtype, output_dtype, *, out)
qt = ri(i8, 2, 3, 8)
stf = rng.uniform(0.01, 0.05, (2, 3, 1)).astype(f32)
ztk = rng.integers(-10, 10, (2, 3, 1)).astype(i64)
ok(
    "dequantize_per_token",
    "dequantize_per_token.out",
    (qt, stf, ztk, -128, 127, CHAR, FLOAT, like(qt, f32)),
    dequantize_ref(qt.reshape(6, 8), stf.reshape(-1), ztk.reshape(-1), f32, axis=0).reshape(qt.shape),
)
ok(
    "dequantize_per_token-f16",
    "dequantize_per_token.out",
    (qt, st, ztk.astype(i32), -128, 127, CHAR, HALF, like(qt, f16)),
    dequantize_ref(qt.reshape(6, 8), st.reshape(-1), ztk.reshape(-1), f16, axis=0).reshape(qt.shape),
)
bad(
    "dequantize_per_token-output-dtype",
    "dequantize_per_token.out",
    (qt, stf, ztk, -128, 127, CHAR, HALF, like(qt, f32)),
    r"argument 7 \(out\) has dtype Float, but argument 6 \(output_dtype\) is Half",
)
bad(
    "dequantize_per_token-count",
    "dequantize_per_token.out",
    (qt, stf.reshape(-1)[:4], ztk.reshape(-1)[:4], -128, 127, CHAR, FLOAT, like(qt, f32)),
    r"argument 1 \(scales\) has 4 elements, but the number of tokens is 6",
)

# ---------------------------------------------------------------------------------------------------------------
# choose_qparams.Tensor_out(input, quant_min, quant_max, eps, dtype, *, scale_out, zero_point_out)


def qp_case(id: str, x: np.ndarray, qmin: int, qmax: int) -> None:
    scale, zp = qparams_ref(x, qmin, qmax)
    ok(
        id,
        "choose_qparams.Tensor_out",
        (x, qmin, qmax, 1e-7, BYTE, Out(f64, (1,)), Out(i64, (1,))),
        np.array([scale], f64),
        np.array([zp], i64),
    )


qp_case("choose_qparams", rf(4, 25, lo=-2, hi=5), 0, 255)
qp_case("choose_qparams-int8", rf(100, lo=-7, hi=1), -128, 127)
qp_case("choose_qparams-positive", rf(30, lo=0.5, hi=3), 0, 255)
qp_case("choose_qparams-negative", rf(30, lo=-3, hi=-0.5), -128, 127)
qp_case("choose_qparams-zeros", np.zeros(10, f32), 0, 255)
qp_case("choose_qparams-tiny-positive", rf(20, lo=0, hi=1e-3), 0, 255)
qp_case("choose_qparams-tiny-negative", rf(20, lo=-1e-3, hi=0), 0, 255)
qp_case("choose_qparams-tiny-both", rf(20, lo=-1e-3, hi=2e-3), -128, 127)
with_nan = rf(40, lo=-1, hi=4)
with_nan[[3, 17]] = np.nan
qp_case("choose_qparams-nan-ignored", with_nan, 0, 255)
qp_case("choose_qparams-big", rf(700, 500, lo=-3, hi=11), 0, 255)
xq1 = rf(10)
bad(
    "choose_qparams-min-max",
    "choose_qparams.Tensor_out",
    (xq1, 5, 5, 1e-7, BYTE, Out(f64, (1,)), Out(i64, (1,))),
    r"argument 1 \(quant_min\) 5 must be less than argument 2 \(quant_max\) 5",
)
bad(
    "choose_qparams-int-input",
    "choose_qparams.Tensor_out",
    (xq1.astype(i32), 0, 255, 1e-7, BYTE, Out(f64, (1,)), Out(i64, (1,))),
    r"argument 0 \(input\) has dtype Int, expected Float",
)
inf_in = xq1.copy()
inf_in[4] = np.inf
bad(
    "choose_qparams-inf",
    "choose_qparams.Tensor_out",
    (inf_in, 0, 255, 1e-7, BYTE, Out(f64, (1,)), Out(i64, (1,))),
    r"argument 0 \(input\) holds an infinite value",
)
bad(
    "choose_qparams-all-nan",
    "choose_qparams.Tensor_out",
    (np.full(5, np.nan, f32), 0, 255, 1e-7, BYTE, Out(f64, (1,)), Out(i64, (1,))),
    r"argument 0 \(input\) has no element other than NaN",
)
bad(
    "choose_qparams-empty",
    "choose_qparams.Tensor_out",
    (np.zeros(0, f32), 0, 255, 1e-7, BYTE, Out(f64, (1,)), Out(i64, (1,))),
    r"argument 0 \(input\) has no element",
)
bad(
    "choose_qparams-scale-dtype",
    "choose_qparams.Tensor_out",
    (xq1, 0, 255, 1e-7, BYTE, Out(f32, (1,)), Out(i64, (1,))),
    r"argument 5 \(scale_out\) has dtype Float, expected Double",
)
bad(
    "choose_qparams-scale-count",
    "choose_qparams.Tensor_out",
    (xq1, 0, 255, 1e-7, BYTE, Out(f64, (2,)), Out(i64, (1,))),
    r"argument 5 \(scale_out\) has shape \[2\]",
)

# choose_qparams_per_token_asymmetric.out(input, dtype, *, scale_out, zero_point_out)
xpt = rf(2, 3, 16, lo=-2, hi=3)
xpt[0, 1] = rf(16, lo=0, hi=1e-4)
xpt[1, 2] = rf(16, lo=-6, hi=-1)
xpt[1, 0] = 0
refs = [qparams_ref(row, -128, 127) for row in xpt.reshape(6, 16)]
ok(
    "choose_qparams_per_token_asymmetric",
    "choose_qparams_per_token_asymmetric.out",
    (xpt, CHAR, Out(f64, (2, 3, 1)), Out(i64, (2, 3, 1))),
    np.array([r[0] for r in refs], f64).reshape(2, 3, 1),
    np.array([r[1] for r in refs], i64).reshape(2, 3, 1),
)
xptb = rf(4096, 64, lo=-1, hi=2)
refs_b = [qparams_ref(row, -128, 127) for row in xptb]
ok(
    "choose_qparams_per_token_asymmetric-big-dynamic",
    "choose_qparams_per_token_asymmetric.out",
    (xptb, CHAR, Out(f64, (4096, 1), dynamic=True), Out(i64, (4096, 1), dynamic=True)),
    np.array([r[0] for r in refs_b], f64).reshape(4096, 1),
    np.array([r[1] for r in refs_b], i64).reshape(4096, 1),
)
inf_tok = xpt.copy()
inf_tok[1, 1, 3] = -np.inf
bad(
    "choose_qparams_per_token_asymmetric-inf",
    "choose_qparams_per_token_asymmetric.out",
    (inf_tok, CHAR, Out(f64, (2, 3, 1)), Out(i64, (2, 3, 1))),
    r"argument 0 \(input\) token 4 holds an infinite value",
)
bad(
    "choose_qparams_per_token_asymmetric-shape",
    "choose_qparams_per_token_asymmetric.out",
    (xpt, CHAR, Out(f64, (2, 3)), Out(i64, (2, 3, 1))),
    r"argument 2 \(scale_out\) has rank 2",
)
bad(
    "choose_qparams_per_token_asymmetric-zp-dtype",
    "choose_qparams_per_token_asymmetric.out",
    (xpt, CHAR, Out(f64, (2, 3, 1)), Out(i32, (2, 3, 1))),
    r"argument 3 \(zero_point_out\) has dtype Int, expected Long",
)

# ---------------------------------------------------------------------------------------------------------------
# embedding_byte.out(weight, weight_scales, weight_zero_points?, weight_quant_min, weight_quant_max, indices, *, out)
# embedding_byte.dtype_out(..., indices, *, dtype=None, out)
V, D = 10, 12
wq = ri(u8, V, D)
es = rng.uniform(0.01, 0.1, V).astype(f32)
ez = rng.integers(0, 255, V).astype(f32)
idx = np.array([[0, 3, 9], [9, 1, 1]], i64)
ok(
    "embedding_byte",
    "embedding_byte.out",
    (wq, es, ez, 0, 255, idx, Out(f32, (2, 3, D))),
    embedding_ref(wq, es, ez, idx, f32, f32),
)
es_g = rng.uniform(0.01, 0.1, (V, 3)).astype(f32)
ez_g = rng.integers(-3, 3, (V, 3)).astype(f32)
wqi = ri(i8, V, D)
ok(
    "embedding_byte-groups-i8",
    "embedding_byte.out",
    (wqi, es_g, ez_g, -128, 127, idx, Out(f32, (2, 3, D))),
    embedding_ref(wqi, es_g, ez_g, idx, f32, f32),
)
ok(
    "embedding_byte-no-zp",
    "embedding_byte.out",
    (wqi, es_g, None, -128, 127, idx[0], Out(f32, (3, D))),
    embedding_ref(wqi, es_g, None, idx[0], f32, f32),
)
es_h, ez_h = es_g.astype(f16), ez_g.astype(f16)
ok(
    "embedding_byte-f16",
    "embedding_byte.out",
    (wqi, es_h, ez_h, -128, 127, idx, Out(f16, (2, 3, D))),
    embedding_ref(wqi, es_h, ez_h, idx, f16, f16),
)
es_b, ez_b = bf16_bits(es_g), bf16_bits(ez_g)
ok(
    "embedding_byte-bf16",
    "embedding_byte.out",
    (wqi, T(es_b, view=BF16), T(ez_b, view=BF16), -128, 127, idx, Out(BF16, (2, 3, D))),
    embedding_ref(wqi, es_b, ez_b, idx, BF16, BF16),
)
ok(
    "embedding_byte.dtype",
    "embedding_byte.dtype_out",
    (wqi, es_g, None, -128, 127, idx, HALF, Out(f16, (2, 3, D))),
    embedding_ref(wqi, es_g, None, idx, f32, f16),
)
ok(
    "embedding_byte.dtype-bf16-scales",
    "embedding_byte.dtype_out",
    (wqi, T(es_b, view=BF16), ez_g, -128, 127, idx, FLOAT, Out(f32, (2, 3, D))),
    embedding_ref(wqi, es_b, ez_g, idx, BF16, f32, zdtype=f32),
)
big_idx = rng.integers(0, V, (3000,)).astype(i64)
ok(
    "embedding_byte-big",
    "embedding_byte.out",
    (wq, es, ez, 0, 255, big_idx, Out(f32, (3000, D))),
    embedding_ref(wq, es, ez, big_idx, f32, f32),
)
bad(
    "embedding_byte-index",
    "embedding_byte.out",
    (wq, es, ez, 0, 255, np.array([1, 10], i64), Out(f32, (2, D))),
    r"argument 5 \(indices\) element 1 is 10, outside \[0, 10\)",
)
bad(
    "embedding_byte-negative-index",
    "embedding_byte.out",
    (wq, es, ez, 0, 255, np.array([-1], i64), Out(f32, (1, D))),
    r"argument 5 \(indices\) element 0 is -1",
)
bad(
    "embedding_byte-groups",
    "embedding_byte.out",
    (wq, rng.uniform(0.1, 1, (V, 5)).astype(f32), None, 0, 255, idx, Out(f32, (2, 3, D))),
    r"argument 1 \(weight_scales\) has 5 groups per row, which do not divide the embedding dim 12",
)
bad(
    "embedding_byte-scales-rows",
    "embedding_byte.out",
    (wq, es[:9], None, 0, 255, idx, Out(f32, (2, 3, D))),
    r"argument 1 \(weight_scales\) has shape \[9\]",
)
bad(
    "embedding_byte-weight-dtype",
    "embedding_byte.out",
    (wq.astype(i16), es, None, 0, 255, idx, Out(f32, (2, 3, D))),
    r"argument 0 \(weight\) has dtype Short",
)
bad(
    "embedding_byte-scales-vs-out",
    "embedding_byte.out",
    (wq, es.astype(f16), None, 0, 255, idx, Out(f32, (2, 3, D))),
    r"argument 1 \(weight_scales\) has dtype Half but argument 6 \(out\) Float",
)
bad(
    "embedding_byte-zp-shape",
    "embedding_byte.out",
    (wq, es, ez[:5], 0, 255, idx, Out(f32, (2, 3, D))),
    r"argument 2 \(weight_zero_points\) has shape \[5\]",
)
bad(
    "embedding_byte-indices-int",
    "embedding_byte.out",
    (wq, es, None, 0, 255, idx.astype(i32), Out(f32, (2, 3, D))),
    r"argument 5 \(indices\) has dtype Int, expected Long",
)
bad(
    "embedding_byte-min-max",
    "embedding_byte.out",
    (wq, es, None, 10, 0, idx, Out(f32, (2, 3, D))),
    r"argument 3 \(weight_quant_min\) 10 is greater than argument 4 \(weight_quant_max\) 0",
)
bad(
    "embedding_byte.dtype-mismatch",
    "embedding_byte.dtype_out",
    (wq, es, None, 0, 255, idx, HALF, Out(f32, (2, 3, D))),
    r"argument 7 \(out\) has dtype Float, but argument 6 \(dtype\) is Half",
)

# embedding_4bit.out / .dtype_out, embedding_2bit.out / .dtype_out (weight: packed Byte, D = 2 or 4 per byte)
w4 = rng.integers(-8, 8, (V, 16)).astype(i32)
w4p = pack4(w4)
assert w4p[0, 0] == ((w4[0, 0] + 8) << 4) | (w4[0, 1] + 8)
e4s = rng.uniform(0.01, 0.1, (V, 4)).astype(f32)
e4z = rng.integers(-2, 2, (V, 4)).astype(f32)
ok(
    "embedding_4bit",
    "embedding_4bit.out",
    (w4p, e4s, e4z, -8, 7, idx, Out(f32, (2, 3, 16))),
    embedding_ref(w4, e4s, e4z, idx, f32, f32),
)
ok(
    "embedding_4bit-int-indices",
    "embedding_4bit.out",
    (w4p, e4s[:, 0], None, -8, 7, idx.astype(i32), Out(f32, (2, 3, 16))),
    embedding_ref(w4, e4s[:, 0], None, idx, f32, f32),
)
ok(
    "embedding_4bit-f16",
    "embedding_4bit.out",
    (w4p, e4s.astype(f16), e4z.astype(f16), -8, 7, idx, Out(f16, (2, 3, 16))),
    embedding_ref(w4, e4s.astype(f16), e4z.astype(f16), idx, f16, f16),
)
ok(
    "embedding_4bit.dtype",
    "embedding_4bit.dtype_out",
    (w4p, e4s.astype(f16), None, -8, 7, idx, FLOAT, Out(f32, (2, 3, 16))),
    embedding_ref(w4, e4s.astype(f16), None, idx, f16, f32),
)
ok(
    "embedding_4bit.dtype-bf16",
    "embedding_4bit.dtype_out",
    (w4p, e4s, None, -8, 7, idx, BFLOAT16, Out(BF16, (2, 3, 16))),
    embedding_ref(w4, e4s, None, idx, f32, BF16),
)
w2 = rng.integers(-2, 2, (V, 16)).astype(i32)
w2p = pack2(w2)
assert w2p[0, 0] == (w2[0, 0] + 2) | ((w2[0, 1] + 2) << 2) | ((w2[0, 2] + 2) << 4) | ((w2[0, 3] + 2) << 6)
ok(
    "embedding_2bit",
    "embedding_2bit.out",
    (w2p, e4s, e4z, -2, 1, idx, Out(f32, (2, 3, 16))),
    embedding_ref(w2, e4s, e4z, idx, f32, f32),
)
ok(
    "embedding_2bit.dtype",
    "embedding_2bit.dtype_out",
    (w2p, e4s, None, -2, 1, idx.astype(i32), HALF, Out(f16, (2, 3, 16))),
    embedding_ref(w2, e4s, None, idx, f32, f16),
)
bad(
    "embedding_4bit-groups",
    "embedding_4bit.out",
    (w4p, rng.uniform(0.1, 1, (V, 3)).astype(f32), None, -8, 7, idx, Out(f32, (2, 3, 16))),
    r"argument 1 \(weight_scales\) has 3 groups per row, which do not divide the embedding dim 16",
)
bad(
    "embedding_4bit-weight-i8",
    "embedding_4bit.out",
    (w4p.astype(i8), e4s, None, -8, 7, idx, Out(f32, (2, 3, 16))),
    r"argument 0 \(weight\) has dtype Char, expected Byte",
)
bad(
    "embedding_4bit.dtype-zp-dtype",
    "embedding_4bit.dtype_out",
    (w4p, e4s, e4z.astype(f16), -8, 7, idx, None, Out(f32, (2, 3, 16))),
    r"argument 2 \(weight_zero_points\) has dtype Half, expected the out dtype Float",
)
bad(
    "embedding_2bit-index",
    "embedding_2bit.out",
    (w2p, e4s, None, -2, 1, np.array([[0, 11]], i32), Out(f32, (1, 2, 16))),
    r"argument 5 \(indices\) element 1 is 11",
)
bad(
    "embedding_2bit.dtype-out-rank",
    "embedding_2bit.dtype_out",
    (w2p, e4s, None, -2, 1, idx, None, Out(f32, (6, 16))),
    r"argument 7 \(out\) has rank 2, expected indices' rank \+ 1 = 3",
)

# ---------------------------------------------------------------------------------------------------------------
# add.out(a, a_scale, a_zero_point, a_quant_min, a_quant_max, b, ..., out_scale, out_zero_point, out_quant_min,
#         out_quant_max, *, out)
qa, qb = ri(u8, 3, 4, 5), ri(u8, 3, 4, 5)
ok(
    "add",
    "add.out",
    (qa, 0.05, 100, 0, 255, qb, 0.03, 20, 0, 255, 0.07, 50, 0, 255, like(qa)),
    add_ref(qa, 0.05, 100, qb, 0.03, 20, 0.07, 50, 0, 255),
)
ok(
    "add-saturate",
    "add.out",
    (qa, 0.5, 0, 0, 255, qb, 0.5, 0, 0, 255, 0.01, 10, 10, 200, like(qa)),
    add_ref(qa, 0.5, 0, qb, 0.5, 0, 0.01, 10, 10, 200),
)
ha = np.arange(0, 40, dtype=u8).reshape(8, 5)
ok(
    "add-half-even",
    "add.out",
    (ha, 0.25, 0, 0, 255, ha, 0.25, 0, 0, 255, 1.0, 0, 0, 255, like(ha)),
    add_ref(ha, 0.25, 0, ha, 0.25, 0, 1.0, 0, 0, 255),
)
assert list(add_ref(np.array([1, 3, 5], u8), 0.25, 0, np.array([1, 3, 5], u8), 0.25, 0, 1.0, 0, 0, 255)) == [0, 2, 2]
la, lb = ri(i64, 50, lo=0, hi=255), ri(i64, 50, lo=0, hi=255)
ok(
    "add-long",
    "add.out",
    (la, 0.1, 3, 0, 255, lb, 0.2, 7, 0, 255, 0.3, 1, 0, 255, like(la)),
    add_ref(la, 0.1, 3, lb, 0.2, 7, 0.3, 1, 0, 255),
)
ca, cb = ri(u8, 2, 3, 4, 5), ri(u8, 2, 3, 4, 5)
ok(
    "add-cl",
    "add.out",
    (T(ca, CL), 0.05, 100, 0, 255, cb, 0.03, 20, 0, 255, 0.07, 50, 0, 255, like(ca, dim_order=CL)),
    add_ref(ca, 0.05, 100, cb, 0.03, 20, 0.07, 50, 0, 255),
)
ba, bb = ri(u8, 400, 500), ri(u8, 400, 500)
ok(
    "add-big",
    "add.out",
    (ba, 0.05, 100, 0, 255, bb, 0.03, 20, 0, 255, 0.07, 50, 0, 255, like(ba)),
    add_ref(ba, 0.05, 100, bb, 0.03, 20, 0.07, 50, 0, 255),
)
bad(
    "add-shape",
    "add.out",
    (qa, 0.05, 100, 0, 255, qb[:, :2], 0.03, 20, 0, 255, 0.07, 50, 0, 255, like(qa)),
    r"must have the same shape",
)
bad(
    "add-dtype",
    "add.out",
    (qa, 0.05, 100, 0, 255, qb.astype(i8), 0.03, 20, 0, 255, 0.07, 50, 0, 255, like(qa)),
    r"must have the same dtype",
)
bad(
    "add-range",
    "add.out",
    (qa, 0.05, 100, 0, 255, qb, 0.03, 20, -1, 255, 0.07, 50, 0, 255, like(qa)),
    r"argument 8 \(b_quant_min\) -1",
)
bad(
    "add-out-scale",
    "add.out",
    (qa, 0.05, 100, 0, 255, qb, 0.03, 20, 0, 255, 0.0, 50, 0, 255, like(qa)),
    r"argument 10 \(out_scale\) is 0",
)
bad(
    "add-zp",
    "add.out",
    (qa, 0.05, 256, 0, 255, qb, 0.03, 20, 0, 255, 0.07, 50, 0, 255, like(qa)),
    r"argument 2 \(a_zero_point\) is 256, outside",
)
bad(
    "add-float",
    "add.out",
    (qa.astype(f32), 0.05, 100, 0, 255, qb.astype(f32), 0.03, 20, 0, 255, 0.07, 50, 0, 255, like(qa, f32)),
    r"argument 0 \(a\) has dtype Float",
)

# ---------------------------------------------------------------------------------------------------------------
# mixed_mm.out(input, weight, weight_scales, weight_zero_points?, *, out)
mx_ = rf(5, 40, lo=-1, hi=1)
mw = ri(i8, 40, 37)
ms = rng.uniform(0.001, 0.05, 40).astype(f32)
ok("mixed_mm", "mixed_mm.out", (mx_, mw, ms, None, Out(f32, (5, 37))), mixed_mm_ref(mx_, mw, ms))
mxh, msh = mx_.astype(f16), ms.astype(f16)
ok("mixed_mm-f16", "mixed_mm.out", (mxh, mw, msh, None, Out(f16, (5, 37))), mixed_mm_ref(mxh, mw, msh))
mxb = rf(70, 64, lo=-1, hi=1)
mwb = ri(i8, 64, 50)
msb = rng.uniform(0.001, 0.05, 64).astype(f32)
ok("mixed_mm-big", "mixed_mm.out", (mxb, mwb, msb, None, Out(f32, (70, 50))), mixed_mm_ref(mxb, mwb, msb))
mxw, mww = rf(9, 33, lo=-1, hi=1), ri(i8, 33, 300)
msw = rng.uniform(0.001, 0.05, 33).astype(f32)
ok("mixed_mm-wide", "mixed_mm.out", (mxw, mww, msw, None, Out(f32, (9, 300))), mixed_mm_ref(mxw, mww, msw))
ok(
    "mixed_mm-transposed-layouts",
    "mixed_mm.out",
    (T(mxw, (1, 0)), T(mww, (1, 0)), msw, None, Out(f32, (9, 300), dim_order=(1, 0))),
    mixed_mm_ref(mxw, mww, msw),
)
bad(
    "mixed_mm-shape",
    "mixed_mm.out",
    (mx_, mw[:39], ms[:39], None, Out(f32, (5, 37))),
    r"need input.size\(1\) == weight.size\(0\)",
)
bad(
    "mixed_mm-zero-points",
    "mixed_mm.out",
    (mx_, mw, ms, ms, Out(f32, (5, 37))),
    r"argument 3 \(weight_zero_points\) must be None",
)
bad(
    "mixed_mm-weight-u8",
    "mixed_mm.out",
    (mx_, mw.astype(u8), ms, None, Out(f32, (5, 37))),
    r"argument 1 \(weight\) has dtype Byte, expected Char",
)
bad("mixed_mm-dtypes", "mixed_mm.out", (mx_, mw, msh, None, Out(f32, (5, 37))), r"must have the same dtype")
bad(
    "mixed_mm-f64",
    "mixed_mm.out",
    (mx_.astype(f64), mw, ms.astype(f64), None, Out(f64, (5, 37))),
    r"argument 0 \(input\) has dtype Double, expected Float or Half",
)

# mixed_linear.out(input, weight, weight_scales, weight_zero_points?, dtype=None, *, out)
lx = rf(6, 40, lo=-1, hi=1)
lw = ri(i8, 21, 40)
ls1 = rng.uniform(0.001, 0.05, 21).astype(f32)
ls4 = rng.uniform(0.001, 0.05, (21, 4)).astype(f32)
ok("mixed_linear", "mixed_linear.out", (lx, lw, ls1, None, None, Out(f32, (6, 21))), mixed_linear_ref(lx, lw, ls1, f32))
ok(
    "mixed_linear-groups",
    "mixed_linear.out",
    (lx, lw, ls4, None, FLOAT, Out(f32, (6, 21))),
    mixed_linear_ref(lx, lw, ls4, f32),
)
lxr, lwr = rf(3, 10, lo=-1, hi=1), ri(i8, 5, 10)
ls_r = rng.uniform(0.01, 0.05, (5, 4)).astype(f32)  # groups of ceil(10 / 4) = 3: 3, 3, 3, 1
ok(
    "mixed_linear-ragged-groups",
    "mixed_linear.out",
    (lxr, lwr, ls_r, None, None, Out(f32, (3, 5))),
    mixed_linear_ref(lxr, lwr, ls_r, f32),
)
ok(
    "mixed_linear-f64-out",
    "mixed_linear.out",
    (lx, lw, ls4, None, None, Out(f64, (6, 21))),
    mixed_linear_ref(lx, lw, ls4, f64),
)
lxh, ls4h = lx.astype(f16), ls4.astype(f16)
ok(
    "mixed_linear-f16",
    "mixed_linear.out",
    (lxh, lw, ls4h, None, HALF, Out(f16, (6, 21))),
    mixed_linear_ref(lxh, lw, ls4h, f16),
)
ok(
    "mixed_linear-f16-in-f32-out",
    "mixed_linear.out",
    (lxh, lw, ls4h, None, None, Out(f32, (6, 21))),
    mixed_linear_ref(lxh, lw, ls4h, f32),
)
ok(
    "mixed_linear-f32-in-f16-out",
    "mixed_linear.out",
    (lx, lw, ls4, None, HALF, Out(f16, (6, 21))),
    mixed_linear_ref(lx, lw, ls4, f16),
)
lxb, lwb = rf(40, 96, lo=-1, hi=1), ri(i8, 80, 96)
lsb = rng.uniform(0.001, 0.05, (80, 3)).astype(f32)
ok(
    "mixed_linear-big",
    "mixed_linear.out",
    (lxb, lwb, lsb, None, None, Out(f32, (40, 80))),
    mixed_linear_ref(lxb, lwb, lsb, f32),
)
ok(
    "mixed_linear-transposed-layouts",
    "mixed_linear.out",
    (T(lx, (1, 0)), T(lw, (1, 0)), ls4, None, None, Out(f32, (6, 21), dim_order=(1, 0))),
    mixed_linear_ref(lx, lw, ls4, f32),
)
bad(
    "mixed_linear-groups-inconsistent",
    "mixed_linear.out",
    (rf(2, 5), ri(i8, 3, 5), rf(3, 4, lo=0.1, hi=1), None, None, Out(f32, (2, 3))),
    r"argument 2 \(weight_scales\) has 4 groups per row",
)
bad(
    "mixed_linear-shape",
    "mixed_linear.out",
    (lx, lw[:, :39], ls1, None, None, Out(f32, (6, 21))),
    r"need input.size\(1\) == weight.size\(1\)",
)
bad(
    "mixed_linear-dtype",
    "mixed_linear.out",
    (lx, lw, ls1, None, HALF, Out(f32, (6, 21))),
    r"argument 5 \(out\) has dtype Float, but argument 4 \(dtype\) is Half",
)
bad(
    "mixed_linear-dtype-f64",
    "mixed_linear.out",
    (lx, lw, ls1, None, DOUBLE, Out(f64, (6, 21))),
    r"argument 4 \(dtype\) has dtype Double, expected Float or Half",
)
bad(
    "mixed_linear-scales-dtype",
    "mixed_linear.out",
    (lx, lw, ls1.astype(f16), None, None, Out(f32, (6, 21))),
    r"input \(Float\) and weight_scales \(Half\) must have the same dtype",
)
bad(
    "mixed_linear-zero-points",
    "mixed_linear.out",
    (lx, lw, ls1, ls1, None, Out(f32, (6, 21))),
    r"argument 3 \(weight_zero_points\) must be None",
)

# ---------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_op(run_op: Runner, case: Case) -> None:
    check(run_op, case)


def check(run: Runner, case: Case) -> None:
    res = run(case.op, *case.args)
    if case.expect is None:
        assert 0 < res.rc < 100, f"{case.op}: expected a clean error exit, got rc={res.rc}: {res.stderr}"
        # The operator is named with its failure, and the kernel's reason names the argument.
        m = re.search(rf"{re.escape(case.op)} failed with error 0x[0-9a-f]+: (.*)", res.stderr)
        assert m and m.group(1).strip(), f"{case.op}: no failure with a reason: {res.stderr}"
        assert re.search(r"argument \d+ \(\w+\)|\b(a|b|out|input|weight|weight_scales)\b", m.group(1)), m.group(1)
        assert re.search(case.reason or "", m.group(1)), f"{case.op}: reason {m.group(1)!r} !~ {case.reason!r}"
        return
    assert res.rc == 0, f"{case.op} failed (rc={res.rc}): {res.stderr}"
    assert len(res.outs) >= len(case.expect)
    for k, (got, want) in enumerate(zip(res.outs, case.expect, strict=False)):
        want = np.asarray(want)
        assert got.shape == want.shape, f"output {k}: shape {got.shape} != {want.shape}"
        assert got.dtype == want.dtype, f"output {k}: dtype {got.dtype} != {want.dtype}"
        if np.issubdtype(got.dtype, np.floating):
            np.testing.assert_array_equal(got, want, err_msg=f"output {k}", strict=True)
        else:
            np.testing.assert_array_equal(got, want, err_msg=f"output {k}")


def test_every_quantized_kernel_has_a_case() -> None:
    registered = registered_operators("kernels_quantized")
    assert len(registered) == 19, sorted(registered)
    covered = {c.op for c in CASES if c.expect is not None}
    failing = {c.op for c in CASES if c.expect is None}
    assert not sorted(registered - covered), f"operators without a NumPy-checked case: {sorted(registered - covered)}"
    assert not sorted(registered - failing), f"operators without a bad-argument case: {sorted(registered - failing)}"


def test_operators_are_upstreams(run_op: Runner) -> None:
    """The names are upstream's (kernels/quantized/quantized.yaml): an unknown overload is not registered."""
    res = run_op(Q + "quantize_per_tensor.tensor_out")
    assert res.rc == 102 and "is not registered" in res.stderr, res.stderr


def test_missing_library_names_its_package(run_op: Runner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the library, the runtime's catalog (components.toml) still names the package to install."""
    empty = tmp_path / "no-components"
    empty.mkdir()
    monkeypatch.setenv("EXECUTORCH_COMPONENT_DIR", str(empty))
    res = run_op(Q + "quantize_per_tensor.out", halves, 0.5, 0, -128, 127, CHAR, like(halves, i8))
    assert res.rc == 101, res.stderr
    assert "libexecutorch_kernels_quantized.so.0.1" in res.stderr and "executorch-kernels-quantized" in res.stderr


ASAN_CASES = [c for c in CASES if c.expect is None or "-" in c.id]


@pytest.mark.parametrize("case", ASAN_CASES, ids=[c.id for c in ASAN_CASES])
def test_op_asan(run_op_asan: Runner, case: Case) -> None:
    """Edge and error cases again under AddressSanitizer/UBSan (the sanitizer build's harness)."""
    check(run_op_asan, case)
