"""Runs single operators through executorch_op_harness (a test program of the release build tree)."""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from et_common import BUILD_ASAN, BUILD_SDK, built_program

HARNESS = "executorch_op_harness"
REPO = Path(__file__).resolve().parent.parent.parent


def registered_operators(component: str) -> set[str]:
    """The operator names a kernel library registers: every ET_KERNEL_OP("name", ...) in cpp/<component>/src."""
    names: set[str] = set()
    for src in sorted((REPO / "cpp" / component / "src").rglob("*.cpp")):
        names |= set(re.findall(r'ET_KERNEL_OP\(\s*"([^"]+)"', src.read_text()))
    return names


_DT = {
    np.dtype(np.float32): "f32",
    np.dtype(np.float64): "f64",
    np.dtype(np.float16): "f16",
    np.dtype(np.int64): "i64",
    np.dtype(np.int32): "i32",
    np.dtype(np.int16): "i16",
    np.dtype(np.uint16): "u16",
    np.dtype(np.int8): "i8",
    np.dtype(np.uint8): "u8",
    np.dtype(np.bool_): "bool",
}


# NumPy has no bfloat16: a bf16 tensor travels as its uint16 bit patterns (T(bits, view=BF16) in, Out(BF16, ...)
# out, read back as uint16).
BF16 = "bf16"


def bf16_bits(x: np.ndarray) -> np.ndarray:
    """float32 -> bfloat16 bits, round half to even, NaN -> 0x7fc0."""
    u = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    return np.where(np.isnan(x), np.uint16(0x7FC0), r).astype(np.uint16)


def bf16_value(bits: np.ndarray) -> np.ndarray:
    """bfloat16 bits -> their float32 values."""
    return (np.asarray(bits, np.uint16).astype(np.uint32) << 16).view(np.float32)


def _dt(dtype: Any) -> str:
    return BF16 if isinstance(dtype, str) and dtype == BF16 else _DT[np.dtype(dtype)]


@dataclass(frozen=True)
class T:
    """A tensor argument, optionally laid out in another dim order, marked DYNAMIC_BOUND, or reinterpreted as
    another dtype of the same element size (view="bf16")."""

    a: np.ndarray
    dim_order: tuple[int, ...] | None = None
    dynamic: bool = False
    view: str | None = None


@dataclass(frozen=True)
class Out:
    """An output tensor: dtype (numpy), shape (an upper bound when dynamic)."""

    dtype: Any
    shape: tuple[int, ...]
    dim_order: tuple[int, ...] | None = None
    dynamic: bool = False


@dataclass(frozen=True)
class OutList:
    outs: tuple[Out, ...]


@dataclass(frozen=True)
class TL:
    """A tensor list (opt=True: entries may be None)."""

    arrays: tuple[np.ndarray | None, ...]
    opt: bool = False


class Ints(tuple):
    pass


class Doubles(tuple):
    pass


@dataclass
class Result:
    rc: int
    outs: list[np.ndarray] = field(default_factory=list)
    stderr: str = ""


def _spec(o: Out) -> str:
    return f"{_dt(o.dtype)}:{','.join(str(s) for s in o.shape)}"


def _mods(dim_order: tuple[int, ...] | None, dynamic: bool) -> list[str]:
    r: list[str] = []
    if dim_order is not None:
        r += ["--dim-order", ",".join(str(d) for d in dim_order)]
    if dynamic:
        r.append("--dynamic")
    return r


class Runner:
    def __init__(self, exe: Path, tmp: Path) -> None:
        self.exe = exe
        self.tmp = tmp
        self.count = 0

    def _save(self, a: np.ndarray) -> str:
        self.count += 1
        p = self.tmp / f"a{self.count}.npy"
        np.save(p, np.ascontiguousarray(a))
        return str(p)

    def __call__(self, op: str, *args: Any) -> Result:
        cmd = [str(self.exe), op]
        for a in args:
            if isinstance(a, T):
                cmd += ["--tensor", self._save(a.a), *_mods(a.dim_order, a.dynamic)]
                if a.view is not None:
                    cmd += ["--as", a.view]
            elif isinstance(a, np.ndarray):
                cmd += ["--tensor", self._save(a)]
            elif isinstance(a, Out):
                cmd += ["--out", _spec(a), *_mods(a.dim_order, a.dynamic)]
            elif isinstance(a, OutList):
                cmd += ["--out-list", ";".join(_spec(o) for o in a.outs)]
                if any(o.dynamic for o in a.outs):
                    cmd.append("--dynamic")
            elif isinstance(a, TL):
                names = ["none" if x is None else self._save(x) for x in a.arrays]
                cmd += ["--opt-tensors" if a.opt else "--tensors", ",".join(names)]
            elif isinstance(a, Ints):
                cmd += ["--ints", ",".join(str(int(x)) for x in a)]
            elif isinstance(a, Doubles):
                cmd += ["--doubles", ",".join(repr(float(x)) for x in a)]
            elif a is None:
                cmd.append("--none")
            elif isinstance(a, bool):
                cmd += ["--bool", str(int(a))]
            elif isinstance(a, int):
                cmd += ["--int", str(a)]
            elif isinstance(a, float):
                cmd += ["--double", repr(a)]
            elif isinstance(a, str):
                cmd += ["--string", a]
            else:
                raise TypeError(f"unsupported argument {a!r}")
        outdir = self.tmp / f"out{self.count}"
        self.count += 1
        outdir.mkdir()
        cmd += ["--outdir", str(outdir)]
        env = dict(os.environ, EXECUTORCH_LOG_LEVEL="fatal", ASAN_OPTIONS="detect_leaks=0")
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)
        res = Result(rc=p.returncode, stderr=p.stderr)
        if p.returncode == 0:
            k = 0
            while (outdir / f"out{k}.npy").exists():
                res.outs.append(np.load(outdir / f"out{k}.npy"))
                k += 1
        return res


@pytest.fixture(scope="session")
def harness_exe(release_build: Path) -> Path:
    return built_program(release_build, HARNESS, BUILD_SDK)


@pytest.fixture(scope="session")
def asan_harness_exe(asan_build: Path) -> Path:
    return built_program(asan_build, HARNESS, BUILD_ASAN)


@pytest.fixture
def run_op(harness_exe: Path, tmp_path: Path) -> Runner:
    return Runner(harness_exe, tmp_path)


@pytest.fixture
def run_op_asan(asan_harness_exe: Path, tmp_path: Path) -> Runner:
    return Runner(asan_harness_exe, tmp_path)
