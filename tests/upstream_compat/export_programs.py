#!/usr/bin/env python3
"""Exports the programs of the upstream-compatibility tests (tests/test_upstream_compat.py).

Run with the fixture export environment (upstream ExecuTorch 1.5.1, see tests/fixtures/README.md):

    ../exportenv/bin/python tests/upstream_compat/export_programs.py

- ``custom_ops.pte``: calls the custom operators of ``custom_ops/ops.cpp`` (defined here with ``torch.library``,
  functional form plus the out variant ExecuTorch needs), with their eager references;
- ``sdpa_bf16.pte``: scaled dot-product attention in bfloat16 (portable kernels);
- ``mlp_fp16.pte``: a two-layer MLP in float16 (portable kernels);
- ``unplanned_outputs.pte``: two outputs that are not memory planned
  (``MemoryPlanningPass(alloc_graph_output=False)``): the caller provides their storage, as upstream's pybindings do;
- ``scalar_inputs.pte``: a tensor, a float, an int and a bool input (the scalars are fixed at export; the program
  keeps them as Double / Int / Bool inputs).

Inputs and eager-PyTorch references are written beside them as ``<name>_in<i>.npy`` / ``<name>_out<i>.npy``;
bfloat16 tensors are stored as float32 holding exactly the bfloat16 values (numpy has no bfloat16). Every program
is also run through upstream's runtime, which must agree with the references. Deterministic (fixed seeds).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
from executorch.exir import EdgeCompileConfig, ExecutorchBackendConfig, to_edge
from executorch.exir.passes import MemoryPlanningPass
from torch.library import Library, impl

from executorch.runtime import Runtime

HERE = Path(__file__).resolve().parent

lib = Library("upstream_ops", "DEF")
lib.define("scale_shift(Tensor x, float alpha, Scalar beta, Tensor? bias) -> Tensor")
lib.define("scale_shift.out(Tensor x, float alpha, Scalar beta, Tensor? bias, *, Tensor(a!) out) -> Tensor(a!)")
lib.define("take_rows(Tensor x, int[] rows, int offset, bool negate, str mode, ScalarType? dtype) -> Tensor")
lib.define(
    "take_rows.out(Tensor x, int[] rows, int offset, bool negate, str mode, ScalarType? dtype, *, "
    "Tensor(a!) out) -> Tensor(a!)"
)


def _scale_shift(x: torch.Tensor, alpha: float, beta: float, bias: torch.Tensor | None) -> torch.Tensor:
    y = x * alpha + beta
    return y + bias if bias is not None else y


def _take_rows(
    x: torch.Tensor, rows: list[int], offset: int, negate: bool, mode: str, dtype: torch.dtype | None
) -> torch.Tensor:
    picked = x[[r + offset for r in rows]].to(dtype or x.dtype)
    picked = -picked if negate else picked
    return picked.sum(0, keepdim=True) if mode == "sum" else picked


@impl(lib, "scale_shift", "CompositeExplicitAutograd")
def scale_shift(x: torch.Tensor, alpha: float, beta: float, bias: torch.Tensor | None) -> torch.Tensor:
    return _scale_shift(x, alpha, beta, bias)


@impl(lib, "scale_shift.out", "CompositeExplicitAutograd")
def scale_shift_out(
    x: torch.Tensor, alpha: float, beta: float, bias: torch.Tensor | None, *, out: torch.Tensor
) -> torch.Tensor:
    out.copy_(_scale_shift(x, alpha, beta, bias))
    return out


@impl(lib, "take_rows", "CompositeExplicitAutograd")
def take_rows(
    x: torch.Tensor, rows: list[int], offset: int, negate: bool, mode: str, dtype: torch.dtype | None
) -> torch.Tensor:
    return _take_rows(x, rows, offset, negate, mode, dtype)


@impl(lib, "take_rows.out", "CompositeExplicitAutograd")
def take_rows_out(
    x: torch.Tensor,
    rows: list[int],
    offset: int,
    negate: bool,
    mode: str,
    dtype: torch.dtype | None,
    *,
    out: torch.Tensor,
) -> torch.Tensor:
    res = _take_rows(x, rows, offset, negate, mode, dtype)
    out.resize_(res.shape)
    out.copy_(res)
    return out


class CustomOps(torch.nn.Module):
    def forward(self, x: torch.Tensor, bias: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        y = torch.ops.upstream_ops.scale_shift(torch.relu(x), 0.5, 2, bias)
        rows = torch.ops.upstream_ops.take_rows(y, [2, 0], 1, True, "copy", torch.float64)
        total = torch.ops.upstream_ops.take_rows(x, [0, 1, 2], 0, False, "sum", None)
        return y, rows, total


class Sdpa(torch.nn.Module):
    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)


class Mlp(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = torch.nn.Linear(16, 32)
        self.fc2 = torch.nn.Linear(32, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(torch.nn.functional.gelu(self.fc1(x)))


class TwoOutputs(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = torch.nn.Linear(4, 3)

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.fc(x) + y, torch.relu(x).sum(dim=-1)


class ScalarInputs(torch.nn.Module):
    def forward(self, x: torch.Tensor, alpha: float, n: int, flag: bool) -> torch.Tensor:
        y = x * alpha + n
        return torch.relu(y) if flag else y


def as_numpy(t: torch.Tensor | float | int | bool) -> np.ndarray:
    if not isinstance(t, torch.Tensor):
        return np.array(t)
    return (t.float() if t.dtype == torch.bfloat16 else t).detach().numpy()


def export(
    name: str,
    model: torch.nn.Module,
    inputs: tuple[torch.Tensor | float | int | bool, ...],
    config: ExecutorchBackendConfig | None = None,
) -> None:
    with torch.no_grad():
        ref = model(*inputs)
    refs = ref if isinstance(ref, tuple) else (ref,)
    edge = to_edge(torch.export.export(model, inputs), compile_config=EdgeCompileConfig(_check_ir_validity=False))
    program = edge.to_executorch(config)
    path = HERE / f"{name}.pte"
    path.write_bytes(program.buffer)
    for i, t in enumerate(inputs):
        np.save(HERE / f"{name}_in{i}.npy", as_numpy(t))
    for i, t in enumerate(refs):
        np.save(HERE / f"{name}_out{i}.npy", as_numpy(t))
    if name != "custom_ops":  # upstream's runtime has no kernels for our custom operators
        method = Runtime.get().load_program(path).load_method("forward")
        got = method.execute(list(inputs))
        for g, r in zip(got, refs, strict=True):
            torch.testing.assert_close(g.float(), r.float(), atol=2e-2, rtol=2e-2)
        if config is not None:  # unplanned_outputs: upstream reports its outputs as not memory planned
            meta = method.metadata
            assert not any(meta.output_tensor_meta(i).is_memory_planned() for i in range(meta.num_outputs())), meta
    ops = sorted(
        op.name + ("." + op.overload if op.overload else "")
        for plan in program.executorch_program.execution_plan
        for op in plan.operators
    )
    print(f"{name}: {path.stat().st_size} bytes, operators {ops}")


def main() -> None:
    torch.manual_seed(0)
    export("custom_ops", CustomOps().eval(), (torch.randn(4, 5), torch.randn(5)))
    q, k, v = (torch.randn(1, 2, 8, 16).to(torch.bfloat16) for _ in range(3))
    export("sdpa_bf16", Sdpa().eval(), (q, k, v))
    mlp = Mlp().eval().to(torch.float16)
    export("mlp_fp16", mlp, (torch.randn(3, 16).to(torch.float16),))
    unplanned = ExecutorchBackendConfig(memory_planning_pass=MemoryPlanningPass(alloc_graph_output=False))
    export("unplanned_outputs", TwoOutputs().eval(), (torch.randn(2, 4), torch.randn(2, 3)), unplanned)
    export("scalar_inputs", ScalarInputs().eval(), (torch.randn(2, 3), 0.5, 3, True))


if __name__ == "__main__":
    main()
