#!/usr/bin/env python3
"""Benchmark this runtime against upstream ExecuTorch 1.5.1 on the committed fixtures (not a test).

Every fixture program in ``tests/fixtures/manifest.json`` is run, in the same process run, by

* **ours**: ``<sdk>/bin/executorch_runner MODEL --input ... --repeat N`` (prints ``median_us``), and
* **upstream**: a small C++ runner built at benchmark time, in a temporary directory, against the C++ SDK that
  the upstream ``executorch`` wheel ships (``executorch/lib/*.so``, headers and the CMake package). It runs the
  same loop as ours: ``Module::execute`` on the case-0 inputs N times and reports the median (the first
  execution, which also loads the method, is one of the N in both).

Then fp32 matrix-multiply (64^3, 256^3, 1024^3) and one 3x3 convolution layer (1x64x56x56 -> 64) are exported
to small portable programs in a temporary directory and timed with our runner (and upstream's), next to numpy's
BLAS (``np.matmul``; the convolution as im2col + ``np.matmul``), run in a subprocess without
``OPENBLAS_CORETYPE`` / ``OPENBLAS_L2_SIZE`` so OpenBLAS picks its kernels for this CPU.

The quantized fixtures (``tests/fixtures/quantized/manifest.json``: XNNPACK q8 and portable q8 programs of the
same quantized graph) are timed the same way (upstream's runner also links its quantized kernels), with our q8 time
against our own fp32 time of the same model, and int8 linear layers (static int8 and dynamic int8 activations x
int8 weights, XNNPACK) join the kernel table in GOP/s next to the fp32 GEMM.

Run it with the export virtualenv (it has upstream executorch, torch and numpy), after building the SDK::

    bash scripts/build_sdk.sh
    ../exportenv/bin/python scripts/benchmark.py [--repeat N] [--only NAME]... [--sdk PREFIX] [--json FILE]
"""

from __future__ import annotations

import argparse
import datetime
import importlib.metadata
import importlib.util
import json
import math
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
# The executorch wheel of this CPython and machine (dist/wheels holds one per CPython and architecture of the matrix).
HOST_WHEEL = f"executorch-*-cp{sys.version_info[0]}{sys.version_info[1]}-*_{platform.machine()}.whl"
FIXTURES = REPO_ROOT / "tests" / "fixtures"
QUANTIZED = FIXTURES / "quantized"  # scripts/export_quantized_fixtures.py
DEFAULT_SDK = REPO_ROOT / "dist" / "executorch-sdk"

# Targets from the issue "CPU kernels library: full operator coverage and speed" (portable programs).
TARGET_GEOMEAN = 0.5
TARGET_CONV_HEAVY = 0.1
TARGET_MAX = 1.0
CONV_HEAVY = ("cnn", "mobilenet", "resnet_block", "mobilenet_v3", "unet", "audio_conv1d")
# Targets from the issue "Speed on real models, and a thread pool that holds up under load".
TARGET_REAL = {
    ("xnnpack", "idle"): (0.8, 1.2),  # (geomean, worst model)
    ("xnnpack", "loaded"): (0.8, 1.5),
    ("portable", "idle"): (0.15, 1.0),
}
# Targets from the issue "Quantized programs": geomean ours/upstream, and our q8 conv nets against our own fp32.
TARGET_QUANTIZED = {"xnnpack_q8": 1.0, "portable_q8": 0.5}
TARGET_Q8_OVER_FP32 = 1.5

# Loads that --load runs beside the benchmark, one at a time (each ends when the benchmark is done with it, or
# when the benchmark itself is gone: the kernel kills it then, PR_SET_PDEATHSIG; a killed benchmark had left its
# busy loop running, which skewed the next run).
DIE_WITH_PARENT = "import ctypes, signal\nctypes.CDLL(None).prctl(1, signal.SIGKILL)\n"  # 1: PR_SET_PDEATHSIG
BUSY_LOOP = DIE_WITH_PARENT + "import os\nos.nice(10)\nwhile True: pass\n"
TORCH_LOAD = DIE_WITH_PARENT + (
    "import torch\n"
    "torch.set_num_threads(max(1, len(__import__('os').sched_getaffinity(0))))\n"
    "a = torch.randn(384, 384); b = torch.randn(384, 384)\n"
    "while True: (a @ b).relu_().sum()\n"
)
LOADS = {
    "busy": ("a niced (10) single-thread Python busy loop", BUSY_LOOP),
    "torch": ("a PyTorch matmul loop on every CPU (torch.set_num_threads = CPUs)", TORCH_LOAD),
}

# Full-size conv nets that --full-size also exports as static int8 XNNPACK programs (our q8 against our fp32 on
# real-size networks; the quantized fixtures are too small for the int8 kernels to matter).
FULL_Q8 = ("mobilenet_v2", "mobilenet_v3_large", "resnet18", "efficientnet_b0", "squeezenet1_1", "shufflenet_v2")

MATMUL_SIZES = (64, 256, 1024)
CONV_SHAPE = (1, 64, 56, 56)  # N, C_in, H, W; 3x3, pad 1, 64 output channels
CONV_OUT = 64
MICRO_FLOP_BUDGET = 20e9  # caps the repeat count of the large micro benchmarks

# --------------------------------------------------------------------------------------------------------------
# The upstream runner (C++, built against the upstream wheel's SDK at benchmark time)
# --------------------------------------------------------------------------------------------------------------

