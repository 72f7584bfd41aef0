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

``--full-size`` adds the published networks at 224x224 / 1000 classes (export_fixtures.full_size_specs; ViT-B/16
with ``--vit``), exported at run time, never committed. With it:

* ``--ort``: every network is exported once more with ``torch.onnx.export`` (opset 18) and timed with ONNX
  Runtime's CPU provider (ORT_ENABLE_ALL, intra-op threads = ours, inter-op 1, median of N ``run`` calls in a
  subprocess) beside our and upstream's XNNPACK program; the FULL_Q8 networks also as ORT's static QDQ int8 model
  (calibrated on the inputs our PT2E int8 program was calibrated on) beside the xnnpack_q8 programs. The tables
  gain ``ours / best(upstream, ORT)`` with its geomean per variant, load and thread count.
* ``--cold-start``: fresh processes from start to the first output, and their peak RSS, ours / upstream / ORT.

``--threads N`` (repeatable, default 2) gives all runtimes the same thread count: ours through
``EXECUTORCH_NUM_THREADS``, upstream's runner resizes upstream's pool, ORT's ``intra_op_num_threads``.

Run it with the export virtualenv (it has upstream executorch, torch and numpy; onnx, onnxscript and onnxruntime
for ``--ort``), after building the SDK::

    bash scripts/build_sdk.sh
    ../exportenv/bin/python scripts/benchmark.py [--repeat N] [--only NAME]... [--sdk PREFIX] [--json FILE]
    ../exportenv/bin/python scripts/benchmark.py --full-size --ort --cold-start --skip-fixtures --skip-portable \\
        --skip-micro --skip-python --load idle --load torch --threads 2 --threads 1 --repeat 10
"""

from __future__ import annotations

import argparse
import contextlib
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
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

// The upstream wheel ships libexecutorch_threadpool but not its header: the two members this runner calls.
namespace executorch::extension::threadpool {
class ThreadPool {
 public:
  size_t get_thread_count() const;
  bool _unsafe_reset_threadpool(uint32_t num_threads);
};
ThreadPool* get_threadpool();
}  // namespace executorch::extension::threadpool

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
    std::fprintf(stderr,
                 "usage: upstream_runner MODEL.pte [--method NAME] [--input FILE.npy]... [--repeat N] [--threads N]\n");
    return 1;
  }
  std::string method = "forward";
  std::vector<std::string> inputs;
  int repeat = 1;
  int threads = 0;  // 0: the pool's default size (the CPU count)
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--method") {
      method = argv[i + 1];
    } else if (a == "--input") {
      inputs.emplace_back(argv[i + 1]);
    } else if (a == "--repeat") {
      repeat = std::max(1, std::atoi(argv[i + 1]));
    } else if (a == "--threads") {
      threads = std::max(0, std::atoi(argv[i + 1]));
    } else {
      std::fprintf(stderr, "error: unknown argument %s\n", a.c_str());
      return 1;
    }
  }
  auto* pool = executorch::extension::threadpool::get_threadpool();
  if (threads > 0 && pool->get_thread_count() != static_cast<size_t>(threads) &&
      !pool->_unsafe_reset_threadpool(static_cast<uint32_t>(threads))) {
    std::fprintf(stderr, "error: cannot resize the thread pool to %d threads\n", threads);
    return 1;
  }
  // Cold start: from here (the program not yet read) to the end of the first execution.
  const auto c0 = std::chrono::steady_clock::now();
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
  double cold_us = 0;
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
    if (r == 0) cold_us = std::chrono::duration<double, std::micro>(t1 - c0).count();
  }
  std::sort(times.begin(), times.end());
  std::printf("median_us %.3f\n", times[times.size() / 2]);
  std::printf("load_method_us %.3f\n", std::chrono::duration<double, std::micro>(l1 - l0).count());
  std::printf("cold_us %.3f\n", cold_us);
  std::printf("threads %zu\n", pool->get_thread_count());
  return 0;
}
"""

# Runs a command in a fresh process and reports its wall time and peak RSS. A child forked from the benchmark's own
# (large: torch) Python would start with that process's RSS high-water mark as its ru_maxrss (Linux carries it over
# fork and exec), so the cold-start runs are forked from this small program instead.
RSS_EXEC_CPP = r"""
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: rss_exec COMMAND [ARG]...\n");
    return 127;
  }
  timespec t0{}, t1{};
  clock_gettime(CLOCK_MONOTONIC, &t0);
  const pid_t pid = fork();
  if (pid == 0) {
    execvp(argv[1], argv + 1);
    std::perror("rss_exec: exec");
    _exit(127);
  }
  int status = 0;
  rusage usage{};
  if (pid < 0 || wait4(pid, &status, 0, &usage) < 0) return 127;
  clock_gettime(CLOCK_MONOTONIC, &t1);
  const double us = (t1.tv_sec - t0.tv_sec) * 1e6 + (t1.tv_nsec - t0.tv_nsec) / 1e3;
  std::fprintf(stderr, "\nrss_exec wall_us %.1f maxrss_kib %ld\n", us, usage.ru_maxrss);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
"""

