"""Wheel staging and assembly: the executorch wheel's SDK components staged from the C++ tree, executorch._C built per
CPython against them (scikit-build-core, EXECUTORCH_PYTHON_ONLY), and every wheel retagged with the manylinux tag
auditwheel computes for it (docs/packaging.md, "Wheel matrix")."""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import os
import shutil
import subprocess
import zipfile
from pathlib import Path

from et_packaging.cross import cross_extension_defines
from et_packaging.interpreters import run
from et_packaging.model import ARCHES, REPO, cp_tag, load_manifest, wheel_components

WORK = REPO / "build" / "pywheel"  # WORK/<arch>: the staged SDK (sdk/), and a CMake tree and a log per CPython
# Libraries the executorch-cuda wheel links but must not vendor: from the NVIDIA wheels and the executorch wheel.
CUDA_WHEEL_EXTERNAL = ("libcudart.so.*", "libcublas.so.*", "libcublasLt.so.*", "libexecutorch*.so.*")


def target_problem(arch: str, host: str) -> str | None:
    """Why wheels for `arch` cannot be built on `host` (None: they can)."""
    if host not in ARCHES or arch not in ARCHES:
        return f"no wheel build for {arch} on {host} (ARCHES: {sorted(ARCHES)})"
    if arch != host and "toolchain" not in ARCHES[arch]:
        return f"no cross toolchain for {arch} (ARCHES)"
    return None


def stage_sdk(tree: Path, dest: Path) -> None:
    """The executorch wheel's SDK components (all but the extension), installed from `tree` into `dest`."""
    if not (tree / "CMakeCache.txt").is_file():
        raise SystemExit(f"error: {tree} is not a configured CMake tree: run scripts/build_sdk.sh")
    shutil.rmtree(dest, ignore_errors=True)
    for component in wheel_components(load_manifest()):
        if component != "python":
            run(["cmake", "--install", str(tree), "--prefix", str(dest), "--component", component],
                stdout=subprocess.DEVNULL)  # fmt: skip


def build_wheel(python: Path, version: str, arch: str, host: str, sdk: Path, dest: Path) -> Path:
    """The executorch wheel of CPython `version` (built by `python`) for `arch`, into `dest` (not yet retagged): only
    executorch._C is compiled (in WORK/<arch>/cp3XX, log beside it), the staged `sdk` is installed next to it."""
    work = WORK / arch
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
    # fmt: off
    cmd = [str(python), "-m", "pip", "wheel", str(REPO), "-w", str(dest), "--no-deps", "--no-build-isolation", "-v",
           "--disable-pip-version-check", "-C", "wheel.reproducible=true",
           "-C", f"build-dir={work / tag}",
           "-C", "cmake.define.EXECUTORCH_PYTHON_ONLY=ON",
           "-C", f"cmake.define.EXECUTORCH_SDK_PREFIX={sdk}", *cross]
    # fmt: on
    run(cmd, log=work / f"{tag}.log", cwd=REPO, env=env)
    (raw,) = dest.glob("executorch-*.whl")
    if f"-{tag}-{tag}-" not in raw.name:
        raise SystemExit(f"error: CPython {version} built {raw.name}")
    return raw


# ------------------------------------------------------------------------------------------------------- retag


def wheel_platform(wheel: Path, exclude: frozenset[str]) -> tuple[str, list[str]]:
    """auditwheel's platform tag for `wheel` (with its legacy aliases, dot-joined) and what repair would vendor."""
    from auditwheel.wheel_abi import analyze_wheel_abi  # auditwheel is needed only here (build_wheels.py retag)

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