UPSTREAM_RUNNER_CPP = r"""
// Times one method of a .pte with upstream ExecuTorch's C++ runtime: median of N Module::execute calls.
#include <executorch/extension/module/module.h>
#include <executorch/extension/tensor/tensor.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

using executorch::aten::ScalarType;
using executorch::extension::Module;
using executorch::extension::TensorPtr;
using executorch::runtime::EValue;

namespace {

bool read_npy(const std::string& path, std::vector<int32_t>* shape, std::vector<uint8_t>* data,
              ScalarType* dtype) {
  std::ifstream in(path, std::ios::binary);
  char magic[8];
  in.read(magic, 8);
  if (!in || std::memcmp(magic, "\x93NUMPY", 6) != 0) return false;
  uint32_t header_len = 0;
  unsigned char b[4] = {0, 0, 0, 0};
  in.read(reinterpret_cast<char*>(b), magic[6] == 1 ? 2 : 4);
  header_len = b[0] | (b[1] << 8) | (b[2] << 16) | (static_cast<uint32_t>(b[3]) << 24);
  std::string header(header_len, '\0');
  in.read(header.data(), header_len);
  if (!in || header.find("'fortran_order': True") != std::string::npos) return false;
  size_t item = 0;
  if (header.find("'<f4'") != std::string::npos) {
    *dtype = ScalarType::Float, item = 4;
  } else if (header.find("'<i8'") != std::string::npos) {
    *dtype = ScalarType::Long, item = 8;
  } else if (header.find("'<i4'") != std::string::npos) {
    *dtype = ScalarType::Int, item = 4;
  } else if (header.find("'|b1'") != std::string::npos) {
    *dtype = ScalarType::Bool, item = 1;
  } else {
    return false;
  }
  const size_t open = header.find('(', header.find("'shape'"));
  const size_t close = header.find(')', open);
  if (open == std::string::npos || close == std::string::npos) return false;
  const std::string dims = header.substr(open + 1, close - open - 1);
  size_t count = 1;
  for (size_t pos = 0; pos < dims.size();) {
    size_t comma = dims.find(',', pos);
    if (comma == std::string::npos) comma = dims.size();
    const std::string tok = dims.substr(pos, comma - pos);
    if (tok.find_first_of("0123456789") != std::string::npos) {
      shape->push_back(std::atoi(tok.c_str()));
      count *= static_cast<size_t>(shape->back());
    }
    pos = comma + 1;
  }
  data->resize(count * item);
  in.read(reinterpret_cast<char*>(data->data()), static_cast<std::streamsize>(data->size()));
  return static_cast<bool>(in) || data->empty();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: upstream_runner MODEL.pte [--method NAME] [--input FILE.npy]... [--repeat N]\n");
    return 1;
  }
  std::string method = "forward";
  std::vector<std::string> inputs;
  int repeat = 1;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--method") {
      method = argv[i + 1];
    } else if (a == "--input") {
      inputs.emplace_back(argv[i + 1]);
    } else if (a == "--repeat") {
      repeat = std::max(1, std::atoi(argv[i + 1]));
    } else {
      std::fprintf(stderr, "error: unknown argument %s\n", a.c_str());
      return 1;
    }
  }
  Module module(argv[1]);
  if (module.load() != executorch::runtime::Error::Ok) {
    std::fprintf(stderr, "error: cannot load %s\n", argv[1]);
    return 2;
  }
  const auto l0 = std::chrono::steady_clock::now();
  if (module.load_method(method) != executorch::runtime::Error::Ok) {
    std::fprintf(stderr, "error: cannot load method %s\n", method.c_str());
    return 2;
  }
  const auto l1 = std::chrono::steady_clock::now();
  std::vector<TensorPtr> tensors;
  std::vector<EValue> values;
  for (const auto& path : inputs) {
    std::vector<int32_t> shape;
    std::vector<uint8_t> data;
    ScalarType dtype = ScalarType::Float;
    if (!read_npy(path, &shape, &data, &dtype)) {
      std::fprintf(stderr, "error: cannot read %s\n", path.c_str());
      return 1;
    }
    tensors.push_back(executorch::extension::make_tensor_ptr(std::move(shape), std::move(data), {}, {}, dtype));
    values.emplace_back(tensors.back());
  }
  std::vector<double> times;
  for (int r = 0; r < repeat; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    auto result = module.execute(method, values);
    const auto t1 = std::chrono::steady_clock::now();
    if (!result.ok()) {
      std::fprintf(stderr, "error: running method %s failed: error 0x%x\n", method.c_str(),
                   static_cast<unsigned>(result.error()));
      return 2;
    }
    times.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  std::sort(times.begin(), times.end());
  std::printf("median_us %.3f\n", times[times.size() / 2]);
  std::printf("load_method_us %.3f\n", std::chrono::duration<double, std::micro>(l1 - l0).count());
  return 0;
}
"""

UPSTREAM_RUNNER_CMAKE = """
cmake_minimum_required(VERSION 3.19)
project(upstream_runner CXX)
find_package(executorch REQUIRED CONFIG)
add_executable(upstream_runner runner.cpp)
# The variables work on every CMake the package supports (its imported targets need CMake >= 3.28).
set_target_properties(upstream_runner PROPERTIES
  CXX_STANDARD ${EXECUTORCH_CXX_STANDARD} CXX_STANDARD_REQUIRED ON
  BUILD_RPATH "${EXECUTORCH_RUNTIME_LIBRARY_DIR}")
target_include_directories(upstream_runner PRIVATE ${EXECUTORCH_INCLUDE_DIRS})
target_compile_definitions(upstream_runner PRIVATE ${EXECUTORCH_COMPILE_DEFINITIONS})
target_compile_options(upstream_runner PRIVATE -O2 -Wno-deprecated-declarations)
target_link_libraries(upstream_runner PRIVATE ${EXECUTORCH_LIBRARIES})
# The quantized kernels (portable q8 programs) are outside EXECUTORCH_LIBRARIES on purpose (upstream's config says
# why: its Python plugin carries a second copy); this runner never loads that plugin.
if(EXECUTORCH_QUANTIZED_KERNELS_LIBRARY)
  target_link_libraries(upstream_runner PRIVATE ${EXECUTORCH_QUANTIZED_KERNELS_LIBRARY})
endif()
"""


def upstream_package_dir() -> Path:
    spec = importlib.util.find_spec("executorch")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("error: the upstream 'executorch' package is not importable; run with ../exportenv/bin/python")
    return Path(next(iter(spec.submodule_search_locations)))


