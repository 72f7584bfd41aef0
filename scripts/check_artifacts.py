#!/usr/bin/env python3
"""Checks an installed SDK prefix: SONAMEs, $ORIGIN-only RUNPATHs, no build-machine paths, one owner per registry.

Usage: check_artifacts.py PREFIX [--source-dir DIR] [--build-dir DIR] [--report FILE.json]
Exits 1 when a check fails. The functions are also used by the tests.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

# Symbols that only their owning library may define (demangled name fragments).
OWNERS: dict[str, list[str]] = {
    "libexecutorch.so": [
        "executorch::runtime::register_kernels(",
        "executorch::runtime::register_backend(",
        "executorch::runtime::get_backend_class(",
        "executorch::runtime::get_op_function_from_registry(",
        "executorch::runtime::get_registered_kernel_names",
        "executorch::runtime::load_component(",
    ],
    "libexecutorch_threadpool.so": [
        "executorch::extension::threadpool::get_threadpool(",
        "executorch::extension::parallel_for(",
    ],
}
SONAME_RE = re.compile(r"^lib(executorch[a-z_]*)\.so\.(\d+)\.(\d+)$")

# The exact RUNPATH of every ELF file, per package layout (docs/packaging.md): (path regex, RUNPATH). The wheel's
# site-packages/executorch is an SDK prefix with the extension at its root (the "prefix" rules cover it).
# The CUDA delegate (executorch-cuda) also finds cudart and cuBLAS: in a wheel install they are in the NVIDIA
# wheels' site-packages/nvidia/cu13/lib (site-packages/executorch/lib/../../nvidia/cu13/lib); the SDK prefix gets
# the same library (the release build's default); in conda they are in $PREFIX/lib, so `$ORIGIN` is enough.
_LIBS = r"lib/libexecutorch[a-z_]*\.so\.\d+\.\d+"
_CUDA_LIB = r"lib/libexecutorch_cuda\.so\.\d+\.\d+"
CUDA_WHEEL_RUNPATH = "$ORIGIN:$ORIGIN/../../nvidia/cu13/lib"
RUNPATHS: dict[str, list[tuple[str, str]]] = {
    "prefix": [
        (_CUDA_LIB, CUDA_WHEEL_RUNPATH),
        (_LIBS, "$ORIGIN"),
        (r"bin/[^/]+", "$ORIGIN/../lib"),
        (r"_C\.[^/]+\.so", "$ORIGIN/lib"),
    ],
    "wheel": [
        (_CUDA_LIB, CUDA_WHEEL_RUNPATH),
        (_LIBS, "$ORIGIN"),
        (r"bin/[^/]+", "$ORIGIN/../lib"),
        (r"_C\.[^/]+\.so", "$ORIGIN/lib"),
    ],
    "conda": [
        (_LIBS, "$ORIGIN"),
        (r"bin/[^/]+", "$ORIGIN/../lib"),
        (r"lib/python\d+\.\d+/site-packages/executorch/_C\.[^/]+\.so", "$ORIGIN/../../.."),
    ],
}
RUNPATHS["wheel"] = [("executorch/" + rx, want) for rx, want in RUNPATHS["wheel"]]


@dataclass
class Report:
    checks: dict[str, list[str]] = field(default_factory=dict)  # check name -> problems
    sizes: dict[str, int] = field(default_factory=dict)

    def add(self, check: str, problem: str | None = None) -> None:
        self.checks.setdefault(check, [])
        if problem:
            self.checks[check].append(problem)

    @property
    def ok(self) -> bool:
        return all(not p for p in self.checks.values())


def is_elf(path: Path) -> bool:
    with path.open("rb") as f:
        return f.read(4) == b"\x7fELF"


def elf_files(prefix: Path) -> list[Path]:
    out = []
    for p in sorted(prefix.rglob("*")):
        if p.is_file() and not p.is_symlink() and is_elf(p):
            out.append(p)
    return out


def dynamic_entries(path: Path) -> dict[str, list[str]]:
    text = subprocess.run(["readelf", "-d", str(path)], check=True, capture_output=True, text=True).stdout
    entries: dict[str, list[str]] = {}
    for m in re.finditer(r"\((\w+)\)\s+[^\[]*\[([^\]]*)\]", text):
        entries.setdefault(m.group(1), []).append(m.group(2))
    return entries


def defined_symbols(path: Path) -> list[str]:
    text = subprocess.run(
        ["nm", "-D", "-C", "--defined-only", str(path)], check=True, capture_output=True, text=True
    ).stdout
    return [line.split(" ", 2)[2] for line in text.splitlines() if line.count(" ") >= 2]


def check_elf(prefix: Path, report: Report) -> None:
    for path in elf_files(prefix):
        rel = path.relative_to(prefix).as_posix()
        dyn = dynamic_entries(path)
        if "RPATH" in dyn:
            report.add("runpath", f"{rel}: uses DT_RPATH {dyn['RPATH']} instead of DT_RUNPATH")
        for entry in dyn.get("RUNPATH", []):
            for part in entry.split(":"):
                if not part.startswith("$ORIGIN"):
                    report.add("runpath", f"{rel}: RUNPATH entry {part!r} is not $ORIGIN-relative")
        report.add("runpath")
        if rel.startswith("lib/") and ".so" in path.name:
            sonames = dyn.get("SONAME", [])
            if len(sonames) != 1 or not SONAME_RE.match(sonames[0]):
                report.add("soname", f"{rel}: SONAME {sonames} is not lib<name>.so.<major>.<minor>")
            else:
                if not path.name.startswith(sonames[0]):
                    report.add("soname", f"{rel}: file name does not match its SONAME {sonames[0]}")
                link = path.parent / sonames[0]
                if not link.exists():
                    report.add("soname", f"{rel}: no {sonames[0]} link next to it")
            report.add("soname")


def check_exact_runpaths(root: Path, layout: str, report: Report) -> None:
    """Every ELF file has exactly the RUNPATH its layout's rule gives (RUNPATHS), and no file lacks a rule."""
    rules = [(re.compile(rx + r"\Z"), want) for rx, want in RUNPATHS[layout]]
    for path in elf_files(root):
        rel = path.relative_to(root).as_posix()
        want = next((w for rx, w in rules if rx.match(rel)), None)
        if want is None:
            report.add("exact-runpath", f"{rel}: no RUNPATH rule for this file in the {layout} layout")
            continue
        dyn = dynamic_entries(path)
        got = dyn.get("RUNPATH", []) + dyn.get("RPATH", [])
        if got != [want]:
            report.add("exact-runpath", f"{rel}: RUNPATH {got}, expected [{want!r}]")
    report.add("exact-runpath")


