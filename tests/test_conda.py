"""The conda packages (dist/conda-channel) and the one component manifest (components.toml) shared with the wheel.

Fully offline: packages are solved and installed with py-rattler from the local channel only. Test-only stubs
(tests/conda/stubs, built into a temporary test channel) stand in for `python` and `numpy` (the interpreter that
runs the tests), `python-flatbuffers` (the pip flatbuffers package's files) and, for executorch-cuda
(tests/test_cuda_packaging.py), `cuda-cudart` / `libcublas`; they are never part of dist/conda-channel.
"""

from __future__ import annotations

import json
import os
import platform
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
import tomllib
import yaml

from et_common import FIXTURES, REPO, conda_channel, wheel_file
from et_common import build_app as build_cmake_project
from test_api import APP_PROGRAMS, build_api_tests, run_api_test
from test_llm import check_multimodal_app

sys.path.insert(0, str(REPO / "scripts"))
import check_artifacts
from et_packaging import conda, cuda, model, recipe

TOOL = REPO / "tests" / "conda" / "rattler_tool.py"
MANIFEST = model.load_manifest()
VERSION = model.project_version()
PY_VER = f"{sys.version_info[0]}.{sys.version_info[1]}"
# Optional components (cuda) are in the channel when scripts/build_sdk.sh could build them here.
CUDA_MISSING = cuda.cuda_toolchain_missing()
BUILT = {
    name: c
    for name, c in model.built_components(MANIFEST).items()
    if not (c.get("optional") and "cuda_architectures" in c and CUDA_MISSING)
}
OUTPUTS = {c["conda"]: name for name, c in BUILT.items()}  # conda output -> component
META = MANIFEST["package"]["conda_meta"]
META_OUTPUTS = {c["conda"] for c in BUILT.values() if not c.get("optional")}  # what the meta-package pins
ADD_MUL = FIXTURES / "add_mul" / "portable.pte"


def run(cmd: list[str], **kw: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, **kw)  # type: ignore[call-overload]