def build_upstream_runner(work: Path) -> Path:
    pkg = upstream_package_dir()
    if not (pkg / "lib" / "libexecutorch.so").exists():
        raise SystemExit(f"error: {pkg} ships no C++ runtime (lib/libexecutorch.so)")
    src = work / "upstream_runner"
    src.mkdir()
    (src / "runner.cpp").write_text(UPSTREAM_RUNNER_CPP)
    (src / "CMakeLists.txt").write_text(UPSTREAM_RUNNER_CMAKE)
    build = src / "build"
    for cmd in (
        ["cmake", "-S", str(src), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release", f"-DCMAKE_PREFIX_PATH={pkg}"],
        ["cmake", "--build", str(build)],
    ):
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise SystemExit(f"error: building the upstream runner failed:\n{proc.stdout}\n{proc.stderr}")
    return build / "upstream_runner"


# --------------------------------------------------------------------------------------------------------------
# Timing
# --------------------------------------------------------------------------------------------------------------


@dataclass
class Timing:
    median_us: float | None = None
    note: str = ""  # why there is no number
    load_method_us: float | None = None  # one cold Module::load_method (delegate init, weight packing)


@dataclass
class Row:
    model: str
    variant: str
    ours: Timing
    upstream: Timing
    ratio: float | None = None
    conv_heavy: bool = False


def quiet_env() -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("EXECUTORCH_LOG_LEVEL", "error")
    return env


def time_runner(
    runner: Path, pte: Path, method: str, inputs: Sequence[Path], repeat: int, extra: Sequence[str] = ()
) -> Timing:
    cmd = [str(runner), str(pte), "--method", method, "--repeat", str(max(repeat, 2)), *extra]
    for path in inputs:
        cmd += ["--input", str(path)]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=quiet_env(), timeout=3600)
    match = re.search(r"median_us\s+([0-9.eE+-]+)", proc.stdout)
    if proc.returncode == 0 and match:
        load = re.search(r"load_method_us\s+([0-9.eE+-]+)", proc.stdout)
        return Timing(float(match.group(1)), load_method_us=float(load.group(1)) if load else None)
    err = proc.stderr.strip().splitlines()
    text = " ".join(line for line in err if "error" in line.lower()) or (err[-1] if err else f"exit {proc.returncode}")
    if "XnnpackBackend" in text and "not registered" in text:
        return Timing(None, "n/a (delegate not built)")
    if "not registered" in text or "OperatorMissing" in text:
        missing = re.findall(r"aten::[\w.]+|dim_order_ops::[\w.]+", text)
        shown = ", ".join(sorted(set(missing))[:4]) + (", ..." if len(set(missing)) > 4 else "")
        return Timing(None, f"n/a (operator(s) not registered: {shown})" if missing else "n/a (operator missing)")
    return Timing(None, f"failed: {text[:160]}")


def fixture_jobs(only: Sequence[str]) -> list[tuple[str, str, Path, list[Path]]]:
    """(row name, method, fixture dir entry, case-0 inputs) for every method of every selected fixture."""
    manifest = json.loads((FIXTURES / "manifest.json").read_text())
    names = {fx["name"] for fx in manifest["fixtures"]}
    if (QUANTIZED / "manifest.json").exists():
        names |= {fx["name"] for fx in json.loads((QUANTIZED / "manifest.json").read_text())["fixtures"]}
    unknown = {name for name in only if not name.startswith("full_")} - names  # full_*: --full-size networks
    if unknown:
        raise SystemExit(f"error: unknown fixture(s) {sorted(unknown)}; known: {sorted(names)}")
    jobs = []
    for fx in manifest["fixtures"]:
        if only and fx["name"] not in only:
            continue
        for method, spec in fx["methods"].items():
            row = fx["name"] if len(fx["methods"]) == 1 else f"{fx['name']}.{method}"
            inputs = [FIXTURES / x["file"] for x in spec["cases"][0]["inputs"]]
            jobs.append((row, method, fx, inputs))
    return jobs


def export_full_size(work: Path, only: Sequence[str] = ()) -> dict[str, Any]:
    """Exports the full-size real networks (portable and XNNPACK; the FULL_Q8 ones also static int8 XNNPACK, as
    export_quantized_fixtures.py's recipe, calibrated on the case input and two random ones) into ``work``; returns
    a manifest like the fixtures' (``files`` relative to ``work``, one case of random inputs, ``notes`` marking
    them as real). With full_* names in ``only``, just those."""
    sys.path.insert(0, str(REPO_ROOT / "scripts"))
    import export_fixtures as ef
    import export_quantized_fixtures as eq
    import numpy as np
    import torch

    warnings.filterwarnings("ignore")
    entries = []
    wanted = {name for name in only if name.startswith("full_")}
    for fixture in ef.build_real_models(full_size=True):
        name = f"full_{fixture.name}"
        if wanted and name not in wanted:
            continue
        (work / name).mkdir()
        files = {}
        for variant in ("portable", "xnnpack"):
            print(f"  exporting {name} ({variant}) ...", flush=True)
            manager = ef.lower(ef.export_methods(fixture), variant)
            (work / name / f"{variant}.pte").write_bytes(manager.buffer)
            files[variant] = f"{name}/{variant}.pte"
        if fixture.name in FULL_Q8:
            print(f"  exporting {name} (xnnpack_q8) ...", flush=True)
            spec = fixture.methods["forward"]
            example = spec.cases[0]
            gen = torch.Generator().manual_seed(7)
            calibration = [example[0]] + [torch.randn(example[0].shape, generator=gen) for _ in range(2)]
            graph = eq.quantize_pt2e(spec.module.eval(), example, calibration, dynamic=False)
            _edge, manager = eq.lower(eq.export_quantized(graph, example, "static_int8"), "xnnpack_q8", "static_int8")
            (work / name / "xnnpack_q8.pte").write_bytes(manager.buffer)
            files["xnnpack_q8"] = f"{name}/xnnpack_q8.pte"
        inputs = []
        for i, t in enumerate(fixture.methods["forward"].cases[0]):
            np.save(work / name / f"in{i}.npy", t.numpy())
            inputs.append({"file": f"{name}/in{i}.npy"})
        entries.append(
            {
                "name": name,
                "files": files,
                "methods": {"forward": {"cases": [{"inputs": inputs}]}},
                "notes": ["real network", "full size"],
            }
        )
    return {"fixtures": entries}