UPSTREAM_RUNNER_CMAKE = """
cmake_minimum_required(VERSION 3.19)
project(upstream_runner CXX)
add_executable(rss_exec rss_exec.cpp)
target_compile_options(rss_exec PRIVATE -O2)
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
    src.mkdir(exist_ok=True)
    (src / "runner.cpp").write_text(UPSTREAM_RUNNER_CPP)
    (src / "rss_exec.cpp").write_text(RSS_EXEC_CPP)
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
    load_method_us: float | None = None  # one cold Module::load_method (delegate init, weight packing); ORT: session


@dataclass
class Row:
    model: str
    variant: str
    ours: Timing
    upstream: Timing
    ratio: float | None = None
    conv_heavy: bool = False
    ort: Timing = field(default_factory=lambda: Timing(None, "—"))  # ONNX Runtime (--ort, full-size networks)
    threads: int | None = None  # the thread count all runtimes were given (None: each one's default)

    @property
    def ratio_ort(self) -> float | None:
        return self.ours.median_us / self.ort.median_us if self.ours.median_us and self.ort.median_us else None

    @property
    def ratio_best(self) -> float | None:
        """ours / the faster of upstream and ONNX Runtime (upstream alone where ORT has no number)."""
        peers = [t.median_us for t in (self.upstream, self.ort) if t.median_us]
        return self.ours.median_us / min(peers) if self.ours.median_us and peers else None


def quiet_env() -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("EXECUTORCH_LOG_LEVEL", "error")
    return env


def ours_env(threads: int | None) -> dict[str, str]:
    """Our runner's environment: the thread pool's size through EXECUTORCH_NUM_THREADS."""
    env = quiet_env()
    if threads:
        env["EXECUTORCH_NUM_THREADS"] = str(threads)
    return env


def upstream_args(threads: int | None) -> list[str]:
    """Upstream's runner resizes upstream's pool (sized by the CPU count, no environment variable) itself."""
    return ["--threads", str(threads)] if threads else []


def time_runner(
    runner: Path,
    pte: Path,
    method: str,
    inputs: Sequence[Path],
    repeat: int,
    extra: Sequence[str] = (),
    env: dict[str, str] | None = None,
) -> Timing:
    cmd = [str(runner), str(pte), "--method", method, "--repeat", str(max(repeat, 2)), *extra]
    for path in inputs:
        cmd += ["--input", str(path)]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env or quiet_env(), timeout=3600)
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


def export_full_size(
    work: Path,
    only: Sequence[str] = (),
    variants: Sequence[str] = ("portable", "xnnpack"),
    quantized: bool = True,
    ort: bool = False,
    large: bool = False,
) -> dict[str, Any]:
    """Exports the full-size real networks (``variants``; the FULL_Q8 ones also static int8 XNNPACK, as
    export_quantized_fixtures.py's recipe, calibrated on the case input and two random ones) into ``work``; returns
    a manifest like the fixtures' (``files`` relative to ``work``, one case of random inputs, ``notes`` marking
    them as real). With full_* names in ``only``, just those. ``ort``: each network also as ONNX (``onnx``) and the
    FULL_Q8 ones as ONNX Runtime's static QDQ int8 model calibrated on the same inputs (``onnx_q8``). ``large``:
    ViT-B/16 too."""
    sys.path.insert(0, str(REPO_ROOT / "scripts"))
    import export_fixtures as ef
    import export_quantized_fixtures as eq
    import numpy as np
    import torch

    warnings.filterwarnings("ignore")
    entries = []
    wanted = {name for name in only if name.startswith("full_")}
    for fixture in ef.build_real_models(full_size=True, large=large):
        name = f"full_{fixture.name}"
        if wanted and name not in wanted:
            continue
        (work / name).mkdir()
        files = {}
        spec = fixture.methods["forward"]
        example = spec.cases[0]
        for variant in variants:
            print(f"  exporting {name} ({variant}) ...", flush=True)
            manager = ef.lower(ef.export_methods(fixture), variant)
            (work / name / f"{variant}.pte").write_bytes(manager.buffer)
            files[variant] = f"{name}/{variant}.pte"
        if ort:
            print(f"  exporting {name} (onnx) ...", flush=True)
            note = export_onnx(spec.module.eval(), example, work / name / "model.onnx")
            print(f"    {note}", flush=True)
            if not note.startswith("ONNX export failed"):
                files["onnx"] = f"{name}/model.onnx"
        if fixture.name in FULL_Q8 and quantized:
            print(f"  exporting {name} (xnnpack_q8) ...", flush=True)
            gen = torch.Generator().manual_seed(7)
            calibration = [example[0]] + [torch.randn(example[0].shape, generator=gen) for _ in range(2)]
            if files.get("onnx"):
                print(f"  quantizing {name} (ONNX Runtime static QDQ int8) ...", flush=True)
                note = quantize_onnx(work / files["onnx"], work / name / "model_q8.onnx", [[t] for t in calibration])
                if note:
                    print(f"    {note}", flush=True)
                else:
                    files["onnx_q8"] = f"{name}/model_q8.onnx"
            graph = eq.quantize_pt2e(spec.module.eval(), example, calibration, dynamic=False)
            _edge, manager = eq.lower(eq.export_quantized(graph, example, "static_int8"), "xnnpack_q8", "static_int8")
            (work / name / "xnnpack_q8.pte").write_bytes(manager.buffer)
            files["xnnpack_q8"] = f"{name}/xnnpack_q8.pte"
        inputs = []
        for i, t in enumerate(example):
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


# --------------------------------------------------------------------------------------------------------------
# ONNX Runtime (--ort): the same networks exported once more with torch.onnx, timed with ORT's CPU provider
# --------------------------------------------------------------------------------------------------------------

ONNX_OPSET = 18
# The ONNX model (export_full_size's ``files`` key) that ORT runs against each ExecuTorch variant.
ORT_MODEL = {"xnnpack": "onnx", "xnnpack_q8": "onnx_q8"}


def export_onnx(module: Any, example: Sequence[Any], path: Path) -> str:
    """``torch.onnx.export`` of ``module`` at opset ONNX_OPSET, weights inside the file: the dynamo exporter, else
    the TorchScript one. Returns which one made it, or "ONNX export failed: " and why."""
    import io

    import torch

    errors = []
    for dynamo in (True, False):
        try:
            with contextlib.redirect_stdout(io.StringIO()), torch.no_grad():
                kwargs: dict[str, Any] = {"dynamo": dynamo, "opset_version": ONNX_OPSET}
                if dynamo:
                    kwargs["external_data"] = False
                torch.onnx.export(module, tuple(example), str(path), **kwargs)
            return f"{'dynamo' if dynamo else 'TorchScript'} exporter, opset {ONNX_OPSET}" + (
                f" ({'; '.join(errors)})" if errors else ""
            )
        except Exception as e:
            errors.append(f"{'dynamo' if dynamo else 'torchscript'}: {type(e).__name__}: {str(e)[:200]}")
    return "ONNX export failed: " + "; ".join(errors)


def quantize_onnx(fp32: Path, out: Path, calibration: Sequence[Sequence[Any]]) -> str:
    """ONNX Runtime's static quantization for x86 CPUs: QDQ format, uint8 activations and int8 per-channel weights
    (U8S8, the pair ORT's x86 kernels (VPMADDUBSW) are built for), MinMax calibration on ``calibration`` (lists of
    input tensors), after ORT's pre-processing (shape inference and graph optimisation). Not S8S8, ORT's default
    QDQ pair: with it ORT 1.32 fused only 9 of ResNet-18's 20 convolutions into QLinearConv (the rest ran as
    DequantizeLinear -> fp32 Conv -> QuantizeLinear, 47 ms against 20 ms for U8S8 on 2 threads), which would have
    made ORT look slower than it is. Returns "" or why it failed."""
    import onnx
    from onnxruntime.quantization import (
        CalibrationDataReader,
        CalibrationMethod,
        QuantFormat,
        QuantType,
        quantize_static,
    )
    from onnxruntime.quantization.shape_inference import quant_pre_process

    names = [i.name for i in onnx.load(str(fp32), load_external_data=False).graph.input]
    feeds = [{n: t.numpy() for n, t in zip(names, case, strict=True)} for case in calibration]

    class Reader(CalibrationDataReader):
        def __init__(self) -> None:
            self.it = iter(feeds)

        def get_next(self) -> dict[str, Any] | None:
            return next(self.it, None)

    source = fp32.with_name(fp32.stem + "_pre.onnx")
    try:
        quant_pre_process(str(fp32), str(source))
    except Exception:
        source = fp32
    try:
        quantize_static(
            str(source),
            str(out),
            Reader(),
            quant_format=QuantFormat.QDQ,
            per_channel=True,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
            calibrate_method=CalibrationMethod.MinMax,
        )
    except Exception as e:
        return f"ORT quantize_static failed: {type(e).__name__}: {str(e)[:200]}"
    return ""


# Run in a fresh interpreter per measurement: session creation (graph optimisation, weight prepacking) and the first
# run are its cold start; the median of N runs, the first included as in both ExecuTorch runners, its speed.
ORT_BENCH = r"""
import json, sys, time
t_start = time.perf_counter()
import numpy as np
import onnxruntime as ort
t_import = time.perf_counter()
model, threads, repeat = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
inputs = [np.load(p) for p in sys.argv[4:]]
opts = ort.SessionOptions()
opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
opts.intra_op_num_threads = threads
opts.inter_op_num_threads = 1
opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
t0 = time.perf_counter()
session = ort.InferenceSession(model, opts, providers=["CPUExecutionProvider"])
t1 = time.perf_counter()
feed = {i.name: x for i, x in zip(session.get_inputs(), inputs)}
times = []
for _ in range(repeat):
    a = time.perf_counter()
    session.run(None, feed)
    times.append((time.perf_counter() - a) * 1e6)
