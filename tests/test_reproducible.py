"""Two builds of one commit give byte-identical wheels and .conda files.

HEAD is cloned twice, into two directories of different names and lengths, and each clone builds the wheel of this
CPython (as scripts/build_sdk.sh does: the C++ tree build/release, then scripts/build_wheels.py, which stages its SDK
components and runs scikit-build-core with wheel.reproducible and EXECUTORCH_PYTHON_ONLY, no build isolation, and
retags the wheel with its manylinux tag) and the conda packages
(scripts/build_conda.py) from empty build directories, with SOURCE_DATE_EPOCH = the commit time of HEAD. Identical
bytes from two different source paths also prove that no build path reaches the artifacts. Slow (two full builds
of each kind, one after the other); the timings are printed. Only committed changes are tested (HEAD when the
module is imported).
"""

from __future__ import annotations

import io
import json
import os
import platform
import subprocess
import sys
import tarfile
import time
import zipfile
from pathlib import Path

import pytest

from et_common import REPO, host_wheel_pattern

sys.path.insert(0, str(REPO / "scripts"))
from et_packaging import model, reproducible


def git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, text=True, check=True).stdout.strip()


COMMIT = git("rev-parse", "HEAD")  # one commit for both builds: HEAD may move while they run
EPOCH = int(git("show", "-s", "--format=%ct", COMMIT))
ZIP_TIME = (*time.gmtime(EPOCH)[:5], time.gmtime(EPOCH)[5] // 2 * 2)  # zip (DOS) times have 2 s resolution


def run(cmd: list[str], cwd: Path, env: dict[str, str]) -> None:
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, f"{cmd} failed:\n{(proc.stdout + proc.stderr)[-4000:]}"


def host_condas(channel: Path) -> dict[str, Path]:
    """The packages of this machine's platform (the clone builds only those; the builder adds linux-aarch64)."""
    subdir = model.SUBDIRS[platform.machine()]
    return {p.name: p for sub in (subdir, "noarch") for p in (channel / sub).glob("*.conda")}


def builder_output() -> dict | None:
    """The wheel and channel scripts/build_sdk.sh made from this checkout, when they stand for HEAD.

    scripts/test.sh runs the builder first, so in CI the checkout's own dist/ is the first of the two builds
    (from a differently named path than the clone below) and only one more build is needed. Set
    ET_REPRO_TWO_CLONES=1 to build twice from clones instead.
    """
    if os.environ.get("ET_REPRO_TWO_CLONES") == "1" or git("status", "--porcelain", "--untracked-files=no"):
        return None
    wheels = sorted((REPO / "dist" / "wheels").glob(host_wheel_pattern()))
    condas = host_condas(REPO / "dist" / "conda-channel")
    if len(wheels) != 1 or not condas:
        return None
    try:  # the builder records the commit it built; an older dist/ does not stand for HEAD
        report = json.loads((REPO / "dist" / "report.json").read_text())
    except (OSError, ValueError):
        return None
    if report.get("commit") != COMMIT or not report.get("ok"):
        return None
    return {"src": REPO, "wheel": wheels[0], "conda": condas, "wheel_s": 0.0, "conda_s": 0.0}


@pytest.fixture(scope="module")
def builds(tmp_path_factory: pytest.TempPathFactory) -> list[dict]:
    base = tmp_path_factory.mktemp("repro")
    env = dict(os.environ, SOURCE_DATE_EPOCH=str(EPOCH))
    env.pop("MAKEFLAGS", None)
    first = builder_output()
    out = [first] if first is not None else []
    for name in ("one", "second-checkout")[len(out) :]:
        src = base / name / "executorch"
        dist = base / name / "dist"
        run(["git", "clone", "-q", "--no-hardlinks", "--no-checkout", str(REPO), str(src)], base, env)
        run(["git", "checkout", "-q", "--detach", COMMIT], src, env)
        t0 = time.monotonic()
        run(
            ["cmake", "-S", ".", "-B", "build/release", "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
             "-DEXECUTORCH_BUILD_TESTS=OFF"],
            src, env,
        )  # fmt: skip
        run(["cmake", "--build", "build/release"], src, env)
        run(
            [sys.executable, "scripts/build_wheels.py", "build", "--host-only", "--out", str(dist / "wheels")], src, env
        )
        t1 = time.monotonic()
        run([sys.executable, "scripts/build_conda.py", "--channel", str(dist / "channel")], src, env)
        t2 = time.monotonic()
        (wheel,) = (dist / "wheels").glob("*.whl")
        condas = host_condas(dist / "channel")
        out.append({"src": src, "wheel": wheel, "conda": condas, "wheel_s": t1 - t0, "conda_s": t2 - t1})
    return out


def zip_members(path: Path) -> list[tuple]:
    with zipfile.ZipFile(path) as z:
        return [(i.filename, i.date_time, oct(i.external_attr >> 16), i.CRC, i.file_size) for i in z.infolist()]


def tar_members(data: bytes) -> list[tuple]:
    with tarfile.open(fileobj=io.BytesIO(reproducible.zstd().decompress(data))) as t:  # type: ignore[attr-defined]
        out = []
        for m in t.getmembers():
            content = t.extractfile(m).read() if m.isfile() else m.linkname.encode()  # type: ignore[union-attr]
            out.append((m.name, m.mtime, m.uid, m.gid, m.uname, m.gname, oct(m.mode), hash(content)))
        return out


def conda_members(path: Path) -> dict[str, list[tuple]]:
    with zipfile.ZipFile(path) as z:
        out = {"(outer zip)": zip_members(path)}
        for i in z.infolist():
            if i.filename.endswith(".tar.zst"):
                out[i.filename] = tar_members(z.read(i))
        return out


def differences(a: list[tuple], b: list[tuple]) -> list[str]:
    if [x[0] for x in a] != [x[0] for x in b]:
        return [f"member names or order differ: {[x[0] for x in a]} vs {[x[0] for x in b]}"]
    return [f"{x[0]}: {x[1:]} vs {y[1:]}" for x, y in zip(a, b, strict=True) if x != y]


def test_wheels_are_byte_identical(builds: list[dict]) -> None:
    a, b = builds[0]["wheel"], builds[1]["wheel"]
    assert a.name == b.name
    if a.read_bytes() != b.read_bytes():
        pytest.fail("wheels differ:\n" + "\n".join(differences(zip_members(a), zip_members(b))))


def test_conda_packages_are_byte_identical(builds: list[dict]) -> None:
    a, b = builds[0]["conda"], builds[1]["conda"]
    manifest = model.load_manifest()
    required = {c["conda"] for c in model.built_components(manifest).values() if not c.get("optional")}
    required.add(manifest["package"]["conda_meta"])  # optional outputs (cuda) exist where their toolchain does
    assert set(a) == set(b) and required <= {name.rsplit("-", 2)[0] for name in a}, sorted(a)
    problems = []
    for name in sorted(a):
        if a[name].read_bytes() != b[name].read_bytes():
            ma, mb = conda_members(a[name]), conda_members(b[name])
            diff = [f"{k}: {d}" for k in ma for d in differences(ma[k], mb.get(k, []))]
            problems.append(f"{name} differs: {diff or 'same members, different compressed bytes'}")
    assert not problems, "\n".join(problems)


def test_wheel_has_fixed_timestamps_and_sorted_entries(builds: list[dict]) -> None:
    members = zip_members(builds[0]["wheel"])
    assert {m[1] for m in members} == {ZIP_TIME}
    names = [m[0] for m in members if ".dist-info/" not in m[0]]
    assert names == sorted(names)  # the dist-info files come last, RECORD at the very end
    assert members[-1][0].endswith(".dist-info/RECORD")
    assert {m[2] for m in members} <= {"0o100644", "0o100755"}


def test_conda_has_fixed_timestamps_owner_and_order(builds: list[dict]) -> None:
    for name, path in builds[0]["conda"].items():
        members = conda_members(path)
        assert {m[1] for m in members.pop("(outer zip)")} == {ZIP_TIME}, name
        for tar, entries in members.items():
            assert [e[0] for e in entries] == sorted(e[0] for e in entries), (name, tar)
            assert {(e[1], e[2], e[3], e[4], e[5]) for e in entries} <= {(EPOCH, 0, 0, "", "")}, (name, tar)
            assert not [e[0] for e in entries if e[0].startswith("info/recipe")], (name, tar)  # it records paths
        with zipfile.ZipFile(path) as z:
            (info,) = [n for n in z.namelist() if n.startswith("info-")]
            data = reproducible.zstd().decompress(z.read(info))  # type: ignore[attr-defined]
        with tarfile.open(fileobj=io.BytesIO(data)) as t:
            index = json.loads(t.extractfile("info/index.json").read())  # type: ignore[union-attr]
        assert index["timestamp"] == EPOCH * 1000, name
        assert index.get("depends", []) == sorted(index.get("depends", [])), name


def test_print_timings(builds: list[dict], capsys: pytest.CaptureFixture[str]) -> None:
    with capsys.disabled():
        for i, b in enumerate(builds):
            print(f"\nbuild {i + 1} ({b['src']}): wheel {b['wheel_s']:.0f} s, conda {b['conda_s']:.0f} s", end="")
        print()
