#!/usr/bin/env python3
"""Builds the conda channel dist/conda-channel from recipe/recipe.yaml (generated from components.toml).

Usage:
  build_conda.py [--channel DIR] [--build-dir DIR] [--clean] [--arch x86_64|aarch64] [--tree DIR]
                 [--cuda-build-dir DIR | --no-cuda]              build, verify and index the channel
  build_conda.py --write-recipe                                  regenerate recipe/recipe.yaml from components.toml
  build_conda.py --check-recipe                                  exit 1 when recipe/recipe.yaml is out of date
  build_conda.py --check                                         exit 2 when components.toml, the recipe or
                                                                 pyproject.toml's install.components are broken

The build is offline: py-rattler-build with no remote channel (channels=[]) and the system toolchain
(EXECUTORCH_CONDA_OFFLINE=1 drops the recipe's compiler()/stdlib() lines). Build once, package many: the packages
of an architecture are staged from the C++ tree scripts/build_sdk.sh built for it (build/release for linux-64,
build/aarch64 for linux-aarch64: --arch, --tree), brought up to date first; only the Python extension is compiled
(build/conda/python-<arch>; for aarch64 cross-compiled as the aarch64 wheels are). Every package is checked before
it enters the channel: file hashes against info/paths.json, no build-machine path in any payload file
(scripts/check_artifacts.py), no file that needs prefix rewriting, $ORIGIN-only RUNPATHs and
lib<name>.so.<major>.<minor> SONAMEs. A package that fails is left out of the channel and the script exits 1.

The recipe's per-output `tests` run during the build (test_strategy="native"; recipe.output_tests says which, and why
an output has none that needs an environment offline): a strict package_contents test of every output, and for a
library output a CMake consumer (recipe/test_consumer.sh, with the system cmake/ninja/compiler) in a new
environment made of the outputs just built. A failed test fails the build.

executorch-cuda (optional) installs libexecutorch_cuda from the executorch-cuda wheel's CMake tree
(build/cuda-wheel; recipe/install_cuda.sh sets its RUNPATH to $ORIGIN): --cuda-build-dir uses a tree as it is
(scripts/build_sdk.sh, right after building that wheel), the default brings build/cuda-wheel up to date first when
nvcc and the NVIDIA wheels are there (cuda.cuda_toolchain_missing), and --no-cuda leaves the package out.

Reproducible: every package is rewritten deterministically (reproducible.normalize_conda): archive entries sorted,
mtimes and info/index.json's timestamp set to SOURCE_DATE_EPOCH (default: the commit time of HEAD), its `depends`
sorted, uid/gid 0, no info/recipe (it would record build paths). Two builds of one commit give byte-identical .conda
files (tests/test_reproducible.py).

This script is a driver: the model (components, layouts, architectures) and every step live in the et_packaging
package (model, recipe, conda, cuda, reproducible; docs/packaging.md, "Layout of the packaging code").
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from pathlib import Path

from et_packaging import conda
from et_packaging.cuda import CUDA_WHEEL_TREE
from et_packaging.model import REPO, SUBDIRS, host_python, load_manifest, manifest_problems, project_version
from et_packaging.recipe import RECIPE, check_inputs, render_recipe
from et_packaging.reproducible import normalize_conda, source_date_epoch


def build(
    channel: Path,
    work: Path,
    *,
    arch: str = "x86_64",
    tree: Path | None = None,
    clean: bool,
    verbose: bool,
    cuda_build: Path | None = None,
    refresh_cuda: bool = False,
) -> int:
    """Packages `tree` (the C++ build of `arch`; default ARCHES[arch]["build_dir"]) into `channel`/SUBDIRS[arch]: each
    library output installs its CMake component from it, executorch-python compiles only the extension (in
    `work`/python-<arch>), executorch-cuda takes the CUDA tree's library (x86_64 only)."""
    problems = check_inputs()
    for p in problems:
        print(f"error: {p}", file=sys.stderr)
    if problems:
        return 2
    host = os.uname().machine
    try:
        conda.check_target(arch, host)
        tree = conda.cmake_tree(arch, host, tree)
        if clean:
            shutil.rmtree(work, ignore_errors=True)
        python_tree = work / f"python-{arch}"
        for t in (tree, python_tree):
            conda.check_source_tree(t)
        conda.update_tree(tree)
        out = conda.prepare_work(work)
        py_ver = host_python()
        conda.require_pybind11()
        python_cmake_args = conda.python_cmake_args(arch, host, py_ver)
        cuda_build, cuda_lib = conda.cuda_tree(cuda_build, refresh_cuda, work, arch, host)
        os.environ.update(
            conda.recipe_environment(
                tree=tree,
                python_tree=python_tree,
                py_ver=py_ver,
                python_cmake_args=python_cmake_args,
                cuda_build=cuda_build,
                cuda_lib=cuda_lib,
                work=work,
            )
        )
        subdir = SUBDIRS[arch]
        log = work / f"rattler-build-{subdir}.log"
        start = time.monotonic()
        built = conda.run_rattler_build(arch, host, out, log, verbose)
    except conda.BuildError as e:
        print(f"error: {e}", file=sys.stderr)
        return e.code
    forbidden = conda.forbidden_paths(work, channel, tree, cuda_build)
    epoch = source_date_epoch()
    for pkg in built:
        normalize_conda(pkg, epoch)
    conda.clear_channel(channel, {pkg.parent.name for pkg in built} | {subdir, "noarch"})
    rows, failed = conda.publish(built, channel, work, forbidden)
    conda.index_channel(channel)
    conda.print_summary(rows)
    print(f"channel {channel} ({len(rows)} packages, {failed} failed) in {time.monotonic() - start:.0f} s; log {log}")
    return 1 if failed else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--channel", type=Path, default=REPO / "dist" / "conda-channel")
    ap.add_argument("--build-dir", type=Path, default=REPO / "build" / "conda", help="rattler-build's work dir")
    ap.add_argument("--arch", choices=sorted(SUBDIRS), default="x86_64", help="the packages' architecture")
    ap.add_argument("--tree", type=Path, help="the C++ tree to stage from (default: build/release, build/aarch64)")
    ap.add_argument("--clean", action="store_true", help="start from an empty build dir (no incremental build)")
    ap.add_argument(
        "--cuda-build-dir",
        type=Path,
        help="CMake tree with the built CUDA delegate (the executorch-cuda wheel's), used as it is; executorch-cuda "
        "is left out when it has none. Default: build/cuda-wheel, brought up to date first (when nvcc is there)",
    )
    ap.add_argument("--no-cuda", action="store_true", help="leave executorch-cuda out")
    ap.add_argument("--verbose", action="store_true", help="print rattler-build's log")
    ap.add_argument("--write-recipe", action="store_true")
    ap.add_argument("--check-recipe", action="store_true")
    ap.add_argument("--check", action="store_true", help="check components.toml, recipe/ and pyproject.toml only")
    args = ap.parse_args()
    if args.check:
        problems = check_inputs()
        for p in problems:
            print(f"error: {p}", file=sys.stderr)
        return 2 if problems else 0
    manifest = load_manifest()
    problems = manifest_problems(manifest)
    if problems:
        raise SystemExit("error: components.toml: " + "\n  ".join(problems))
    text = render_recipe(manifest, project_version())
    if args.write_recipe:
        RECIPE.write_text(text)
        print(f"wrote {RECIPE.relative_to(REPO)}")
        return 0
    if args.check_recipe:
        ok = RECIPE.is_file() and RECIPE.read_text() == text
        print("recipe/recipe.yaml is up to date" if ok else "recipe/recipe.yaml is out of date (--write-recipe)")
        return 0 if ok else 1
    rc = build(
        args.channel.resolve(),
        args.build_dir.resolve(),
        arch=args.arch,
        tree=args.tree,
        clean=args.clean,
        verbose=args.verbose,
        cuda_build=None if args.no_cuda else (args.cuda_build_dir or CUDA_WHEEL_TREE).resolve(),
        refresh_cuda=args.cuda_build_dir is None,
    )
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(rc)  # py-rattler can crash at interpreter exit (see docs/packaging.md)


if __name__ == "__main__":
    sys.exit(main())
