"""The aarch64 wheels (scripts/build_wheels.py --arch aarch64, made by the main job from the aarch64 cross build).

One per CPython of the matrix in dist/wheels, each with its manylinux aarch64 tag and only aarch64 ELF files, the
extension named for its CPython (.cpython-3XX-aarch64-linux-gnu.so). The cp311 one is installed with pip (the
aarch64 numpy and flatbuffers wheels that scripts/setup.sh downloaded, nothing else) into a directory outside the
checkout and runs tests/python_checks.py under QEMU with Debian's arm64 CPython 3.11 (its interpreter, standard
library, libc and libstdc++ unpacked by scripts/setup.sh into the sysroot build/aarch64-python/root that QEMU runs
it in): every portable fixture, every quantized program, metadata and errors. The extension of every version is
compiled against a pyconfig.h derived from the x86_64 one (et_packaging.cross.AARCH64_PYCONFIG); the derivation is
checked here against Debian's own amd64 / arm64 pair of CPython 3.11.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from et_common import FIXTURES, REPO, missing_build

sys.path.insert(0, str(REPO / "scripts"))
from et_packaging import cross, model

WHEELS = Path(os.environ.get("ET_WHEEL_DIR", REPO / "dist" / "wheels"))
A64_PYTHON = REPO / "build" / "aarch64-python"
A64_ROOT = A64_PYTHON / "root"
DEBIAN_PYCONFIG = {
    "x86_64": Path("/usr/include/x86_64-linux-gnu/python3.11/pyconfig.h"),  # libpython3.11-dev
    "aarch64": A64_ROOT / "usr" / "include" / "aarch64-linux-gnu" / "python3.11" / "pyconfig.h",  # its :arm64
}


def qemu_python() -> list[str]:
    """Debian's arm64 CPython 3.11 under QEMU, in its own sysroot (scripts/setup.sh)."""
    interpreter = A64_ROOT / "usr" / "bin" / "python3.11"
    qemu = shutil.which("qemu-aarch64-static")
    if not interpreter.is_file() or not qemu or not (A64_PYTHON / "wheels").is_dir():
        missing_build(f"Debian's arm64 CPython 3.11 in {A64_PYTHON} and qemu-aarch64-static", "bash scripts/setup.sh")
    return [qemu, "-L", str(A64_ROOT), str(interpreter)]


def aarch64_wheel(version: str) -> Path:
    tag = model.cp_tag(version)
    found = sorted(WHEELS.glob(f"executorch-*-{tag}-{tag}-manylinux_*_aarch64.whl"))
    if not found:
        missing_build(f"the {tag} aarch64 wheel in {WHEELS}", "bash scripts/build_sdk.sh")
    assert len(found) == 1, found
    return found[0]


def test_pyconfig_derivation_matches_debian() -> None:
    for path in DEBIAN_PYCONFIG.values():
        if not path.is_file():
            missing_build(f"{path} (Debian's libpython3.11-dev, and :arm64 unpacked)", "bash scripts/setup.sh")
    x86, arm = (DEBIAN_PYCONFIG[a].read_text() for a in ("x86_64", "aarch64"))
    assert x86 != arm
    assert cross.cross_pyconfig(x86) == arm


@pytest.mark.parametrize("version", model.PYTHONS)
def test_wheel_is_aarch64(version: str, tmp_path: Path) -> None:
    wheel = aarch64_wheel(version)
    tag = model.cp_tag(version)
    with zipfile.ZipFile(wheel) as z:
        z.extractall(tmp_path)
        wheel_meta = next(n for n in z.namelist() if n.endswith(".dist-info/WHEEL"))
        tags = re.findall(r"^Tag: (.+)$", z.read(wheel_meta).decode(), re.M)
    plat = wheel.name[: -len(".whl")].split("-")[-1]
    assert tags == [f"{tag}-{tag}-{p}" for p in plat.split(".")]
    ext = sorted((tmp_path / "executorch").glob("_C.*.so"))
    assert [e.name for e in ext] == [f"_C.cpython-{tag[2:]}-aarch64-linux-gnu.so"]
    elves = [p for p in tmp_path.rglob("*.so*") if p.is_file()]
    assert len(elves) >= 7, elves
    for elf in elves:
        header = subprocess.run(["readelf", "-h", str(elf)], capture_output=True, text=True, check=True).stdout
        assert re.search(r"Machine:\s+AArch64", header), f"{elf.name}: {header}"


def pip_target(target: Path, platform_tag: str, *requirements: str) -> None:
    """pip of this interpreter, for aarch64 CPython 3.11: `requirements` (and their dependencies, from the wheels
    scripts/setup.sh downloaded; no index) installed into `target`."""
    # fmt: off
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-index",
                    "--find-links", str(A64_PYTHON / "wheels"), "--only-binary=:all:", "--implementation", "cp",
                    "--python-version", "3.11", "--platform", platform_tag, "--platform", "manylinux2014_aarch64",
                    "--target", str(target), *requirements], check=True)
    # fmt: on


def qemu_python_checks(pythonpath: list[Path], work: Path, *checks: str) -> str:
    """tests/python_checks.py CHECKS (on a copy of the fixtures) with the arm64 CPython under QEMU; then prints the
    machine and the path of the executorch._C it imports, which is returned."""
    python = qemu_python()
    work.mkdir()
    shutil.copy(REPO / "tests" / "python_checks.py", work)
    shutil.copytree(FIXTURES, work / "fixtures")
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PYTHONPATH": os.pathsep.join(map(str, pythonpath)),
        "PYTHONDONTWRITEBYTECODE": "1",
        "EXECUTORCH_LOG_LEVEL": "fatal",
    }
    proc = subprocess.run(
        [*python, "python_checks.py", "fixtures", "/nonexistent", *checks],
        capture_output=True, text=True, env=env, cwd=work, timeout=900,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert re.search(rf"^{len(checks)} passed, 0 failed$", proc.stdout, re.M), proc.stdout
    proc = subprocess.run(
        [*python, "-c", "import platform, executorch._C as c; print(platform.machine(), c.__file__)"],
        capture_output=True, text=True, env=env, cwd=work, check=True,
    )  # fmt: skip
    machine, ext = proc.stdout.split()
    assert machine == "aarch64"
    return ext


@pytest.mark.slow
def test_cp311_wheel_runs_under_qemu(tmp_path: Path) -> None:
    qemu_python()
    wheel = aarch64_wheel("3.11")
    site = tmp_path / "site-packages"
    pip_target(site, wheel.name[:-4].split("-")[-1].split(".")[0], str(wheel))
    assert (site / "numpy").is_dir() and (site / "executorch" / "lib" / "libexecutorch.so.0.1").is_file()
    checks = ("fixtures_match", "quantized_programs", "metadata", "errors_carry_codes")
    ext = qemu_python_checks([site], tmp_path / "work", *checks)
    # The interpreter that ran them imported the wheel's extension.
    assert ext == str(site / "executorch" / "_C.cpython-311-aarch64-linux-gnu.so")
