#!/usr/bin/env python3
"""Exports tests/plugin/custom_op.pte: a program calling the custom operator ``my_ops::scale.out``.

Run with the fixture export environment (upstream ExecuTorch 1.5.1, see tests/fixtures/README.md):

    ../exportenv/bin/python tests/plugin/export_custom_op.py

The operator is defined with ``torch.library`` (functional form plus the out variant ExecuTorch needs);
``tests/plugin/plugin.cpp`` implements it for our runtime. Inputs and the eager reference are written beside it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
from executorch.exir import to_edge
from torch.library import Library, impl

HERE = Path(__file__).resolve().parent

lib = Library("my_ops", "DEF")
lib.define("scale(Tensor x, float factor) -> Tensor")
lib.define("scale.out(Tensor x, float factor, *, Tensor(a!) out) -> Tensor(a!)")


@impl(lib, "scale", "CompositeExplicitAutograd")
def scale(x: torch.Tensor, factor: float) -> torch.Tensor:
    return x * factor


@impl(lib, "scale.out", "CompositeExplicitAutograd")
def scale_out(x: torch.Tensor, factor: float, *, out: torch.Tensor) -> torch.Tensor:
    out.copy_(x * factor)
    return out


class Model(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.ops.my_ops.scale(torch.relu(x), 2.5) + 1.0


def main() -> None:
    torch.manual_seed(0)
    model = Model().eval()
    x = torch.randn(2, 3)
    program = to_edge(torch.export.export(model, (x,))).to_executorch()
    (HERE / "custom_op.pte").write_bytes(program.buffer)
    np.save(HERE / "custom_op_in0.npy", x.numpy())
    with torch.no_grad():
        np.save(HERE / "custom_op_out0.npy", model(x).numpy())
    ops = sorted(
        op.name + ("." + op.overload if op.overload else "")
        for plan in program.executorch_program.execution_plan
        for op in plan.operators
    )
    print("operators:", ops)


if __name__ == "__main__":
    main()
