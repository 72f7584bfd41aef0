"""Building, checking and indexing the conda packages of one architecture (scripts/build_conda.py runs these steps).

Build once, package many: the packages are staged from the C++ tree scripts/build_sdk.sh built for the architecture
(model.ARCHES: build/release for linux-64, build/aarch64 for linux-aarch64), brought up to date first (update_tree);
only the Python extension is compiled (build/conda/python-<arch>; for aarch64 cross-compiled as the aarch64 wheels
are: python_cmake_args). rattler-build runs offline: py-rattler-build with no remote channel and the system toolchain
(recipe_environment sets EXECUTORCH_CONDA_OFFLINE=1 and the recipe's other inputs; run_rattler_build). Every package is
checked before it enters the channel (read_package: file hashes against info/paths.json, no build-machine path in
any payload file, no file that needs prefix rewriting, $ORIGIN-only RUNPATHs and lib<name>.so.<major>.<minor>
SONAMEs; publish leaves a package that fails out of the channel), then the channel is indexed (index_channel).

A step that cannot go on raises BuildError: its message and the exit status of the build (2: bad inputs, 1: a
failed build).
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path

import check_artifacts
from et_packaging.cross import cross_extension_defines
from et_packaging.cuda import CUDA_WHEEL_TREE, build_cuda_tree, cuda_library, cuda_toolchain_missing
from et_packaging.model import ARCHES, REPO, SUBDIRS
from et_packaging.recipe import RECIPE


class BuildError(Exception):
    """A build step that cannot go on: `error: <message>` is printed, and the build exits with `code`."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code


# -------------------------------------------------------------------------------------------- package checks


@dataclass
class PackageInfo:
    path: Path
    name: str
    version: str
    build: str
    depends: list[str]
    run_exports: dict
    files: list[str]  # payload paths (info/paths.json)
    problems: list[str]


def read_package(conda: Path, dest: Path, forbidden: list[str]) -> PackageInfo:
    """Extracts `conda` into `dest` and checks it; problems are listed, not raised."""
    from rattler.package_streaming import extract

    extract(conda, dest)
    index = json.loads((dest / "info" / "index.json").read_text())
    paths = json.loads((dest / "info" / "paths.json").read_text())["paths"]
    rex = dest / "info" / "run_exports.json"
    run_exports = json.loads(rex.read_text()) if rex.is_file() else {}
    problems: list[str] = []
    listed = set()
    for entry in paths:
        rel = entry["_path"]
        listed.add(rel)
        p = dest / rel
        if entry.get("path_type") == "softlink":
            if not p.is_symlink():
                problems.append(f"{rel}: listed as a link but is not one")
            elif Path(os.readlink(p)).is_absolute():
                problems.append(f"{rel}: absolute link target {os.readlink(p)}")
            continue
        if not p.is_file():
            problems.append(f"{rel}: listed in info/paths.json but missing")
            continue
        data = p.read_bytes()
        if hashlib.sha256(data).hexdigest() != entry.get("sha256"):
            problems.append(f"{rel}: sha256 differs from info/paths.json")
        if entry.get("size_in_bytes") is not None and entry["size_in_bytes"] != len(data):
            problems.append(f"{rel}: size differs from info/paths.json")
        if entry.get("prefix_placeholder"):
            problems.append(f"{rel}: holds the build prefix ({entry.get('file_mode')}); the SDK must be relocatable")
    for p in sorted(dest.rglob("*")):
        rel = p.relative_to(dest).as_posix()
        if (p.is_file() or p.is_symlink()) and not rel.startswith("info/") and rel not in listed:
            problems.append(f"{rel}: in the archive but not in info/paths.json")
    # Build-machine paths in payload files (info/ legitimately records the recipe and channels).
    report = check_artifacts.Report()
    check_artifacts.check_paths(dest, forbidden, report)
    problems += [p for p in report.checks["no-build-paths"] if not p.startswith("info/")]
    # RUNPATHs and SONAMEs of the payload (check_artifacts' rules; extensions carry no SONAME).
    report = check_artifacts.Report()
    payload = [Path(r) for r in listed]
    if any(check_artifacts.is_elf(dest / r) for r in payload if (dest / r).is_file() and not (dest / r).is_symlink()):
        check_artifacts.check_elf(dest, report)
        for check, items in report.checks.items():
            problems += [p for p in items if not (check == "soname" and "site-packages/" in p)]
    return PackageInfo(
        path=conda,
        name=index["name"],
        version=index["version"],
        build=index["build"],
        depends=list(index.get("depends", [])),
        run_exports=run_exports,
        files=sorted(listed),
        problems=problems,
    )


