#!/usr/bin/env python3
"""A script written against upstream ExecuTorch 1.5.1's Python API (``executorch.extension.pybindings.portable_lib``).

It runs unchanged with our wheel (tests/test_wheel.py, numpy arrays; torch tensors where torch is installed) and
with upstream's wheel (scripts/check_upstream_compat.py, torch tensors, which upstream requires):

    python portable_lib_script.py DIR LIBRARY {numpy,torch} [PTD_DIR]

DIR holds the programs and references of export_programs.py; LIBRARY is the custom-operator library of
custom_ops/ built against the same installation; PTD_DIR (optional) is tests/fixtures/ptd (programs with their
weights in .ptd data files, run through both Python APIs with one data file each, as upstream's API takes). Prints
one line per check and "all passed".
"""

from __future__ import annotations

import ctypes
import io
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from executorch.extension.pybindings.portable_lib import (
    _get_operator_names,
    _get_registered_backend_names,
    _is_available,
    _load_for_executorch,
    _load_for_executorch_from_buffer,
    _load_program,
    _load_program_from_buffer,
)
from executorch.runtime import Runtime, Verification

# Upstream 1.5.1's string for unplanned_outputs.pte's MethodMeta.
UNPLANNED_META = (
    "MethodMeta(name='forward', num_inputs=2, input_tensor_meta=['TensorInfo(sizes=[2, 4], dtype=Float, "
    "is_memory_planned=True, nbytes=32)', 'TensorInfo(sizes=[2, 3], dtype=Float, is_memory_planned=True, "
    "nbytes=24)'], num_outputs=2, output_tensor_meta=['TensorInfo(sizes=[2, 3], dtype=Float, "
    "is_memory_planned=False, nbytes=24)', 'TensorInfo(sizes=[2], dtype=Float, is_memory_planned=False, nbytes=8)'])"
)


def raises(fn: Any, kind: type[BaseException] = RuntimeError) -> None:
    try:
        fn()
    except kind:
        return
    raise AssertionError(f"no {kind.__name__}")


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

    # Outputs that are not memory planned (MemoryPlanningPass(alloc_graph_output=False)) get storage from the
    # bindings: the module, a program's method by parts, and executorch.runtime.
    pte = fixtures / "unplanned_outputs.pte"
    inputs = [tensor(a) for a in load("unplanned_outputs", 2, "in")]
    refs = load("unplanned_outputs", 2, "out")
    module = _load_for_executorch(str(pte))
    check("unplanned_outputs forward", module.forward(tuple(inputs)), refs, 1e-5)
    meta = module.method_meta("forward")
    assert str(meta) == UNPLANNED_META and repr(meta) == UNPLANNED_META, str(meta)
    assert [meta.output_tensor_meta(i).is_memory_planned() for i in range(2)] == [False, False]
    pte_bytes = pte.read_bytes()  # upstream's program reads it in place: it must outlive the program
    program = _load_program_from_buffer(pte_bytes)
    assert program.num_methods() == 1 and program.get_method_name(0) == "forward"
    method = program.load_method("forward")
    method.set_inputs(tuple(inputs))
    method.execute()
    check("unplanned_outputs by parts", method.get_outputs(), refs, 1e-5)
    check("unplanned_outputs call", method.call(tuple(inputs)), refs, 1e-5)
    assert str(method.method_meta()) == UNPLANNED_META
    failing = _load_program_from_buffer(pte_bytes)
    raises(lambda: failing.get_method_name(1))
    raises(lambda: failing.load_method("not_a_method"))
    raises(lambda: failing.method_meta("forward").input_tensor_meta(2), IndexError)
    rt = Runtime.get()
    assert rt is Runtime.get()
    for data in (pte, str(pte), pte.read_bytes(), bytearray(pte.read_bytes()), io.BytesIO(pte.read_bytes())):
        rt_program = rt.load_program(data, verification=Verification.Minimal)
        assert rt_program.method_names == {"forward"}, rt_program.method_names
        outputs = rt_program.load_method("forward").execute(inputs)
    check("runtime unplanned_outputs", outputs, refs, 1e-5)
    assert str(rt_program.metadata("forward")) == UNPLANNED_META
    assert str(rt_program.load_method("forward").metadata) == UNPLANNED_META

    # Upstream's registries, calls with a single tensor, and inputs of the wrong kind.
    assert "aten::add.out" in rt.operator_registry.operator_names
    assert "XnnpackBackend" in rt.backend_registry.registered_backend_names
    assert "XnnpackBackend" in _get_registered_backend_names()
    assert rt.backend_registry.is_available(backend_name="XnnpackBackend") and _is_available("XnnpackBackend")
    assert not _is_available(backend_name="NoSuchBackend")
    x = tensor(load("mlp_fp16", 1, "in")[0])
    check("single tensor __call__", mlp(x), load("mlp_fp16", 1, "out"), 1e-2)
    mlp_method = _load_program(str(fixtures / "mlp_fp16.pte")).load_method("forward")
    check("method single tensor", mlp_method(x), load("mlp_fp16", 1, "out"), 1e-2)
    raises(lambda: mlp.run_method("not_a_method", (x,)))
    raises(lambda: module((list(inputs),)))
    raises(lambda: method((list(inputs),)))
    print("ok upstream API")

    if len(sys.argv) > 4:
        run_ptd_fixtures(Path(sys.argv[4]), tensor, array)
    print("all passed")


