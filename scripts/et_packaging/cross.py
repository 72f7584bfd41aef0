"""Cross-compiling executorch._C for another architecture (the aarch64 wheels, and the linux-aarch64
executorch-python conda package): the target's pyconfig.h derived from the host CPython's, and the CMake definitions
that compile the extension with the target's toolchain file (model.ARCHES)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from et_packaging.interpreters import find_python
from et_packaging.model import ARCHES, REPO, cp_tag

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
