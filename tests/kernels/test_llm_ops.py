"""libexecutorch_llm's kernels (upstream's llama:: custom ops) through executorch_op_harness, against NumPy.

custom_sdpa / sdpa_with_kv_cache: queries [batch, seq, heads, head_dim] attend over a KV cache
[batch, cache_len, kv_heads, head_dim]; without a mask query i (absolute position start_pos + i) sees positions
< start_pos + seq (is_causal: <= its own); with a mask it sees the whole cache. update_cache writes in place.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from conftest import Out, Runner, registered_operators

REPO = Path(__file__).resolve().parent.parent.parent
L = "llama::"
rng = np.random.default_rng(20261202)
f32, i64 = np.float32, np.int64


def rf(*shape: int) -> np.ndarray:
    return rng.standard_normal(shape).astype(f32)


def sdpa_ref(
    q: np.ndarray, k: np.ndarray, v: np.ndarray, start_pos: int, causal: bool, mask: np.ndarray | None = None
) -> np.ndarray:
    b, s, hq, d = q.shape
    group = hq // k.shape[2]
    out = np.zeros_like(q, dtype=np.float64)
    n_keys = k.shape[1] if mask is not None else start_pos + s
    for bi in range(b):
        for h in range(hq):
            kh = k[bi, :n_keys, h // group].astype(np.float64)
            vh = v[bi, :n_keys, h // group].astype(np.float64)
            scores = q[bi, :, h].astype(np.float64) @ kh.T / np.sqrt(d)
            if mask is not None:
                scores = scores + mask
            elif causal:
                allowed = np.arange(n_keys)[None, :] <= (start_pos + np.arange(s))[:, None]
                scores = np.where(allowed, scores, -np.inf)
            p = np.exp(scores - scores.max(axis=1, keepdims=True))
            out[bi, :, h] = (p / p.sum(axis=1, keepdims=True)) @ vh
    return out.astype(f32)


def sdpa(
    q: np.ndarray,
    k: np.ndarray,
    v: np.ndarray,
    start_pos: int,
    mask: Any = None,
    causal: bool = True,
    scale: float | None = None,
) -> tuple[Any, ...]:
    """custom_sdpa.out's arguments in schema order, out shaped like q."""
    return (q, k, v, start_pos, mask, 0.0, causal, scale, Out(f32, q.shape))


def qsdpa(
    q: np.ndarray,
    k: np.ndarray,
    v: np.ndarray,
    start_pos: int,
    qparams: tuple[Any, ...] = (None,) * 6,
    seq_at_dim_2: bool = False,
) -> tuple[Any, ...]:
    """custom_quantized_sdpa.out's arguments (causal, no mask): qparams = q / k / v zero points and scales."""
    return (q, k, v, start_pos, None, 0.0, True, None, *qparams, seq_at_dim_2, Out(f32, q.shape))


@pytest.mark.parametrize("start_pos,seq", [(0, 5), (7, 1), (3, 4)])
def test_custom_sdpa_gqa_causal(run_op: Runner, start_pos: int, seq: int) -> None:
    q, k, v = rf(1, seq, 4, 16), rf(1, 12, 2, 16), rf(1, 12, 2, 16)
    res = run_op(L + "custom_sdpa.out", *sdpa(q, k, v, start_pos))
    assert res.rc == 0, res.stderr
    np.testing.assert_allclose(res.outs[0], sdpa_ref(q, k, v, start_pos, True), rtol=1e-5, atol=1e-5)


def test_custom_sdpa_not_causal_mask_and_scale(run_op: Runner) -> None:
    q, k, v = rf(2, 3, 2, 8), rf(2, 6, 2, 8), rf(2, 6, 2, 8)
    res = run_op(L + "custom_sdpa.out", *sdpa(q, k, v, 2, causal=False))
    assert res.rc == 0, res.stderr
    np.testing.assert_allclose(res.outs[0], sdpa_ref(q, k, v, 2, False), rtol=1e-5, atol=1e-5)
    mask = np.where(rng.random((3, 6)) < 0.3, -np.inf, 0.0).astype(f32)
    mask[:, 0] = 0.0
    res = run_op(L + "custom_sdpa.out", *sdpa(q, k, v, 0, mask, causal=False))
    assert res.rc == 0, res.stderr
    np.testing.assert_allclose(res.outs[0], sdpa_ref(q, k, v, 0, False, mask), rtol=1e-5, atol=1e-5)
    # An explicit scale replaces 1/sqrt(head_dim): scale s on q equals scale s * sqrt(d) on the scores.
    res = run_op(L + "custom_sdpa.out", *sdpa(q, k, v, 2, scale=0.5))
    assert res.rc == 0, res.stderr
    ref = sdpa_ref(q * np.float32(0.5 * np.sqrt(8)), k, v, 2, True)
    np.testing.assert_allclose(res.outs[0], ref, rtol=1e-5, atol=1e-5)