def run_ptd_fixtures(root: Path, tensor: Any, array: Any) -> None:
    """The single-data-file programs of tests/fixtures/ptd through executorch.runtime (data_path=) and portable_lib
    (_load_for_executorch / _from_buffer / _load_program), and what upstream refuses without the data."""
    try:  # upstream's wheel registers its llama:: kernels (the llm fixture) on this import; ours loads them itself
        import executorch.extension.llm.custom_ops.custom_ops  # noqa: F401
    except ImportError:
        pass
    manifest = json.loads((root / "manifest.json").read_text())
    for fx in manifest["fixtures"]:
        if len(fx["data_files"]) != 1:  # upstream's Python API takes one data file
            continue
        pte, ptd = root / fx["program"], root / fx["data_files"][0]
        cases = fx["methods"]["forward"]["cases"]

        def run(fn: Any, label: str, fx: dict[str, Any] = fx, cases: list[Any] = cases) -> None:
            for n, case in enumerate(cases):
                outs = fn(tuple(tensor(np.load(root / i["file"])) for i in case["inputs"]))
                assert len(outs) == len(case["outputs"]), (label, n)
                for got, ref_spec in zip(outs, case["outputs"], strict=True):
                    got, ref = array(got), np.load(root / ref_spec["file"])
                    bound = fx["atol"] + fx["rtol"] * np.abs(ref.astype(np.float64))
                    assert got.shape == ref.shape and (np.abs(got - ref) <= bound).all(), (label, n)

        name = fx["name"]
        method = Runtime.get().load_program(pte, data_path=ptd).load_method("forward")
        run(method.execute, f"{name} runtime")
        run(_load_for_executorch(str(pte), str(ptd)).forward, f"{name} _load_for_executorch")
        pte_bytes, ptd_bytes = pte.read_bytes(), ptd.read_bytes()  # upstream's module reads them in place
        run(_load_for_executorch_from_buffer(pte_bytes, ptd_bytes).forward, f"{name} from_buffer")
        run(_load_program(str(pte), data_path=str(ptd)).load_method("forward").call, f"{name} _load_program")
        if any(w["outcome"] == "refused" and not w["data_files"] for w in fx["without_data"]):
            raises(lambda pte=pte: Runtime.get().load_program(pte).load_method("forward"))
            first = tuple(tensor(np.load(root / i["file"])) for i in cases[0]["inputs"])
            raises(lambda pte=pte, first=first: _load_for_executorch(str(pte)).forward(first))
            invalid = _load_for_executorch_from_buffer(pte_bytes, b"invalid bytes")
            raises(lambda invalid=invalid, first=first: invalid.forward(first))
        print(f"ok ptd {name}")


if __name__ == "__main__":
    main()