def index_channel(channel: Path) -> None:
    from rattler.index import index_fs  # py-rattler: needed only to build the channel

    for sub in (*SUBDIRS.values(), "noarch"):
        (channel / sub).mkdir(parents=True, exist_ok=True)
    asyncio.run(index_fs(channel, force=True))


def foreign_build_dir(build: Path, source: Path = REPO) -> str | None:
    """The source tree a CMake build dir was configured from, when it is not `source` (None when it is, or new)."""
    cache = build / "CMakeCache.txt"
    if not cache.is_file():
        return None
    m = re.search(r"^CMAKE_HOME_DIRECTORY:INTERNAL=(.*)$", cache.read_text(errors="replace"), re.M)
    home = m.group(1) if m else "?"
    return None if m and Path(home).resolve() == source.resolve() else home


# ------------------------------------------------------------------------------------------------- build steps


def check_target(arch: str, host: str) -> None:
    if arch not in SUBDIRS or host not in SUBDIRS:
        raise BuildError(f"no conda build for {arch} on {host} (SUBDIRS: {sorted(SUBDIRS)})", 2)


def cmake_tree(arch: str, host: str, tree: Path | None = None) -> Path:
    """The C++ tree the packages of `arch` are staged from (default: ARCHES[arch]["build_dir"]), configured."""
    tree = (tree or REPO / ARCHES[arch]["build_dir"]).resolve()
    if not (tree / "CMakeCache.txt").is_file():
        hint = "scripts/build_sdk.sh" if arch == host else "scripts/build_aarch64.sh"
        raise BuildError(f"{tree} is not a configured CMake tree: build it with {hint} first", 2)
    return tree


def check_source_tree(tree: Path) -> None:
    """A build tree configured from another checkout (a copied tree) would build the wrong sources."""
    home = foreign_build_dir(tree)
    if home:
        raise BuildError(f"{tree} was configured from another source tree ({home}): remove it", 2)


def update_tree(tree: Path) -> None:
    """An incremental build of `tree` (no work when it is up to date): the packages are staged from it as it is then."""
    proc = subprocess.run(["cmake", "--build", str(tree)], capture_output=True, text=True)
    if proc.returncode != 0:
        raise BuildError(f"cmake --build {tree} failed:\n{(proc.stdout + proc.stderr)[-3000:]}", 1)


def prepare_work(work: Path) -> Path:
    """`work`'s tmp/ and rattler-cache/, and an empty out/: rattler-build's output dir (with its bld/, src_cache/,
    ...), returned; only checked packages move on from there."""
    out = work / "out"
    shutil.rmtree(out, ignore_errors=True)
    for d in (work / "tmp", work / "rattler-cache", out):
        d.mkdir(parents=True, exist_ok=True)
    return out


def require_pybind11() -> None:
    if importlib.util.find_spec("pybind11") is None:
        raise BuildError(f"pybind11 is missing in {sys.executable}: run scripts/setup.sh", 2)


def python_cmake_args(arch: str, host: str, py_ver: str) -> str:
    """The extra CMake arguments of executorch-python's extension: none natively; for another architecture the
    extension is cross-compiled as for the aarch64 wheels (cross.cross_extension_defines: the toolchain file, this
    CPython's headers with the target's pyconfig.h, the target's extension suffix)."""
    if arch == host:
        return ""
    defines = cross_extension_defines(py_ver, arch)
    return " ".join(f"-D{k}={v}" for k, v in defines.items())