def test_custom_sdpa_large_splits_over_the_pool(run_op: Runner) -> None:
    q, k, v = rf(1, 64, 8, 64), rf(1, 128, 2, 64), rf(1, 128, 2, 64)
    res = run_op(L + "custom_sdpa.out", *sdpa(q, k, v, 10))
    assert res.rc == 0, res.stderr
    np.testing.assert_allclose(res.outs[0], sdpa_ref(q, k, v, 10, True), rtol=1e-4, atol=1e-5)


def test_update_cache_writes_in_place(run_op: Runner) -> None:
    value = rf(1, 3, 2, 4)
    res = run_op(L + "update_cache.out", value, Out(f32, (1, 10, 2, 4)), 5, Out(f32, (1,)))
    assert res.rc == 0, res.stderr
    np.testing.assert_array_equal(res.outs[0][:, 5:8], value)
    idx = np.array([[9, 0, 4]], i64)
    res = run_op(L + "update_cache_with_indices.out", value, Out(f32, (1, 10, 2, 4)), 0, idx, Out(f32, (1,)))
    assert res.rc == 0, res.stderr
    np.testing.assert_array_equal(res.outs[0][:, [9, 0, 4]], value)


def test_sdpa_with_kv_cache(run_op: Runner) -> None:
    q, k, v = rf(1, 2, 4, 8), rf(1, 2, 2, 8), rf(1, 2, 2, 8)
    res = run_op(
        L + "sdpa_with_kv_cache.out",
        q,
        k,
        v,
        Out(f32, (1, 6, 2, 8)),
        Out(f32, (1, 6, 2, 8)),
        0,
        2,
        None,
        0.0,
        True,
        None,
        Out(f32, q.shape),
    )
    assert res.rc == 0, res.stderr
    np.testing.assert_array_equal(res.outs[0][:, :2], k)
    np.testing.assert_array_equal(res.outs[1][:, :2], v)
    np.testing.assert_allclose(res.outs[2], sdpa_ref(q, k, v, 0, True), rtol=1e-5, atol=1e-5)


