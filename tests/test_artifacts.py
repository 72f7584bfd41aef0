"""Binary hygiene of the installed SDK: SONAMEs, RUNPATHs, build paths, and who owns the registries."""

from __future__ import annotations

import sys
from pathlib import Path

from et_common import REPO

sys.path.insert(0, str(REPO / "scripts"))
import check_artifacts


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