def tool(*args: str, env: dict[str, str] | None = None) -> str:
    proc = run([sys.executable, str(TOOL), *args], env=env, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


@pytest.fixture(scope="session")
def channel() -> Path:
    return conda_channel()


@pytest.fixture(scope="session")
def packages(channel: Path) -> dict[str, Path]:
    found = {}
    for p in sorted(channel.glob("*/*.conda")):
        found[p.name.rsplit("-", 2)[0]] = p
    return found


@pytest.fixture(scope="session")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("conda")


def build_stubs(out: Path, cache: Path) -> Path:
    """The test-only stub channel (tests/conda/stubs): python, numpy, python-flatbuffers, cuda-cudart, libcublas."""
    import flatbuffers

    env = dict(
        os.environ,
        STUB_PYTHON_VERSION=platform.python_version(),
        STUB_PY_VER=PY_VER,
        STUB_FLATBUFFERS_DIR=str(Path(flatbuffers.__file__).parent),
        STUB_FLATBUFFERS_VERSION=flatbuffers.__version__ if hasattr(flatbuffers, "__version__") else "25.12.19",
        RATTLER_CACHE_DIR=str(cache),
    )
    tool("build", str(REPO / "tests" / "conda" / "stubs" / "recipe.yaml"), str(out), env=env)
    return out


@pytest.fixture(scope="session")
def stub_channel(work: Path) -> Path:
    return build_stubs(work / "test-only stubs", work / "cache")


def install(prefix: Path, channels: list[Path], *specs: str) -> dict[str, str]:
    out = tool("install", str(prefix), str(prefix.parent / "pkgs-cache"), ",".join(map(str, channels)), *specs)
    return json.loads(out.strip().splitlines()[-1])


def build_app(prefix: Path, work: Path) -> Path:
    src = work / "app src"
    shutil.copytree(REPO / "tests" / "sdk_app", src, dirs_exist_ok=True)
    build = work / "app build"
    shutil.rmtree(build, ignore_errors=True)
    proc = run(["cmake", "-S", str(src), "-B", str(build), "-G", "Ninja", f"-DCMAKE_PREFIX_PATH={prefix}"])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    proc = run(["cmake", "--build", str(build)])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return build / "app"


def quiet() -> dict[str, str]:
    env = dict(os.environ, EXECUTORCH_LOG_LEVEL="fatal")
    env.pop("LD_LIBRARY_PATH", None)
    return env


def reference_add_mul(prefix: Path, tmp: Path) -> np.ndarray:
    """add_mul on the [2, 4] input 0..7, computed by the executorch_runner the runtime package ships."""
    inp = tmp / "in.npy"
    np.save(inp, np.arange(8, dtype=np.float32).reshape(2, 4))
    proc = run(
        [str(prefix / "bin" / "executorch_runner"), str(ADD_MUL), "--input", str(inp), "--output-dir", str(tmp)],
        env=quiet(),
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return np.load(tmp / "out0.npy").ravel()


def check_app(prefix: Path, work: Path) -> None:
    app = build_app(prefix, work)
    needed = run(["readelf", "-d", str(app)]).stdout
    assert "libexecutorch.so.0.1" in needed and "libexecutorch_kernels" not in needed
    proc = run([str(app), str(ADD_MUL)], env=quiet())
    assert proc.returncode == 0, proc.stdout + proc.stderr
    got = np.array([float(x) for x in proc.stdout.split()], dtype=np.float32)
    assert got.shape == (6,)
    np.testing.assert_allclose(got, reference_add_mul(prefix, work), rtol=1e-6, atol=1e-6)


# ------------------------------------------------------------------------------------------- the one manifest


def test_pyproject_components_equal_manifest() -> None:
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text())
    assert pyproject["tool"]["scikit-build"]["install"]["components"] == model.wheel_components(MANIFEST)


def test_manifest_is_consistent() -> None:
    names = set(MANIFEST["components"])
    assert {"runtime", "threadpool", "kernels", "python", "xnnpack", "cuda"} <= names
    for name, comp in MANIFEST["components"].items():
        assert comp["status"] in ("built", "planned"), name
        assert set(comp["depends"]) <= names - {name}, name
        if comp["status"] == "built":
            assert all(BUILT.get(d) for d in comp["depends"]), f"{name} depends on a component that is not built"
        assert model.glob_regex(comp["library"].replace("{prefix}", "").lstrip("/")), name
    cmake_dirs = [p for p in (REPO / "cpp").iterdir() if (p / "CMakeLists.txt").is_file()]
    cmake_components = set()
    for d in cmake_dirs:
        text = (d / "CMakeLists.txt").read_text()
        # executorch_add_component (cmake/components.cmake) installs into the CMake component of its NAME.
        cmake_components |= set(re.findall(r"COMPONENT (\w+)", text))
        cmake_components |= set(re.findall(r"executorch_add_component\(NAME (\w+)", text))
    cmake_components |= set(re.findall(r"COMPONENT (\w+)", (REPO / "cmake" / "CMakeLists.txt").read_text()))
    built = model.built_components(MANIFEST).values()
    assert cmake_components - {"devlinks"} == {c["cmake_component"] for c in built}


def test_recipe_is_generated_from_manifest() -> None:
    expected = recipe.render_recipe(MANIFEST, VERSION)
    assert (REPO / "recipe" / "recipe.yaml").read_text() == expected, "run scripts/build_conda.py --write-recipe"


def test_recipe_reads_back_as_its_data() -> None:
    # PyYAML's quoting keeps rattler-build's ${{ ... }} expressions and if/then/else items as they were written.
    text = (REPO / "recipe" / "recipe.yaml").read_text()
    data = recipe.recipe_data(MANIFEST, VERSION)
    assert yaml.safe_load(text) == data
    assert yaml.safe_load(text)["context"]["version"] == VERSION  # a string, whatever the version looks like
    assert '${{ pin_subpackage("executorch-runtime", exact=true) }}' in text
    assert not re.search(r"[&*]id\d+", text), "the recipe must not use YAML anchors or aliases"
    for output in data["outputs"][1:]:
        assert output["tests"], f"{output['package']['name']} has no tests"


RENDER = """
import json, os, sys
from rattler_build import Stage0Recipe, VariantConfig
variant = VariantConfig({"c_compiler": ["gcc"], "cxx_compiler": ["gxx"], "c_stdlib": ["sysroot"],
                         "c_stdlib_version": ["2.17"], "cuda_compiler": ["cuda-nvcc"]})
out = {}
for v in Stage0Recipe.from_file(sys.argv[1]).render(variant):
    d = v.recipe.to_dict()
    out[d["package"]["name"]] = [next(k for k in t if k != "requirements") for t in d.get("tests", [])]
print(json.dumps(out))
sys.stdout.flush()
os._exit(0)
"""


@pytest.mark.parametrize("offline", [True, False], ids=["offline", "online"])
def test_recipe_tests_per_output(offline: bool) -> None:
    """rattler-build renders each output's tests: offline the ones that run with channels=[], online more."""
    env = dict(os.environ, EXECUTORCH_CONDA_PY_VER=PY_VER, EXECUTORCH_CONDA_CUDA="1")
    env.pop("EXECUTORCH_CONDA_OFFLINE", None)
    if offline:
        env["EXECUTORCH_CONDA_OFFLINE"] = "1"
    proc = run([sys.executable, "-c", RENDER, str(REPO / "recipe" / "recipe.yaml")], env=env, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rendered = json.loads(proc.stdout.strip().splitlines()[-1])
    tests = recipe.output_tests(MANIFEST, VERSION)
    assert set(rendered) == set(tests)
    for output, t in tests.items():
        expected = t.offline + ([] if offline else t.online)
        assert rendered[output] == expected, output
        # What does not run offline says why (it is repeated in the recipe's header).
        assert bool(t.online) <= bool(t.not_offline), output
    for name, comp in BUILT.items():  # every library whose environment is all this recipe's gets a CMake consumer
        if "cmake_target" in comp and not comp.get("conda_run"):
            assert "script" in tests[comp["conda"]].offline, name


def test_wheel_matches_manifest() -> None:
    names = [n for n in zipfile.ZipFile(wheel_file()).namelist() if not n.endswith("/")]
    expected = [n for n, c in BUILT.items() if c["wheel"] == "executorch"]
    result = model.classify(names, MANIFEST, "wheel", expected)
    assert not result.problems(), result.problems()
    # Planned components (xnnpack, cuda) are not in the wheel yet; devlinks never are (wheels hold no symlinks).
    assert set(result.owner.values()) == set(expected)


# ------------------------------------------------------------------------------------------- package contents


def test_channel_has_one_package_per_built_component(packages: dict[str, Path]) -> None:
    assert set(packages) == set(OUTPUTS) | {META}
    for name, comp in MANIFEST["components"].items():
        if comp["status"] != "built":
            assert comp["conda"] not in packages, name
    assert "python" not in packages and "numpy" not in packages  # test stubs never reach the shipped channel


@pytest.mark.parametrize("output", [*OUTPUTS, META])
def test_package_contents(packages: dict[str, Path], output: str, tmp_path: Path) -> None:
    forbidden = [str(REPO), str(Path.home()), "/executorch-conda-placeholder"]
    info = conda.read_package(packages[output], tmp_path / "x", forbidden)
    assert not info.problems, info.problems  # hashes vs info/paths.json, no build paths, RUNPATH/SONAME rules
    assert info.version == VERSION
    index = json.loads((tmp_path / "x" / "info" / "index.json").read_text())
    by_name = {d.split()[0]: d for d in info.depends}
    if output == META:
        assert "noarch" not in index and info.files == []
        # Optional components (executorch-cuda) are installed on their own, never through the meta-package.
        assert {n: d.split()[1] for n, d in by_name.items()} == {o: f"=={VERSION}" for o in META_OUTPUTS}
    # The recipe's tests travel in the package (info/tests/tests.yaml; package_contents ran while packaging).
    embedded = yaml.safe_load((tmp_path / "x" / "info" / "tests" / "tests.yaml").read_text()) or []
    expected = recipe.output_tests(MANIFEST, VERSION)[output].offline
    assert [next(iter(t)) for t in embedded] == [k for k in expected if k != "package_contents"], embedded
    if output == META:
        return
    comp = OUTPUTS[output]
    result = model.classify(info.files, MANIFEST, "conda", [comp], py_ver=PY_VER, with_devlinks=True)
    assert not result.problems(), result.problems()
    for dep in MANIFEST["components"][comp]["depends"]:  # siblings pinned exactly (name ==version build)
        exact = [d for d in info.depends if d.startswith(f"{BUILT[dep]['conda']} ==")]
        assert exact and exact[0].split()[1] == f"=={VERSION}", info.depends
    for dep in MANIFEST["components"][comp].get("conda_run", []):
        assert dep in info.depends, (dep, info.depends)
    flavor = MANIFEST["components"][comp].get("conda_build_string")
    if flavor:  # executorch-cuda: cuda130_h<hash>_<number>
        assert re.fullmatch(rf"{flavor}_h[0-9a-f]{{7}}_\d+", info.build), info.build
    if comp == "python":
        assert f"python {PY_VER}.*" in info.depends and not info.run_exports
        assert any(d.startswith("python-flatbuffers") for d in info.depends), info.depends
        (ext,) = [f for f in info.files if "/_C." in f]
        dyn = check_artifacts.dynamic_entries(tmp_path / "x" / ext)
        assert dyn["RUNPATH"] == ["$ORIGIN/../../.."], dyn  # site-packages/executorch -> <prefix>/lib
    else:
        # 0.x: SONAME lib<name>.so.0.1 <-> run_exports >=0.1.0,<0.2.0a0
        major, minor = VERSION.split(".")[:2]
        assert info.run_exports == {"weak": [f"{output} >={VERSION},<{major}.{int(minor) + 1}.0a0"]}
        library = model.glob_regex(model.expand(BUILT[comp]["library"], "conda"))
        (lib,) = [f for f in info.files if library.match(f)]
        assert Path(lib).name.endswith(f".so.{major}.{minor}")
        devlink = tmp_path / "x" / model.expand(BUILT[comp]["devlink"], "conda")
        assert devlink.is_symlink() and os.readlink(devlink) == Path(lib).name


# ----------------------------------------------------------------------------------- prefixes from the channel


def test_runtime_and_kernels_prefix_runs_portable_model(channel: Path, tmp_path: Path) -> None:
    prefix = tmp_path / "env"
    installed = install(prefix, [channel], "executorch-runtime", "executorch-kernels")
    # kernels pulls in the thread pool it links; nothing Python comes along.
    assert set(installed) == {"executorch-runtime", "executorch-kernels", "executorch-threadpool"}, installed
    assert not list(prefix.glob("lib/python*"))
    check_app(prefix, tmp_path)


def test_full_prefix_builds_and_runs_and_moves(channel: Path, stub_channel: Path, tmp_path: Path) -> None:
    prefix = tmp_path / "env"
    installed = install(prefix, [channel, stub_channel], META)
    assert set(installed) == META_OUTPUTS | {META, "python", "numpy", "python-flatbuffers"}, installed
    check_app(prefix, tmp_path / "before")
    python_check(prefix, tmp_path)
    # The application-level API tests (tests/api) against the conda prefix.
    build = build_api_tests(prefix, tmp_path / "api", APP_PROGRAMS)
    for name in APP_PROGRAMS:
        run_api_test(build, name, quiet())
    # Upstream's multimodal runner API (tests/multimodal_app) against the prefix.
    app = build_cmake_project(prefix, REPO / "tests" / "multimodal_app", tmp_path / "multimodal") / "multimodal_app"
    check_multimodal_app(app, tmp_path)
    moved = tmp_path / "moved prefix" / "env with space"
    moved.parent.mkdir()
    shutil.move(str(prefix), str(moved))
    check_app(moved, tmp_path / "after")
    python_check(moved, tmp_path)


def python_check(prefix: Path, tmp: Path) -> None:
    (site,) = prefix.glob("lib/python*/site-packages")
    script = (
        "import sys, numpy as np, executorch\n"
        "from executorch.runtime import Runtime\n"
        f"m = Runtime.get().load_program({str(ADD_MUL)!r}).load_method('forward')\n"
        "out = m.execute([np.arange(8, dtype=np.float32).reshape(2, 4)])[0]\n"
        "maps = {l.split(maxsplit=5)[5].strip() for l in open('/proc/self/maps') if 'libexecutorch' in l}\n"
        "print(executorch.__version__, executorch.get_lib_dir(), executorch.get_cmake_dir(), sep='\\n')\n"
        "print('|'.join(sorted(maps)))\n"
        "print(' '.join(str(x) for x in out.ravel()))\n"
        "import flatbuffers; print(flatbuffers.__file__)\n"
    )
    env = dict(quiet(), PYTHONPATH=str(site))
    proc = run([sys.executable, "-c", script], env=env, cwd=tmp)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    version, lib_dir, cmake_dir, maps, values, fb = proc.stdout.splitlines()
    # python-flatbuffers (a run dependency of executorch-python) comes from the prefix, not the test venv.
    assert fb.startswith(str(site) + "/flatbuffers/"), fb
    assert [version, lib_dir, cmake_dir] == [VERSION, str(prefix / "lib"), str(prefix / "lib" / "cmake" / "executorch")]
    # One copy of each library, the prefix's own (found through _C's RUNPATH $ORIGIN/../../..).
    assert maps and all(m.startswith(str(prefix / "lib") + "/") for m in maps.split("|")), maps
    np.testing.assert_allclose(
        np.array(values.split(), dtype=np.float32), reference_add_mul(prefix, tmp), rtol=1e-6, atol=1e-6
    )


# ---------------------------------------------------------------------------------------- downstream recipes


def test_downstream_recipe_gets_pinned_run_dependency(channel: Path, tmp_path: Path) -> None:
    out = tmp_path / "downstream channel"
    env = dict(os.environ, EXECUTORCH_CONDA_OFFLINE="1", RATTLER_CACHE_DIR=str(tmp_path / "cache"))
    downstream = REPO / "tests" / "conda" / "downstream" / "recipe.yaml"
    (pkg,) = json.loads(tool("build", str(downstream), str(out), str(channel), env=env))
    info = conda.read_package(Path(pkg), tmp_path / "x", [str(REPO)])
    major, minor = VERSION.split(".")[:2]
    # executorch-runtime was only a host requirement: the run dependency comes from its run_exports.
    assert info.depends == [f"executorch-runtime >={VERSION},<{major}.{int(minor) + 1}.0a0"], info.depends
    prefix = tmp_path / "env"
    installed = install(prefix, [out, channel], "et-downstream")
    assert set(installed) == {"et-downstream", "executorch-runtime"}, installed
    proc = run([str(prefix / "bin" / "et_downstream_info"), str(ADD_MUL)], env=quiet())
    assert proc.returncode == 0 and proc.stdout.strip() == "methods: 1", proc.stdout + proc.stderr


def test_build_path_in_package_is_rejected(tmp_path: Path) -> None:
    env = dict(os.environ, RATTLER_CACHE_DIR=str(tmp_path / "cache"))
    (pkg,) = json.loads(
        tool("build", str(REPO / "tests" / "conda" / "leaky" / "recipe.yaml"), str(tmp_path / "o"), env=env)
    )
    info = conda.read_package(Path(pkg), tmp_path / "x", [str(REPO)])
    assert any(p.startswith("share/leak.txt contains") for p in info.problems), info.problems