def quantize_tokens(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-token (last dim) asymmetric int8, as choose_qparams_per_token_asymmetric + quantize_per_token."""
    lo = np.minimum(x.min(axis=-1, keepdims=True), 0)
    hi = np.maximum(x.max(axis=-1, keepdims=True), 0)
    scale = ((hi - lo) / 255).astype(f32)
    zp = np.clip(np.round(-128 - lo / scale), -128, 127).astype(np.int8)
    q = np.clip(np.round(x / scale) + zp, -128, 127).astype(np.int8)
    return q, zp, scale


def test_custom_quantized_sdpa_int8_cache(run_op: Runner) -> None:
    # export_llama --quantize_kv_cache: int8 q / k / v with per-token zero points and scales, dequantized as
    # (x - zero_point) * scale; float inputs run as custom_sdpa.
    q, k, v = rf(1, 3, 4, 16), rf(1, 10, 2, 16), rf(1, 10, 2, 16)
    (qq, qz, qs), (kq, kz, ks), (vq, vz, vs) = quantize_tokens(q), quantize_tokens(k), quantize_tokens(v)
    res = run_op(L + "custom_quantized_sdpa.out", *qsdpa(qq, kq, vq, 4, (qz, qs, kz, ks, vz, vs)))
    assert res.rc == 0, res.stderr

    def deq(x: np.ndarray, z: np.ndarray, s: np.ndarray) -> np.ndarray:
        return ((x.astype(np.int32) - z.astype(np.int32)) * s).astype(f32)

    ref = sdpa_ref(deq(qq, qz, qs), deq(kq, kz, ks), deq(vq, vz, vs), 4, True)
    np.testing.assert_allclose(res.outs[0], ref, rtol=1e-5, atol=1e-5)
    res = run_op(L + "custom_quantized_sdpa.out", *qsdpa(q, k, v, 4))
    assert res.rc == 0, res.stderr
    np.testing.assert_allclose(res.outs[0], sdpa_ref(q, k, v, 4, True), rtol=1e-5, atol=1e-5)


BAD = [
    (
        "past-the-cache",
        "update_cache.out",
        (rf(1, 3, 2, 4), Out(f32, (1, 10, 2, 4)), 8, Out(f32, (1,))),
        r"start_pos 8 \+ 3 new positions do not fit the cache's 10 positions",
    ),
    (
        "heads-mismatch",
        "update_cache.out",
        (rf(1, 3, 3, 4), Out(f32, (1, 10, 2, 4)), 0, Out(f32, (1,))),
        r"does not fit the cache",
    ),
    (
        "index-out-of-range",
        "update_cache_with_indices.out",
        (rf(1, 1, 2, 4), Out(f32, (1, 10, 2, 4)), 0, np.array([[10]], i64), Out(f32, (1,))),
        r"indices\[0, 0\] is 10, outside the cache's 10 positions",
    ),
    (
        "sdpa-over-long",
        "custom_sdpa.out",
        sdpa(rf(1, 4, 2, 8), rf(1, 6, 2, 8), rf(1, 6, 2, 8), 3),
        r"start_pos 3 \+ 4 queries exceed the cache's 6 positions",
    ),
    (
        "sdpa-heads",
        "custom_sdpa.out",
        sdpa(rf(1, 1, 3, 8), rf(1, 6, 2, 8), rf(1, 6, 2, 8), 0),
        r"query heads must be a multiple of the key heads",
    ),
    (
        "sdpa-mask-and-causal",
        "custom_sdpa.out",
        sdpa(rf(1, 1, 2, 8), rf(1, 6, 2, 8), rf(1, 6, 2, 8), 0, rf(1, 6)),
        r"attn_mask and is_causal cannot both be set",
    ),
    (
        "sdpa-dtype",
        "custom_sdpa.out",
        sdpa(rf(1, 1, 2, 8).astype(np.float64), rf(1, 6, 2, 8), rf(1, 6, 2, 8), 0),
        r"must be Float",
    ),
    (
        "kv-cache-over-long",
        "sdpa_with_kv_cache.out",
        (
            rf(1, 2, 2, 8),
            rf(1, 2, 2, 8),
            rf(1, 2, 2, 8),
            Out(f32, (1, 4, 2, 8)),
            Out(f32, (1, 4, 2, 8)),
            3,
            2,
            None,
            0.0,
            True,
            None,
            Out(f32, (1, 2, 2, 8)),
        ),
        r"key_cache's 4 positions",
    ),
    (
        "quantized-sdpa-no-scales",
        "custom_quantized_sdpa.out",
        qsdpa(np.zeros((1, 1, 2, 8), np.int8), np.zeros((1, 4, 2, 8), np.int8), np.zeros((1, 4, 2, 8), np.int8), 0),
        r"query is int8: its zero points \(Char\) and scales \(Float\) must hold one value per token and head \(2\)",
    ),
    (
        "quantized-sdpa-seq-at-dim-2",
        "custom_quantized_sdpa.out",
        qsdpa(rf(1, 1, 2, 8), rf(1, 4, 2, 8), rf(1, 4, 2, 8), 0, seq_at_dim_2=True),
        r"is_seq_at_dim_2",
    ),
]


@pytest.mark.parametrize("case", BAD, ids=[c[0] for c in BAD])
def test_bad_arguments_fail_with_a_reason(run_op: Runner, case: tuple) -> None:
    _, op, args, reason = case
    res = run_op(L + op, *args)
    assert 0 < res.rc < 100, res.stderr
    m = re.search(r"failed with error 0x[0-9a-f]+: (.*)", res.stderr)
    assert m and re.search(reason, m.group(1)), res.stderr


def test_every_llm_kernel_is_upstreams_and_tested() -> None:
    registered = {n.removeprefix(L) for n in registered_operators("llm")}
    tested = set(re.findall(r'L \+ "([a-z_.]+)"', Path(__file__).read_text())) | {c[1] for c in BAD}
    assert registered == {
        "update_cache.out",
        "update_cache_with_indices.out",
        "custom_sdpa.out",
        "sdpa_with_kv_cache.out",
        "custom_quantized_sdpa.out",
    }
    assert registered <= tested, sorted(registered - tested)


def test_missing_library_names_its_package(run_op: Runner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    empty = tmp_path / "no-components"
    empty.mkdir()
    monkeypatch.setenv("EXECUTORCH_COMPONENT_DIR", str(empty))
    q = rf(1, 1, 2, 8)
    res = run_op(L + "custom_sdpa.out", *sdpa(q, q, q, 0))
    assert res.rc == 101, res.stderr
    assert "libexecutorch_llm.so.0.1" in res.stderr and "executorch-llm" in res.stderr, res.stderr
