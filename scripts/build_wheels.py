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
"""

from __future__ import annotations

import argparse
import base64
import csv
import glob
import hashlib
import importlib.metadata
import io
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import build_conda

REPO = build_conda.REPO
# The CPython matrix (cibuildwheel's `build` in pyproject.toml lists the same versions; tests/test_cibuildwheel.py).
PYTHONS = ("3.10", "3.11", "3.12", "3.13")
# Architectures the builder makes wheels for (build_conda.ARCHES: C++ tree, triple, toolchain of each).
ARCHES = build_conda.ARCHES
# pyconfig.h is the one header of a CPython version that depends on the architecture. Between the x86_64 and the
# aarch64 Linux build of one version and configuration, exactly these defines differ (Debian's libpython3.11-dev and
# libpython3.13-dev, amd64 against arm64; tests/test_aarch64_wheels.py compares the 3.11 pair on every run): x86 inline
# assembly, wchar_t's signedness (unsigned on aarch64) and PEP 11's support tier. None: undefined.
AARCH64_PYCONFIG: dict[str, str | None] = {
    "HAVE_GCC_ASM_FOR_X64": None,
    "HAVE_GCC_ASM_FOR_X87": None,
    "HAVE_USABLE_WCHAR_T": "1",
    "PY_SUPPORT_TIER": "2",
}
# The sizes and alignments pyconfig.h records, with the C type each describes: cross_python_include checks them all
# against the cross compiler (both architectures are LP64, so they agree; the check proves it for each header).
PYCONFIG_SIZES = {
    "SIZEOF_DOUBLE": "double", "SIZEOF_FLOAT": "float", "SIZEOF_FPOS_T": "fpos_t", "SIZEOF_INT": "int",
    "SIZEOF_LONG": "long", "SIZEOF_LONG_DOUBLE": "long double", "SIZEOF_LONG_LONG": "long long",
    "SIZEOF_OFF_T": "off_t", "SIZEOF_PID_T": "pid_t", "SIZEOF_PTHREAD_KEY_T": "pthread_key_t",
    "SIZEOF_PTHREAD_T": "pthread_t", "SIZEOF_SHORT": "short", "SIZEOF_SIZE_T": "size_t", "SIZEOF_TIME_T": "time_t",
    "SIZEOF_UINTPTR_T": "uintptr_t", "SIZEOF_VOID_P": "void *", "SIZEOF_WCHAR_T": "wchar_t", "SIZEOF__BOOL": "_Bool",
    "ALIGNOF_LONG": "_Alignof(long)", "ALIGNOF_SIZE_T": "_Alignof(size_t)",
    "ALIGNOF_MAX_ALIGN_T": "_Alignof(max_align_t)",
}  # fmt: skip
# Libraries the executorch-cuda wheel links but must not vendor: from the NVIDIA wheels and the executorch wheel.
CUDA_WHEEL_EXTERNAL = ("libcudart.so.*", "libcublas.so.*", "libcublasLt.so.*", "libexecutorch*.so.*")
# Build-time Python packages of each CPython's build venv: the versions in .venv (scripts/setup.sh).
BUILD_REQUIREMENTS = ("scikit-build-core", "pybind11")


def host_python() -> str:
    return f"{sys.version_info.major}.{sys.version_info.minor}"


def cp_tag(version: str) -> str:
    return "cp" + version.replace(".", "")


def find_python(version: str) -> Path | None:
    """The interpreter for CPython `version`: .venv's for the host version, $EXECUTORCH_PYTHON_3_XX, pyenv's
    newest 3.X.* (~/.pyenv/versions), else python3.X on PATH."""
    if version == host_python():
        return Path(sys.executable)
    env = os.environ.get("EXECUTORCH_PYTHON_" + version.replace(".", "_"))
    if env:
        return Path(env) if Path(env).is_file() else None
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    found = sorted(
        glob.glob(str(pyenv / f"{version}.*" / "bin" / "python3")),
        key=lambda p: [int(x) if x.isdigit() else 0 for x in Path(p).parent.parent.name.split(".")],
    )
    if found:
        return Path(found[-1])
    which = shutil.which(f"python{version}")
    return Path(which) if which else None


def run(cmd: list[str], log: Path | None = None, **kw: object) -> None:
    if log is None:
        subprocess.run(cmd, check=True, **kw)  # type: ignore[call-overload]
        return
    with log.open("w") as f:
        proc = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, **kw)  # type: ignore[call-overload]
    if proc.returncode:
        sys.stderr.write("".join(log.read_text(errors="replace").splitlines(keepends=True)[-40:]))
        raise SystemExit(f"error: {' '.join(map(str, cmd[:4]))} ... failed (end of {log} above)")


def build_python(version: str) -> Path:
    """An interpreter that can build the wheel for `version` without build isolation: .venv's for the host
    version, else build/pyenv/cp3XX (created once, with .venv's scikit-build-core and pybind11 from PyPI)."""
    if version == host_python():
        return Path(sys.executable)
    base = find_python(version)
    if base is None:
        raise SystemExit(f"error: no CPython {version} (pyenv, python{version} on PATH, or $EXECUTORCH_PYTHON_*)")
    # pip 23.1+ for -C / repeated --config-settings; pyenv's CPythons may bring an older one.
    pins = ["pip>=24", *(f"{name}=={importlib.metadata.version(name)}" for name in BUILD_REQUIREMENTS)]
    venv = REPO / "build" / "pyenv" / cp_tag(version)
    stamp = venv / "executorch-build-requirements.txt"
    if not stamp.is_file() or stamp.read_text().split() != pins:
        print(f"creating {venv.relative_to(REPO)} ({base}; {' '.join(pins)})", flush=True)
        shutil.rmtree(venv, ignore_errors=True)
        run([str(base), "-m", "venv", str(venv)])
        pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
        run([*pip, *pins[:1]])
        run([*pip, *pins[1:]])
        stamp.write_text("\n".join(pins) + "\n")
    return venv / "bin" / "python"


def cross_pyconfig(text: str, changes: dict[str, str | None] = AARCH64_PYCONFIG) -> str:
    """`text` (an x86_64 pyconfig.h) with each define of `changes` set (a value) or undefined (None)."""
    for name, value in changes.items():
        line = re.compile(rf"^(#define {name}( .*)?|/\* #undef {name} \*/)$", re.M)
        new = f"#define {name} {value}" if value is not None else f"/* #undef {name} */"
        text, n = line.subn(new, text)
        if n > 1:
            raise SystemExit(f"error: pyconfig.h defines {name} {n} times")
    return text


def cross_python_include(version: str, arch: str) -> Path:
    """build/pyheaders/<arch>/cp3XX/python3.X: CPython `version`'s headers (from its interpreter here) with an `arch`
    pyconfig.h (AARCH64_PYCONFIG), checked against the cross compiler (PYCONFIG_SIZES)."""
    python = find_python(version)
    if python is None:
        raise SystemExit(f"error: no CPython {version} (pyenv, python{version} on PATH, or $EXECUTORCH_PYTHON_*)")
    src = Path(subprocess.check_output([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['include'])"],
                                       text=True).strip())  # fmt: skip
    if not (src / "pyconfig.h").is_file() or not (src / "Python.h").is_file():
        raise SystemExit(f"error: CPython {version} ({python}) has no headers in {src} (install its -dev package)")
    dest = REPO / "build" / "pyheaders" / arch / cp_tag(version) / src.name
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(src, dest)
    config = cross_pyconfig((dest / "pyconfig.h").read_text())
    (dest / "pyconfig.h").write_text(config)
    triple = ARCHES[arch]["triple"]
    checks = "".join(f"_Static_assert({name} == sizeof({ctype}), \"{name}\");\n" if name.startswith("SIZEOF_")
                     else f"_Static_assert({name} == {ctype}, \"{name}\");\n"
                     for name, ctype in PYCONFIG_SIZES.items()
                     if re.search(rf"^#define {name} ", config, re.M))  # fmt: skip
    probe = "#include <Python.h>\n#include <stddef.h>\n#include <stdio.h>\n#include <pthread.h>\n" + checks
    proc = subprocess.run([f"{triple}-gcc", "-fsyntax-only", "-std=gnu11", f"-I{dest}", "-x", "c", "-"], input=probe,
                          text=True, capture_output=True)  # fmt: skip
    if proc.returncode:
        raise SystemExit(f"error: {dest}/pyconfig.h does not fit {triple}-gcc:\n{proc.stderr[-3000:]}")
    return dest


def cross_extension_defines(version: str, arch: str) -> dict[str, str]:
    """The CMake definitions that cross-compile executorch._C for CPython `version` on `arch` (the aarch64 wheels,
    and the linux-aarch64 executorch-python conda package): the toolchain file, the headers of
    cross_python_include, and pybind11's extension suffix (it cannot ask a target interpreter)."""
    return {
        "CMAKE_TOOLCHAIN_FILE": str(REPO / ARCHES[arch]["toolchain"]),
        "Python_INCLUDE_DIR": str(cross_python_include(version, arch)),
        "PYTHON_MODULE_EXTENSION": f".cpython-{version.replace('.', '')}-{ARCHES[arch]['triple']}.so",
        "PYTHON_IS_DEBUG": "FALSE",
        "PYTHON_MODULE_DEBUG_POSTFIX": "",
    }


def stage_sdk(tree: Path, dest: Path) -> None:
    """The executorch wheel's SDK components (all but the extension), installed from `tree` into `dest`."""
    if not (tree / "CMakeCache.txt").is_file():
        raise SystemExit(f"error: {tree} is not a configured CMake tree: run scripts/build_sdk.sh")
    shutil.rmtree(dest, ignore_errors=True)
    for component in build_conda.wheel_components(build_conda.load_manifest()):
        if component != "python":
            run(["cmake", "--install", str(tree), "--prefix", str(dest), "--component", component],
                stdout=subprocess.DEVNULL)  # fmt: skip


# ------------------------------------------------------------------------------------------------------- retag
def wheel_platform(wheel: Path, exclude: frozenset[str]) -> tuple[str, list[str]]:
    """auditwheel's platform tag for `wheel` (with its legacy aliases, dot-joined) and what repair would vendor."""
    from auditwheel.wheel_abi import analyze_wheel_abi

    info = analyze_wheel_abi(None, None, wheel, exclude, disable_isa_ext_check=False, allow_graft=True)
    policy = info.overall_policy
    graft = sorted(info.external_refs[policy.name].libs)
    return ".".join([policy.name, *sorted(getattr(policy, "aliases", []) or [])]), graft


def record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def retag(wheel: Path, out: Path, exclude: frozenset[str] = frozenset()) -> Path:
    """Writes `wheel` with its real manylinux platform tag into `out`; returns the new file."""
    plat, graft = wheel_platform(wheel, exclude)
    if not plat.startswith("manylinux_"):
        raise SystemExit(f"error: {wheel.name}: auditwheel gives no manylinux tag ({plat})")
    if graft:
        raise SystemExit(f"error: {wheel.name}: auditwheel repair would vendor {graft}; exclude or fix them")
    name, version, py, abi, _ = wheel.name[: -len(".whl")].split("-")
    with zipfile.ZipFile(wheel) as src:
        infos = src.infolist()
        data = {i.filename: src.read(i) for i in infos}
    (wheel_meta,) = [n for n in data if n.endswith(".dist-info/WHEEL")]
    (record,) = [n for n in data if n.endswith(".dist-info/RECORD")]
    lines = [line for line in data[wheel_meta].decode().splitlines() if not line.startswith("Tag: ")]
    tags = [f"{p}-{a}-{pl}" for p in py.split(".") for a in abi.split(".") for pl in plat.split(".")]
    data[wheel_meta] = ("\n".join(lines).rstrip("\n") + "\n" + "".join(f"Tag: {t}\n" for t in tags) + "\n").encode()
    rows = list(csv.reader(io.StringIO(data[record].decode())))
    for row in rows:
        if row and row[0] == wheel_meta:
            row[1:] = [record_hash(data[wheel_meta]), str(len(data[wheel_meta]))]
    text = io.StringIO()
    csv.writer(text, lineterminator="\n").writerows(rows)
    data[record] = text.getvalue().encode()
    out.mkdir(parents=True, exist_ok=True)
    target = out / f"{name}-{version}-{py}-{abi}-{plat}.whl"
    tmp = target.with_suffix(".tmp")
    with zipfile.ZipFile(tmp, "w") as dst:
        for old in infos:
            info = zipfile.ZipInfo(old.filename, old.date_time)
            info.external_attr = old.external_attr
            info.create_system = old.create_system
            info.compress_type = old.compress_type
            dst.writestr(info, data[old.filename])
    tmp.replace(target)
    return target


# ------------------------------------------------------------------------------------------------------- build
def build(args: argparse.Namespace) -> int:
    host = platform.machine()
    arch = args.arch or host
    if host not in ARCHES or arch not in ARCHES:
        raise SystemExit(f"error: no wheel build for {arch} on {host} (ARCHES: {sorted(ARCHES)})")
    if arch != host and "toolchain" not in ARCHES[arch]:
        raise SystemExit(f"error: no cross toolchain for {arch} (ARCHES)")
    tree = (REPO / (args.build_dir or ARCHES[arch]["build_dir"])).resolve()
    versions = [host_python()] if args.host_only else (args.python or list(PYTHONS))
    work = REPO / "build" / "pywheel" / arch
    sdk = work / "sdk"
    stage_sdk(tree, sdk)
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    for version in versions:
        python = build_python(version)
        tag = cp_tag(version)
        cross: list[str] = []
        env = dict(os.environ)
        if arch != host:
            # The build venv's interpreter runs scikit-build-core and pybind11 on the host; the extension is compiled
            # by the toolchain file against the target's headers, named with the target's suffix, and the wheel is
            # tagged for the target (_PYTHON_HOST_PLATFORM, then retag).
            defines = cross_extension_defines(version, arch)
            cross = [arg for k, v in defines.items() for arg in ("-C", f"cmake.define.{k}={v}")]
            env.update(_PYTHON_HOST_PLATFORM=f"linux-{arch}", SETUPTOOLS_EXT_SUFFIX=defines["PYTHON_MODULE_EXTENSION"])
        with tempfile.TemporaryDirectory(dir=REPO / "build") as tmp:
            # fmt: off
            cmd = [str(python), "-m", "pip", "wheel", str(REPO), "-w", tmp, "--no-deps", "--no-build-isolation", "-v",
                   "--disable-pip-version-check", "-C", "wheel.reproducible=true",
                   "-C", f"build-dir={work / tag}",
                   "-C", "cmake.define.EXECUTORCH_PYTHON_ONLY=ON",
                   "-C", f"cmake.define.EXECUTORCH_SDK_PREFIX={sdk}", *cross]
            # fmt: on
            run(cmd, log=work / f"{tag}.log", cwd=REPO, env=env)
            (raw,) = Path(tmp).glob("executorch-*.whl")
            if f"-{tag}-{tag}-" not in raw.name:
                raise SystemExit(f"error: CPython {version} built {raw.name}")
            print(f"{retag(raw, out).name}  (CPython {version}, {python})", flush=True)
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
        stage_sdk(Path(args.build_dir).resolve(), args.out.resolve())
        return 0
    if args.cmd == "retag":
        exclude = frozenset(args.exclude) | (frozenset(CUDA_WHEEL_EXTERNAL) if args.cuda else frozenset())
        for wheel in args.wheels:
            print(retag(wheel, args.out, exclude).name)
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
