#!/usr/bin/env python3
"""Device-code coverage of shipped CUDA libraries: the SASS and PTX in each fatbinary against the claimed list.

Usage:
  check_cuda_device_code.py LIB... [--claim CLAIM] [--cuobjdump PATH|none] [--json]

CLAIM is a JSON file (share/executorch/cuda-architectures.json: {"sass": [75, ...], "ptx": [120]}), the same
JSON as text, or the short form "75,80,86,89,90,100,120:ptx=120". Without --claim, the claim is read from
share/executorch/cuda-architectures.json next to the library's prefix (<lib dir>/../share/executorch/).

For every library the ELF section `.nv_fatbin` is read (our own reader, below: no CUDA tool needed). It holds one
or more fatbinaries (one per device-linked image: each compiled translation unit, and nvcc's device-link stub),
each a 16-byte header (magic 0xBA55ED50, version, header size, size of the entries) followed by entries, each
with its own header (kind 1 = PTX, 2 = ELF/SASS cubin; header size, payload size, target sm arch). A library
fails when
  - a claimed architecture has no SASS in one of its fatbinaries (that code would JIT or fail on that GPU);
  - a fatbinary holds SASS for an architecture that is not claimed (the claim, and the docs, would be wrong);
  - the newest claimed architecture has no PTX (no forward compatibility with newer GPUs), or PTX exists for an
    architecture that is not claimed as PTX;
  - `cuobjdump --list-elf --list-ptx` (when found: --cuobjdump, $CUOBJDUMP, the nvidia-cuda-cuobjdump wheel in
    this interpreter's site-packages, /usr/local/cuda/bin, PATH) lists other entries than the reader.
A library without device code is listed and passes; at least one of the given libraries must have some.
Exits 0 when every library passes, 1 when one fails, 2 on bad usage. Also imported by builder_report.py and the
tests (check_library, parse_claim).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import sysconfig
from dataclasses import dataclass, field
from pathlib import Path

FATBIN_MAGIC = 0xBA55ED50
KIND_PTX = 1
KIND_ELF = 2
KIND_NAMES = {KIND_PTX: "ptx", KIND_ELF: "sass"}
CLAIM_FILE = Path("share") / "executorch" / "cuda-architectures.json"


@dataclass(frozen=True)
class Entry:
    kind: str  # "sass", "ptx" or "kind<N>"
    arch: int  # sm version: 75, 80, ..., 120
    size: int  # payload bytes (as stored: maybe compressed)


@dataclass
class Fatbin:
    offset: int  # file offset of the fatbinary header
    entries: list[Entry] = field(default_factory=list)

    def archs(self, kind: str) -> set[int]:
        return {e.arch for e in self.entries if e.kind == kind}


@dataclass
class Claim:
    sass: list[int]
    ptx: list[int]

    def text(self) -> str:
        return ",".join(map(str, self.sass)) + ":ptx=" + ",".join(map(str, self.ptx))


@dataclass
class Result:
    path: Path
    fatbins: list[Fatbin]
    problems: list[str]
    cuobjdump: str  # "agrees", "not found", or what differed

    @property
    def sass(self) -> list[int]:
        return sorted(set().union(*(f.archs("sass") for f in self.fatbins)))

    @property
    def ptx(self) -> list[int]:
        return sorted(set().union(*(f.archs("ptx") for f in self.fatbins)))


class FormatError(Exception):
    pass


# ------------------------------------------------------------------------------------------------- ELF reading


def elf_section(data: bytes, name: str) -> tuple[int, bytes] | None:
    """(file offset, contents) of section `name` of a 64-bit little-endian ELF file (None when it has none)."""
    if data[:4] != b"\x7fELF":
        raise FormatError("not an ELF file")
    if data[4] != 2 or data[5] != 1:
        raise FormatError("not a 64-bit little-endian ELF file")
    (shoff,) = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    if shoff == 0 or shnum == 0:
        return None
    if shoff + shnum * shentsize > len(data) or shstrndx >= shnum:
        raise FormatError("truncated section header table")

    def header(i: int) -> tuple[int, int, int, int]:
        name_off, sh_type = struct.unpack_from("<II", data, shoff + i * shentsize)
        offset, size = struct.unpack_from("<QQ", data, shoff + i * shentsize + 0x18)
        return name_off, sh_type, offset, size

    _, _, str_off, str_size = header(shstrndx)
    strtab = data[str_off : str_off + str_size]
    for i in range(shnum):
        name_off, sh_type, offset, size = header(i)
        end = strtab.find(b"\0", name_off)
        if strtab[name_off:end].decode(errors="replace") != name:
            continue
        if sh_type == 8:  # SHT_NOBITS
            return offset, b""
        if offset + size > len(data):
            raise FormatError(f"section {name} runs past the end of the file")
        return offset, data[offset : offset + size]
    return None


def read_fatbins(section: bytes, base: int = 0) -> list[Fatbin]:
    """Every fatbinary in a `.nv_fatbin` section (they follow each other, 8-byte aligned)."""
    out = []
    pos = 0
    while pos + 16 <= len(section):
        magic, _version, header_size, fat_size = struct.unpack_from("<IHHQ", section, pos)
        if magic != FATBIN_MAGIC:
            if section[pos : pos + 8] == b"\0" * 8:  # alignment padding between fatbinaries
                pos += 8
                continue
            raise FormatError(f"no fatbinary magic at section offset {pos:#x} (found {magic:#010x})")
        if header_size < 16 or pos + header_size + fat_size > len(section):
            raise FormatError(f"fatbinary at section offset {pos:#x}: bad header or size")
        fatbin = Fatbin(offset=base + pos)
        entry = pos + header_size
        end = entry + fat_size
        while entry < end:
            # Entry header: u16 kind, u16 flags, u32 header size, u64 payload size, ..., u32 sm arch at +28.
            if entry + 32 > end:
                raise FormatError(f"fatbinary at {base + pos:#x}: truncated entry header at {base + entry:#x}")
            kind, _, entry_header, payload = struct.unpack_from("<HHIQ", section, entry)
            (arch,) = struct.unpack_from("<I", section, entry + 28)
            if entry_header < 32 or entry + entry_header + payload > end:
                raise FormatError(f"fatbinary at {base + pos:#x}: bad entry sizes at {base + entry:#x}")
            fatbin.entries.append(Entry(KIND_NAMES.get(kind, f"kind{kind}"), arch, payload))
            entry += entry_header + payload
        out.append(fatbin)
        pos = end
    return out


def read_library(path: Path) -> list[Fatbin]:
    data = path.read_bytes()
    found = elf_section(data, ".nv_fatbin")
    if not found or not found[1]:
        return []
    return read_fatbins(found[1], found[0])


# ---------------------------------------------------------------------------------------------------- claims


def parse_claim(text: str) -> Claim:
    """A claim from a JSON file, JSON text or "75,80,...:ptx=120" (see the module docstring)."""
    text = text.strip()
    if not text.startswith("{") and Path(text).is_file():
        text = Path(text).read_text()
    try:
        if text.startswith("{"):
            data = json.loads(text)
            sass = [int(a) for a in data["sass"]]
            ptx = [int(a) for a in data.get("ptx", [])]
        else:
            head, _, tail = text.partition(":")
            sass = [int(a) for a in re.split(r"[,\s]+", head) if a]
            ptx = []
            if tail:
                key, _, value = tail.partition("=")
                if key.strip() != "ptx":
                    raise ValueError(f"expected ':ptx=<archs>', got {tail!r}")
                ptx = [int(a) for a in value.split(",") if a]
    except (ValueError, KeyError, TypeError, json.JSONDecodeError) as e:
        raise SystemExit(f"error: bad --claim {text[:80]!r}: {e}") from None
    if not sass:
        raise SystemExit("error: --claim lists no SASS architecture")
    return Claim(sorted(set(sass)), sorted(set(ptx)))


def default_claim(lib: Path) -> Path | None:
    path = lib.resolve().parent.parent / CLAIM_FILE
    return path if path.is_file() else None


# ------------------------------------------------------------------------------------------------- cuobjdump


def find_cuobjdump() -> str | None:
    if os.environ.get("CUOBJDUMP"):
        return os.environ["CUOBJDUMP"]
    candidates = [
        Path(sysconfig.get_paths()["purelib"]) / "nvidia" / "cu13" / "bin" / "cuobjdump",
        Path(sys.prefix) / "bin" / "cuobjdump",
        Path("/usr/local/cuda/bin/cuobjdump"),
    ]
    for c in candidates:
        if c.is_file() and os.access(c, os.X_OK):
            return str(c)
    return shutil.which("cuobjdump")


def cuobjdump_entries(tool: str, path: Path) -> list[tuple[str, int]]:
    proc = subprocess.run([tool, "--list-elf", "--list-ptx", str(path)], capture_output=True, text=True)
    if proc.returncode != 0 and "does not contain device code" not in proc.stdout + proc.stderr:
        raise RuntimeError(f"{tool} failed ({proc.returncode}): {(proc.stderr or proc.stdout).strip()[-300:]}")
    out = []
    for m in re.finditer(r"^(ELF|PTX) file\s+\d+: .*\.sm_(\d+)[a-z]?\.(?:cubin|ptx)$", proc.stdout, re.M):
        out.append(("sass" if m.group(1) == "ELF" else "ptx", int(m.group(2))))
    return sorted(out)


# ---------------------------------------------------------------------------------------------------- checks


def check_library(path: Path, claim: Claim | None, cuobjdump: str | None) -> Result:
    problems: list[str] = []
    try:
        fatbins = read_library(path)
    except (OSError, FormatError) as e:
        return Result(path, [], [f"{path.name}: cannot read device code: {e}"], "not run")
    if fatbins and claim is None:
        problems.append(f"{path.name}: has device code but no claim (--claim, or {CLAIM_FILE} in its prefix)")
    if fatbins and claim is not None:
        claimed = set(claim.sass)
        for i, fb in enumerate(fatbins):
            where = f"{path.name}: fatbinary {i + 1}/{len(fatbins)} (offset {fb.offset:#x})"
            sass = fb.archs("sass")
            missing = sorted(claimed - sass)
            extra = sorted(sass - claimed)
            if missing:
                problems.append(f"{where}: no SASS for claimed sm_{', sm_'.join(map(str, missing))}")
            if extra:
                problems.append(f"{where}: SASS for sm_{', sm_'.join(map(str, extra))}, which is not claimed")
            unknown = sorted({e.kind for e in fb.entries} - {"sass", "ptx"})
            if unknown:
                problems.append(f"{where}: entries of unknown kind {unknown}")
        ptx = set().union(*(fb.archs("ptx") for fb in fatbins))
        newest = max(claim.sass + claim.ptx)
        if newest not in ptx:
            problems.append(f"{path.name}: no PTX for the newest claimed architecture compute_{newest}")
        missing_ptx = sorted(set(claim.ptx) - ptx)
        if missing_ptx and missing_ptx != [newest]:
            problems.append(f"{path.name}: no PTX for claimed compute_{', compute_'.join(map(str, missing_ptx))}")
        extra_ptx = sorted(ptx - set(claim.ptx))
        if extra_ptx:
            problems.append(f"{path.name}: PTX for compute_{', compute_'.join(map(str, extra_ptx))}, not claimed")
    agreement = "not found"
    if cuobjdump:
        mine = sorted((e.kind, e.arch) for fb in fatbins for e in fb.entries)
        try:
            theirs = cuobjdump_entries(cuobjdump, path)
        except (OSError, RuntimeError) as e:
            problems.append(f"{path.name}: cuobjdump: {e}")
            agreement = "failed"
        else:
            if theirs == mine:
                agreement = "agrees"
            else:
                agreement = f"differs: cuobjdump {theirs}, reader {mine}"
                problems.append(f"{path.name}: cuobjdump lists {theirs}, the fatbin reader {mine}")
    return Result(path, fatbins, problems, agreement)


def check(libs: list[Path], claim: Claim | None, cuobjdump: str | None) -> tuple[list[Result], list[str]]:
    results = []
    for lib in libs:
        own = claim
        if own is None and (path := default_claim(lib)):
            own = parse_claim(str(path))
        results.append(check_library(lib, own, cuobjdump))
    problems = [p for r in results for p in r.problems]
    if results and not any(r.fatbins for r in results):
        problems.append(f"none of {[r.path.name for r in results]} has device code (.nv_fatbin)")
    return results, problems


def summary(results: list[Result]) -> list[str]:
    lines = []
    for r in results:
        if not r.fatbins:
            lines.append(f"{r.path.name}: no device code")
            continue
        entries = sum(len(f.entries) for f in r.fatbins)
        lines.append(
            f"{r.path.name}: {len(r.fatbins)} fatbinaries, {entries} entries; "
            f"SASS sm_{', sm_'.join(map(str, r.sass)) or '-'}; PTX compute_{', compute_'.join(map(str, r.ptx)) or '-'}"
            f"; cuobjdump {r.cuobjdump}"
        )
    return lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("libs", nargs="+", type=Path)
    ap.add_argument("--claim", help='JSON file, JSON text or "75,80,...:ptx=120"')
    ap.add_argument("--cuobjdump", help="path of cuobjdump, or 'none' to skip the cross-check")
    ap.add_argument("--json", action="store_true", help="print the result as JSON")
    args = ap.parse_args()
    for lib in args.libs:
        if not lib.is_file():
            print(f"error: {lib} is not a file", file=sys.stderr)
            return 2
    claim = parse_claim(args.claim) if args.claim else None
    tool = None if args.cuobjdump == "none" else (args.cuobjdump or find_cuobjdump())
    results, problems = check(args.libs, claim, tool)
    if args.json:
        print(
            json.dumps(
                {
                    "ok": not problems,
                    "claim": claim.text() if claim else None,
                    "libraries": [
                        {"path": str(r.path), "sass": r.sass, "ptx": r.ptx, "cuobjdump": r.cuobjdump} for r in results
                    ],
                    "problems": problems,
                },
                indent=2,
            )
        )
    else:
        if claim:
            print(f"claim: {claim.text()} (SASS:ptx=PTX)")
        print("\n".join(summary(results)))
        for p in problems:
            print(f"FAILED: {p}", file=sys.stderr)
        print("device code matches the claim" if not problems else "DEVICE CODE CHECK FAILED")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
