"""The executorch-cuda wheel and conda package (the CUDA delegate), on a machine without a GPU.

What is checked: the wheel installs next to the executorch wheel in a fresh venv (the NVIDIA wheels come from
.venv, repacked into a local --find-links directory: offline and fast) and the CPU runtime still works there; the
exact RUNPATHs of the wheel's and the conda package's library; its NEEDED libcudart/libcublas resolve inside the
venv; a CUDA-lowered program fails to load naming the backend and "no CUDA device"; the device-code check passes on
the shipped libraries and fails on wrong claims; a CPU-only consumer configures find_package(executorch) without
the cuda component and without any CUDA toolkit, and COMPONENTS cuda fails naming executorch-cuda; the conda
package installs into an offline prefix with test-only cuda-cudart/libcublas stubs and __cuda overridden.
Skipped as a whole when scripts/build_sdk.sh could not build the delegate here (no nvcc or NVIDIA wheels).
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import numpy as np
import pytest

from et_common import FIXTURES, REPO, conda_channel, wheel_file

sys.path.insert(0, str(REPO / "scripts"))
import check_cuda_device_code as dc

import check_artifacts
from et_packaging import conda, cuda, model
from et_packaging.wheels import CUDA_WHEEL_EXTERNAL, wheel_platform

MANIFEST = model.load_manifest()
VERSION = model.project_version()
(CUDA,) = [c for c in MANIFEST["components"].values() if "cuda_architectures" in c]
CLAIM = CUDA["cuda_architectures"]
WHEEL_RUNPATH = check_artifacts.CUDA_WHEEL_RUNPATH  # $ORIGIN:$ORIGIN/../../nvidia/cu13/lib
TOOL = REPO / "tests" / "conda" / "rattler_tool.py"
ADD_MUL = FIXTURES / "add_mul" / "portable.pte"
MISSING = cuda.cuda_toolchain_missing()
pytestmark = pytest.mark.skipif(MISSING is not None, reason=f"the CUDA delegate is not built here: {MISSING}")


def run(cmd: list[str], **kw: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, **kw)  # type: ignore[call-overload]


def ok(cmd: list[str], **kw: object) -> str:
    proc = run(cmd, **kw)
    assert proc.returncode == 0, f"{cmd}\n{proc.stdout}{proc.stderr}"
    return proc.stdout


def clean_env(**extra: str) -> dict[str, str]:
    """The environment without any CUDA toolkit or library path (as on a CPU-only user's machine)."""
    env = {k: v for k, v in os.environ.items() if k not in ("LD_LIBRARY_PATH", "CUDACXX", "CUDA_HOME", "PYTHONPATH")}
    env["PATH"] = ":".join(p for p in env.get("PATH", "").split(":") if "cuda" not in p)
    env["EXECUTORCH_LOG_LEVEL"] = "fatal"
    return env | extra


# ----------------------------------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="session")
def wheels() -> dict[str, Path]:
    return {"executorch": wheel_file(), "executorch-cuda": wheel_file("executorch_cuda-*.whl")}


@pytest.fixture(scope="session")
def channel() -> Path:
    return conda_channel()


def repack(dist_info: Path, out: Path) -> Path:
    """A wheel made from an installed distribution's files (its RECORD), so pip can install it offline."""
    site = dist_info.parent
    meta = {k: v for k, _, v in (line.partition(": ") for line in (dist_info / "METADATA").read_text().splitlines())}
    tag = next(
        line.split(": ", 1)[1] for line in (dist_info / "WHEEL").read_text().splitlines() if line.startswith("Tag")
    )
    name = re.sub(r"[-_.]+", "_", meta["Name"]).lower()
    wheel = out / f"{name}-{meta['Version']}-{tag}.whl"
    rows = list(csv.reader(io.StringIO((dist_info / "RECORD").read_text())))
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_STORED) as z:
        for row in rows:
            rel = row[0]
            if not rel or rel.startswith("..") or "__pycache__" in rel or rel.endswith(".dist-info/RECORD"):
                continue
            if (site / rel).is_file():
                z.write(site / rel, rel)
        z.writestr(f"{dist_info.name}/RECORD", "".join(f"{r[0]},,\n" for r in rows if r and r[0]))
    return wheel


