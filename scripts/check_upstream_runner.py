#!/usr/bin/env python3
"""Builds upstream ExecuTorch's own ``examples/portable/executor_runner/executor_runner.cpp``, unchanged, against
our installs and runs the test fixtures through it. Upstream's file is not part of this project: fetch it from
upstream's repository (a 1.4 or newer tag) and pass its path. Never run by CI (CI runs tests/api, our own tests
making the same calls); needs Debian's gflags (``apt install libgflags-dev``)::

    .venv/bin/python scripts/check_upstream_runner.py --runner-src PATH/executor_runner.cpp \\
        [--installs sdk,wheel,conda] [--configs plain,threadpool,etdump]

Installs: ``sdk`` (dist/executorch-sdk), ``wheel`` (this CPython's wheel from dist/wheels in a fresh venv,
CMAKE_PREFIX_PATH from ``python -m executorch --cmake-dir``), ``conda`` (the C++ packages of dist/conda-channel
installed into a fresh prefix). Configurations, as upstream's CMake builds the runner:
``plain``; ``threadpool`` (-DET_USE_THREADPOOL); ``etdump`` (-DET_USE_THREADPOOL -DET_EVENT_TRACER_ENABLED).

Every case of tests/fixtures/manifest.json (portable and XNNPACK programs, eager references),
tests/fixtures/quantized/manifest.json (upstream's outputs) and tests/fixtures/ptd/manifest.json (weights in a
.ptd, passed with --data_path) runs through ``--inputs`` (raw input files) and ``--output_file``; outputs are
compared with the references. Left out, because the runner cannot express them: programs with dynamic input shapes
(it fills every input at the program's upper-bound size) and the later cases of stateful programs (each run starts
afresh). Prints one line per install and configuration, and "all checks passed".
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
CONFIGS = {
    "plain": [],
    "threadpool": ["ET_USE_THREADPOOL"],
    "etdump": ["ET_USE_THREADPOOL", "ET_EVENT_TRACER_ENABLED"],
}
CMAKELISTS = """cmake_minimum_required(VERSION 3.24)
project(upstream_executor_runner CXX)
set(CMAKE_CXX_STANDARD 17)
find_package(executorch REQUIRED)
find_package(gflags REQUIRED)
add_executable(executor_runner "{src}")
target_compile_definitions(executor_runner PRIVATE {defs})
target_link_libraries(executor_runner PRIVATE executorch::runtime {libs} gflags)
"""


@dataclass
class Case:
    name: str
    pte: Path
    method: str
    inputs: list[Path]
    outputs: list[Path]
    atol: float
    rtol: float
    data: list[Path] = field(default_factory=list)


def cases() -> list[Case]:
    out = []
    manifest = json.loads((FIXTURES / "manifest.json").read_text())
    for fx in manifest["fixtures"]:
        if fx.get("dynamic"):
            continue  # executor_runner fills inputs at the program's upper-bound sizes only
        for variant, rel in fx["files"].items():
            for method, spec in fx["methods"].items():
                for i, case in enumerate(spec["cases"]):
                    out.append(
                        Case(
                            f"{fx['name']}/{variant}/{method}/{i}",
                            FIXTURES / rel,
                            method,
                            [FIXTURES / x["file"] for x in case["inputs"]],
                            [FIXTURES / x["file"] for x in case["outputs"]],
                            float(fx["atol"]),
                            float(fx["rtol"]),
                        )
                    )
    quantized = json.loads((FIXTURES / "quantized" / "manifest.json").read_text())
    for fx in quantized["fixtures"]:
        for variant, rel in fx["files"].items():
            if rel is None:  # no program of this variant (e.g. 8da4w has no portable one)
                continue
            for method, spec in fx["methods"].items():
                for i, case in enumerate(spec["cases"]):
                    # Upstream's own outputs: within one output quantization step (fp32 outputs: fp32 rounding),
                    # as tests/test_quantized.py holds them.
                    scale = (fx.get("output_scale") or {}).get(variant)
                    out.append(
                        Case(
                            f"quantized/{fx['name']}/{variant}/{method}/{i}",
                            FIXTURES / "quantized" / rel,
                            method,
                            [FIXTURES / "quantized" / x["file"] for x in case["inputs"]],
                            [FIXTURES / "quantized" / x["file"] for x in case["outputs"][variant]],
                            float(scale) * 1.001 if scale is not None else 1e-5,
                            0.0 if scale is not None else 1e-5,
                        )
                    )
    ptd_manifest = FIXTURES / "ptd" / "manifest.json"
    if ptd_manifest.is_file():
        out += ptd_cases(json.loads(ptd_manifest.read_text()))
    return out


def ptd_cases(manifest: dict) -> list[Case]:
    out = []
    base = FIXTURES / "ptd"
    for fx in manifest["fixtures"]:
        if len(fx["data_files"]) != 1:
            continue  # executor_runner takes one --data_path
        for method, spec in fx["methods"].items():
            if fx["name"] == "llm":
                continue  # dynamic token count: executor_runner fills inputs at the upper-bound sizes only
            # A stateful method carries state from case to case; each executor_runner run starts afresh.
            for i, case in enumerate(spec["cases"][:1] if spec.get("stateful") else spec["cases"]):
                out.append(
                    Case(
                        f"ptd/{fx['name']}/{method}/{i}",
                        base / fx["program"],
                        method,
                        [base / x["file"] for x in case["inputs"]],
                        [base / x["file"] for x in case["outputs"]],
                        float(fx["atol"]),
                        float(fx["rtol"]),
                        [base / d for d in fx["data_files"]],
                    )
                )
    return out


def run(cmd: list[str], **kw: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, **kw)  # type: ignore[call-overload]


def must(cmd: list[str], **kw: object) -> str:
    proc = run(cmd, **kw)
    if proc.returncode != 0:
        sys.exit(f"failed: {' '.join(map(str, cmd))}\n{proc.stdout[-4000:]}{proc.stderr[-4000:]}")
    return proc.stdout


def prefix_for(install: str, work: Path) -> Path:
    if install == "sdk":
        return ROOT / "dist" / "executorch-sdk"
    if install == "wheel":
        tag = f"cp{sys.version_info.major}{sys.version_info.minor}"
        wheels = sorted((ROOT / "dist" / "wheels").glob(f"executorch-*-{tag}-{tag}-*_x86_64.whl"))
        if len(wheels) != 1:
            sys.exit(f"expected one {tag} x86_64 wheel in dist/wheels, found {wheels}")
        venv = work / "wheel-venv"
        must([sys.executable, "-m", "venv", str(venv)])
        must([str(venv / "bin" / "pip"), "install", "-q", "--no-deps", str(wheels[0])])
        return Path(must([str(venv / "bin" / "python"), "-m", "executorch", "--cmake-dir"]).strip())
    if install == "conda":
        prefix = work / "conda-prefix"
        tool = ROOT / "tests" / "conda" / "rattler_tool.py"
        # The C++ outputs (the meta-package also pulls in Python, which the offline channel lacks).
        outputs = [
            "executorch-runtime",
            "executorch-threadpool",
            "executorch-kernels",
            "executorch-kernels-quantized",
            "executorch-xnnpack",
            "executorch-llm",
        ]
        must(
            [
                sys.executable,
                str(tool),
                "install",
                str(prefix),
                str(work / "conda-cache"),
                str(ROOT / "dist" / "conda-channel"),
                *outputs,
            ]
        )
        return prefix
    sys.exit(f"unknown install {install}")


def build(src: Path, prefix: Path, config: str, work: Path) -> Path:
    tree = work / "src"
    tree.mkdir(parents=True, exist_ok=True)
    defs = " ".join(CONFIGS[config]) or '""'
    # As upstream's build: the thread pool (which carries ET_USE_THREADPOOL) is linked in the pool configurations.
    libs = "executorch::threadpool" if "ET_USE_THREADPOOL" in CONFIGS[config] else ""
    (tree / "CMakeLists.txt").write_text(CMAKELISTS.format(src=src.as_posix(), defs=defs, libs=libs))
    build_dir = work / "build"
    must(["cmake", "-S", str(tree), "-B", str(build_dir), "-G", "Ninja", f"-DCMAKE_PREFIX_PATH={prefix}"])
    must(["cmake", "--build", str(build_dir)])
    return build_dir / "executor_runner"


def check_case(runner: Path, case: Case, work: Path, config: str, env: dict[str, str]) -> str | None:
    """None when the outputs match; otherwise what went wrong."""
    inputs = []
    for k, npy in enumerate(case.inputs):
        raw = work / f"in{k}.bin"
        raw.write_bytes(np.ascontiguousarray(np.load(npy)).tobytes())
        inputs.append(str(raw))
    out_base = work / "out"
    for old in work.glob("out-*.bin"):
        old.unlink()
    cmd = [
        str(runner),
        f"--model_path={case.pte}",
        f"--method_name={case.method}",
        f"--output_file={out_base}",
        "--print_output=summary",
    ]
    if inputs:
        cmd.append("--inputs=" + ",".join(inputs))
    if case.data:
        cmd.append(f"--data_path={case.data[0]}")
    if config == "etdump":
        cmd.append(f"--etdump_path={work / 'run.etdump'}")
    proc = run(cmd, env=env, timeout=600, cwd=work)  # an ETDump goes to work/model.etdump by default
    if proc.returncode != 0:
        return f"exit {proc.returncode}: {proc.stderr[-600:]}"
    if config == "etdump" and (work / "run.etdump").stat().st_size == 0:
        return "empty ETDump"
    for k, ref_file in enumerate(case.outputs):
        ref = np.load(ref_file)
        raw = out_base.parent / f"out-{k}.bin"
        if not raw.is_file():
            return f"output {k} not written"
        got = np.frombuffer(raw.read_bytes(), dtype=ref.dtype)
        if got.size != ref.size:
            return f"output {k}: {got.size} elements, expected {ref.size}"
        if not np.allclose(got, ref.ravel(), atol=case.atol, rtol=case.rtol, equal_nan=True):
            return f"output {k}: max |diff| {np.max(np.abs(got.astype(np.float64) - ref.ravel())):.3g}"
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runner-src", type=Path, required=True, help="upstream's executor_runner.cpp")
    parser.add_argument("--installs", default="sdk,wheel,conda")
    parser.add_argument("--configs", default="plain,threadpool,etdump")
    parser.add_argument("--only", help="run only cases whose name contains this")
    args = parser.parse_args()
    src = args.runner_src.resolve()
    print(
        f"upstream executor_runner.cpp: {src.stat().st_size} bytes, sha256 "
        f"{hashlib.sha256(src.read_bytes()).hexdigest()[:16]}"
    )
    all_cases = [c for c in cases() if args.only is None or args.only in c.name]
    env = dict(os.environ, EXECUTORCH_LOG_LEVEL="error")
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for install in args.installs.split(","):
            prefix = prefix_for(install, Path(tmp) / install)
            for config in args.configs.split(","):
                work = Path(tmp) / install / config
                work.mkdir(parents=True, exist_ok=True)
                runner = build(src, prefix, config, work)
                bad = []
                for case in all_cases:
                    why = check_case(runner, case, work, config, env)
                    if why is not None:
                        bad.append(f"{case.name}: {why}")
                n_ptd = sum(1 for c in all_cases if c.data)
                print(
                    f"{install:5} {config:10} {len(all_cases) - len(bad)}/{len(all_cases)} cases match "
                    f"({n_ptd} with --data_path)"
                )
                for line in bad:
                    print(f"  FAIL {line}")
                failures += len(bad)
                shutil.rmtree(work / "build", ignore_errors=True)
    if failures:
        sys.exit(f"{failures} failures")
    print("all checks passed")


if __name__ == "__main__":
    main()
