#!/usr/bin/env python3
"""Export the bundled-program fixtures (``tests/fixtures/bundled``, ``.bpte``) with upstream ExecuTorch 1.5.1.

A bundled program is a ``.pte`` program plus test cases per method (inputs and expected outputs), made by
upstream's ``executorch.devtools.BundledProgram`` and ``serialize_from_bundled_program_to_flatbuffer`` (its
``devtools/bundled_program`` docs). One tiny seeded model (two inputs, two outputs: a linear layer, ReLU and an
add; a sum), three cases with eager PyTorch outputs as the expected ones:

* ``portable.bpte``: ``to_edge(...).to_executorch()`` (every op a kernel call);
* ``xnnpack.bpte``: ``to_edge_transform_and_lower(..., partitioner=[XnnpackPartitioner()])``;
* ``wrong_expected.bpte``: the portable program whose case 1 expects output 0 with one element off by 1.0, so
  a runner must report that case (and only that one) as failed.

It also checks the two correct files with upstream's own runtime (``executorch.extension.pybindings``:
``_load_bundled_program_from_buffer(...).verify_result_with_bundled_expected_output``, rtol 1e-5, atol 1e-6) and writes
``manifest.json`` (files, cases, which case fails). Run it with the export virtualenv::

    ../exportenv/bin/python scripts/export_bundled_fixtures.py [--out DIR]

The export is deterministic (fixed seeds): running it again gives the same bytes.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "tests" / "fixtures" / "bundled"
WRONG_CASE = 1


class TinyNet(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = torch.nn.Linear(8, 6)

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = torch.relu(self.linear(x)) + y
        return h, (h * y).sum(dim=1)


def cases(n: int) -> list[tuple[torch.Tensor, torch.Tensor]]:
    g = torch.Generator().manual_seed(1234)
    return [(torch.randn(2, 8, generator=g), torch.randn(2, 6, generator=g)) for _ in range(n)]


def bundle(program: object, model: torch.nn.Module, inputs: list[tuple[torch.Tensor, ...]], wrong: bool) -> bytes:
    from executorch.devtools import BundledProgram
    from executorch.devtools.bundled_program.config import MethodTestCase, MethodTestSuite
    from executorch.devtools.bundled_program.serialize import serialize_from_bundled_program_to_flatbuffer

    test_cases = []
    for i, args in enumerate(inputs):
        with torch.no_grad():
            expected = [t.clone() for t in model(*args)]
        if wrong and i == WRONG_CASE:
            expected[0].view(-1)[3] += 1.0
        test_cases.append(MethodTestCase(inputs=list(args), expected_outputs=expected))
    suite = MethodTestSuite(method_name="forward", test_cases=test_cases)
    return serialize_from_bundled_program_to_flatbuffer(BundledProgram(program, [suite]))


def check_with_upstream(data: bytes, ncases: int) -> None:
    """Upstream's runtime must pass every case of a correct bundled program (its default rtol/atol)."""
    from executorch.extension.pybindings import portable_lib

    bundled = portable_lib._load_bundled_program_from_buffer(data)
    for i in range(ncases):
        bundled.verify_result_with_bundled_expected_output("forward", i, rtol=1e-5, atol=1e-6)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)

    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge, to_edge_transform_and_lower

    torch.manual_seed(0)
    model = TinyNet().eval()
    inputs = cases(3)
    exported = torch.export.export(model, inputs[0])
    portable = to_edge(exported).to_executorch()
    xnnpack = to_edge_transform_and_lower(exported, partitioner=[XnnpackPartitioner()]).to_executorch()

    files = {
        "portable.bpte": bundle(portable, model, inputs, wrong=False),
        "xnnpack.bpte": bundle(xnnpack, model, inputs, wrong=False),
        "wrong_expected.bpte": bundle(portable, model, inputs, wrong=True),
    }
    check_with_upstream(files["portable.bpte"], len(inputs))
    check_with_upstream(files["xnnpack.bpte"], len(inputs))

    args.out.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (args.out / name).write_bytes(data)
    manifest = {
        "generator": "scripts/export_bundled_fixtures.py",
        "torch_version": torch.__version__,
        "executorch_version": __import__("importlib.metadata").metadata.version("executorch"),
        "files": {
            "portable.bpte": {"methods": {"forward": len(inputs)}, "delegates": [], "failing_cases": []},
            "xnnpack.bpte": {"methods": {"forward": len(inputs)}, "delegates": ["XnnpackBackend"], "failing_cases": []},
            "wrong_expected.bpte": {
                "methods": {"forward": len(inputs)},
                "delegates": [],
                "failing_cases": [["forward", WRONG_CASE]],
            },
        },
    }
    (args.out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    for name, data in files.items():
        print(f"{name}: {len(data)} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
