#!/usr/bin/env python3
"""Open ETDumps written by this runtime's executorch_runner with upstream ExecuTorch's Inspector.

For each fixture program given (default: the portable and XNNPACK programs of ``mlp``, and the bundled XNNPACK
program), runs ``executorch_runner --etdump-path`` from an SDK prefix, opens the file with
``executorch.devtools.Inspector(etdump_path=..., etrecord=None)``, prints its event blocks and table, and fails
when the Inspector finds no block or an event name that the runner did not write. Needs torch and upstream
ExecuTorch (the export virtualenv); never run by CI::

    ../exportenv/bin/python scripts/check_etdump_upstream.py --sdk dist/executorch-sdk [--repeat 3]

The output recorded in docs/profiling.md comes from this script.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"


def runner_args(name: str, variant: str) -> list[str]:
    """The runner's arguments for fixture `name` (its first case's inputs), or a bundled program."""
    if name == "bundled":
        return ["--bundled", str(FIXTURES / "bundled" / f"{variant}.bpte")]
    manifest = json.loads((FIXTURES / "manifest.json").read_text())
    (fx,) = [f for f in manifest["fixtures"] if f["name"] == name]
    args = [str(FIXTURES / fx["files"][variant])]
    for inp in fx["methods"]["forward"]["cases"][0]["inputs"]:
        args += ["--input", str(FIXTURES / inp["file"])]
    return args


def check(sdk: Path, name: str, variant: str, repeat: int, out: Path) -> bool:
    from executorch.devtools import Inspector

    path = out / f"{name}-{variant}.etdp"
    cmd = [str(sdk / "bin" / "executorch_runner"), *runner_args(name, variant), "--etdump-path", str(path)]
    if name != "bundled":
        cmd += ["--repeat", str(repeat)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        print(f"runner failed ({proc.returncode}): {proc.stderr}")
        return False
    print(f"=== {name} ({variant}): {' '.join(Path(c).name if '/' in c else c for c in cmd[1:])}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Output Buffer not found": no tensor data is logged
        inspector = Inspector(etdump_path=str(path), etrecord=None)
    ok = len(inspector.event_blocks) > 0
    for block in inspector.event_blocks:
        names = [e.name for e in block.events]
        print(f"event block {block.name!r}: bundled_input_index {block.bundled_input_index}, {len(names)} events")
        for e in block.events:
            times = e.perf_data.raw if e.perf_data is not None else []
            print(
                f"  {e.name:28s} instruction {e._instruction_id!s:>4}  runs {len(times)}  "
                + (f"avg {sum(times) / len(times):.4f} ms" if times else "no timing")
            )
        ok = ok and "Method::execute" in names and all(e.perf_data is not None for e in block.events)
    inspector.print_data_tabular(include_units=True)
    return ok


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sdk", type=Path, default=ROOT / "dist" / "executorch-sdk")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    programs = [("mlp", "portable"), ("mlp", "xnnpack"), ("resnet_block", "xnnpack"), ("bundled", "xnnpack")]
    with tempfile.TemporaryDirectory() as d:
        results = [check(args.sdk, name, variant, args.repeat, Path(d)) for name, variant in programs]
    print("ok" if all(results) else "FAILED")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
