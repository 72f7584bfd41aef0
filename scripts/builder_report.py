#!/usr/bin/env python3
"""Checks every artifact scripts/build_sdk.sh made, prints one summary table and writes dist/report.json.

Usage: builder_report.py [--prefix DIR] [--wheel-dir DIR] [--channel DIR] [--report FILE] [--forbid PATH]...
                         [--timing STEP=SECONDS]... [--python 3.X]... [--arch ARCH]... [--cross-prefix ARCH=DIR]...
Artifacts and their checks:
  SDK prefix   exact RUNPATH per file, DT_RUNPATH only, SONAMEs, no build-machine path, one owner per registry
               (and each --cross-prefix: the aarch64 SDK prefix)
  wheels       one executorch wheel per --python (default: this interpreter's) and --arch (default: this machine's),
               each: the same checks on
               site-packages/executorch, every file against RECORD, and the `auditwheel show` platform tag, which
               must be a manylinux tag and the one in the file name and the WHEEL file ("tag")
  cuda wheel   (executorch_cuda-*.whl, with --cuda) the same but the registry owners (its library defines none:
               the channel's check covers it), and the manylinux tag auditwheel gives it with cudart, cuBLAS and
               the executorch wheel's libraries excluded (nothing would be vendored), equal to its file name's
  each .conda  the same on its payload (conda.read_package: info/paths.json hashes, no prefix rewriting),
               and one owner per registry across all packages of one platform (linux-64, linux-aarch64)
  device code  every libexecutorch_cuda (SDK, cuda wheel, executorch-cuda package): SASS/PTX of its fatbinary
               against components.toml's cuda_architectures (scripts/check_cuda_device_code.py, cross-checked
               with cuobjdump), and the installed share/executorch/cuda-architectures.json equal to it
Exits 1 when a check fails.
"""

from __future__ import annotations

import argparse
import base64
import csv
import hashlib
import io
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import check_artifacts
from et_packaging import conda, wheels
from et_packaging.model import REPO, claim_text, cp_tag, host_python, load_manifest
from et_packaging.reproducible import source_date_epoch

MANIFEST = load_manifest()
CUDA = next((c for c in MANIFEST["components"].values() if "cuda_architectures" in c), None)
CLAIM = CUDA["cuda_architectures"] if CUDA else None
DEVICE_CODE: list[str] = []  # summary lines of every device-code check, for the report's device-code row


def device_code(where: str, root: Path, report: check_artifacts.Report) -> None:
    DEVICE_CODE.extend(f"{where}: {line}" for line in check_artifacts.check_device_code(root, CLAIM, report))


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def artifact(kind: str, path: Path, report: check_artifacts.Report, **extra: object) -> dict:
    return {
        "artifact": path.name if kind != "sdk" else str(path.relative_to(REPO) if path.is_relative_to(REPO) else path),
        "kind": kind,
        "path": str(path),
        "size": sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())
        if path.is_dir()
        else path.stat().st_size,
        "sha256": sha256(path) if path.is_file() else None,
        "checks": report.checks,
        "ok": report.ok,
        **extra,
    }


def check_sdk(prefix: Path, forbidden: list[str]) -> dict:
    report = check_artifacts.check_prefix(prefix, forbidden)  # soname, runpath, exact-runpath, paths, owners
    device_code("SDK", prefix, report)
    return artifact("sdk", prefix, report, files=len(report.sizes))


def check_record(root: Path, names: list[str], record: str, report: check_artifacts.Report) -> None:
    rows = {r[0]: r for r in csv.reader(io.StringIO(record)) if r}
    rows = {n: r for n, r in rows.items() if not n.endswith(".dist-info/RECORD")}  # RECORD lists itself, unhashed
    for name in names:
        row = rows.pop(name, None)
        if row is None:
            report.add("record", f"{name}: not in RECORD")
        elif row[1]:
            algo, _, digest = row[1].partition("=")
            data = (root / name).read_bytes()
            want = base64.urlsafe_b64encode(hashlib.new(algo, data).digest()).rstrip(b"=").decode()
            if digest != want or int(row[2]) != len(data):
                report.add("record", f"{name}: hash or size differs from RECORD")
    report.add("record", f"RECORD lists missing files {sorted(rows)}" if rows else None)


def cuda_wheel_tag(wheel: Path) -> tuple[str | None, list[str]]:
    """auditwheel's platform tag for the cuda wheel with its external CUDA/executorch libraries excluded, and the
    libraries `auditwheel repair` would still vendor (must be none)."""
    return wheels.wheel_platform(wheel, frozenset(wheels.CUDA_WHEEL_EXTERNAL))


