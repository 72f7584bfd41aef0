#!/usr/bin/env python3
"""The wheel matrix: one executorch wheel per CPython from one C++ build, each tagged with its real manylinux tag.

Usage:
  build_wheels.py build [--arch x86_64|aarch64] [--build-dir DIR] [--out dist/wheels] [--python 3.X]... [--host-only]
  build_wheels.py stage [--build-dir build/release] --out DIR
  build_wheels.py retag WHEEL... --out DIR [--exclude SONAME_GLOB]... [--cuda]
  build_wheels.py matrix [--found]  print the CPython matrix and the interpreter found for each version (--found:
                                    only the versions found, on one line; a note on stderr for each missing one)

`build` (docs/packaging.md, "Wheel matrix"):
  1. stages the wheel's SDK components from the C++ tree that scripts/build_sdk.sh built (`cmake --install
     --component <c>` for each built component the executorch wheel ships, no devlinks) into
     build/pywheel/<arch>/sdk;
  2. for each CPython of the matrix, runs scikit-build-core with EXECUTORCH_PYTHON_ONLY=ON and EXECUTORCH_SDK_PREFIX
     set to that staged prefix: only executorch._C (and the generated schema package) is compiled, in
     build/pywheel/<arch>/cp3XX, and the staged files are installed next to it; the host CPython builds from .venv,
     the others from build venvs build/pyenv/cp3XX holding the same scikit-build-core and pybind11 as .venv;
  3. retags each wheel (below) into --out.
  --arch aarch64 (on an x86_64 host): the same from the cross build (scripts/build_aarch64.sh, build/aarch64), with
  executorch._C cross-compiled by the toolchain file for each CPython against its headers with an aarch64
  pyconfig.h (cross_python_include: the host CPython's headers, where only pyconfig.h depends on the architecture).
`stage`: step 1 alone, into DIR (cibuildwheel's before-all, scripts/ci/cibw_before_all.sh).
`retag`: the platform tag auditwheel computes from the wheel's ELF files (symbol versions of glibc, libstdc++,
libgcc), written into the file name, the WHEEL file's Tag lines and RECORD; the zip is otherwise rewritten entry by
entry (same order, dates and permissions), so a reproducible wheel stays reproducible. It fails when the tag is not
a manylinux one or when `auditwheel repair` would have to vendor a library (libraries listed with --exclude come
from other wheels, e.g. the executorch-cuda wheel's cudart/cuBLAS and the executorch wheel's libraries).

This script is a driver: the model (components, architectures, the CPython matrix) and every step live in the
et_packaging package (model, interpreters, cross, wheels; docs/packaging.md, "Layout of the packaging code").
"""

from __future__ import annotations

import argparse
import platform
import sys
import tempfile
from pathlib import Path

from et_packaging import wheels
from et_packaging.interpreters import build_python, find_python
from et_packaging.model import ARCHES, PYTHONS, REPO, cp_tag, host_python


def build(args: argparse.Namespace) -> int:
    host = platform.machine()
    arch = args.arch or host
    problem = wheels.target_problem(arch, host)
    if problem:
        raise SystemExit(f"error: {problem}")
    tree = (REPO / (args.build_dir or ARCHES[arch]["build_dir"])).resolve()
    versions = [host_python()] if args.host_only else (args.python or list(PYTHONS))
    sdk = wheels.WORK / arch / "sdk"
    wheels.stage_sdk(tree, sdk)
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    for version in versions:
        python = build_python(version)
        with tempfile.TemporaryDirectory(dir=REPO / "build") as tmp:
            raw = wheels.build_wheel(python, version, arch, host, sdk, Path(tmp))
            print(f"{wheels.retag(raw, out).name}  (CPython {version}, {python})", flush=True)
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="the executorch wheel for each CPython of the matrix")
    b.add_argument("--arch", choices=sorted(ARCHES), help="target architecture (default: this machine's)")
    b.add_argument("--build-dir", help="the C++ CMake tree (default: ARCHES[arch]: build/release, build/aarch64)")
    b.add_argument("--out", type=Path, default=REPO / "dist" / "wheels")
    b.add_argument("--python", action="append", choices=PYTHONS, help="only this CPython (repeatable)")
    b.add_argument("--host-only", action="store_true", help=f"only the host CPython ({host_python()})")
    r = sub.add_parser("retag", help="set the real manylinux tag of built wheels")
    r.add_argument("wheels", nargs="+", type=Path)
    r.add_argument("--out", type=Path, required=True)
    r.add_argument("--exclude", action="append", default=[], help="a library another wheel provides (glob)")
    r.add_argument("--cuda", action="store_true", help="exclude what the executorch-cuda wheel takes from others")
    st = sub.add_parser("stage", help="install the wheel's SDK components from the C++ tree into --out")
    st.add_argument("--build-dir", default="build/release")
    st.add_argument("--out", type=Path, required=True)
    m = sub.add_parser("matrix", help="print each CPython of the matrix and its interpreter")
    m.add_argument("--found", action="store_true", help="only the versions with an interpreter, space-separated")
    args = ap.parse_args()
    if args.cmd == "build":
        return build(args)
    if args.cmd == "stage":
        wheels.stage_sdk(Path(args.build_dir).resolve(), args.out.resolve())
        return 0
    if args.cmd == "retag":
        exclude = frozenset(args.exclude) | (frozenset(wheels.CUDA_WHEEL_EXTERNAL) if args.cuda else frozenset())
        for wheel in args.wheels:
            print(wheels.retag(wheel, args.out, exclude).name)
        return 0
    if args.found:
        found = [v for v in PYTHONS if find_python(v)]
        for v in sorted(set(PYTHONS) - set(found)):
            print(f"note: no CPython {v} (pyenv, python{v} on PATH or $EXECUTORCH_PYTHON_{v.replace('.', '_')}): "
                  f"no {cp_tag(v)} wheel", file=sys.stderr)  # fmt: skip
        print(" ".join(found))
        return 0
    for version in PYTHONS:
        print(f"{cp_tag(version)}  {find_python(version) or '-'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
