#!/usr/bin/env python3
"""A script written against upstream ExecuTorch 1.5.1's Python API (``executorch.extension.pybindings.portable_lib``).

It runs unchanged with our wheel (tests/test_wheel.py, numpy arrays; torch tensors where torch is installed) and
with upstream's wheel (scripts/check_upstream_compat.py, torch tensors, which upstream requires):

    python portable_lib_script.py DIR LIBRARY {numpy,torch}

DIR holds the programs and references of export_programs.py; LIBRARY is the custom-operator library of
custom_ops/ built against the same installation. Prints one line per check and "all passed".
"""

from __future__ import annotations

import ctypes
import sys
from pathlib import Path
from typing import Any

import numpy as np

from executorch.extension.pybindings.portable_lib import (
    _get_operator_names,
    _load_for_executorch,
    _load_for_executorch_from_buffer,
)


def main() -> None:
    fixtures, library, mode = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
    if mode == "torch":
        import torch

        def tensor(a: np.ndarray, bf16: bool = False) -> Any:
            t = torch.from_numpy(a)
            return t.to(torch.bfloat16) if bf16 else t

        def array(t: Any) -> np.ndarray:
            assert isinstance(t, torch.Tensor), type(t)
            return t.float().numpy() if t.dtype == torch.bfloat16 else t.numpy()

    else:
        import ml_dtypes

        def tensor(a: np.ndarray, bf16: bool = False) -> Any:
            return a.astype(ml_dtypes.bfloat16) if bf16 else a

        def array(t: Any) -> np.ndarray:
            assert isinstance(t, np.ndarray), type(t)
            return t.astype(np.float32) if t.dtype == ml_dtypes.bfloat16 else t

    def load(name: str, count: int, kind: str) -> list[np.ndarray]:
        return [np.load(fixtures / f"{name}_{kind}{i}.npy") for i in range(count)]

    def check(label: str, outputs: list[Any], refs: list[np.ndarray], tol: float) -> None:
        assert len(outputs) == len(refs), (label, len(outputs))
        for got, ref in zip(outputs, refs, strict=True):
            got = array(got)
            assert got.dtype == ref.dtype or ref.dtype == np.float32, (label, got.dtype, ref.dtype)
            np.testing.assert_allclose(got.astype(np.float64), ref.astype(np.float64), atol=tol, rtol=tol)
        print(f"ok {label}")

    # The custom operators register into the process's one registry when their library is loaded.
    ctypes.CDLL(library, mode=ctypes.RTLD_GLOBAL)
    names = _get_operator_names()
    assert "upstream_ops::scale_shift.out" in names and "upstream_ops::take_rows.out" in names, names
    print("ok custom operators registered")

    inputs = [tensor(a) for a in load("custom_ops", 2, "in")]
    refs = load("custom_ops", 3, "out")
    module = _load_for_executorch(str(fixtures / "custom_ops.pte"))
    assert "forward" in module.method_names(), module.method_names()
    check("forward", module.forward(tuple(inputs)), refs, 1e-5)
    check("run_method", module.run_method("forward", tuple(inputs)), refs, 1e-5)
    from_buffer = _load_for_executorch_from_buffer((fixtures / "custom_ops.pte").read_bytes())
    check("from_buffer", from_buffer.forward(tuple(inputs)), refs, 1e-5)

    sdpa = _load_for_executorch(str(fixtures / "sdpa_bf16.pte"))
    check(
        "sdpa_bf16",
        sdpa.forward(tuple(tensor(a, bf16=True) for a in load("sdpa_bf16", 3, "in"))),
        load("sdpa_bf16", 1, "out"),
        2e-2,
    )
    mlp = _load_for_executorch(str(fixtures / "mlp_fp16.pte"))
    check(
        "mlp_fp16", mlp.forward(tuple(tensor(a) for a in load("mlp_fp16", 1, "in"))), load("mlp_fp16", 1, "out"), 1e-2
    )
    print("all passed")


if __name__ == "__main__":
    main()