def wheel_tags(wheel: Path, names: list[str], report: check_artifacts.Report) -> tuple[str, str]:
    """The compatibility tag of the file name (`py-abi-platform`) and of the WHEEL file, which must agree."""
    name_tag = "-".join(wheel.name[: -len(".whl")].split("-")[2:])
    (meta,) = [n for n in names if n.endswith(".dist-info/WHEEL")]
    with zipfile.ZipFile(wheel) as z:
        tags = [line[5:].strip() for line in z.read(meta).decode().splitlines() if line.startswith("Tag: ")]
    expanded = sorted(
        f"{p}-{a}-{pl}" for p, a, pl in [name_tag.split("-")] for p in p.split(".") for a in a.split(".")
        for pl in pl.split(".")
    )  # fmt: skip
    report.add("tag", None if sorted(tags) == expanded else f"WHEEL Tag lines {tags} differ from the file name")
    return name_tag, name_tag.split("-")[2]


def check_wheel(wheel: Path, forbidden: list[str], *, cuda: bool = False) -> dict:
    report = check_artifacts.Report()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        with zipfile.ZipFile(wheel) as z:
            z.extractall(root)
            names = [n for n in z.namelist() if not n.endswith("/")]
            (record,) = [n for n in names if n.endswith(".dist-info/RECORD")]
            record_text = z.read(record).decode()
        check_record(root, [n for n in names if n != record], record_text, report)
        check_artifacts.check_elf(root / "executorch", report)
        check_artifacts.check_exact_runpaths(root, "wheel", report)
        check_artifacts.check_paths(root, forbidden, report)
        if cuda:
            device_code("cuda wheel", root / "executorch", report)
            if not report.checks.get("device-code") and "device-code" not in report.checks:
                report.add("device-code", "no libexecutorch_cuda in the cuda wheel")
        else:
            check_artifacts.check_owners(root / "executorch", report)
    name_tag, plat = wheel_tags(wheel, names, report)
    if cuda:
        tag, graft = cuda_wheel_tag(wheel)
        report.add("auditwheel", None if tag.startswith("manylinux") else f"no manylinux tag: {tag}")
        report.add("auditwheel", f"auditwheel would vendor {graft}" if graft else None)
        report.add("tag", None if tag == plat else f"auditwheel gives {tag}, the file name says {plat}")
        return artifact("cuda-wheel", wheel, report, auditwheel_tag=tag, tag=name_tag, files=len(names))
    proc = subprocess.run([sys.executable, "-m", "auditwheel", "show", str(wheel)], capture_output=True, text=True)
    m = re.search(r'consistent with the following platform tag: "([^"]+)"', " ".join(proc.stdout.split()))
    tag = m.group(1) if m else None
    report.add("auditwheel", None if tag and tag.startswith("manylinux") else f"no manylinux tag: {proc.stdout[-300:]}")
    report.add(
        "tag", None if tag and tag == plat.split(".")[0] else f"auditwheel gives {tag}, the file name says {plat}"
    )
    return artifact("wheel", wheel, report, auditwheel_tag=tag, tag=name_tag, files=len(names))


def check_channel(channel: Path, forbidden: list[str]) -> list[dict]:
    out = []
    packages = sorted(channel.glob("*/*.conda"))
    with tempfile.TemporaryDirectory() as tmp:
        unions: dict[str, Path] = {}  # per platform subdir: an install of every package of that platform
        for i, pkg in enumerate(packages):
            dest = Path(tmp) / str(i)
            info = conda.read_package(pkg, dest, forbidden)
            report = check_artifacts.Report()
            report.add("package")  # paths.json hashes, build paths, prefix placeholders, DT_RUNPATH, SONAMEs
            for p in info.problems:
                report.add("package", p)
            check_artifacts.check_exact_runpaths(dest, "conda", report)
            device_code(info.name, dest, report)
            out.append(artifact("conda", pkg, report, files=len(info.files), depends=info.depends, tag=pkg.parent.name))
            union = unions.setdefault(pkg.parent.name, Path(tmp) / f"all-{pkg.parent.name}")
            subprocess.run(["cp", "-a", f"{dest}/.", str(union)], check=True)
        report = check_artifacts.Report()
        if packages:
            report.add("packages")
            for union in unions.values():
                check_artifacts.check_owners(union, report)  # one definer per registry symbol in <prefix>/lib
        else:
            report.add("packages", f"no .conda file in {channel}")
        out.append(
            {
                "artifact": f"{channel.name}/ (all packages)",
                "kind": "conda-channel",
                "path": str(channel),
                "size": sum(p.stat().st_size for p in packages),
                "sha256": None,
                "checks": report.checks,
                "ok": report.ok,
                "files": len(packages),
                "tag": ", ".join(sorted(unions)),
            }
        )
    return out