def check_paths(prefix: Path, forbidden: list[str], report: Report) -> None:
    needles = [f.rstrip("/").encode() for f in forbidden if f]
    for path in sorted(prefix.rglob("*")):
        if not path.is_file() or path.is_symlink():
            continue
        data = path.read_bytes()
        for needle in needles:
            if needle in data:
                report.add("no-build-paths", f"{path.relative_to(prefix)} contains {needle.decode()!r}")
    report.add("no-build-paths")


def check_owners(prefix: Path, report: Report) -> None:
    libs = [p for p in elf_files(prefix) if p.parent.name == "lib"]
    for owner, symbols in OWNERS.items():
        for sym in symbols:
            definers = [p.name for p in libs if any(s.startswith(sym) for s in defined_symbols(p))]
            owners = [d for d in definers if d.startswith(owner)]
            if len(owners) != 1 or len(definers) != 1:
                report.add("single-owner", f"{sym}..) defined in {definers or 'no library'}; expected only {owner}")
    report.add("single-owner")


def check_device_code(prefix: Path, claim: dict | None, report: Report) -> list[str]:
    """CUDA libraries in prefix/lib (libexecutorch_cuda*): their fatbinaries match `claim` (components.toml's
    cuda_architectures: SASS, PTX; scripts/check_cuda_device_code.py), and the installed
    share/executorch/cuda-architectures.json says the same. Returns one summary line per library (none: no check)."""
    import check_cuda_device_code as dc

    libs = sorted(p for p in (prefix / "lib").glob("libexecutorch_cuda.so.*") if p.is_file() and not p.is_symlink())
    if not libs:
        return []
    report.add("device-code")
    if claim is None:
        report.add("device-code", "a CUDA library is there but components.toml claims no cuda_architectures")
        return []
    installed = prefix / dc.CLAIM_FILE
    try:
        data = json.loads(installed.read_text())
    except (OSError, ValueError) as e:
        report.add("device-code", f"{dc.CLAIM_FILE}: cannot read: {e}")
    else:
        if data != claim:
            report.add("device-code", f"{dc.CLAIM_FILE} says {data}, components.toml claims {claim}")
    results, problems = dc.check(libs, dc.Claim(list(claim["sass"]), list(claim["ptx"])), dc.find_cuobjdump())
    for p in problems:
        report.add("device-code", p)
    return dc.summary(results)


def check_prefix(prefix: Path, forbidden: list[str]) -> Report:
    report = Report()
    for path in sorted(prefix.rglob("*")):
        if path.is_file() and not path.is_symlink():
            report.sizes[path.relative_to(prefix).as_posix()] = path.stat().st_size
    check_elf(prefix, report)
    check_exact_runpaths(prefix, "prefix", report)
    check_paths(prefix, forbidden, report)
    check_owners(prefix, report)
    return report


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("prefix", type=Path)
    ap.add_argument("--source-dir", default="")
    ap.add_argument("--build-dir", default="")
    ap.add_argument("--report", type=Path)
    args = ap.parse_args()
    if not args.prefix.is_dir():
        print(f"error: {args.prefix} is not a directory; build the SDK first (scripts/build_sdk.sh)", file=sys.stderr)
        return 2
    forbidden = [os.path.abspath(p) for p in (args.source_dir, args.build_dir) if p]
    report = check_prefix(args.prefix.resolve(), forbidden)
    libs = {k: v for k, v in report.sizes.items() if k.startswith(("lib/", "bin/")) and ".cmake" not in k}
    print(f"{'artifact':48} {'bytes':>10}")
    for name, size in libs.items():
        print(f"{name:48} {size:>10}")
    print(f"{'(all files: ' + str(len(report.sizes)) + ')':48} {sum(report.sizes.values()):>10}")
    print()
    for check, problems in report.checks.items():
        print(f"{check:20} {'ok' if not problems else 'FAILED'}")
        for p in problems:
            print(f"    {p}")
    if args.report:
        args.report.parent.mkdir(parents=True, exist_ok=True)
        args.report.write_text(
            json.dumps(
                {"prefix": str(args.prefix), "ok": report.ok, "checks": report.checks, "sizes": report.sizes}, indent=2
            )
            + "\n"
        )
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