def bench_fixtures(
    sdk_runner: Path,
    upstream_runner: Path,
    variant: str,
    repeat: int,
    only: Sequence[str],
    extra: dict[str, Any] | None = None,
    extra_root: Path | None = None,
) -> list[Row]:
    rows = []
    jobs = [(FIXTURES, job) for job in fixture_jobs(only)]
    if extra and extra_root:
        for fx in extra["fixtures"]:
            if only and fx["name"] not in only:
                continue
            inputs = [extra_root / x["file"] for x in fx["methods"]["forward"]["cases"][0]["inputs"]]
            jobs.append((extra_root, (fx["name"], "forward", fx, inputs)))
    for root, (row_name, method, fx, inputs) in jobs:
        pte = root / fx["files"][variant]
        # Upstream's runner has its kernels and delegate linked in; ours loads those libraries up front too, so
        # that load_method times compare method initialisation, not the process's first dlopen of a component
        # (about 0.3 ms for the kernels library, paid once per process).
        ours = time_runner(sdk_runner, pte, method, inputs, repeat, preload_args(sdk_runner, variant))
        upstream = time_runner(upstream_runner, pte, method, inputs, repeat)
        ratio = None
        if ours.median_us is not None and upstream.median_us:
            ratio = ours.median_us / upstream.median_us
        rows.append(Row(row_name, variant, ours, upstream, ratio, fx["name"] in CONV_HEAVY))
        print(f"  {variant:8s} {row_name:24s} ours {fmt_us(ours)}  upstream {fmt_us(upstream)}", flush=True)
    return rows


def preload_args(sdk_runner: Path, variant: str) -> list[str]:
    """``--load-library`` arguments for the component libraries a variant's programs use."""
    stems = ["executorch_kernels"]
    if variant.startswith("xnnpack"):
        stems.append("executorch_xnnpack")
    if variant.endswith("_q8"):
        stems.append("executorch_kernels_quantized")
    lib = sdk_runner.parent.parent / "lib"
    return [arg for stem in stems for path in lib.glob(f"lib{stem}.so.*") for arg in ("--load-library", str(path))]


def bench_quantized(
    sdk_runner: Path,
    upstream_runner: Path,
    repeat: int,
    only: Sequence[str],
    extra: dict[str, Any] | None = None,
    extra_root: Path | None = None,
) -> list[Row]:
    """Every quantized fixture (tests/fixtures/quantized), XNNPACK q8 and portable q8, and the full-size networks'
    XNNPACK q8 programs (export_full_size), ours against upstream."""
    manifest_path = QUANTIZED / "manifest.json"
    jobs = (
        [(QUANTIZED, fx) for fx in json.loads(manifest_path.read_text())["fixtures"]] if manifest_path.exists() else []
    )
    if extra and extra_root:
        jobs += [(extra_root, fx) for fx in extra["fixtures"] if fx["files"].get("xnnpack_q8")]
    rows = []
    for root, fx in jobs:
        if only and fx["name"] not in only:
            continue
        inputs = [root / x["file"] for x in fx["methods"]["forward"]["cases"][0]["inputs"]]
        for variant in ("xnnpack_q8", "portable_q8"):
            if not fx["files"].get(variant):  # upstream cannot make it (the manifest's `failures` say why)
                continue
            pte = root / fx["files"][variant]
            ours = time_runner(sdk_runner, pte, "forward", inputs, repeat, preload_args(sdk_runner, variant))
            upstream = time_runner(upstream_runner, pte, "forward", inputs, repeat)
            ratio = ours.median_us / upstream.median_us if ours.median_us and upstream.median_us else None
            rows.append(Row(fx["name"], variant, ours, upstream, ratio))
            print(f"  {variant:11s} {fx['name']:24s} ours {fmt_us(ours)}  upstream {fmt_us(upstream)}", flush=True)
    return rows


def print_quantized(load: str, rows: list[Row], fp32: list[Row]) -> dict[str, Any]:
    """The quantized table: ours/upstream per variant, and our XNNPACK q8 time against our own fp32 XNNPACK time
    of the same model (when the fp32 fixture of that name was run)."""

    # Only where the quantized fixture is the fp32 fixture's model (same name and input shapes; the torchvision
    # ones are smaller variants in tests/fixtures/quantized).
    def shapes(manifest: Path, name: str) -> list[Any] | None:
        for fx in json.loads(manifest.read_text())["fixtures"]:
            if fx["name"] == name:
                return [x["shape"] for x in fx["methods"]["forward"]["cases"][0]["inputs"]]
        return None

    # The full-size q8 programs (full_*) are the full-size fp32 ones' models.
    same = {
        r.model
        for r in rows
        if r.model.startswith("full_")
        or shapes(QUANTIZED / "manifest.json", r.model) == shapes(FIXTURES / "manifest.json", r.model)
    }
    ours_fp32 = {r.model: r.ours.median_us for r in fp32 if r.variant == "xnnpack" and r.model in same}
    print(f"\n### Quantized programs, {load}\n")
    print("| model | variant | ours (us) | upstream (us) | ours/upstream | our fp32 / our q8 |")
    print("|---|---|---:|---:|---:|---:|")
    speedups: list[tuple[str, float]] = []
    for r in rows:
        fp32_us = ours_fp32.get(r.model) if r.variant == "xnnpack_q8" else None
        speedup = fp32_us / r.ours.median_us if fp32_us and r.ours.median_us else None
        if speedup is not None:
            speedups.append((r.model, speedup))
        print(
            f"| {r.model} | {r.variant} | {fmt_us(r.ours).strip()} | {fmt_us(r.upstream).strip()} | "
            f"{cell(r.ratio, '.3f')} | {cell(speedup, '.2f')} |"
        )
    summary: dict[str, Any] = {}
    for variant, target in TARGET_QUANTIZED.items():
        g = geomean([r.ratio for r in rows if r.variant == variant and r.ratio and not r.model.startswith("full_")])
        summary[variant] = {"geomean": g, "target": target}
        print(f"\n{variant}: geomean ours/upstream {cell(g, '.3f')} (target <= {target}: {check(g, target)})")
    full = [r.ratio for r in rows if r.variant == "xnnpack_q8" and r.ratio and r.model.startswith("full_")]
    if full:
        g = geomean(full)
        summary["xnnpack_q8_full_size"] = {"geomean": g}
        print(f"xnnpack_q8 full-size networks: geomean ours/upstream {cell(g, '.3f')} (worst {max(full):.3f})")
    for key, label, group in (
        ("q8_over_fp32", "fixtures", [v for m, v in speedups if not m.startswith("full_")]),
        ("q8_over_fp32_full_size", "full-size networks", [v for m, v in speedups if m.startswith("full_")]),
    ):
        g = geomean(group)
        if not group and key != "q8_over_fp32":
            continue
        summary[key] = {"geomean": g, "target": TARGET_Q8_OVER_FP32}
        met = "n/a" if g is None else ("met" if g >= TARGET_Q8_OVER_FP32 else "MISSED")
        print(
            f"our fp32 / our q8 (XNNPACK, same model; {label}): geomean {cell(g, '.2f')} "
            f"(target >= {TARGET_Q8_OVER_FP32}: {met})"
        )
    return summary


