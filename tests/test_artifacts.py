"""Binary hygiene of the installed SDK: SONAMEs, RUNPATHs, build paths, and who owns the registries."""

from __future__ import annotations

import ctypes
import sys
from pathlib import Path
from typing import Any

import pytest

from et_common import BUILD_SDK, REPO, missing_build

sys.path.insert(0, str(REPO / "scripts"))
import check_artifacts
from et_packaging import cuda, model


def test_sdk_layout(sdk: Path) -> None:
    libs = sorted(p.name for p in (sdk / "lib").iterdir())
    for stem in ("libexecutorch", "libexecutorch_threadpool", "libexecutorch_kernels"):
        assert f"{stem}.so.0.1" in libs and f"{stem}.so" in libs, libs
    assert (sdk / "lib" / "cmake" / "executorch" / "executorch-config.cmake").is_file()
    assert (sdk / "lib" / "pkgconfig" / "executorch.pc").is_file()
    assert (sdk / "include" / "executorch" / "extension" / "module" / "module.h").is_file()


def test_sonames_and_runpaths(sdk: Path) -> None:
    report = check_artifacts.Report()
    check_artifacts.check_elf(sdk, report)
    assert report.ok, report.checks
    assert report.checks.keys() >= {"soname", "runpath"}


def test_no_build_machine_paths(sdk: Path) -> None:
    report = check_artifacts.Report()
    check_artifacts.check_paths(sdk, [str(REPO), str(REPO / "build"), str(Path.home())], report)
    assert report.ok, report.checks


def test_registries_defined_only_in_libexecutorch(sdk: Path) -> None:
    report = check_artifacts.Report()
    check_artifacts.check_owners(sdk, report)
    assert report.ok, report.checks


def test_checker_catches_problems(tmp_path: Path, sdk: Path) -> None:
    # The checks themselves must fail on bad input: a file naming a build path.
    bad = tmp_path / "prefix"
    (bad / "lib").mkdir(parents=True)
    (bad / "lib" / "note.txt").write_text(f"built in {REPO}/build\n")
    report = check_artifacts.Report()
    check_artifacts.check_paths(bad, [str(REPO)], report)
    assert not report.ok


def test_only_exported_api_symbols(sdk: Path) -> None:
    # Hidden visibility by default: nothing from flatbuffers or the schema reader leaks out of libexecutorch.
    symbols = check_artifacts.defined_symbols(sdk / "lib" / "libexecutorch.so.0.1")
    assert not [s for s in symbols if "flatbuffers" in s or "et_pte" in s]
    kernels = check_artifacts.defined_symbols(sdk / "lib" / "libexecutorch_kernels.so.0.1")
    assert not [s for s in kernels if "executorch" in s and "::" in s], kernels[:20]
    # Every other kernel component (components.toml: operator_namespaces) exports its descriptor and nothing else;
    # the LLM component also its C++ runner API (namespace executorch::extension::llm) and upstream's C++
    # tokenizers (tokenizers::, base64::), with the vtables and type information of their classes.
    llm_namespaces = ("executorch::extension::llm::", "tokenizers::", "base64::")
    kinds = ("", "vtable for ", "typeinfo for ", "typeinfo name for ")
    api = {"llm": tuple(kind + ns for ns in llm_namespaces for kind in kinds)}
    for name, comp in model.built_components(model.load_manifest()).items():
        if "operator_namespaces" not in comp or name == "kernels":
            continue
        (lib,) = (sdk / "lib").glob(f"libexecutorch_{name}.so.*")
        symbols = [s for s in check_artifacts.defined_symbols(lib) if not s.startswith("_")]
        allowed = ("executorch_component", *api.get(name, ()))
        assert [s for s in symbols if not s.startswith(allowed)] == [], (name, symbols)
        assert "executorch_component" in symbols
        if name in api:
            assert any("TextLLMRunner::generate" in s for s in symbols), symbols


@pytest.mark.cuda
def test_cuda_library_in_sdk(sdk: Path) -> None:
    # Built when nvcc is there (scripts/build_sdk.sh): the wheel's RUNPATH (cudart/cuBLAS from the NVIDIA wheels),
    # the claimed architectures installed beside it, and it defines none of the registries.
    libs = list((sdk / "lib").glob("libexecutorch_cuda.so.*"))
    if not libs:
        missing = cuda.cuda_toolchain_missing()
        if missing is not None:
            pytest.skip(f"the CUDA delegate is not built here: {missing}")
        missing_build(f"{sdk / 'lib'}/libexecutorch_cuda.so.*", BUILD_SDK)
    dyn = check_artifacts.dynamic_entries(libs[0])
    assert dyn["RUNPATH"] == [check_artifacts.CUDA_WHEEL_RUNPATH] and dyn["SONAME"] == ["libexecutorch_cuda.so.0.1"]
    assert {"libcudart.so.13", "libcublas.so.13", "libexecutorch.so.0.1"} <= set(dyn["NEEDED"]), dyn
    assert (sdk / "share" / "executorch" / "cuda-architectures.json").is_file()
    assert (sdk / "lib" / "cmake" / "executorch" / "executorch-cuda-targets.cmake").is_file()


class _Component(ctypes.Structure):
    _fields_ = [
        ("api_version", ctypes.c_uint32),
        ("name", ctypes.c_char_p),
        ("package", ctypes.c_char_p),
        ("version", ctypes.c_char_p),
        ("operator_namespaces", ctypes.POINTER(ctypes.c_char_p)),
        ("backends", ctypes.POINTER(ctypes.c_char_p)),
        ("register_all", ctypes.c_void_p),
    ]


def _strings(p: Any) -> list[str]:
    out = []
    while p[len(out)] is not None:
        out.append(p[len(out)].decode())
    return out


def test_component_descriptors_match_the_manifest(sdk: Path) -> None:
    # Every component library describes itself (executorch_component()); the runtime's catalog comes from
    # components.toml, so the two must agree: name, package, release, operator namespaces and backends.
    manifest = model.load_manifest()
    version = model.project_version()
    seen = []
    for name, comp in manifest["components"].items():
        if comp.get("status") != "built" or not ("operator_namespaces" in comp or "backends" in comp):
            continue
        libs = list((sdk / "lib").glob(f"libexecutorch_{name}.so.*"))
        if not libs and comp.get("optional"):
            continue
        assert len(libs) == 1, (name, libs)
        try:
            lib = ctypes.CDLL(str(libs[0]), mode=ctypes.RTLD_LOCAL)
        except OSError:
            if comp.get("optional"):
                continue  # e.g. the CUDA delegate where libcublas is not installed (tests/test_cuda_packaging.py)
            raise
        entry = lib.executorch_component
        entry.restype = ctypes.POINTER(_Component)
        d = entry().contents
        assert d.api_version == 1
        assert (d.name.decode(), d.package.decode(), d.version.decode()) == (name, comp["conda"], version)
        assert _strings(d.operator_namespaces) == comp.get("operator_namespaces", [])
        assert _strings(d.backends) == comp.get("backends", [])
        seen.append(name)
    assert {"kernels", "xnnpack"} <= set(seen), seen
