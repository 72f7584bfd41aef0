"""The CPython interpreters of the wheel matrix (model.PYTHONS) on this machine, and the build venvs made from them.

find_python: the interpreter of a version (.venv's for the host version, $EXECUTORCH_PYTHON_3_XX, pyenv's, python3.X
on PATH); build_python: one that can build a wheel without build isolation (build/pyenv/cp3XX, with .venv's
scikit-build-core and pybind11); run: a build command, its output in a log whose end is shown when it fails.
"""

from __future__ import annotations

import glob
import importlib.metadata
import os
import shutil
import subprocess
import sys
from pathlib import Path

from et_packaging.model import REPO, cp_tag, host_python

# Build-time Python packages of each CPython's build venv: the versions in .venv (scripts/setup.sh).
BUILD_REQUIREMENTS = ("scikit-build-core", "pybind11")


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