class Load:
    """A background process that keeps the machine busy while the benchmark runs beside it."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Load:
        if self.name != "idle":
            code = LOADS[self.name][1]
            self.proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL)
            time.sleep(1.0)  # let it start and take its CPUs
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()


def fmt_us(t: Timing) -> str:
    return f"{t.median_us:10.1f}" if t.median_us is not None else t.note


def geomean(values: Sequence[float]) -> float | None:
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


# --------------------------------------------------------------------------------------------------------------
# Kernel micro benchmarks (GFLOP/s): mm and one 3x3 convolution
# --------------------------------------------------------------------------------------------------------------


@dataclass
class Micro:
    name: str
    flop: float
    ours_us: float | None = None
    upstream_us: float | None = None
    numpy_us: float | None = None
    notes: list[str] = field(default_factory=list)

    def gflops(self, us: float | None) -> float | None:
        return self.flop / (us * 1e3) if us else None


def micro_repeat(flop: float, repeat: int) -> int:
    return max(3, min(repeat, int(MICRO_FLOP_BUDGET / flop)))


def export_micro_programs(work: Path) -> list[tuple[Micro, Path, list[Path]]]:
    """Export portable programs with a single mm / convolution, with random inputs, into ``work``."""
    import numpy as np
    import torch
    from executorch.exir import to_edge
    from torch import nn

    class MatMul(nn.Module):
        """``x @ W`` with a constant weight W, as in a linear layer without bias."""

        def __init__(self, weight: torch.Tensor) -> None:
            super().__init__()
            self.weight = nn.Parameter(weight)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return torch.mm(x, self.weight)

    warnings.filterwarnings("ignore", category=FutureWarning)
    warnings.filterwarnings("ignore", category=UserWarning)
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(0)
    programs: list[tuple[nn.Module, tuple[torch.Tensor, ...], Micro]] = []
    for n in MATMUL_SIZES:
        module = MatMul(torch.randn(n, n, generator=gen)).eval()
        programs.append((module, (torch.randn(n, n, generator=gen),), Micro(f"matmul {n}x{n}x{n}", 2.0 * n**3)))
    batch, cin, h, w = CONV_SHAPE
    conv = nn.Conv2d(cin, CONV_OUT, 3, padding=1).eval()
    flop = 2.0 * batch * CONV_OUT * cin * 9 * h * w
    programs.append(
        (conv, (torch.randn(*CONV_SHAPE, generator=gen),), Micro(f"conv3x3 {batch}x{cin}x{h}x{w}->{CONV_OUT}", flop))
    )

    out = []
    for idx, (module, args, micro) in enumerate(programs):
        with torch.no_grad():
            ep = torch.export.export(module, args, strict=False)
        pte = work / f"micro{idx}.pte"
        pte.write_bytes(to_edge(ep).to_executorch().buffer)
        inputs = []
        for k, t in enumerate(args):
            path = work / f"micro{idx}_in{k}.npy"
            np.save(path, t.numpy())
            inputs.append(path)
        out.append((micro, pte, inputs))
    out += export_int8_micro_programs(work)
    return out


def export_int8_micro_programs(work: Path) -> list[tuple[Micro, Path, list[Path]]]:
    """Linear layers quantized as upstream's XNNPACK recipes do (static int8, and dynamic int8 activations with
    int8 weights), lowered to XNNPACK: the int8 GEMM, next to the fp32 one."""
    import numpy as np
    import torch
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
        XNNPACKQuantizer,
        get_symmetric_quantization_config,
    )
    from executorch.exir import to_edge_transform_and_lower
    from torch import nn
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    gen = torch.Generator().manual_seed(1)
    out = []
    for n in MATMUL_SIZES[1:]:
        for dynamic in (False, True):
            linear = nn.Linear(n, n, bias=False).eval()
            x = torch.randn(n, n, generator=gen)
            quantizer = XNNPACKQuantizer().set_global(
                get_symmetric_quantization_config(is_per_channel=True, is_dynamic=dynamic)
            )
            module = prepare_pt2e(torch.export.export(linear, (x,)).module(), quantizer)
            module(x)
            module = convert_pt2e(module)
            program = to_edge_transform_and_lower(torch.export.export(module, (x,)), partitioner=[XnnpackPartitioner()])
            kind = "qd8 x qc8w linear (dynamic int8)" if dynamic else "qs8 linear (static int8)"
            pte = work / f"int8_{n}_{int(dynamic)}.pte"
            pte.write_bytes(program.to_executorch().buffer)
            path = work / f"int8_{n}_{int(dynamic)}_in0.npy"
            np.save(path, x.numpy())
            out.append((Micro(f"{kind} {n}x{n}x{n}", 2.0 * n**3), pte, [path]))
    return out


NUMPY_BENCH = r"""
import json, sys, time
import numpy as np

repeat = int(sys.argv[1])
sizes = [int(s) for s in sys.argv[2].split(",")]
n, cin, h, w = (int(s) for s in sys.argv[3].split(","))
cout = int(sys.argv[4])
budget = float(sys.argv[5])