first = times[0]
times.sort()
print(json.dumps({
    "median_us": times[len(times) // 2], "session_us": (t1 - t0) * 1e6, "first_run_us": first,
    "cold_us": (t1 - t0) * 1e6 + first, "import_us": (t_import - t_start) * 1e6, "ort_version": ort.__version__,
}))
"""


def ort_command(model: Path, inputs: Sequence[Path], repeat: int, threads: int) -> list[str]:
    return [sys.executable, "-c", ORT_BENCH, str(model), str(threads), str(repeat), *(str(p) for p in inputs)]


def time_ort(model: Path, inputs: Sequence[Path], repeat: int, threads: int) -> Timing:
    """Median of ``repeat`` InferenceSession.run calls (ORT_ENABLE_ALL, intra-op threads = ``threads``, inter-op 1)
    in a subprocess with the benchmark's environment and CPU affinity, as both ExecuTorch runners get."""
    cmd = ort_command(model, inputs, max(repeat, 2), threads)
    proc = subprocess.run(cmd, capture_output=True, text=True, env=quiet_env(), timeout=3600)
    if proc.returncode != 0:
        err = proc.stderr.strip().splitlines()
        return Timing(None, f"failed: {(err[-1] if err else f'exit {proc.returncode}')[:160]}")
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    return Timing(result["median_us"], load_method_us=result["session_us"])


def with_ort(row: Row, fx: dict[str, Any], root: Path, inputs: list[Path], repeat: int, ort: bool, width: int) -> Row:
    """Times ONNX Runtime on the row's network too (``ort``, where it has an ONNX model of the row's variant) and
    prints the row."""
    onnx = fx["files"].get(ORT_MODEL.get(row.variant, ""))
    if ort and onnx:
        row.ort = time_ort(root / onnx, inputs, repeat, row.threads or 1)
    print(
        f"  {row.variant:{width}s} {row.model:24s} ours {fmt_us(row.ours)}  upstream {fmt_us(row.upstream)}"
        + (f"  ORT {fmt_us(row.ort)}" if ort and onnx else ""),
        flush=True,
    )
    return row


def bench_fixtures(
    sdk_runner: Path,
    upstream_runner: Path,
    variant: str,
    repeat: int,
    only: Sequence[str],
    extra: dict[str, Any] | None = None,
    extra_root: Path | None = None,
    threads: int | None = None,
    ort: bool = False,
    fixtures: bool = True,
) -> list[Row]:
    """Every selected fixture (unless not ``fixtures``) and full-size network (``extra``) of ``variant``, ours
    against upstream, and against ONNX Runtime (``ort``) where the network has an ONNX model (fp32: ``onnx``)."""
    rows = []
    jobs = [(FIXTURES, job) for job in fixture_jobs(only)] if fixtures else []
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
        ours = time_runner(
            sdk_runner, pte, method, inputs, repeat, preload_args(sdk_runner, variant), ours_env(threads)
        )
        upstream = time_runner(upstream_runner, pte, method, inputs, repeat, upstream_args(threads))
        ratio = None
        if ours.median_us is not None and upstream.median_us:
            ratio = ours.median_us / upstream.median_us
        row = Row(row_name, variant, ours, upstream, ratio, fx["name"] in CONV_HEAVY, threads=threads)
        rows.append(with_ort(row, fx, root, inputs, repeat, ort, width=8))
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
    threads: int | None = None,
    ort: bool = False,
    fixtures: bool = True,
) -> list[Row]:
    """Every quantized fixture (tests/fixtures/quantized), XNNPACK q8 and portable q8, and the full-size networks'
    XNNPACK q8 programs (export_full_size), ours against upstream (and ONNX Runtime's QDQ int8 model: ``ort``)."""
    manifest_path = QUANTIZED / "manifest.json"
    jobs = (
        [(QUANTIZED, fx) for fx in json.loads(manifest_path.read_text())["fixtures"]]
        if manifest_path.exists() and fixtures
        else []
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
            ours = time_runner(
                sdk_runner, pte, "forward", inputs, repeat, preload_args(sdk_runner, variant), ours_env(threads)
            )
            upstream = time_runner(upstream_runner, pte, "forward", inputs, repeat, upstream_args(threads))
            ratio = ours.median_us / upstream.median_us if ours.median_us and upstream.median_us else None
            row = Row(fx["name"], variant, ours, upstream, ratio, threads=threads)
            rows.append(with_ort(row, fx, root, inputs, repeat, ort, width=11))
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


# --------------------------------------------------------------------------------------------------------------
# Cold start and peak memory (--cold-start): fresh processes, one execution each
# --------------------------------------------------------------------------------------------------------------

# Targets from the issue "Speed ahead of every peer at full size".
TARGET_PEERS = {"idle": (0.8, 1.0), "loaded": (0.8, 1.2)}  # ours / best(upstream, ORT): (geomean, worst network)
TARGET_COLD = 0.5  # cold start, ours / upstream
TARGET_RSS = 1.0  # peak RSS, ours / upstream


@dataclass
class Cold:
    wall_us: float | None = None  # fresh process from spawn to exit (median over the runs)
    inproc_us: float | None = None  # load + first execution as the process itself timed it (upstream, ORT)
    rss_kib: int | None = None  # peak resident set (the largest over the runs)
    note: str = ""


@dataclass
class ColdRow:
    model: str
    variant: str
    ours: Cold
    upstream: Cold
    ort: Cold

    @property
    def ratio(self) -> float | None:
        return self.ours.wall_us / self.upstream.wall_us if self.ours.wall_us and self.upstream.wall_us else None

    @property
    def rss_ratio(self) -> float | None:
        return self.ours.rss_kib / self.upstream.rss_kib if self.ours.rss_kib and self.upstream.rss_kib else None


def run_fresh(launcher: Path, cmd: Sequence[str], env: dict[str, str]) -> tuple[float, int, int, str, str]:
    """(wall µs from fork to exit, peak RSS KiB (wait4 ru_maxrss), exit status, stdout, stderr) of ``cmd`` in a
    fresh process forked by ``launcher`` (RSS_EXEC_CPP)."""
    proc = subprocess.run([str(launcher), *cmd], capture_output=True, text=True, env=env, timeout=3600)
    match = re.search(r"rss_exec wall_us ([0-9.]+) maxrss_kib ([0-9]+)\s*$", proc.stderr)
    if not match:
        return 0.0, 0, proc.returncode or 127, proc.stdout, proc.stderr
    return float(match.group(1)), int(match.group(2)), proc.returncode, proc.stdout, proc.stderr[: match.start()]


def cold_sample(samples: list[tuple[float, int, float | None]], result: tuple[float, int, int, str, str]) -> str:
    """Adds (wall, rss, in-process cold µs) of one run to ``samples``; returns "" or the failure."""
    wall, rss, code, out, err = result
    if code != 0:
        lines = err.strip().splitlines()
        return f"failed: {(lines[-1] if lines else f'exit {code}')[:120]}"
    inproc = None
    match = re.search(r"cold_us\s+([0-9.eE+-]+)", out)
    if match:
        inproc = float(match.group(1))
    elif out.strip().startswith("{"):
        inproc = json.loads(out.strip().splitlines()[-1])["cold_us"]
    samples.append((wall, rss, inproc))
    return ""


def summarize_cold(samples: list[tuple[float, int, float | None]], note: str) -> Cold:
    if not samples:
        return Cold(note=note or "n/a")
    walls = sorted(w for w, _, _ in samples)
    inprocs = sorted(x for _, _, x in samples if x is not None)
    return Cold(
        walls[len(walls) // 2], inprocs[len(inprocs) // 2] if inprocs else None, max(r for _, r, _ in samples), note
    )


def bench_cold(
    sdk_runner: Path,
    upstream_runner: Path,
    launcher: Path,
    extra: dict[str, Any],
    root: Path,
    threads: int,
    runs: int,
    ort: bool,
) -> list[ColdRow]:
    """Cold start and peak RSS of every full-size network's XNNPACK fp32 and q8 program: ``runs`` fresh processes
    per runtime, taking turns. Ours: executorch_runner --repeat 1 (it prints no cold time of its own, so the
    process's wall time from spawn to exit); upstream: its runner --repeat 1 (the same wall time, and its own
    timing of program load + method load + first execution); ORT: a fresh Python process (the wall time includes
    the interpreter and ``import onnxruntime``; its own timing is session creation + first run)."""
    rows = []
    for fx in extra["fixtures"]:
        inputs = [root / x["file"] for x in fx["methods"]["forward"]["cases"][0]["inputs"]]
        in_args = [arg for path in inputs for arg in ("--input", str(path))]
        for variant in ("xnnpack", "xnnpack_q8"):
            if not fx["files"].get(variant):
                continue
            pte = str(root / fx["files"][variant])
            commands: list[tuple[list[str], dict[str, str]]] = [
                ([str(sdk_runner), pte, "--repeat", "1", *in_args], ours_env(threads)),
                ([str(upstream_runner), pte, "--repeat", "1", *upstream_args(threads), *in_args], quiet_env()),
            ]
            onnx = fx["files"].get(ORT_MODEL[variant])
            if ort and onnx:
                commands.append((ort_command(root / onnx, inputs, 1, threads), quiet_env()))
            samples: list[list[tuple[float, int, float | None]]] = [[] for _ in commands]
            notes = ["" for _ in commands]
            for _ in range(runs):
                for i, (cmd, env) in enumerate(commands):
                    notes[i] = cold_sample(samples[i], run_fresh(launcher, cmd, env)) or notes[i]
            cold = [summarize_cold(s, n) for s, n in zip(samples, notes, strict=True)]
            row = ColdRow(fx["name"], variant, cold[0], cold[1], cold[2] if len(cold) > 2 else Cold(note="—"))
            rows.append(row)
            print(
                f"  {variant:11s} {fx['name']:24s} cold ms ours {cell_ms(row.ours.wall_us)} upstream "
                f"{cell_ms(row.upstream.wall_us)} ORT {cell_ms(row.ort.inproc_us)}; peak RSS MiB ours "
                f"{cell_mib(row.ours.rss_kib)} upstream {cell_mib(row.upstream.rss_kib)} "
                f"ORT {cell_mib(row.ort.rss_kib)}",
                flush=True,
            )
    return rows


def python_baseline(launcher: Path, runs: int) -> Cold:
    """A fresh Python that imports numpy and onnxruntime and exits: what ORT's process columns include."""
    samples: list[tuple[float, int, float | None]] = []
    note = ""
    for _ in range(runs):
        cmd = [sys.executable, "-c", "import numpy, onnxruntime"]
        note = cold_sample(samples, run_fresh(launcher, cmd, quiet_env()))
    return summarize_cold(samples, note)


def cell_ms(us: float | None) -> str:
    return f"{us / 1e3:.1f}" if us is not None else "n/a"


def cell_mib(kib: int | None) -> str:
    return f"{kib / 1024:.1f}" if kib is not None else "n/a"


def print_cold(rows: list[ColdRow], baseline: Cold | None, threads: int, runs: int, cpu: str) -> dict[str, Any]:
    print(f"\n### Cold start and peak RSS, full-size networks, idle, {threads} threads ({cpu})\n")
    print(
        f"Median of {runs} fresh processes each (one execution); peak RSS: the largest of them (wait4 ru_maxrss). "
        "ours / upstream: process wall time from spawn to exit (our runner prints no cold time of its own); "
        "upstream in-process: program load + method load + first execution as its runner times it; ORT: session "
        "creation + first run in-process, and the fresh Python process's wall time"
        + (
            f" (a Python that only imports numpy and onnxruntime: {cell_ms(baseline.wall_us)} ms, "
            f"{cell_mib(baseline.rss_kib)} MiB)."
            if baseline
            else "."
        )
        + "\n"
    )
    print(
        "| model | variant | ours cold ms | upstream cold ms | ours/upstream | upstream in-process ms | "
        "ORT session+first run ms | ORT process ms | ours RSS MiB | upstream RSS MiB | ORT RSS MiB | "
        "RSS ours/upstream |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(
            f"| {r.model} | {r.variant} | {cell_ms(r.ours.wall_us) if r.ours.wall_us else r.ours.note} | "
            f"{cell_ms(r.upstream.wall_us) if r.upstream.wall_us else r.upstream.note} | {cell(r.ratio, '.2f', '—')} | "
            f"{cell_ms(r.upstream.inproc_us)} | {cell_ms(r.ort.inproc_us) if r.ort.inproc_us else r.ort.note} | "
            f"{cell_ms(r.ort.wall_us)} | {cell_mib(r.ours.rss_kib)} | {cell_mib(r.upstream.rss_kib)} | "
            f"{cell_mib(r.ort.rss_kib)} | {cell(r.rss_ratio, '.2f', '—')} |"
        )
    summary: dict[str, Any] = {}
    for variant in ("xnnpack", "xnnpack_q8"):
        cold = [r.ratio for r in rows if r.variant == variant and r.ratio is not None]
        rss = [r.rss_ratio for r in rows if r.variant == variant and r.rss_ratio is not None]
        if not cold:
            continue
        g, worst, rss_worst = geomean(cold), max(cold), max(rss) if rss else None
        summary[variant] = {"cold_geomean": g, "cold_max": worst, "rss_geomean": geomean(rss), "rss_max": rss_worst}
        print(
            f"\n{variant}: cold start ours/upstream geomean {cell(g, '.2f')}, worst {worst:.2f} (target each ≤ "
            f"{TARGET_COLD}: {check(worst, TARGET_COLD)}); peak RSS ours/upstream geomean {cell(geomean(rss), '.2f')}, "
            f"worst {cell(rss_worst, '.2f')} (target each ≤ {TARGET_RSS}: {check(rss_worst, TARGET_RSS)})"
        )
    return summary


def print_peers(tables: list[tuple[str, str, int | None, list[Row]]], multi: bool, cpu: str) -> dict[str, Any]:
    """Full-size networks: ours against upstream and ONNX Runtime, per variant, load and thread count, with the
    geomean and the worst of ours / best(upstream, ORT) against the issue's targets; then one matrix of that ratio."""
    summary: dict[str, Any] = {}
    matrix: dict[tuple[str, str], float | None] = {}
    columns: list[str] = []
    for variant, load, threads, rows in tables:
        full = [r for r in rows if r.model.startswith("full_") and variant in ORT_MODEL]
        if not full:
            continue
        cond = condition(load, threads, multi)
        label = f"{variant} {cond}"
        columns.append(label)
        print(f"\n### Full size vs upstream and ONNX Runtime: {variant}, {load}, {threads} threads ({cpu})\n")
        print("| model | ours µs | upstream µs | ORT µs | ours/upstream | ours/ORT | ours / best(upstream, ORT) |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for r in full:
            best = r.ratio_best
            target = TARGET_PEERS["idle" if load == "idle" else "loaded"]
            mark = " (!)" if best is not None and best > target[1] else ""
            print(
                f"| {r.model} | {fmt_us(r.ours).strip()} | {fmt_us(r.upstream).strip()} | {fmt_us(r.ort).strip()} | "
                f"{cell(r.ratio, '.3f', '—')} | {cell(r.ratio_ort, '.3f', '—')} | {cell(best, '.3f', '—')}{mark} |"
            )
            matrix[(r.model, label)] = best
        best_values = [r.ratio_best for r in full if r.ratio_best is not None]
        g, worst = geomean(best_values), (max(best_values) if best_values else None)
        target = TARGET_PEERS["idle" if load == "idle" else "loaded"]
        ok = g is not None and worst is not None and g <= target[0] and worst <= target[1]
        ort_measured = sum(1 for r in full if r.ort.median_us)
        summary[label] = {
            "geomean_best": g,
            "max_best": worst,
            "geomean_upstream": geomean([r.ratio for r in full if r.ratio]),
            "geomean_ort": geomean([r.ratio_ort for r in full if r.ratio_ort]),
            "measured": len(best_values),
            "ort_measured": ort_measured,
            "networks": len(full),
            "target": list(target),
        }
        print(
            f"\n{label}: geomean ours / best(upstream, ORT) {cell(g, '.3f')}, worst {cell(worst, '.3f')} over "
            f"{len(best_values)} of {len(full)} networks, ORT measured on {ort_measured} (target geomean ≤ "
            f"{target[0]}, none > {target[1]}: {'ok' if ok else 'MISSED'}); geomean ours/upstream "
            f"{cell(summary[label]['geomean_upstream'], '.3f')}, ours/ORT {cell(summary[label]['geomean_ort'], '.3f')}"
        )
    if len(columns) > 1:
        models = sorted({m for m, _ in matrix})
        print("\n### Full size: ours / best(upstream, ORT) (lower is better)\n")
        print("| model | " + " | ".join(columns) + " |")
        print("|---|" + "---:|" * len(columns))
        for m in models:
            print(f"| {m} | " + " | ".join(cell(matrix.get((m, c)), ".3f", "—") for c in columns) + " |")
        print(
            "| **geomean / worst** | "
            + " | ".join(
                f"**{cell(summary[c]['geomean_best'], '.3f')} / {cell(summary[c]['max_best'], '.3f')}**"
                for c in columns
            )
            + " |"
        )
    return summary


def condition(load: str, threads: int | None, multi: bool) -> str:
    """The label of a run condition: the load, and the thread count when several were run."""
    return f"{load} {threads}t" if multi else load


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


def as_json(r: Row) -> dict[str, Any]:
    return {**asdict(r), "ratio_ort": r.ratio_ort, "ratio_best": r.ratio_best}


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


def bench_micro(
    sdk_runner: Path, upstream_runner: Path, work: Path, repeat: int, threads: int | None = None
) -> tuple[list[Micro], str, str]:
    micro_dir = work / "micro"
    micro_dir.mkdir(exist_ok=True)
    print("exporting the micro-benchmark programs ...", flush=True)
    programs = export_micro_programs(micro_dir)
    for micro, pte, inputs in programs:
        reps = micro_repeat(micro.flop, repeat)
        ours = time_runner(
            sdk_runner, pte, "forward", inputs, reps, preload_args(sdk_runner, "xnnpack"), ours_env(threads)
        )
        upstream = time_runner(upstream_runner, pte, "forward", inputs, reps, upstream_args(threads))
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
    """lscpu's model name, with the family / model numbers and the vector ISA (a VM may show only "AMD EPYC")."""
    try:
        info: dict[str, str] = {}
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            info.setdefault(key.strip(), value.strip())
    except OSError:
        return platform.processor() or "unknown CPU"
    flags = set(info.get("flags", "").split())
    isa = [
        name
        for name, flag in (("AVX2", "avx2"), ("AVX-512", "avx512f"), ("VNNI", "avx512_vnni"), ("AMX", "amx_tile"))
        if flag in flags
    ]
    if "avx512_vnni" not in flags and "avx_vnni" in flags:
        isa.append("AVX-VNNI")
    family = f"family {info['cpu family']} model {info['model']}" if "cpu family" in info and "model" in info else ""
    extra = ", ".join(x for x in (family, " ".join(isa)) if x)
    return info.get("model name", platform.processor() or "unknown CPU") + (f" ({extra})" if extra else "")


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
        key = (v, "idle" if ld.split()[0] == "idle" else "loaded")  # ld: the load, or "load Nt" (condition())
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
    parser.add_argument(
        "--threads",
        action="append",
        type=int,
        metavar="N",
        help="threads for every runtime (ours: EXECUTORCH_NUM_THREADS, upstream: its pool resized, ORT: "
        "intra_op_num_threads); repeatable, every condition is run at each (default: 2)",
    )
    parser.add_argument(
        "--skip-fixtures",
        action="store_true",
        help="skip the committed fixtures (with --full-size: only the full-size networks)",
    )
    parser.add_argument("--skip-portable", action="store_true", help="skip the portable programs")
    parser.add_argument(
        "--ort",
        action="store_true",
        help="with --full-size: also export each network to ONNX (and the FULL_Q8 ones to ORT's static QDQ int8) "
        "and time ONNX Runtime's CPU provider beside ours and upstream's XNNPACK (q8) programs",
    )
    parser.add_argument(
        "--cold-start",
        action="store_true",
        help="with --full-size: cold start (fresh process to first output) and peak RSS of every network, idle",
    )
    parser.add_argument("--cold-runs", type=int, default=5, help="fresh processes per cold-start measurement")
    parser.add_argument("--vit", action="store_true", help="with --full-size: ViT-B/16 too (long on few cores)")
    parser.add_argument(
        "--work-dir",
        type=Path,
        help="work in DIR (made if missing, kept afterwards) instead of a temporary directory, and reuse the "
        "full-size programs an earlier run with the same options exported there (DIR/full/manifest.json)",
    )
    args = parser.parse_args(argv)
    args.load = list(dict.fromkeys(args.load or ["idle"]))
    args.threads = list(dict.fromkeys(args.threads or [2]))
    if args.repeat < 2:
        parser.error("--repeat must be at least 2 (the runners print a median only for N > 1)")
    if any(n < 1 for n in args.threads):
        parser.error("--threads must be at least 1")
    if (args.ort or args.cold_start or args.vit) and not args.full_size:
        parser.error("--ort, --cold-start and --vit need --full-size")
    if args.ort and importlib.util.find_spec("onnxruntime") is None:
        parser.error("--ort needs onnxruntime (and onnx, onnxscript) in this interpreter")
    variants = ["xnnpack"] if args.skip_portable else ["portable", "xnnpack"]
    multi = len(args.threads) > 1

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
        "threads": args.threads,
        "load_average_start": round(os.getloadavg()[0], 2),
    }
    if args.ort:
        header["onnxruntime"] = importlib.metadata.version("onnxruntime")
    print(
        f"# benchmark {header['date']}: {header['cpu']}, {cpus} CPUs, upstream executorch "
        f"{header['upstream_executorch']}, median of {args.repeat}"
    )

    if args.work_dir:
        args.work_dir.mkdir(parents=True, exist_ok=True)
    with (
        contextlib.nullcontext(str(args.work_dir.resolve()))
        if args.work_dir
        else tempfile.TemporaryDirectory(prefix="et-bench-")
    ) as tmp:
        work = Path(tmp)
        print("building the upstream runner against the upstream wheel's C++ SDK ...", flush=True)
        upstream_runner = build_upstream_runner(work)
        results: dict[str, Any] = {"header": header}
        full: dict[str, Any] | None = None
        if args.full_size:
            print("exporting the full-size real networks ...", flush=True)
            options = {
                "only": sorted(args.only),
                "variants": variants,
                "quantized": not args.skip_quantized,
                "ort": args.ort,
                "vit": args.vit,
            }
            saved = work / "full" / "manifest.json"
            if saved.exists():
                full = json.loads(saved.read_text())
                if full.get("options") != options:
                    parser.error(f"{saved} was exported with other options ({full.get('options')}): remove {work}")
                print(f"  reusing the programs exported into {saved.parent}", flush=True)
            else:
                shutil.rmtree(work / "full", ignore_errors=True)
                (work / "full").mkdir()
                full = export_full_size(work / "full", args.only, variants, not args.skip_quantized, args.ort, args.vit)
                saved.write_text(json.dumps({**full, "options": options}, indent=1) + "\n")
        tables: list[tuple[str, str, int | None, list[Row]]] = []
        quantized: list[tuple[str, int | None, list[Row]]] = []
        fixtures = not args.skip_fixtures
        for threads in args.threads:
            for load in args.load:
                with Load(load):
                    for variant in variants:
                        print(f"running the {variant} programs ({load}, {threads} threads) ...", flush=True)
                        rows = bench_fixtures(
                            sdk_runner,
                            upstream_runner,
                            variant,
                            args.repeat,
                            args.only,
                            full,
                            work / "full",
                            threads,
                            args.ort,
                            fixtures,
                        )
                        tables.append((variant, load, threads, rows))
                    if not args.skip_quantized:
                        print(f"running the quantized programs ({load}, {threads} threads) ...", flush=True)
                        rows = bench_quantized(
                            sdk_runner,
                            upstream_runner,
                            args.repeat,
                            args.only,
                            full,
                            work / "full",
                            threads,
                            args.ort,
                            fixtures,
                        )
                        quantized.append((load, threads, rows))
        cold: list[ColdRow] = []
        baseline: Cold | None = None
        if args.cold_start and full:
            print(f"measuring cold start and peak RSS (idle, {args.threads[0]} threads) ...", flush=True)
            launcher = upstream_runner.parent / "rss_exec"
            cold = bench_cold(
                sdk_runner, upstream_runner, launcher, full, work / "full", args.threads[0], args.cold_runs, args.ort
            )
            baseline = python_baseline(launcher, args.cold_runs) if args.ort else None
        micros: list[Micro] = []
        blas, numpy_version = "", ""
        if not args.skip_micro:
            micros, blas, numpy_version = bench_micro(sdk_runner, upstream_runner, work, args.repeat, args.threads[0])
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
        f"{header['load_average_start']} at the start and {header['load_average_end']} at the end; threads "
        f"(ours, upstream{', ORT' if args.ort else ''}): {', '.join(map(str, args.threads))}; upstream executorch "
        f"{header['upstream_executorch']}" + (f"; onnxruntime {header['onnxruntime']}" if args.ort else "") + "."
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
    for variant, load, threads, rows in tables:
        title = "Portable programs (no delegate)" if variant == "portable" else "XNNPACK programs"
        cond = condition(load, threads, multi)
        summary = print_table(f"{title}, {cond}", rows, with_targets=variant == "portable" and load == "idle")
        results.setdefault(cond, {})[variant] = {"rows": [as_json(r) for r in rows], "summary": summary}
    results["real_networks"] = print_real_networks(
        [(v, condition(ld, th, multi), rows) for v, ld, th, rows in tables], full
    )
    for load, threads, rows in quantized:
        if rows:
            cond = condition(load, threads, multi)
            fp32 = [r for _v, lo, th, rs in tables if lo == load and th == threads for r in rs]
            summary = print_quantized(cond, rows, fp32)
            results.setdefault(cond, {})["quantized"] = {"rows": [as_json(r) for r in rows], "summary": summary}
    if args.ort:
        peers = [(v, ld, th, rows) for v, ld, th, rows in tables if v == "xnnpack"]
        peers += [("xnnpack_q8", ld, th, [r for r in rows if r.variant == "xnnpack_q8"]) for ld, th, rows in quantized]
        peers.sort(key=lambda t: (-(t[2] or 0), t[0], args.load.index(t[1])))
        results["full_size_vs_peers"] = print_peers(peers, multi, header["cpu"])
    if cold:
        results["cold_start"] = {
            "threads": args.threads[0],
            "runs": args.cold_runs,
            "rows": [asdict(r) for r in cold],
            "python_onnxruntime_baseline": asdict(baseline) if baseline else None,
            "summary": print_cold(cold, baseline, args.threads[0], args.cold_runs, header["cpu"]),
        }
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
