"""The executorch wheel, installed into fresh virtual environments: Python runtime and complete C++ SDK."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from et_common import FIXTURES, REPO, build_app, wheel_file
from test_api import APP_PROGRAMS, build_api_tests, run_api_test
from test_llm import check_multimodal_app

sys.path.insert(0, str(REPO / "scripts"))
import check_artifacts
from et_packaging import model

PLUGIN_SRC = REPO / "tests" / "plugin"


def run(cmd: list[str], **kw: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, **kw)  # type: ignore[call-overload]


@pytest.fixture(scope="session")
def wheel() -> Path:
    return wheel_file()


@pytest.fixture(scope="session")
def venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with only the wheel (and numpy) installed; returns its root."""
    root = tmp_path_factory.mktemp("venv") / "env"
    subprocess.run([sys.executable, "-m", "venv", str(root)], check=True)
    subprocess.run(
        [str(root / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check", str(wheel)],
        check=True,
    )
    return root


def wheel_libraries() -> list[str]:
    """The component libraries the executorch wheel ships (components.toml), as file names in its lib/."""
    manifest = model.load_manifest()
    so = model.soversion(model.project_version())
    libs = [
        Path(c["library"]).name.replace("*", so)
        for c in model.built_components(manifest).values()
        if c["wheel"] == "executorch" and c["library"].startswith("{prefix}/lib/")
    ]
    return sorted(libs)


def site_executorch(venv: Path) -> Path:
    (pkg,) = venv.glob("lib/python3*/site-packages/executorch")
    return pkg


def py(venv: Path, *args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> str:
    proc = run([str(venv / "bin" / "python"), *args], env=env, cwd=cwd)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout.strip()


@pytest.fixture(scope="session")
def plugin(venv: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The test plugin built against the installed wheel with find_package; returns the library path."""
    work = tmp_path_factory.mktemp("plugin")
    shutil.copytree(PLUGIN_SRC, work / "src")
    prefix = py(venv, "-m", "executorch", "--cmake-dir")
    subprocess.run(
        ["cmake", "-S", str(work / "src"), "-B", str(work / "b"), "-G", "Ninja", f"-DCMAKE_PREFIX_PATH={prefix}"],
        check=True,
        capture_output=True,
    )
    subprocess.run(["cmake", "--build", str(work / "b")], check=True, capture_output=True)
    lib = work / "src" / "libet_plugin.so"
    shutil.copy(work / "b" / "libet_plugin.so", lib)  # beside custom_op.pte and its references
    return lib


def python_checks(venv: Path, plugin: Path, tmp_path: Path, *checks: str, **env: str) -> None:
    script = tmp_path / "python_checks.py"
    shutil.copy(REPO / "tests" / "python_checks.py", script)
    fixtures = tmp_path / "fixtures"
    if not fixtures.exists():
        shutil.copytree(FIXTURES, fixtures)
    if not (tmp_path / "upstream_compat").exists():  # unplanned_outputs.pte and its references
        shutil.copytree(REPO / "tests" / "upstream_compat", tmp_path / "upstream_compat")
    full_env = dict(os.environ, EXECUTORCH_LOG_LEVEL="fatal", **env)
    full_env.pop("PYTHONPATH", None)
    proc = run(
        [str(venv / "bin" / "python"), str(script), str(fixtures), str(plugin), *checks], env=full_env, cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert re.search(rf"^{len(checks)} passed, 0 failed$", proc.stdout, re.M), proc.stdout


def test_import_is_light(venv: Path, tmp_path: Path) -> None:
    out = py(
        venv,
        "-c",
        "import sys, executorch.runtime; print(sorted(m for m in ('torch', 'numpy') if m in sys.modules))",
        cwd=tmp_path,
    )
    assert out == "[]"


def test_python_runs_every_portable_fixture(venv: Path, plugin: Path, tmp_path: Path) -> None:
    python_checks(
        venv,
        plugin,
        tmp_path,
        "fixtures_match",
        "quantized_programs",
        "bytes_and_paths",
        "metadata",
        "inputs_from_dlpack_and_buffers",
    )


def test_python_data_files_and_unplanned_outputs(venv: Path, plugin: Path, tmp_path: Path) -> None:
    """Every tests/fixtures/ptd program with its .ptd file(s) through executorch.runtime and portable_lib (paths,
    bytes, several files), the errors data files can cause, and outputs without memory planning."""
    python_checks(venv, plugin, tmp_path, "ptd_fixtures", "ptd_errors", "unplanned_outputs")


def test_python_errors(venv: Path, plugin: Path, tmp_path: Path) -> None:
    python_checks(venv, plugin, tmp_path, "errors_carry_codes")
    empty = tmp_path / "empty"
    empty.mkdir()
    python_checks(venv, plugin, tmp_path, "missing_operator_names_package", EXECUTORCH_COMPONENT_DIR=str(empty))


def test_one_registry_one_pool(venv: Path, plugin: Path, tmp_path: Path) -> None:
    python_checks(venv, plugin, tmp_path, "one_registry_with_plugin", "thread_pool")


def test_decoy_library_on_ld_library_path(venv: Path, plugin: Path, tmp_path: Path) -> None:
    decoy = tmp_path / "decoy"
    decoy.mkdir()
    src = tmp_path / "decoy.c"
    src.write_text("int decoy_marker(void) { return 1; }\n")
    for name in ("libexecutorch.so.0.1", "libexecutorch_threadpool.so.0.1", "libexecutorch_kernels.so.0.1"):
        subprocess.run(["cc", "-shared", "-fPIC", f"-Wl,-soname,{name}", str(src), "-o", str(decoy / name)], check=True)
    python_checks(venv, plugin, tmp_path, "fixtures_match", LD_LIBRARY_PATH=str(decoy))


def test_sdk_helpers(venv: Path) -> None:
    pkg = site_executorch(venv)
    assert py(venv, "-m", "executorch", "--cmake-dir") == str(pkg)
    assert py(venv, "-m", "executorch", "--include-dir") == str(pkg / "include")
    assert py(venv, "-m", "executorch", "--lib-dir") == str(pkg / "lib")
    assert py(venv, "-m", "executorch", "--version") == py(
        venv, "-c", "import executorch; print(executorch.__version__)"
    )
    assert (
        Path(py(venv, "-c", "import executorch; print(executorch.get_cmake_dir())")) / "executorch-config.cmake"
    ).is_file()


def test_wheel_layout_and_hygiene(venv: Path) -> None:
    pkg = site_executorch(venv)
    libs = sorted(p.name for p in (pkg / "lib").glob("*.so*"))
    expected = wheel_libraries()
    assert {"libexecutorch.so.0.1", "libexecutorch_kernels.so.0.1", "libexecutorch_threadpool.so.0.1"} <= set(expected)
    assert libs == expected, libs
    (ext,) = pkg.glob("_C*.so")
    dyn = check_artifacts.dynamic_entries(ext)
    assert dyn["RUNPATH"] == ["$ORIGIN/lib"], dyn
    assert {"libexecutorch.so.0.1", "libexecutorch_threadpool.so.0.1"} <= set(dyn["NEEDED"]), dyn
    report = check_artifacts.check_prefix(pkg, [str(REPO), str(REPO / "build"), str(Path.home()), "/tmp/pip-"])
    assert report.ok, report.checks
    # The extension defines none of the registry or pool functions: it imports them from the shared libraries.
    ext_symbols = check_artifacts.defined_symbols(ext)
    owned = [s for syms in check_artifacts.OWNERS.values() for s in syms]
    assert not [s for s in ext_symbols if any(s.startswith(o) for o in owned)]


def test_auditwheel_tag(wheel: Path) -> None:
    """The file name carries the platform tag auditwheel computes (scripts/build_wheels.py retags every wheel), and
    the WHEEL file says the same: an honest manylinux tag, never linux_x86_64."""
    proc = run([sys.executable, "-m", "auditwheel", "show", str(wheel)])
    assert proc.returncode == 0, proc.stderr
    text = " ".join(proc.stdout.split())
    m = re.search(r'consistent with the following platform tag: "(manylinux_\d+_\d+_x86_64)"', text)
    assert m, text
    tag = f"cp{sys.version_info.major}{sys.version_info.minor}"
    assert wheel.name == f"executorch-{model.project_version()}-{tag}-{tag}-{m.group(1)}.whl", wheel.name
    with zipfile.ZipFile(wheel) as z:
        (meta,) = [n for n in z.namelist() if n.endswith(".dist-info/WHEEL")]
        tags = [line for line in z.read(meta).decode().splitlines() if line.startswith("Tag: ")]
    assert tags == [f"Tag: {tag}-{tag}-{m.group(1)}"], tags
    print(f"auditwheel: {m.group(1)}")


def build_cpp_example(cmake: str, prefix: str, work: Path) -> Path:
    src = work / "src dir"
    shutil.copytree(REPO / "tests" / "sdk_app", src)
    build = work / "build dir"
    proc = run([cmake, "-S", str(src), "-B", str(build), f"-DCMAKE_PREFIX_PATH={prefix}"])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    proc = run([cmake, "--build", str(build)])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return build / "app"


@pytest.fixture(scope="session")
def cmake_versions(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """CMake 3.24 (the oldest supported) and the newest 4.x, from PyPI, plus the system CMake."""
    found = {"system": shutil.which("cmake") or "cmake"}
    for label, spec in (("3.24", "cmake==3.24.*"), ("4.x", "cmake>=4,<5")):
        env_dir = tmp_path_factory.mktemp(f"cmake-{label}")
        subprocess.run([sys.executable, "-m", "venv", str(env_dir)], check=True)
        subprocess.run([str(env_dir / "bin" / "pip"), "install", "-q", "--disable-pip-version-check", spec], check=True)
        found[label] = str(env_dir / "bin" / "cmake")
    return found


def test_api_programs_against_wheel(venv: Path, tmp_path: Path) -> None:
    # The application-level API tests (tests/api: every call of upstream's executor_runner, data files, Module,
    # TensorPtr) built with the wheel's CMake package and run on its libraries.
    build = build_api_tests(Path(py(venv, "-m", "executorch", "--cmake-dir")), tmp_path, APP_PROGRAMS)
    for name in APP_PROGRAMS:
        run_api_test(build, name)


def test_multimodal_runner_against_wheel(venv: Path, tmp_path: Path) -> None:
    # Upstream's multimodal runner API (tests/multimodal_app) built with the wheel's CMake package.
    prefix = Path(py(venv, "-m", "executorch", "--cmake-dir"))
    app = build_app(prefix, REPO / "tests" / "multimodal_app", tmp_path / "build") / "multimodal_app"
    check_multimodal_app(app, tmp_path)


@pytest.mark.parametrize("cmake", ["system", "3.24", "4.x"])
def test_cpp_example_against_wheel(venv: Path, cmake_versions: dict[str, str], cmake: str, tmp_path: Path) -> None:
    prefix = py(venv, "-m", "executorch", "--cmake-dir")
    app = build_cpp_example(cmake_versions[cmake], prefix, tmp_path)
    proc = run(
        [str(app), str(FIXTURES / "add_mul" / "portable.pte")], env=dict(os.environ, EXECUTORCH_LOG_LEVEL="fatal")
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert len(proc.stdout.split()) == 6  # [2, 3] output


def test_relocated_venv(venv: Path, plugin: Path, tmp_path: Path) -> None:
    moved = tmp_path / "moved venv with space"
    shutil.copytree(venv, moved, symlinks=True)
    pkg = site_executorch(moved)
    app = build_cpp_example("cmake", str(pkg), tmp_path)
    proc = run(
        [str(app), str(FIXTURES / "add_mul" / "portable.pte")], env=dict(os.environ, EXECUTORCH_LOG_LEVEL="fatal")
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # Python from the copy uses the copy's package.
    where = py(moved, "-c", "import executorch.runtime, executorch; print(executorch.get_lib_dir())", cwd=tmp_path)
    assert where == str(pkg / "lib")
    python_checks(moved, plugin, tmp_path, "fixtures_match")


def test_upstream_portable_lib_script(venv: Path, tmp_path: Path) -> None:
    """tests/upstream_compat/portable_lib_script.py, written against upstream's portable_lib and executorch.runtime
    (and run unchanged against upstream's wheel by scripts/check_upstream_compat.py), with numpy arrays: a
    custom-operator library built from the wheel's share/cmake (where upstream's wheel keeps its config) registers
    into the Python runtime's registry; bfloat16 (ml_dtypes) and float16 programs run; outputs without memory
    planning; upstream's metadata strings, registries and errors; the tests/fixtures/ptd programs with their data."""
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "ml_dtypes"], check=True)
    src = tmp_path / "compat"
    shutil.copytree(REPO / "tests" / "upstream_compat", src)
    share = site_executorch(venv) / "share" / "cmake"
    conf = run(["cmake", "-S", str(src / "custom_ops"), "-B", str(tmp_path / "b"), f"-DCMAKE_PREFIX_PATH={share}"])
    assert conf.returncode == 0, conf.stdout + conf.stderr
    assert run(["cmake", "--build", str(tmp_path / "b")]).returncode == 0
    lib = tmp_path / "b" / "libupstream_custom_ops.so"
    env = dict(os.environ, EXECUTORCH_LOG_LEVEL="fatal")
    env.pop("PYTHONPATH", None)
    script = [str(src / "portable_lib_script.py"), str(src), str(lib), "numpy", str(FIXTURES / "ptd")]
    out = py(venv, *script, env=env, cwd=tmp_path)
    assert out.splitlines()[-1] == "all passed", out
    for line in ("ok unplanned_outputs by parts", "ok upstream API", "ok ptd llm", "ok ptd mutable_external"):
        assert line in out.splitlines(), out


def test_bfloat16_without_ml_dtypes_names_the_package(venv: Path, tmp_path: Path) -> None:
    code = f"""
import sys
sys.modules["ml_dtypes"] = None  # as if it were not installed
import numpy as np
from executorch.extension.pybindings.portable_lib import _load_for_executorch
m = _load_for_executorch({str(REPO / "tests" / "upstream_compat" / "sdpa_bf16.pte")!r})
print(m.method_meta("forward").input_tensor_meta(0).dtype())
try:
    m.forward((np.zeros((1, 2, 8, 16), np.float32),) * 3)
except Exception as e:
    print(type(e).__name__, e)
bits = np.dtype(np.uint16, metadata={{"executorch_dtype": "bfloat16"}})
try:
    m.forward((np.zeros((1, 2, 8, 16), bits),) * 3)
except TypeError as e:
    print("TypeError", e)
"""
    out = py(venv, "-c", code, env=dict(os.environ, EXECUTORCH_LOG_LEVEL="fatal"), cwd=tmp_path)
    lines = out.splitlines()
    assert lines[0] == "15", out  # ScalarType::BFloat16
    assert "ExecuTorchError" in lines[1] and "BFloat16" in lines[1] + lines[1].lower(), out
    assert "bfloat16" in lines[2] and "pip install ml_dtypes" in lines[2], out


def test_python_etdump_and_bundled_programs(venv: Path, tmp_path: Path) -> None:
    """Upstream's portable_lib profiling and bundled-program calls, and executorch.runtime's ETDump / BundledProgram."""
    from test_devtools import read_etdump

    code = """
import sys
import numpy as np
from executorch.extension.pybindings.portable_lib import (
    _load_bundled_program_from_buffer, _load_for_executorch, _load_for_executorch_from_bundled_program)
from executorch.runtime import BundledProgram, ETDump
fx, out = sys.argv[1], sys.argv[2]
m = _load_for_executorch(fx + "/mlp/portable.pte", enable_etdump=True)
x = np.load(fx + "/mlp/forward_case0_in0.npy")
m.forward((x,))
m.forward((x,))
assert m.has_etdump()
m.write_etdump_result_to_file(out + "/mlp.etdp")
for name in ("xnnpack", "wrong_expected"):
    bundle = _load_bundled_program_from_buffer(open(f"{fx}/bundled/{name}.bpte", "rb").read())
    bm = _load_for_executorch_from_bundled_program(bundle)
    for i in range(3):
        bm.load_bundled_input(bundle, "forward", i)
        outs = bm.plan_execute("forward")
        try:
            bm.verify_result_with_bundled_expected_output(bundle, "forward", i, rtol=1e-3, atol=1e-5)
            print(name, i, "ok", type(outs[0]).__name__)
        except RuntimeError as e:
            print(name, i, "mismatch", e)
etdump = ETDump()
for r in BundledProgram(fx + "/bundled/wrong_expected.bpte").verify(rtol=1e-3, atol=1e-5, etdump=etdump):
    print("verify", r.method, r.index, r.passed, r.max_abs_error > 0.5)
print("blocks", etdump.num_blocks)
"""
    env = dict(os.environ, EXECUTORCH_LOG_LEVEL="fatal")
    lines = py(venv, "-c", code, str(FIXTURES), str(tmp_path), env=env, cwd=tmp_path).splitlines()
    assert lines[:3] == [f"xnnpack {i} ok ndarray" for i in range(3)], lines
    assert lines[3] == "wrong_expected 0 ok ndarray" and lines[5] == "wrong_expected 2 ok ndarray", lines
    assert lines[4].startswith("wrong_expected 1 mismatch") and "element 3" in lines[4], lines
    assert lines[6:] == [
        "verify forward 0 True False",
        "verify forward 1 False True",
        "verify forward 2 True False",
        "blocks 3",
    ], lines
    _, runs = read_etdump((tmp_path / "mlp.etdp").read_bytes())
    assert len(runs) == 2
    for run in runs:
        assert [e.name for e in run.events] == [
            "aten::permute_copy.out",
            "aten::addmm.out",
            "aten::relu.out",
            "aten::permute_copy.out",
            "aten::addmm.out",
            "Method::execute",
        ]
