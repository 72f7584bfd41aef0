"""Load and run ExecuTorch programs from Python, with numpy arrays (no torch needed).

    from executorch.runtime import Runtime
    runtime = Runtime.get()
    program = runtime.load_program("model.pte")
    method = program.load_method("forward")
    outputs = method.execute([np.ones((2, 4), np.float32)])

Inputs: numpy arrays of any supported dtype (float16 as numpy's, bfloat16 as ``ml_dtypes.bfloat16``), torch
tensors, objects with ``__dlpack__`` or the buffer protocol, and Python int/float/bool for scalar inputs. Arrays are
read in place, without an extra copy (the runtime copies them into the method's planned input memory). Outputs are
numpy arrays (bfloat16 ones need ``pip install ml_dtypes``), or torch tensors when any input was a torch tensor
(torch is never imported otherwise); Python scalars for scalar outputs. They are always fresh copies, because the
runtime's outputs live in planned memory that the next call overwrites.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any


def _preload_shared_libraries() -> None:
    """Loads this package's own libexecutorch* by absolute path before the extension needs them.

    The dynamic loader then matches the extension's dependencies by SONAME against these, so a different
    libexecutorch.so.* on LD_LIBRARY_PATH (searched before RUNPATH) can never replace ours.
    """
    import ctypes

    import executorch

    lib = Path(executorch.get_lib_dir())
    for stem in ("libexecutorch_threadpool", "libexecutorch"):
        for path in sorted(lib.glob(f"{stem}.so.*")):
            ctypes.CDLL(str(path))


_preload_shared_libraries()

from executorch import _C  # noqa: E402  (after the preload above)

__all__ = [
    "BackendRegistry",
    "BundledCaseResult",
    "BundledProgram",
    "ETDump",
    "ExecuTorchError",
    "Method",
    "MethodMeta",
    "OperatorRegistry",
    "Program",
    "Runtime",
    "TensorInfo",
]


class ExecuTorchError(RuntimeError):
    """A runtime failure. ``code`` is the runtime's numeric Error code, ``error`` its name."""

    def __init__(self, message: str, code: int, error: str) -> None:
        super().__init__(f"{message} [{error} (0x{code:02x})]")
        self.code = code
        self.error = error


_C._register_error_type(ExecuTorchError)


@dataclass(frozen=True)
class TensorInfo:
    """Shape (upper bound when ``dynamic``), dtype and layout of one method input or output."""

    name: str
    kind: str
    shape: tuple[int, ...] | None = None
    dtype: str | None = None
    dim_order: tuple[int, ...] | None = None
    dynamic: bool = False
    memory_planned: bool = False
    nbytes: int = 0


@dataclass(frozen=True)
class MethodMeta:
    name: str
    inputs: tuple[TensorInfo, ...]
    outputs: tuple[TensorInfo, ...]
    backends: tuple[str, ...]
    planned_buffer_sizes: tuple[int, ...]

    @staticmethod
    def _from_dict(d: dict[str, Any]) -> MethodMeta:
        return MethodMeta(
            name=d["name"],
            inputs=tuple(TensorInfo(**e) for e in d["inputs"]),
            outputs=tuple(TensorInfo(**e) for e in d["outputs"]),
            backends=tuple(d["backends"]),
            planned_buffer_sizes=tuple(d["planned_buffer_sizes"]),
        )

    @property
    def input_names(self) -> list[str]:
        return [i.name for i in self.inputs]

    @property
    def output_names(self) -> list[str]:
        return [o.name for o in self.outputs]

    def num_inputs(self) -> int:
        return len(self.inputs)

    def num_outputs(self) -> int:
        return len(self.outputs)


_BF16_BITS = "executorch_dtype"  # dtype metadata key of bfloat16 bits (see cpp/python/bindings.cpp)


def _is_torch_tensor(value: Any) -> bool:
    """True for a torch.Tensor, without importing torch (it is only ever seen when the caller imported it)."""
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(value, torch.Tensor)


def _as_array(value: Any) -> Any:
    """numpy arrays pass through; torch tensors, __dlpack__ and buffer-protocol objects become arrays (no copy when
    already contiguous on the CPU)."""
    import numpy as np  # imported on first use, so that importing this module stays fast

    if isinstance(value, np.ndarray) or value is None or isinstance(value, (bool, int, float)):
        return value
    if _is_torch_tensor(value):
        import torch

        t = value.detach().cpu().contiguous()
        if t.dtype == torch.bfloat16:  # numpy has no bfloat16: pass the bits, tagged
            return t.view(torch.int16).numpy().view(np.dtype(np.uint16, metadata={_BF16_BITS: "bfloat16"}))
        return t.numpy()
    if hasattr(value, "__dlpack__"):
        return np.from_dlpack(value)
    try:
        return np.asarray(memoryview(value))
    except TypeError:
        return np.asarray(value)


