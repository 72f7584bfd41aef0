"""ETDump profiling (`executorch_runner --etdump-path`) and bundled programs (`executorch_runner --bundled`).

The ETDump is read here by a small flatbuffer reader of its own that follows upstream's ETDump schema
(`devtools/etdump/etdump_schema_flatcc.fbs`: size prefix, identifier "ED00", the field slots), not the runtime's
copy of the schema, so a slot written in the wrong place fails. The check against upstream's own Inspector needs
torch and upstream ExecuTorch and is not run here: `scripts/check_etdump_upstream.py` (docs/profiling.md).
The bundled programs come from upstream's exporter (`scripts/export_bundled_fixtures.py`, tests/fixtures/bundled).
"""

from __future__ import annotations

import itertools
import json
import random
import struct
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from et_common import FIXTURES, MANIFEST

BUNDLED = FIXTURES / "bundled"
BUNDLED_MANIFEST = json.loads((BUNDLED / "manifest.json").read_text())
PROFILED = ["add_mul", "mlp", "cnn", "multi_output", "resnet_block"]


# ---- a minimal flatbuffer reader (little endian; tables through their vtables)


class Table:
    def __init__(self, buf: bytes, pos: int) -> None:
        self.buf, self.pos = buf, pos
        vt = pos - struct.unpack_from("<i", buf, pos)[0]
        vt_size = struct.unpack_from("<H", buf, vt)[0]
        self.slots = [struct.unpack_from("<H", buf, vt + 4 + 2 * i)[0] for i in range((vt_size - 4) // 2)]

    def _off(self, slot: int) -> int:
        return self.slots[slot] if slot < len(self.slots) else 0

    def scalar(self, slot: int, fmt: str, default: int = 0) -> int:
        o = self._off(slot)
        return struct.unpack_from("<" + fmt, self.buf, self.pos + o)[0] if o else default

    def _deref(self, slot: int) -> int | None:
        o = self._off(slot)
        if not o:
            return None
        p = self.pos + o
        return p + struct.unpack_from("<I", self.buf, p)[0]

    def table(self, slot: int) -> Table | None:
        p = self._deref(slot)
        return None if p is None else Table(self.buf, p)

    def string(self, slot: int) -> str | None:
        p = self._deref(slot)
        if p is None:
            return None
        n = struct.unpack_from("<I", self.buf, p)[0]
        return self.buf[p + 4 : p + 4 + n].decode()

    def tables(self, slot: int) -> list[Table]:
        p = self._deref(slot)
        if p is None:
            return []
        n = struct.unpack_from("<I", self.buf, p)[0]
        out = []
        for i in range(n):
            e = p + 4 + 4 * i
            out.append(Table(self.buf, e + struct.unpack_from("<I", self.buf, e)[0]))
        return out


@dataclass
class ProfileEvent:
    name: str | None
    chain: int
    instruction: int
    delegate_int: int
    delegate_str: str | None
    start: int
    end: int


@dataclass
class Run:
    name: str | None
    bundled_input_index: int
    allocators: list[str | None] = field(default_factory=list)
    events: list[ProfileEvent] = field(default_factory=list)


def read_etdump(data: bytes) -> tuple[int, list[Run]]:
    """(version, runs) of a size-prefixed ETDump; slots as in upstream's etdump_schema_flatcc.fbs."""
    assert len(data) >= 12
    assert struct.unpack_from("<I", data, 0)[0] == len(data) - 4, "size prefix"
    buf = data[4:]
    assert buf[4:8] == b"ED00", "file identifier"
    root = Table(buf, struct.unpack_from("<I", buf, 0)[0])
    version = root.scalar(0, "I")  # ETDump{version, run_data}
    runs = []
    for rd in root.tables(1):  # RunData{name, bundled_input_index, allocators, events}
        run = Run(rd.string(0), rd.scalar(1, "i", -1), [a.string(0) for a in rd.tables(2)])
        for ev in rd.tables(3):  # Event{profile_event, allocation_event, debug_event}
            pe = ev.table(0)
            assert pe is not None and ev.table(1) is None and ev.table(2) is None
            # ProfileEvent{name, chain_index, instruction_id, delegate_debug_id_int, delegate_debug_id_str,
            #              delegate_debug_metadata, start_time, end_time}
            run.events.append(
                ProfileEvent(
                    pe.string(0),
                    pe.scalar(1, "i"),
                    pe.scalar(2, "i", -1),
                    pe.scalar(3, "i", -1),
                    pe.string(4),
                    pe.scalar(6, "Q"),
                    pe.scalar(7, "Q"),
                )
            )
        runs.append(run)
    return version, runs


# ---- helpers


def fixture_entry(name: str) -> dict:
    (fx,) = [f for f in MANIFEST["fixtures"] if f["name"] == name]
    return fx


def run_fixture(
    sdk: Path, env: dict[str, str], name: str, variant: str, extra: list[str]
) -> subprocess.CompletedProcess[str]:
    fx = fixture_entry(name)
    case = fx["methods"]["forward"]["cases"][0]
    cmd = [str(sdk / "bin" / "executorch_runner"), str(FIXTURES / fx["files"][variant])]
    for inp in case["inputs"]:
        cmd += ["--input", str(FIXTURES / inp["file"])]
    return subprocess.run(cmd + extra, capture_output=True, text=True, env=env, timeout=120)


def runner(sdk: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(sdk / "bin" / "executorch_runner"), *args], capture_output=True, text=True, env=env, timeout=120
    )


def check_run_times(run: Run) -> None:
    """Every event ends after it starts; instructions run one after another inside Method::execute."""
    (method,) = [e for e in run.events if e.name == "Method::execute"]
    instr = [e for e in run.events if e.name != "Method::execute"]
    for e in run.events:
        assert e.start > 0 and e.start <= e.end, e
    for a, b in itertools.pairwise(instr):
        assert a.end <= b.start, (a, b)
    assert instr and method.start <= instr[0].start and instr[-1].end <= method.end


# ---- ETDump


@pytest.mark.parametrize("variant", ["portable", "xnnpack"])
@pytest.mark.parametrize("name", PROFILED)
def test_etdump_has_one_event_per_instruction(
    sdk: Path, quiet_env: dict[str, str], tmp_path: Path, name: str, variant: str
) -> None:
    fx = fixture_entry(name)
    path = tmp_path / "run.etdp"
    proc = run_fixture(sdk, quiet_env, name, variant, ["--etdump-path", str(path), "--repeat", "3"])
    assert proc.returncode == 0, proc.stderr
    assert f"etdump {path} (" in proc.stdout
    version, runs = read_etdump(path.read_bytes())
    assert version == 0
    assert len(runs) == 3 and all(r.name == "Execute" and r.bundled_input_index == -1 for r in runs)
    first = runs[0]
    operators = set(fx["operators"][variant])
    delegates = set(fx["delegates"][variant])
    framework = {"Method::execute", "MOVE_CALL", "JF_CALL", "FREE_CALL"}
    names = [e.name for e in first.events]
    kernel_events = [e for e in first.events if e.name not in framework and e.name not in delegates]
    # every event names an operator of the program or one of its delegates, and every operator shows up
    assert {e.name for e in kernel_events} == operators
    assert sum(n in delegates for n in names) == fx["delegate_calls"][variant]
    assert names.count("Method::execute") == 1
    for e in first.events:
        if e.name == "Method::execute":
            assert e.chain == -1
        else:
            assert e.chain == 0 and e.instruction >= 0
            assert e.delegate_int == -1 and e.delegate_str is None
    instructions = [e.instruction for e in first.events if e.name != "Method::execute"]
    assert instructions == sorted(instructions) and len(set(instructions)) == len(instructions)
    # every run records the same instructions, each in time order
    for run in runs:
        assert [(e.name, e.instruction) for e in run.events] == [(e.name, e.instruction) for e in first.events]
        check_run_times(run)
    assert runs[0].events[-1].end <= runs[1].events[0].start


def test_etdump_of_mlp_names_each_instruction(sdk: Path, quiet_env: dict[str, str], tmp_path: Path) -> None:
    path = tmp_path / "mlp.etdp"
    assert run_fixture(sdk, quiet_env, "mlp", "portable", ["--etdump-path", str(path)]).returncode == 0
    (run,) = read_etdump(path.read_bytes())[1]
    assert [(e.name, e.instruction) for e in run.events] == [
        ("aten::permute_copy.out", 0),
        ("aten::addmm.out", 1),
        ("aten::relu.out", 2),
        ("aten::permute_copy.out", 3),
        ("aten::addmm.out", 4),
        ("Method::execute", 0),
    ]


def test_etdump_unwritable_path_is_an_error(sdk: Path, quiet_env: dict[str, str], tmp_path: Path) -> None:
    for target in [tmp_path / "no" / "such" / "dir" / "x.etdp", tmp_path]:  # a missing folder, a directory
        proc = run_fixture(sdk, quiet_env, "mlp", "portable", ["--etdump-path", str(target)])
        assert proc.returncode == 1, proc.stderr
        assert f"error: cannot write the ETDump to {target}" in proc.stderr
        assert "output 0: Float [2, 4]" in proc.stdout  # the run itself happened


def test_etdump_not_written_when_the_run_fails(sdk: Path, quiet_env: dict[str, str], tmp_path: Path) -> None:
    path = tmp_path / "x.etdp"
    proc = runner(sdk, quiet_env, str(BUNDLED / "portable.bpte"), "--etdump-path", str(path))
    assert proc.returncode == 2 and "error: loading the program failed" in proc.stderr
    assert not path.exists()


# ---- bundled programs


def parse_table(stdout: str) -> dict[tuple[str, int], str]:
    rows = {}
    for line in stdout.splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[1].isdigit() and parts[2] in ("pass", "FAIL"):
            rows[(parts[0], int(parts[1]))] = parts[2]
    return rows


@pytest.mark.parametrize("name", sorted(BUNDLED_MANIFEST["files"]))
def test_bundled_program_cases(sdk: Path, quiet_env: dict[str, str], name: str) -> None:
    entry = BUNDLED_MANIFEST["files"][name]
    proc = runner(sdk, quiet_env, "--bundled", str(BUNDLED / name))
    failing = {(m, i) for m, i in entry["failing_cases"]}
    assert proc.returncode == (3 if failing else 0), proc.stdout + proc.stderr
    rows = parse_table(proc.stdout)
    expected = {(m, i): "FAIL" if (m, i) in failing else "pass" for m, n in entry["methods"].items() for i in range(n)}
    assert rows == expected, proc.stdout
    total = len(expected)
    assert f"bundled {total} cases: {total - len(failing)} passed, {len(failing)} failed" in proc.stdout
    if failing:
        assert "output 0 element 3: got" in proc.stdout  # the one element the fixture script changed


def test_bundled_tolerances(sdk: Path, quiet_env: dict[str, str]) -> None:
    # the changed element is off by exactly 1.0: a tolerance above that passes it, and rtol/atol 0 still passes
    # the portable program's cases whose outputs the kernels reproduce closely enough (not asserted: bitwise)
    loose = runner(sdk, quiet_env, "--bundled", str(BUNDLED / "wrong_expected.bpte"), "--atol", "1.5")
    assert loose.returncode == 0, loose.stdout
    bad = runner(sdk, quiet_env, "--bundled", str(BUNDLED / "portable.bpte"), "--rtol", "-1")
    assert bad.returncode == 1 and "--rtol needs a non-negative number" in bad.stderr


def test_bundled_with_etdump(sdk: Path, quiet_env: dict[str, str], tmp_path: Path) -> None:
    path = tmp_path / "bundled.etdp"
    proc = runner(sdk, quiet_env, "--bundled", str(BUNDLED / "xnnpack.bpte"), "--etdump-path", str(path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    _, runs = read_etdump(path.read_bytes())
    assert [r.bundled_input_index for r in runs] == [0, 1, 2]  # one block per test case, tagged with its index
    for run in runs:
        assert "XnnpackBackend" in {e.name for e in run.events}
        check_run_times(run)


def test_bundled_bad_files_fail_cleanly(sdk: Path, quiet_env: dict[str, str], tmp_path: Path) -> None:
    good = (BUNDLED / "portable.bpte").read_bytes()
    proc = runner(sdk, quiet_env, "--bundled", str(tmp_path / "missing.bpte"))
    assert proc.returncode == 1 and "error: cannot read" in proc.stderr
    # a .pte is not a bundled program: the message names both identifiers
    proc = runner(sdk, quiet_env, "--bundled", str(FIXTURES / "mlp" / "portable.pte"))
    assert proc.returncode == 2 and "identifier is 'ET12', a bundled program has 'BP08'" in proc.stderr
    empty = tmp_path / "empty.bpte"
    empty.write_bytes(b"")
    proc = runner(sdk, quiet_env, "--bundled", str(empty))
    assert proc.returncode == 2 and "not a bundled program" in proc.stderr
    truncated = tmp_path / "truncated.bpte"
    truncated.write_bytes(good[: len(good) // 2])
    proc = runner(sdk, quiet_env, "--bundled", str(truncated))
    assert proc.returncode == 2 and "bundled program: the flatbuffer is damaged" in proc.stderr
    proc = runner(sdk, quiet_env, "--bundled", str(BUNDLED / "portable.bpte"), str(FIXTURES / "mlp" / "portable.pte"))
    assert proc.returncode == 1 and "do not name a model too" in proc.stderr


def test_bundled_damaged_copies_never_crash(sdk: Path, quiet_env: dict[str, str], tmp_path: Path) -> None:
    # random byte damage: refused with a message, or run with cases passing or failing; never a signal
    good = bytearray((BUNDLED / "xnnpack.bpte").read_bytes())
    rng = random.Random(7)
    path = tmp_path / "damaged.bpte"
    outcomes: dict[int, int] = {}
    for _ in range(40):
        data = bytearray(good)
        for _ in range(rng.randint(1, 4)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        path.write_bytes(bytes(data))
        proc = runner(sdk, quiet_env, "--bundled", str(path))
        assert proc.returncode in (0, 2, 3), (proc.returncode, proc.stderr)
        if proc.returncode == 2:
            assert proc.stderr.startswith("error: ")
        outcomes[proc.returncode] = outcomes.get(proc.returncode, 0) + 1
    assert len(outcomes) >= 2, outcomes
