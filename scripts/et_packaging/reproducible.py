"""Reproducible artifacts: SOURCE_DATE_EPOCH, and the deterministic rewrite of a .conda file.

Every .conda file rattler-build makes is rewritten by normalize_conda: archive entries sorted, mtimes and
info/index.json's timestamp set to SOURCE_DATE_EPOCH (default: the commit time of HEAD), its `depends` sorted
(rattler-build lists run_exports in hash order), uid/gid 0. The payload bytes do not change, so info/paths.json stays
valid. Two builds of one commit give byte-identical .conda files (tests/test_reproducible.py). The wheels are made
reproducible by scikit-build-core (wheel.reproducible) and stay so through wheels.retag.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import tarfile
import time
import zipfile
from pathlib import Path

from et_packaging.model import REPO


def source_date_epoch() -> int:
    """SOURCE_DATE_EPOCH, else the commit time of HEAD, else 1980-01-01 (the earliest zip timestamp)."""
    if os.environ.get("SOURCE_DATE_EPOCH"):
        return int(os.environ["SOURCE_DATE_EPOCH"])
    proc = subprocess.run(["git", "-C", str(REPO), "log", "-1", "--format=%ct"], capture_output=True, text=True)
    return int(proc.stdout) if proc.returncode == 0 and proc.stdout.strip() else 315532800


def zstd() -> object:
    """The zstd module: the standard library's from Python 3.14, else the backports.zstd package."""
    try:
        from compression import zstd  # Python 3.14+
    except ImportError:
        from backports import zstd  # type: ignore[no-redef]
    return zstd


def normalize_tar(data: bytes, epoch: int) -> bytes:
    """A tar with the same members, sorted by name, mtime = epoch, owner root:root, and a fixed index timestamp."""
    out = io.BytesIO()
    with (
        tarfile.open(fileobj=io.BytesIO(data)) as src,
        tarfile.open(fileobj=out, mode="w", format=tarfile.GNU_FORMAT) as dst,
    ):
        for info in sorted(src.getmembers(), key=lambda m: m.name):
            content = src.extractfile(info).read() if info.isfile() else None  # type: ignore[union-attr]
            if info.name == "info/index.json" and content is not None:
                # rattler-build stamps the wall clock time, and lists run_exports-derived dependencies in hash
                # order (it differs between runs); the order of `depends` has no meaning.
                index = json.loads(content)
                index["timestamp"] = epoch * 1000
                for key in ("depends", "constrains"):
                    if key in index:
                        index[key] = sorted(index[key])
                content = json.dumps(index, indent=2).encode()
                info.size = len(content)
            info.mtime = epoch
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            info.pax_headers = {}
            dst.addfile(info, io.BytesIO(content) if content is not None else None)
    return out.getvalue()


def normalize_conda(path: Path, epoch: int) -> None:
    """Rewrites a .conda file deterministically (see the module docstring); the payload bytes do not change."""
    z_std = zstd()
    with zipfile.ZipFile(path) as z:
        members = [(i.filename, z.read(i)) for i in z.infolist()]
    stamp = time.gmtime(max(epoch, 315532800))[:6]
    tmp = path.with_suffix(".tmp")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_STORED) as z:
        for name, data in members:
            if name.endswith(".tar.zst"):
                tar = normalize_tar(z_std.decompress(data), epoch)  # type: ignore[attr-defined]
                data = z_std.compress(tar, level=19)  # type: ignore[attr-defined]
            info = zipfile.ZipInfo(name, date_time=stamp)
            info.external_attr = 0o644 << 16
            info.create_system = 3
            z.writestr(info, data)
    os.replace(tmp, path)