def _to_torch(value: Any) -> Any:
    """An output array as a torch tensor (bfloat16 bits become a bfloat16 tensor); other values unchanged."""
    import numpy as np
    import torch

    if not isinstance(value, np.ndarray):
        return value
    if value.dtype.metadata and value.dtype.metadata.get(_BF16_BITS) == "bfloat16":
        return torch.from_numpy(value.view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(value)


def _execute(native: Any, inputs: Sequence[Any]) -> list[Any]:
    """Runs a native method; torch tensors in give torch tensors out, anything else numpy arrays."""
    torch_io = any(_is_torch_tensor(v) for v in inputs)
    outputs = native.execute([_as_array(v) for v in inputs], torch_io)
    return [_to_torch(o) for o in outputs] if torch_io else outputs


class ETDump:
    """Profiling events (one block per run, one event per instruction or delegate call) in upstream ExecuTorch's
    ETDump format, which ``executorch.devtools.Inspector`` reads. Give it to ``Program.load_method(name, etdump)``
    (several methods may share one), run, then ``write(path)``."""

    def __init__(self) -> None:
        self._native = _C.ETDump()

    @property
    def num_blocks(self) -> int:
        return int(self._native.num_blocks)

    @property
    def data(self) -> bytes:
        """The ETDump flatbuffer of the runs recorded since the last read (as upstream's get_etdump_data(): reading
        it ends the recording; later runs start a new one). Empty when nothing ran."""
        return bytes(self._native.data())

    def write(self, path: str | os.PathLike[str]) -> None:
        Path(path).write_bytes(self.data)


@dataclass(frozen=True)
class BundledCaseResult:
    """The outcome of one test case of a bundled program."""

    method: str
    index: int
    passed: bool
    max_abs_error: float
    max_relative_error: float
    message: str = ""
    error: str = "Ok"


class Method:
    """A loaded method. Not thread-safe: use one Method per thread."""

    def __init__(self, native: Any) -> None:
        self._native = native

    @property
    def metadata(self) -> MethodMeta:
        return MethodMeta._from_dict(self._native.metadata)

    def execute(self, inputs: Sequence[Any]) -> list[Any]:
        """Runs the method on ``inputs`` (in the method's input order) and returns its outputs."""
        return _execute(self._native, inputs)

    __call__ = execute

    def load_bundled_input(self, bundle: BundledProgram, index: int) -> None:
        """Sets the method's inputs to those of test case ``index`` of ``bundle``; ``run()`` then runs on them."""
        self._native.load_bundled_input(bundle._native, index)

    def run(self, torch_outputs: bool = False) -> list[Any]:
        """Runs the method on the inputs it holds (from the last execute() or load_bundled_input()); outputs as
        numpy arrays, or as torch tensors with ``torch_outputs``."""
        outputs = self._native.run(torch_outputs)
        return [_to_torch(o) for o in outputs] if torch_outputs else outputs

    def outputs(self, torch_outputs: bool = False) -> list[Any]:
        """The outputs of the last run, again (fresh copies)."""
        outputs = self._native.outputs(torch_outputs)
        return [_to_torch(o) for o in outputs] if torch_outputs else outputs

    def verify_bundled_outputs(
        self, bundle: BundledProgram, index: int, rtol: float = 1e-5, atol: float = 1e-8
    ) -> BundledCaseResult:
        """Compares the method's current outputs with test case ``index`` of ``bundle``."""
        d = self._native.verify_bundled_outputs(bundle._native, index, rtol, atol)
        return BundledCaseResult(method=self.metadata.name, index=index, **d)


class Program:
    def __init__(self, native: Any) -> None:
        self._native = native

    @property
    def method_names(self) -> set[str]:
        return set(self._native.method_names)

    def load_method(self, name: str, etdump: ETDump | None = None) -> Method:
        """Loads a method; with ``etdump``, its runs are recorded there."""
        return Method(self._native.load_method(name, etdump._native if etdump is not None else None))

    def metadata(self, name: str) -> MethodMeta:
        return MethodMeta._from_dict(self._native.metadata(name))


class BundledProgram:
    """A bundled program (``.bpte``): a program with test inputs and expected outputs for its methods."""

    def __init__(self, data: bytes | bytearray | memoryview | str | os.PathLike[str]) -> None:
        raw = bytes(data) if isinstance(data, (bytes, bytearray, memoryview)) else Path(data).read_bytes()
        self._native = _C.BundledProgram.from_bytes(raw)

    @property
    def program(self) -> Program:
        return Program(_C.Program.from_bundled(self._native))

    def verify(self, rtol: float = 1e-5, atol: float = 1e-8, etdump: ETDump | None = None) -> list[BundledCaseResult]:
        """Runs every test case of every method and compares its outputs within ``rtol`` / ``atol``."""
        results = self._native.verify(rtol, atol, etdump._native if etdump is not None else None)
        return [BundledCaseResult(**d) for d in results]


class BackendRegistry:
    @property
    def registered_backend_names(self) -> list[str]:
        return list(_C.registered_backend_names())

    def is_available(self, name: str) -> bool:
        """True when the backend is registered (loading its component library if installed) and usable here."""
        return bool(_C.backend_is_available(name))


class OperatorRegistry:
    @property
    def operator_names(self) -> set[str]:
        return set(_C.operator_names())


class Runtime:
    """The process-wide runtime (one per process, shared with any C++ code in the process)."""

    _instance: Runtime | None = None

    def __init__(self) -> None:
        self.backend_registry = BackendRegistry()
        self.operator_registry = OperatorRegistry()

    @staticmethod
    def get() -> Runtime:
        if Runtime._instance is None:
            Runtime._instance = Runtime()
        return Runtime._instance

    def load_program(self, data: bytes | bytearray | memoryview | str | os.PathLike[str]) -> Program:
        """Loads a program from a path or from the bytes of a ``.pte`` file."""
        if isinstance(data, (bytes, bytearray, memoryview)):
            return Program(_C.Program.from_bytes(bytes(data)))
        return Program(_C.Program.from_path(str(Path(data))))

    @property
    def thread_count(self) -> int:
        """Threads of the process-wide pool (set it with EXECUTORCH_NUM_THREADS or ``set_thread_count``)."""
        return int(_C.thread_count())

    def set_thread_count(self, n: int) -> None:
        _C.set_thread_count(n)