@pytest.fixture(scope="session")
def nvidia_links(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """--find-links directory with the NVIDIA wheels this checkout builds against (from .venv, repacked)."""
    out = tmp_path_factory.mktemp("nvidia-wheels")
    site = Path(sysconfig.get_paths()["purelib"])
    for dist in ("nvidia_cuda_runtime", "nvidia_cublas"):
        (info,) = site.glob(f"{dist}-*.dist-info")
        repack(info, out)
    return out


@pytest.fixture(scope="session")
def venv(wheels: dict[str, Path], nvidia_links: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with the executorch and executorch-cuda wheels and their dependencies."""
    root = tmp_path_factory.mktemp("cuda-venv") / "env"
    ok([sys.executable, "-m", "venv", str(root)])
    pip = [str(root / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    # The NVIDIA wheels offline first; then the two wheels (numpy and flatbuffers from the index or pip's cache).
    ok([*pip, "--no-index", "--find-links", str(nvidia_links), "nvidia-cuda-runtime", "nvidia-cublas"])
    ok([*pip, "--find-links", str(nvidia_links), str(wheels["executorch"]), str(wheels["executorch-cuda"])])
    return root


def site_packages(venv: Path) -> Path:
    (site,) = venv.glob("lib/python3*/site-packages")
    return site


def py(venv: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return run([str(venv / "bin" / "python"), *args], env=clean_env(), cwd=cwd)


# ---------------------------------------------------------------------------------------------- the manifest


def test_claim_matches_cmake_and_wheel_readme() -> None:
    text = (REPO / "cpp" / "cuda" / "architectures.cmake").read_text()
    sass = re.search(r"set\(EXECUTORCH_CUDA_SASS_ARCHS ([0-9 ]+)\)", text)
    ptx = re.search(r"set\(EXECUTORCH_CUDA_PTX_ARCHS ([0-9 ]+)\)", text)
    assert sass and ptx, "cpp/cuda/architectures.cmake no longer sets the lists this test reads"
    assert [int(a) for a in sass.group(1).split()] == CLAIM["sass"]
    assert [int(a) for a in ptx.group(1).split()] == CLAIM["ptx"]
    readme = (REPO / "packaging" / "cuda" / "README.md").read_text()
    line = f"SASS sm_{', sm_'.join(map(str, CLAIM['sass']))}; PTX compute_{', compute_'.join(map(str, CLAIM['ptx']))}"
    assert line in readme, "packaging/cuda/README.md must state the claimed architectures of components.toml"


# ------------------------------------------------------------------------------------------------- the wheel


def test_wheel_metadata_and_files(wheels: dict[str, Path]) -> None:
    wheel = wheels["executorch-cuda"]
    # No Python extension: one wheel for every CPython 3, with the manylinux tag auditwheel gives it once cudart,
    # cuBLAS (NVIDIA wheels) and the executorch wheel's libraries are excluded; never a bare linux_x86_64.
    m = re.fullmatch(rf"executorch_cuda-{VERSION}-py3-none-(manylinux_\d+_\d+_x86_64)\.whl", wheel.name)
    assert m, wheel.name
    plat, graft = wheel_platform(wheel, frozenset(CUDA_WHEEL_EXTERNAL))
    assert (plat, graft) == (m.group(1), []), (plat, graft)
    assert re.search(r"-manylinux_\d+_\d+_x86_64\.whl$", wheels["executorch"].name), wheels["executorch"].name
    with zipfile.ZipFile(wheel) as z:
        names = [n for n in z.namelist() if not n.endswith("/")]
        metadata = z.read(f"executorch_cuda-{VERSION}.dist-info/METADATA").decode()
        claim = json.loads(z.read("executorch/share/executorch/cuda-architectures.json"))
    result = model.classify(names, MANIFEST, "wheel", ["cuda"])
    assert not result.problems(), result.problems()
    assert set(result.owner.values()) == {"cuda"}
    requires = sorted(re.findall(r"^Requires-Dist: (.*)$", metadata, re.M))
    assert requires == sorted([f"executorch=={VERSION}", "nvidia-cublas<14,>=13.0", "nvidia-cuda-runtime<14,>=13.0"]), (
        requires
    )
    assert claim == CLAIM
    assert "SASS sm_75" in metadata and "PTX compute_120" in metadata  # the README is the long description


def test_installs_next_to_cpu_wheel_and_cpu_runtime_works(venv: Path, sdk: Path, tmp_path: Path) -> None:
    lib = site_packages(venv) / "executorch" / "lib"
    names = sorted(p.name for p in lib.glob("*.so*"))
    assert "libexecutorch_cuda.so.0.1" in names and "libexecutorch.so.0.1" in names, names
    script = (
        "import numpy as np\n"
        "from executorch.runtime import Runtime\n"
        f"m = Runtime.get().load_program({str(ADD_MUL)!r}).load_method('forward')\n"
        "print(' '.join(str(x) for x in m.execute([np.arange(8, dtype=np.float32).reshape(2, 4)])[0].ravel()))\n"
    )
    proc = py(venv, "-c", script, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    case = next(
        fx for fx in json.loads((FIXTURES / "manifest.json").read_text())["fixtures"] if fx["name"] == "add_mul"
    )
    assert case  # the reference below is the SDK runner's, as in test_conda
    runner = sdk / "bin" / "executorch_runner"
    np.save(tmp_path / "in.npy", np.arange(8, dtype=np.float32).reshape(2, 4))
    ok([str(runner), str(ADD_MUL), "--input", str(tmp_path / "in.npy"), "--output-dir", str(tmp_path)], env=clean_env())
    ref = np.load(tmp_path / "out0.npy").ravel()
    np.testing.assert_allclose(np.array(proc.stdout.split(), dtype=np.float32), ref, rtol=1e-6, atol=1e-6)


def test_wheel_library_runpath_and_needed_resolve_in_venv(venv: Path) -> None:
    site = site_packages(venv)
    lib = site / "executorch" / "lib" / "libexecutorch_cuda.so.0.1"
    dyn = check_artifacts.dynamic_entries(lib)
    assert dyn["RUNPATH"] == [WHEEL_RUNPATH] and "RPATH" not in dyn, dyn
    needed = set(dyn["NEEDED"])
    assert {"libexecutorch.so.0.1", "libcudart.so.13", "libcublas.so.13"} <= needed, needed
    # Every NEEDED library resolves, the CUDA ones to the NVIDIA wheels in this venv, ours to the executorch wheel.
    text = ok(["ldd", str(lib)], env=clean_env())
    where = dict(re.findall(r"^\s*(\S+) => (\S+)", text, re.M))
    assert "not found" not in text, text
    for name in ("libcudart.so.13", "libcublas.so.13"):
        assert Path(where[name]).resolve() == (site / "nvidia" / "cu13" / "lib" / name).resolve(), text
    assert Path(where["libexecutorch.so.0.1"]).resolve() == (lib.parent / "libexecutorch.so.0.1").resolve(), text
    # And the dynamic loader loads it (no GPU is needed to load cudart and cuBLAS).
    proc = py(venv, "-c", f"import ctypes; ctypes.CDLL({str(lib)!r}); print('loaded')")
    assert proc.returncode == 0 and proc.stdout.strip() == "loaded", proc.stdout + proc.stderr


def test_cuda_program_fails_naming_missing_device(venv: Path, tmp_path: Path) -> None:
    out = tmp_path / "add_mul_cuda.pte"
    proc = py(venv, "-m", "executorch.lower", "--backend", "cuda", str(ADD_MUL), "-o", str(out), cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    script = (
        "from executorch.runtime import Runtime\n"
        f"p = Runtime.get().load_program({str(out)!r})\n"
        "try:\n"
        "    p.load_method('forward')\n"
        "except Exception as e:\n"
        "    print('ERROR', e)\n"
        "else:\n"
        "    print('LOADED')\n"
    )
    proc = py(venv, "-c", script, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.startswith("ERROR"), proc.stdout  # no GPU here: the delegate is not available
    assert "CudaBackend" in proc.stdout and "no cuda device" in proc.stdout.lower(), proc.stdout


# ----------------------------------------------------------------------------------------------- device code


def wheel_library(wheels: dict[str, Path], tmp_path: Path) -> Path:
    with zipfile.ZipFile(wheels["executorch-cuda"]) as z:
        z.extract("executorch/lib/libexecutorch_cuda.so.0.1", tmp_path)
    return tmp_path / "executorch" / "lib" / "libexecutorch_cuda.so.0.1"


def device_check(lib: Path, claim: str | None) -> subprocess.CompletedProcess[str]:
    args = [sys.executable, str(REPO / "scripts" / "check_cuda_device_code.py"), str(lib)]
    return run([*args, "--claim", claim] if claim else args)


def test_device_code_matches_claim(wheels: dict[str, Path], sdk: Path, tmp_path: Path) -> None:
    lib = wheel_library(wheels, tmp_path)
    claim = json.dumps({"sass": CLAIM["sass"], "ptx": CLAIM["ptx"]})
    proc = device_check(lib, claim)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "cuobjdump agrees" in proc.stdout, proc.stdout  # the reader and NVIDIA's tool list the same entries
    # No --claim: the claim comes from <prefix>/share/executorch/cuda-architectures.json.
    proc = device_check(sdk / "lib" / "libexecutorch_cuda.so.0.1", None)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    results, problems = dc.check([lib], dc.Claim(CLAIM["sass"], CLAIM["ptx"]), None)
    assert not problems and results[0].sass == CLAIM["sass"] and results[0].ptx == CLAIM["ptx"]


@pytest.mark.parametrize(
    ("claim", "message"),
    [
        ("70," + ",".join(map(str, CLAIM["sass"])) + ":ptx=120", "no SASS for claimed sm_70"),
        (",".join(str(a) for a in CLAIM["sass"] if a != 120) + ":ptx=100", "SASS for sm_120, which is not claimed"),
        (",".join(map(str, CLAIM["sass"])) + ":ptx=", "PTX for compute_120, not claimed"),
        (",".join(map(str, CLAIM["sass"])) + ",130:ptx=130", "no SASS for claimed sm_130"),
    ],
)
def test_device_code_check_fails_on_wrong_claim(
    wheels: dict[str, Path], tmp_path: Path, claim: str, message: str
) -> None:
    proc = device_check(wheel_library(wheels, tmp_path), claim)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert message in proc.stderr and "DEVICE CODE CHECK FAILED" in proc.stdout, proc.stdout + proc.stderr


def test_device_code_check_fails_without_ptx(tmp_path: Path) -> None:
    """A library built with SASS only (no PTX for the newest architecture) fails even with a matching SASS claim."""
    nvcc = os.environ.get("CUDACXX") or "/usr/local/cuda/bin/nvcc"
    (tmp_path / "k.cu").write_text("__global__ void k(float* a) { a[threadIdx.x] += 1.0f; }\n")
    lib = tmp_path / "libsass_only.so"
    cmd = [nvcc, "-shared", "-Xcompiler", "-fPIC", "-cudart", "shared", "-o", str(lib), str(tmp_path / "k.cu")]
    ok([*cmd, "-gencode", "arch=compute_75,code=sm_75", "-gencode", "arch=compute_80,code=sm_80"])
    proc = device_check(lib, "75,80")
    assert proc.returncode == 1 and "no PTX for the newest claimed architecture compute_80" in proc.stderr, proc.stderr
    proc = device_check(lib, "75")
    assert proc.returncode == 1 and "SASS for sm_80, which is not claimed" in proc.stderr, proc.stderr


def test_cuda_library_does_not_depend_on_source_path(wheels: dict[str, Path], tmp_path: Path) -> None:
    """nvcc names everything in an anonymous namespace of a .cu file after a hash of the file's absolute path
    (`_GLOBAL__N__<hash>_10_kernels_cu_...`, in the host code and in every cubin and PTX), so a library built from
    another checkout path differs and the executorch-cuda wheel and package are not reproducible
    (tests/test_reproducible.py). Device code must live in named namespaces (e.g. etcuda::detail)."""
    data = wheel_library(wheels, tmp_path).read_bytes()
    hashed = sorted(
        {m.decode() for m in re.findall(rb"_GLOBAL__N__[0-9a-f]{8}_\d+_[A-Za-z0-9_]+?_cu_[0-9a-f]{8}", data)}
    )
    assert not hashed, f"anonymous namespaces in CUDA sources (source-path hashes in the library): {hashed[:3]}"


def test_device_code_reader_on_library_without_device_code(sdk: Path) -> None:
    lib = sdk / "lib" / "libexecutorch.so.0.1"
    assert dc.read_library(lib) == []
    proc = device_check(lib, "75:ptx=75")
    assert proc.returncode == 1 and "has device code" in proc.stderr, proc.stderr


# ---------------------------------------------------------------------------------------- CMake consumers


CONSUMER = """cmake_minimum_required(VERSION 3.24)
project(consumer LANGUAGES CXX)
find_package(executorch 0.1 REQUIRED {components})
message(STATUS "cuda target: $<TARGET_EXISTS:executorch::cuda> found=${{executorch_cuda_FOUND}}")
"""


def configure(prefix: Path, work: Path, components: str = "") -> subprocess.CompletedProcess[str]:
    src = work / "src"
    src.mkdir(parents=True, exist_ok=True)
    (src / "CMakeLists.txt").write_text(CONSUMER.format(components=components))
    return run(
        ["cmake", "-S", str(src), "-B", str(work / "build"), "-G", "Ninja", f"-DCMAKE_PREFIX_PATH={prefix}"],
        env=clean_env(),
    )


def test_cpu_only_consumer_configures_without_cuda(sdk: Path, tmp_path: Path) -> None:
    cpu = tmp_path / "cpu prefix"
    shutil.copytree(sdk, cpu, symlinks=True)
    for p in [*cpu.glob("lib/libexecutorch_cuda*"), *cpu.glob("lib/cmake/executorch/executorch-cuda-targets*")]:
        p.unlink()
    (cpu / "share" / "executorch" / "cuda-architectures.json").unlink(missing_ok=True)
    proc = configure(cpu, tmp_path / "a")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "found=FALSE" in proc.stdout, proc.stdout
    proc = configure(cpu, tmp_path / "b", "COMPONENTS cuda")
    assert proc.returncode != 0
    assert "component 'cuda' is not installed" in proc.stderr and "executorch-cuda" in proc.stderr, proc.stderr


def test_consumer_with_cuda_component_needs_no_toolkit(venv: Path, tmp_path: Path) -> None:
    prefix = site_packages(venv) / "executorch"  # the executorch wheel's SDK plus the executorch-cuda wheel's files
    proc = configure(prefix, tmp_path / "a", "COMPONENTS cuda")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "found=TRUE" in proc.stdout, proc.stdout
    proc = configure(prefix, tmp_path / "b")
    assert proc.returncode == 0, proc.stdout + proc.stderr


# ----------------------------------------------------------------------------------------------------- conda


def tool(*args: str, env: dict[str, str] | None = None) -> str:
    proc = run([sys.executable, str(TOOL), *args], env=env, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


@pytest.fixture(scope="session")
def cuda_stubs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from test_conda import build_stubs

    work = tmp_path_factory.mktemp("cuda-stubs")
    return build_stubs(work / "test-only stubs", work / "cache")


def test_conda_package(channel: Path, tmp_path: Path) -> None:
    (pkg,) = channel.glob("linux-64/executorch-cuda-*.conda")
    forbidden = [str(REPO), str(Path.home()), "/executorch-conda-placeholder"]
    info = conda.read_package(pkg, tmp_path / "x", forbidden)
    assert not info.problems, info.problems
    assert info.build.startswith("cuda130_h"), info.build
    # executorch-runtime pinned exactly (a sibling output) and through its run export, plus the CUDA dependencies.
    runtime = sorted(d for d in info.depends if d.startswith("executorch-runtime "))
    major, minor = VERSION.split(".")[:2]
    assert [d.split()[1] for d in runtime] == ["==" + VERSION, f">={VERSION},<{major}.{int(minor) + 1}.0a0"], runtime
    assert set(info.depends) - set(runtime) == set(CUDA["conda_run"]), info.depends
    lib = tmp_path / "x" / "lib" / "libexecutorch_cuda.so.0.1"
    dyn = check_artifacts.dynamic_entries(lib)
    assert dyn["RUNPATH"] == ["$ORIGIN"] and "RPATH" not in dyn, dyn  # conda: cudart/cuBLAS in $PREFIX/lib
    assert os.readlink(tmp_path / "x" / "lib" / "libexecutorch_cuda.so") == lib.name
    about = json.loads((tmp_path / "x" / "info" / "about.json").read_text())
    assert model.claim_text(CUDA) == about["description"], about
    assert json.loads((tmp_path / "x" / "share" / "executorch" / "cuda-architectures.json").read_text()) == CLAIM
    results, problems = dc.check([lib], dc.Claim(CLAIM["sass"], CLAIM["ptx"]), dc.find_cuobjdump())
    assert not problems and results[0].cuobjdump == "agrees", (problems, results[0].cuobjdump)


def test_conda_install_with_stubs_and_cuda_override(channel: Path, cuda_stubs: Path, tmp_path: Path) -> None:
    cache = str(tmp_path / "pkgs-cache")
    prefix = tmp_path / "env"
    env = dict(os.environ, CONDA_OVERRIDE_CUDA="13.0")
    out = tool("install", str(prefix), cache, f"{channel},{cuda_stubs}", "executorch-cuda", env=env)
    installed = json.loads(out.strip().splitlines()[-1])
    assert set(installed) == {"executorch-cuda", "executorch-runtime", "cuda-cudart", "libcublas"}, installed
    assert installed["executorch-runtime"].startswith(VERSION)
    lib = prefix / "lib" / "libexecutorch_cuda.so.0.1"
    assert check_artifacts.dynamic_entries(lib)["RUNPATH"] == ["$ORIGIN"]
    assert (prefix / "lib" / "libexecutorch.so.0.1").is_file()
    # A CPU-only consumer of this prefix finds executorch::cuda without a toolkit.
    proc = configure(prefix, tmp_path / "consumer", "COMPONENTS cuda")
    assert proc.returncode == 0 and "found=TRUE" in proc.stdout, proc.stdout + proc.stderr
    # Without a CUDA driver (no __cuda) the solve fails, naming the virtual package.
    proc = run(
        [
            sys.executable,
            str(TOOL),
            "install",
            str(tmp_path / "env2"),
            cache,
            f"{channel},{cuda_stubs}",
            "executorch-cuda",
        ],
        env=dict(os.environ, CONDA_OVERRIDE_CUDA=""),
        timeout=600,
    )
    assert proc.returncode != 0 and "__cuda" in proc.stdout + proc.stderr, proc.stdout + proc.stderr