def cuda_tree(
    cuda_build: Path | None, refresh: bool, work: Path, arch: str, host: str
) -> tuple[Path | None, Path | None]:
    """The CUDA tree (None for another architecture or --no-cuda) and the library built in it (None: executorch-cuda
    is left out; a note says why).

    executorch-cuda installs the library the executorch-cuda wheel build made (CUDA code is compiled once for both;
    scripts/build_sdk.sh passes --cuda-build-dir right after building the wheel). With `refresh` (build_conda.py run
    on its own), build/cuda-wheel is brought up to date the same way first (incremental), so the package is the same
    bytes as the builder's (tests/test_reproducible.py). Another architecture's packages have none."""
    if arch != host:
        cuda_build = None
    cuda_lib = cuda_library(cuda_build) if cuda_build else None
    if refresh and cuda_build == CUDA_WHEEL_TREE and not cuda_toolchain_missing():
        print(f"building the CUDA delegate in {cuda_build} (packaging/cuda, as the executorch-cuda wheel)", flush=True)
        proc = build_cuda_tree(work / "tmp" / "cuda")
        if proc.returncode != 0:
            raise BuildError(f"the CUDA build failed:\n{(proc.stdout + proc.stderr)[-3000:]}", 1)
        shutil.rmtree(work / "tmp" / "cuda", ignore_errors=True)
        cuda_lib = cuda_library(cuda_build)
    if not cuda_build:
        print("note: executorch-cuda is left out" + (" (--no-cuda)" if arch == host else f" (not built for {arch})"))
    if cuda_build and cuda_lib:
        check_source_tree(cuda_build)
    elif cuda_build:
        print(f"note: no CUDA build in {cuda_build}: executorch-cuda is left out (scripts/build_sdk.sh builds it)")
    return cuda_build, cuda_lib


def recipe_environment(
    *,
    tree: Path,
    python_tree: Path,
    py_ver: str,
    python_cmake_args: str,
    cuda_build: Path | None,
    cuda_lib: Path | None,
    work: Path,
) -> dict[str, str]:
    """The environment the offline build reads (the recipe's context, recipe/build.sh, install_*.sh): no remote
    channel and the system toolchain, the C++ tree to stage from, the extension's tree and arguments, the CUDA
    tree (if any), rattler-build's cache and temporary directory under `work`."""
    return dict(
        EXECUTORCH_CONDA_CUDA="1" if cuda_lib else "0",
        EXECUTORCH_CUDA_BUILD_DIR=str(cuda_build) if cuda_lib else "",
        EXECUTORCH_CONDA_OFFLINE="1",
        EXECUTORCH_CONDA_PYTHON=sys.executable,
        EXECUTORCH_CONDA_PY_VER=py_ver,
        EXECUTORCH_CMAKE_BUILD_DIR=str(tree),
        EXECUTORCH_CMAKE_SOURCE_DIR=str(REPO),
        EXECUTORCH_PYTHON_BUILD_DIR=str(python_tree),
        EXECUTORCH_PYTHON_CMAKE_ARGS=python_cmake_args,
        RATTLER_CACHE_DIR=str(work / "rattler-cache"),
        TMPDIR=str(work / "tmp"),
    )


class RattlerLog:
    """rattler-build progress callback: the log goes to a file (and errors to stderr); downloads must not happen."""

    def __init__(self, log: Path, verbose: bool) -> None:
        self.f = log.open("w")
        self.verbose = verbose

    def on_log(self, e: object) -> None:
        line = f"[{e.level}] {e.message}"  # type: ignore[attr-defined]
        self.f.write(line + "\n")
        self.f.flush()
        if self.verbose or e.level in ("error", "ERROR"):  # type: ignore[attr-defined]
            print(line, file=sys.stderr, flush=True)
        elif re.match(r"\[\d+/\d+\] ", e.message):  # type: ignore[attr-defined]  # ninja's progress
            print(e.message, flush=True)  # type: ignore[attr-defined]

    def on_download_start(self, e: object) -> None:
        raise RuntimeError(f"offline build tried to download {e.url}")  # type: ignore[attr-defined]

    def on_download_progress(self, e: object) -> None:
        pass

    def on_download_complete(self, e: object) -> None:
        pass

    def on_build_step(self, e: object) -> None:
        pass


