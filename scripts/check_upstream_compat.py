#!/usr/bin/env python3
"""Builds and runs the upstream-style test programs of tests/upstream_compat/ against upstream ExecuTorch's wheel,
so they prove compatibility with upstream's API rather than with a private dialect; optionally runs them against
ours too, side by side. Needs the export virtualenv (torch + upstream executorch 1.5.1, and CMake >= 3.28 there
for upstream's imported targets: ``pip install "cmake>=3.28"``); never run by CI::

    ../exportenv/bin/python scripts/check_upstream_compat.py [--sdk dist/executorch-sdk] [--torch-venv VENV]

- the app (tests/upstream_compat/app) in both CMake styles (upstream's targets; its variable contract) on the
  custom-operator program and an XNNPACK program, with an ETDump;
- the custom-operator library (tests/upstream_compat/custom_ops) and portable_lib_script.py with torch tensors
  (and the .ptd fixtures of tests/fixtures/ptd);
- with ``--sdk``: the same app against our SDK, outputs compared with upstream's;
- with ``--torch-venv``: a virtualenv holding our wheel and torch: portable_lib_script.py in torch mode against our
  wheel (torch tensors in, torch tensors out).
Prints each step and "all checks passed".
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
COMPAT = ROOT / "tests" / "upstream_compat"
PROGRAMS = [COMPAT / "custom_ops.pte", ROOT / "tests" / "fixtures" / "mobilenet" / "xnnpack.pte"]


def run(cmd: list[str], **kw: object) -> str:
    proc = subprocess.run(cmd, capture_output=True, text=True, **kw)  # type: ignore[call-overload]
    if proc.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{proc.stdout}{proc.stderr}")
    return proc.stdout


def cmake() -> str:
    return str(Path(sys.executable).parent / "cmake") if (Path(sys.executable).parent / "cmake").exists() else "cmake"


def build(src: Path, build_dir: Path, prefix: Path, *args: str) -> None:
    run([cmake(), "-S", str(src), "-B", str(build_dir), "-G", "Ninja", f"-DCMAKE_PREFIX_PATH={prefix}", *args])
    run([cmake(), "--build", str(build_dir)])


def app_outputs(app: Path, work: Path) -> list[list[np.ndarray]]:
    results = []
    for program in PROGRAMS:
        etdump = work / f"{program.stem}.etdp"
        out = run([str(app), str(program), "--etdump", str(etdump)])
        results.append([np.array([float(v) for v in line.split(":")[1].split()]) for line in out.splitlines()])
        print(f"  {program.name}: {len(results[-1])} outputs, ETDump {etdump.stat().st_size} bytes")
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sdk", type=Path, help="our SDK prefix, to run the same app against it")
    parser.add_argument("--torch-venv", type=Path, help="a virtualenv with our wheel and torch")
    args = parser.parse_args()
    from executorch.version import __version__ as upstream_version

    import executorch

    upstream = Path(executorch.__path__[0])
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        src = work / "src"
        shutil.copytree(COMPAT, src)
        results = {}
        for style, prefix in (("targets", upstream / "share" / "cmake"), ("variables", upstream)):
            print(f"upstream {upstream_version}, CMake {style}:")
            build(
                src / "app", work / f"up-{style}", prefix, f"-DUSE_VARIABLES={'ON' if style == 'variables' else 'OFF'}"
            )
            results[f"upstream-{style}"] = app_outputs(work / f"up-{style}" / "upstream_app", work)
        build(src / "custom_ops", work / "up-ops", upstream)
        print("upstream portable_lib_script.py (torch):")
        out = run(
            [
                sys.executable,
                str(src / "portable_lib_script.py"),
                str(src),
                str(work / "up-ops" / "libupstream_custom_ops.so"),
                "torch",
                str(ROOT / "tests" / "fixtures" / "ptd"),
            ]
        )
        print("  " + out.strip().replace("\n", "\n  "))
        if args.sdk:
            for style, prefix in (("targets", args.sdk / "share" / "cmake"), ("variables", args.sdk)):
                print(f"ours ({args.sdk}), CMake {style}:")
                build(
                    src / "app",
                    work / f"our-{style}",
                    prefix.resolve(),
                    f"-DUSE_VARIABLES={'ON' if style == 'variables' else 'OFF'}",
                )
                results[f"ours-{style}"] = app_outputs(work / f"our-{style}" / "upstream_app", work)
        reference = results["upstream-targets"]
        for key, outs in results.items():
            for program, got, want in zip(PROGRAMS, outs, reference, strict=True):
                err = max(float(np.abs(g - w).max()) for g, w in zip(got, want, strict=True))
                print(f"{key:18s} {program.name:16s} max |difference| from upstream-targets: {err:.3g}")
                assert err < 1e-4, (key, program.name, err)
        if args.torch_venv:
            py = args.torch_venv / "bin" / "python"
            (site,) = args.torch_venv.glob("lib/python3*/site-packages/executorch")
            build(src / "custom_ops", work / "our-ops", site / "share" / "cmake")
            print("our wheel, portable_lib_script.py (torch):")
            out = run(
                [
                    str(py),
                    str(src / "portable_lib_script.py"),
                    str(src),
                    str(work / "our-ops" / "libupstream_custom_ops.so"),
                    "torch",
                    str(ROOT / "tests" / "fixtures" / "ptd"),
                ]
            )
            print("  " + out.strip().replace("\n", "\n  "))
    print("all checks passed")


if __name__ == "__main__":
    main()