def median_us(fn, reps):
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e6)
    times.sort()
    return times[len(times) // 2]

def reps_for(flop):
    return max(3, min(repeat, int(budget / flop)))

rng = np.random.default_rng(0)
result = {"matmul": {}, "blas": None}
for s in sizes:
    a = rng.standard_normal((s, s), dtype=np.float32)
    b = rng.standard_normal((s, s), dtype=np.float32)
    np.matmul(a, b)
    result["matmul"][str(s)] = median_us(lambda: np.matmul(a, b), reps_for(2.0 * s**3))

x = rng.standard_normal((n, cin, h, w), dtype=np.float32)
wt = rng.standard_normal((cout, cin * 9), dtype=np.float32)
def conv():
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    win = np.lib.stride_tricks.sliding_window_view(xp, (3, 3), axis=(2, 3))  # n, cin, h, w, 3, 3
    cols = np.ascontiguousarray(win.transpose(0, 1, 4, 5, 2, 3)).reshape(n, cin * 9, h * w)
    return np.matmul(wt, cols)
conv()
result["conv"] = median_us(conv, reps_for(2.0 * n * cout * cin * 9 * h * w))

try:
    import threadpoolctl
    keys = ("internal_api", "version", "architecture", "num_threads", "threading_layer")
    info = [
        {k: v for k, v in lib.items() if k in keys}
        for lib in threadpoolctl.threadpool_info()
        if lib.get("user_api") == "blas"
    ]
    result["blas"] = {"source": "threadpoolctl", "libraries": info}
except ImportError:
    import contextlib, io
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        np.show_config()
    result["blas"] = {"source": "numpy.show_config", "text": buf.getvalue()}
result["numpy_version"] = np.__version__
print(json.dumps(result))
"""


def numpy_micro(repeat: int) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")}
    args = [
        sys.executable,
        "-c",
        NUMPY_BENCH,
        str(repeat),
        ",".join(str(s) for s in MATMUL_SIZES),
        ",".join(str(s) for s in CONV_SHAPE),
        str(CONV_OUT),
        str(MICRO_FLOP_BUDGET),
    ]
    proc = subprocess.run(args, capture_output=True, text=True, env=env, check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def describe_blas(blas: dict[str, Any] | None) -> str:
    if not blas:
        return "unknown"
    if blas.get("source") == "threadpoolctl":
        parts = [
            f"{lib.get('internal_api')} {lib.get('version')}, kernel {lib.get('architecture')}, "
            f"{lib.get('num_threads')} threads ({lib.get('threading_layer')})"
            for lib in blas["libraries"]
        ]
        return "; ".join(parts) + " [threadpoolctl]"
    text = blas.get("text", "")
    match = re.search(r"openblas configuration:\s*(.*)", text)
    return (match.group(1).strip() if match else text.strip().splitlines()[0]) + " [numpy.show_config]"


def bench_micro(sdk_runner: Path, upstream_runner: Path, work: Path, repeat: int) -> tuple[list[Micro], str, str]:
    micro_dir = work / "micro"
    micro_dir.mkdir()
    print("exporting the micro-benchmark programs ...", flush=True)
    programs = export_micro_programs(micro_dir)
    for micro, pte, inputs in programs:
        reps = micro_repeat(micro.flop, repeat)
        ours = time_runner(sdk_runner, pte, "forward", inputs, reps, preload_args(sdk_runner, "xnnpack"))
        upstream = time_runner(upstream_runner, pte, "forward", inputs, reps)
        micro.ours_us, micro.upstream_us = ours.median_us, upstream.median_us
        micro.notes += [f"ours: {ours.note}"] if ours.note else []
        micro.notes += [f"upstream: {upstream.note}"] if upstream.note else []
    np_result = numpy_micro(repeat)
    for micro, _, _ in programs:
        if micro.name.startswith("matmul"):
            micro.numpy_us = np_result["matmul"][micro.name.split()[1].split("x")[0]]
        elif micro.name.startswith("conv"):
            micro.numpy_us = np_result["conv"]
    return [m for m, _, _ in programs], describe_blas(np_result.get("blas")), np_result.get("numpy_version", "?")


# --------------------------------------------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------------------------------------------


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def cell(value: float | None, fmt: str, missing: str = "n/a") -> str:
    return format(value, fmt) if value is not None else missing


def summarize(rows: list[Row]) -> dict[str, Any]:
    ratios = [r.ratio for r in rows if r.ratio is not None]
    conv = [r.ratio for r in rows if r.conv_heavy and r.ratio is not None]
    return {
        "measured": len(ratios),
        "models": len(rows),
        "geomean": geomean(ratios),
        "max": max(ratios) if ratios else None,
        "conv_heavy_geomean": geomean(conv),
        "conv_heavy_max": max(conv) if conv else None,
    }


def check(value: float | None, target: float) -> str:
    if value is None:
        return "n/a"
    return "ok" if value <= target else "MISSED"


def print_table(title: str, rows: list[Row], with_targets: bool) -> dict[str, Any]:
    print(f"\n### {title}\n")
    print(
        "| model | ours median µs | upstream median µs | ours/upstream | ours load_method µs "
        "| upstream load_method µs | load ours/upstream |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        ours = cell(r.ours.median_us, ".1f", r.ours.note)
        up = cell(r.upstream.median_us, ".1f", r.upstream.note)
        ratio = cell(r.ratio, ".3f", "—")
        lo, lu = r.ours.load_method_us, r.upstream.load_method_us
        load = f"{cell(lo, '.0f', '—')} | {cell(lu, '.0f', '—')} | {cell(lo / lu if lo and lu else None, '.2f', '—')}"
        if (
            with_targets
            and r.ratio is not None
            and (r.ratio > TARGET_MAX or (r.conv_heavy and r.ratio > TARGET_CONV_HEAVY))
        ):
            ratio += " (!)"
        print(f"| {r.model}{' (conv)' if r.conv_heavy else ''} | {ours} | {up} | {ratio} | {load} |")
    summary = summarize(rows)
    print()
    print(
        f"- geometric mean of ours/upstream over {summary['measured']} of {summary['models']} models: "
        f"{cell(summary['geomean'], '.3f')}"
        + (f" (target ≤ {TARGET_GEOMEAN}: {check(summary['geomean'], TARGET_GEOMEAN)})" if with_targets else "")
    )
    if with_targets:
        print(
            f"- conv-heavy models ({', '.join(CONV_HEAVY)}): geo-mean {cell(summary['conv_heavy_geomean'], '.3f')}, "
            f"worst {cell(summary['conv_heavy_max'], '.3f')} (target ≤ {TARGET_CONV_HEAVY} each: "
            f"{check(summary['conv_heavy_max'], TARGET_CONV_HEAVY)})"
        )
        print(
            f"- worst model: {cell(summary['max'], '.3f')} (target: none > {TARGET_MAX}: "
            f"{check(summary['max'], TARGET_MAX)})"
        )
        missing = summary["models"] - summary["measured"]
        if missing:
            print(f"- {missing} model(s) have no ratio (see the table); the targets need every model to run")
    return summary


def real_network_names(extra: dict[str, Any] | None = None) -> set[str]:
    manifest = json.loads((FIXTURES / "manifest.json").read_text())
    fixtures = manifest["fixtures"] + (extra["fixtures"] if extra else [])
    return {fx["name"] for fx in fixtures if "real network" in fx.get("notes", [])}


def print_real_networks(tables: list[tuple[str, str, list[Row]]], extra: dict[str, Any] | None) -> dict[str, Any]:
    """One table of ours/upstream per real network and condition, with the geomeans against the targets."""
    real = real_network_names(extra)
    columns = [(variant, load) for variant, load, _ in tables]
    ratio: dict[tuple[str, str, str], float | None] = {}
    for variant, load, rows in tables:
        for r in rows:
            if r.model in real:
                ratio[(r.model, variant, load)] = r.ratio
    models = sorted({m for m, _, _ in ratio})
    if not models:
        return {}
    print("\n### Real networks: ours/upstream (lower is better)\n")
    print("| model | " + " | ".join(f"{v} {ld}" for v, ld in columns) + " |")
    print("|---|" + "---:|" * len(columns))
    for m in models:
        print(f"| {m} | " + " | ".join(cell(ratio.get((m, v, ld)), ".3f", "—") for v, ld in columns) + " |")
    summary: dict[str, Any] = {}
    cells = []
    for v, ld in columns:
        values = [x for (m, vv, ll), x in ratio.items() if vv == v and ll == ld and x is not None]
        gm, worst = geomean(values), (max(values) if values else None)
        key = (v, "idle" if ld == "idle" else "loaded")
        target = TARGET_REAL.get(key)
        verdict = ""
        if target:
            ok = gm is not None and worst is not None and gm <= target[0] and worst <= target[1]
            verdict = f" (target geomean ≤ {target[0]}, none > {target[1]}: {'ok' if ok else 'MISSED'})"
        cells.append(f"{cell(gm, '.3f')} / {cell(worst, '.3f')}{verdict}")
        summary[f"{v}/{ld}"] = {"geomean": gm, "max": worst, "measured": len(values), "models": len(models)}
    print("| geomean / worst | " + " | ".join(cells) + " |")
    return summary


def print_micro(micros: list[Micro], blas: str, numpy_version: str) -> None:
    print("\n### Kernels: fp32 GFLOP/s and int8 GOP/s (median)\n")
    print(f"numpy {numpy_version}, BLAS: {blas}. The numpy convolution is im2col + np.matmul (im2col included).\n")
    print("| kernel | ours G(FL)OP/s | upstream G(FL)OP/s | numpy GFLOP/s | ours µs | upstream µs | numpy µs |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for m in micros:
        print(
            f"| {m.name} | {cell(m.gflops(m.ours_us), '.1f')} | {cell(m.gflops(m.upstream_us), '.1f')} | "
            f"{cell(m.gflops(m.numpy_us), '.1f')} | {cell(m.ours_us, '.0f')} | {cell(m.upstream_us, '.0f')} | "
            f"{cell(m.numpy_us, '.0f')} |"
        )
    for m in micros:
        for note in m.notes:
            print(f"- {m.name}: {note}")


PY_IMPORT = (
    "import time; t = time.perf_counter(); from executorch.runtime import Runtime; print(time.perf_counter() - t)"
)
# Per-call time of Method.execute on the add_mul fixture (a [2, 4] input): mostly binding overhead.
PY_CALL = """
import sys, time
import numpy as np
from executorch.runtime import Runtime
x = np.load(sys.argv[2])
if sys.argv[3] == "torch":
    import torch
    x = torch.from_numpy(x)
method = Runtime.get().load_program(sys.argv[1]).load_method("forward")
for _ in range(50):
    method.execute([x])
times = []
for _ in range(int(sys.argv[4])):
    t = time.perf_counter()
    method.execute([x])
    times.append(time.perf_counter() - t)
times.sort()
print(times[len(times) // 2])
"""


def median_of_runs(cmd: list[str], runs: int) -> float:
    values = sorted(float(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout) for _ in range(runs))
    return values[len(values) // 2]


def bench_python(wheel: Path, work: Path, repeat: int) -> dict[str, Any]:
    """Import time, per-call overhead and wheel size: our wheel (fresh venv) vs upstream (this interpreter)."""
    venv = work / "ours-venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", str(wheel)], check=True)
    ours_py = str(venv / "bin" / "python")
    script = work / "call.py"
    script.write_text(PY_CALL)
    pte = FIXTURES / "add_mul" / "portable.pte"
    x = FIXTURES / "add_mul" / "forward_case0_in0.npy"
    calls = max(repeat * 20, 1000)
    up_dir = work / "upstream-wheel"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "-q",
            "--no-deps",
            "-d",
            str(up_dir),
            f"executorch=={importlib.metadata.version('executorch')}",
        ],
        check=True,
    )
    (up_wheel,) = up_dir.glob("executorch-*.whl")
    return {
        "import_s": {
            "ours": median_of_runs([ours_py, "-c", PY_IMPORT], 7),
            "upstream": median_of_runs([sys.executable, "-c", PY_IMPORT], 3),
        },
        "call_s": {
            "ours": median_of_runs([ours_py, str(script), str(pte), str(x), "numpy", str(calls)], 3),
            "upstream": median_of_runs([sys.executable, str(script), str(pte), str(x), "torch", str(calls)], 3),
        },
        "wheel_bytes": {"ours": wheel.stat().st_size, "upstream": up_wheel.stat().st_size},
        "wheels": {"ours": wheel.name, "upstream": up_wheel.name},
    }


def print_python(py: dict[str, Any]) -> None:
    print("\n### Python bindings (add_mul, [2, 4] input; ours: numpy arrays, upstream: torch tensors)\n")
    print("| measure | ours | upstream | ours/upstream |")
    print("|---|---:|---:|---:|")
    rows = [
        ("import executorch.runtime (ms)", "import_s", 1e3),
        ("Method.execute per call (µs)", "call_s", 1e6),
        ("wheel size (MB)", "wheel_bytes", 1e-6),
    ]
    for label, key, scale in rows:
        ours, up = py[key]["ours"] * scale, py[key]["upstream"] * scale
        print(f"| {label} | {ours:.2f} | {up:.2f} | {ours / up:.3f} |")
    print(f"\nwheels: {py['wheels']['ours']} vs {py['wheels']['upstream']}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=50, help="executions per measurement (median); default 50")
    parser.add_argument("--only", action="append", default=[], metavar="NAME", help="fixture to run (repeatable)")
    parser.add_argument("--sdk", type=Path, default=DEFAULT_SDK, help="our SDK prefix (default dist/executorch-sdk)")
    parser.add_argument("--json", type=Path, help="also write the results as JSON to FILE")
    parser.add_argument("--skip-micro", action="store_true", help="skip the mm / convolution GFLOP/s benchmarks")
    parser.add_argument("--skip-python", action="store_true", help="skip the Python binding measurements")
    parser.add_argument("--skip-quantized", action="store_true", help="skip the quantized fixtures")
    parser.add_argument("--wheel", type=Path, help="our wheel (default: the one in dist/wheels)")
    parser.add_argument(
        "--full-size",
        action="store_true",
        help="also export the full-size real networks (224x224, 1000 classes; torchvision/timm) into a temporary "
        "directory and time them",
    )
    parser.add_argument(
        "--load",
        action="append",
        choices=["idle", *LOADS],
        help="run every fixture under this condition (repeatable; default: idle). "
        + "; ".join(f"{k}: {v[0]}" for k, v in LOADS.items()),
    )
    args = parser.parse_args(argv)
    args.load = list(dict.fromkeys(args.load or ["idle"]))
    if args.repeat < 2:
        parser.error("--repeat must be at least 2 (the runners print a median only for N > 1)")

    sdk_runner = args.sdk.resolve() / "bin" / "executorch_runner"
    if not sdk_runner.exists():
        parser.error(f"{sdk_runner} does not exist: build the SDK first (bash scripts/build_sdk.sh)")
    for tool in ("cmake", "c++"):
        if shutil.which(tool) is None:
            raise SystemExit(f"error: '{tool}' is needed to build the upstream runner")

    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    header = {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "cpu": cpu_model(),
        "cpus": cpus,
        "upstream_executorch": importlib.metadata.version("executorch"),
        "repeat": args.repeat,
        "ours_threads": os.environ.get("EXECUTORCH_NUM_THREADS", f"default ({cpus})"),
        "load_average_start": round(os.getloadavg()[0], 2),
    }
    print(
        f"# benchmark {header['date']}: {header['cpu']}, {cpus} CPUs, upstream executorch "
        f"{header['upstream_executorch']}, median of {args.repeat}"
    )

    with tempfile.TemporaryDirectory(prefix="et-bench-") as tmp:
        work = Path(tmp)
        print("building the upstream runner against the upstream wheel's C++ SDK ...", flush=True)
        upstream_runner = build_upstream_runner(work)
        results: dict[str, Any] = {"header": header}
        full: dict[str, Any] | None = None
        if args.full_size:
            print("exporting the full-size real networks ...", flush=True)
            (work / "full").mkdir()
            full = export_full_size(work / "full", args.only)
        tables: list[tuple[str, str, list[Row]]] = []
        quantized: list[tuple[str, list[Row]]] = []
        for load in args.load:
            with Load(load):
                for variant in ("portable", "xnnpack"):
                    print(f"running the {variant} programs ({load}) ...", flush=True)
                    rows = bench_fixtures(
                        sdk_runner, upstream_runner, variant, args.repeat, args.only, full, work / "full"
                    )
                    tables.append((variant, load, rows))
                if not args.skip_quantized:
                    print(f"running the quantized programs ({load}) ...", flush=True)
                    quantized.append(
                        (
                            load,
                            bench_quantized(sdk_runner, upstream_runner, args.repeat, args.only, full, work / "full"),
                        )
                    )
        micros: list[Micro] = []
        blas, numpy_version = "", ""
        if not args.skip_micro:
            micros, blas, numpy_version = bench_micro(sdk_runner, upstream_runner, work, args.repeat)
        py: dict[str, Any] | None = None
        if not args.skip_python:
            wheels = [args.wheel] if args.wheel else sorted((REPO_ROOT / "dist" / "wheels").glob(HOST_WHEEL))
            if len(wheels) != 1:
                parser.error(f"need one {HOST_WHEEL} in dist/wheels (or --wheel): build it with scripts/build_sdk.sh")
            print("measuring the Python bindings ...", flush=True)
            py = bench_python(wheels[0].resolve(), work, args.repeat)

    header["load_average_end"] = round(os.getloadavg()[0], 2)
    print(
        f"\n## Results {header['date']}\n\n{header['cpu']}, {cpus} CPUs available, 1-minute load average "
        f"{header['load_average_start']} at the start and {header['load_average_end']} at the end; our thread "
        f"pool: {header['ours_threads']} threads; upstream executorch {header['upstream_executorch']}."
    )
    # The load at the start is the other processes' (at the end it includes this benchmark's own threads).
    if cpus and header["load_average_start"] > 0.5 * cpus:
        print(
            f"WARNING: the machine was busy (load average {header['load_average_start']} on {cpus} CPUs at the "
            "start): other processes compete for "
            "the cores, so the timings (numpy's multi-threaded BLAS above all) are noisy."
        )
    method = (
        "upstream: C++ runner built against the upstream executorch wheel's SDK (libexecutorch + "
        "kernels_optimized + backend_xnnpack), Module::execute; ours: executorch_runner"
    )
    print(
        f"\nBoth columns: median wall time of one Module::execute on the case-0 inputs over {args.repeat} runs "
        f"(first run included). {method}."
    )
    for load in args.load:
        if load != "idle":
            print(f"\nLoaded runs ('{load}'): {LOADS[load][0]} ran beside both runners.")
    for variant, load, rows in tables:
        title = "Portable programs (no delegate)" if variant == "portable" else "XNNPACK programs"
        summary = print_table(f"{title}, {load}", rows, with_targets=variant == "portable" and load == "idle")
        results.setdefault(load, {})[variant] = {"rows": [asdict(r) for r in rows], "summary": summary}
    results["real_networks"] = print_real_networks(tables, full)
    for load, rows in quantized:
        if rows:
            fp32 = [r for variant, lo, rs in tables if lo == load for r in rs]
            summary = print_quantized(load, rows, fp32)
            results.setdefault(load, {})["quantized"] = {"rows": [asdict(r) for r in rows], "summary": summary}
    if micros:
        print_micro(micros, blas, numpy_version)
        results["micro"] = {"blas": blas, "numpy_version": numpy_version, "rows": [asdict(m) for m in micros]}

    if py is not None:
        print_python(py)
        results["python"] = py

    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
        print(f"\nwrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