def run_rattler_build(arch: str, host: str, out: Path, log: Path, verbose: bool) -> list[Path]:
    """Builds recipe/recipe.yaml for `arch` into `out` (the recipe's environment set: recipe_environment); returns
    the packages. Natively each output's tests run as it is built; a failed test fails the build."""
    from rattler_build import Stage0Recipe, ToolConfiguration  # py-rattler-build: needed only to build packages
    from rattler_build.cli_api import build_recipes

    subdir = SUBDIRS[arch]
    try:
        if arch == host:
            results = Stage0Recipe.from_file(str(RECIPE)).run_build(
                output_dir=str(out),
                channels=[],  # [] = no remote channel (None would mean conda-forge); the output dir is always one
                # "native": each output's `tests` run as soon as it and its run dependencies are built (the recipe's
                # package_contents tests run while packaging whatever the strategy); a failed test fails the build.
                tool_config=ToolConfiguration(error_prefix_in_binary=True, test_strategy="native"),
                progress_callback=RattlerLog(log, verbose),
                no_include_recipe=True,  # info/recipe would record build paths (rendered context, directories)
            )
            return [Path(p) for r in results for p in r.packages]
        # A cross build (linux-aarch64). run_build of py-rattler-build 0.73 solves the host environments for the
        # build platform whatever the render platform, so the CLI's entry point (which honours host_platform)
        # builds it. Its environment tests cannot run on this machine ("skip"; package_contents still runs):
        # tests/test_conda_aarch64.py installs the packages and runs them under QEMU.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            build_recipes(
                [str(RECIPE)], target_platform=subdir, host_platform=subdir, build_platform=SUBDIRS[host],
                channel=[], test="skip", output_dir=str(out), no_include_recipe=True, error_prefix_in_binary=True,
            )  # fmt: skip
        built = sorted(out.glob("*/*.conda"))
        log.write_text(f"rattler-build (build_recipes, {subdir}): {[p.name for p in built]}\n")
        return built
    except Exception as e:  # rattler-build's errors are terse; the log has the script output
        raise BuildError(f"rattler-build failed: {e}\n  log: {log}", 1) from e


def forbidden_paths(work: Path, channel: Path, tree: Path, cuda_build: Path | None) -> list[str]:
    """The paths no package may contain: the checkout, the work, output and C++ trees, $HOME and $TMPDIR."""
    forbidden = [str(REPO), str(work.resolve()), str(channel.resolve()), str(Path.home()), os.environ["TMPDIR"]]
    forbidden += [str(cuda_build.resolve())] if cuda_build else []
    forbidden += [str(tree), "/executorch-conda-placeholder"]
    return forbidden


def clear_channel(channel: Path, subdirs: set[str]) -> None:
    """Removes the packages of an earlier build from `subdirs` of `channel`."""
    for sub in subdirs:
        (channel / sub).mkdir(parents=True, exist_ok=True)
        for stale in (channel / sub).glob("*.conda"):
            stale.unlink()


# One row of the summary: name-version-build, bytes, files, depends, run_exports (weak and strong).
Row = tuple[str, int, int, list[str], list[str]]


def publish(built: list[Path], channel: Path, work: Path, forbidden: list[str]) -> tuple[list[Row], int]:
    """Checks every package (read_package) and copies the ones that pass into `channel`/<subdir>; returns their
    summary rows and the number that failed (each printed with its problems)."""
    failed = 0
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(dir=work / "tmp") as tmp:
        for i, pkg in enumerate(built):
            info = read_package(pkg, Path(tmp) / str(i), forbidden)
            target = channel / pkg.parent.name / pkg.name
            if info.problems:
                failed += 1
                print(f"FAILED {pkg.name}:", file=sys.stderr)
                for p in info.problems:
                    print(f"    {p}", file=sys.stderr)
                target.unlink(missing_ok=True)
                continue
            shutil.copyfile(pkg, target)
            strong = info.run_exports.get("weak", []) + info.run_exports.get("strong", [])
            label = f"{info.name}-{info.version}-{info.build}"
            rows.append((label, pkg.stat().st_size, len(info.files), info.depends, strong))
    return rows, failed


def print_summary(rows: list[Row]) -> None:
    print(f"{'package':52} {'bytes':>9} {'files':>5}  depends | run_exports")
    for name, size, nfiles, depends, rex in rows:
        print(f"{name:52} {size:>9} {nfiles:>5}  {', '.join(depends) or '-'} | {', '.join(rex) or '-'}")