def human(n: int) -> str:
    return f"{n / 1e6:.2f} MB" if n >= 1e5 else f"{n / 1e3:.1f} kB"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--prefix", type=Path, default=REPO / "dist" / "executorch-sdk")
    ap.add_argument("--wheel-dir", type=Path, default=REPO / "dist" / "wheels")
    ap.add_argument("--channel", type=Path, default=REPO / "dist" / "conda-channel")
    ap.add_argument("--report", type=Path, default=REPO / "dist" / "report.json")
    ap.add_argument("--forbid", action="append", default=[], help="a path no artifact may contain (repeatable)")
    ap.add_argument("--timing", action="append", default=[], help="STEP=SECONDS, recorded in the report")
    ap.add_argument("--cuda", action="store_true", help="the CUDA delegate was built: require its wheel and package")
    ap.add_argument("--python", action="append", help="a CPython X.Y of the wheel matrix (default: this one)")
    ap.add_argument("--arch", action="append", help="an architecture of the wheel matrix (default: this machine's)")
    ap.add_argument("--cross-prefix", action="append", default=[], help="ARCH=DIR: a cross-built SDK prefix")
    args = ap.parse_args()
    forbidden = [str(REPO), str(Path.home()), *map(os.path.abspath, args.forbid)]
    rows = [check_sdk(args.prefix.resolve(), forbidden)]
    rows[0]["tag"] = f"{platform.machine()} prefix"
    for cross in args.cross_prefix:  # ARCH=DIR: the SDK prefix of a cross build (aarch64)
        arch, _, path = cross.partition("=")
        rows.append(check_sdk(Path(path).resolve(), forbidden) | {"tag": f"{arch} prefix"})
    pythons = args.python or [host_python()]
    arches = args.arch or [platform.machine()]
    wanted = [(f"executorch-*-{t}-{t}-*_{a}.whl", 1, False) for a in arches for t in map(cp_tag, pythons)]
    for pattern, want, cuda in (*wanted, ("executorch_cuda-*.whl", int(args.cuda), True)):
        found = sorted(args.wheel_dir.glob(pattern))
        if len(found) != want:
            report = check_artifacts.Report()
            report.add("wheel", f"expected {want} {pattern} in {args.wheel_dir}, found {[w.name for w in found]}")
            rows.append({"artifact": f"{args.wheel_dir.name}/{pattern}", "kind": "wheel", "path": str(args.wheel_dir),
                         "size": 0, "sha256": None, "checks": report.checks, "ok": False})  # fmt: skip
        elif found:
            rows.append(check_wheel(found[0], forbidden, cuda=cuda))
    expected = {w for pattern, _, _ in wanted for w in args.wheel_dir.glob(pattern)}
    others = sorted(set(args.wheel_dir.glob("*.whl")) - expected)
    others = [w.name for w in others if not w.name.startswith("executorch_cuda-")]
    if others:
        report = check_artifacts.Report()
        report.add("wheel", f"unexpected wheels in {args.wheel_dir}: {others}")
        rows.append({"artifact": args.wheel_dir.name, "kind": "wheel", "path": str(args.wheel_dir), "size": 0,
                     "sha256": None, "checks": report.checks, "ok": False})  # fmt: skip
    rows += check_channel(args.channel, forbidden)
    if args.cuda:
        report = check_artifacts.Report()
        report.add("device-code")
        found = [r for r in rows if "device-code" in r["checks"]]
        kinds = sorted({r["kind"] for r in found})
        if kinds != ["conda", "cuda-wheel", "sdk"]:
            report.add("device-code", f"device code checked in {kinds}; expected the SDK, the cuda wheel and conda")
        for r in found:
            for p in r["checks"]["device-code"]:
                report.add("device-code", f"{r['artifact']}: {p}")
        claim = claim_text(CUDA) if CUDA else "-"
        rows.append(
            {
                "artifact": "cuda device code",
                "kind": "device-code",
                "path": "",
                "size": 0,
                "sha256": None,
                "checks": report.checks,
                "ok": report.ok,
                "claim": claim,
                "libraries": DEVICE_CODE,
                "files": len(DEVICE_CODE),
            }
        )
    timings = {k: float(v) for k, _, v in (t.partition("=") for t in args.timing)}
    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True).stdout
    ok = all(r["ok"] for r in rows)
    data = {
        "ok": ok,
        "commit": commit.strip() or None,
        "source_date_epoch": source_date_epoch(),
        "timings_s": timings,
        "artifacts": rows,
    }
    args.report.parent.mkdir(parents=True, exist_ok=True)
    args.report.write_text(json.dumps(data, indent=2) + "\n")

    width = max(len(r["artifact"]) for r in rows)
    tag_width = max(len(r.get("tag") or "-") for r in rows)
    print(f"{'artifact':{width}}  {'size':>9}  {'platform / tag':{tag_width}}  checks passed / FAILED")
    for r in rows:
        passed = [c for c, p in r["checks"].items() if not p]
        failed = [c for c, p in r["checks"].items() if p]
        extra = f"  [{r['claim']}]" if r.get("claim") else ""
        line = ", ".join(passed) + (" / FAILED: " + ", ".join(failed) if failed else "")
        print(f"{r['artifact']:{width}}  {human(r['size']):>9}  {r.get('tag') or '-':{tag_width}}  {line}{extra}")
    for line in DEVICE_CODE:
        print(f"  device code: {line}")
    for r in rows:
        for check, problems in r["checks"].items():
            for p in problems:
                print(f"  {r['artifact']}: {check}: {p}", file=sys.stderr)
    print(f"{'all checks passed' if ok else 'CHECKS FAILED'}; report: {args.report}")
    return 0 if ok else 1


if __name__ == "__main__":
    rc = main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(rc)  # py-rattler can crash at interpreter exit (see docs/packaging.md)
