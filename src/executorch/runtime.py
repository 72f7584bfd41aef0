"""Load and run ExecuTorch programs from Python, with numpy arrays (no torch needed).

    from executorch.runtime import Runtime
    runtime = Runtime.get()
    program = runtime.load_program("model.pte")              # data_path="model.ptd" for weights kept outside
    method = program.load_method("forward")
    outputs = method.execute([np.ones((2, 4), np.float32)])

This is upstream ExecuTorch's ``executorch.runtime`` API (``Runtime``, ``Program``, ``Method``, ``MethodMeta``,
``TensorInfo``, ``Verification``, the backend and operator registries) plus this runtime's extras (ETDump profiling,
bundled programs, several data files, metadata as plain attributes).

Inputs: numpy arrays of any supported dtype (float16 as numpy's, bfloat16 as ``ml_dtypes.bfloat16``), torch
tensors, objects with ``__dlpack__`` or the buffer protocol, and Python int/float/bool for scalar inputs. Arrays are
read in place, without an extra copy (the runtime copies them into the method's planned input memory). Outputs are
numpy arrays (bfloat16 ones need ``pip install ml_dtypes``), or torch tensors when any input was a torch tensor
(torch is never imported otherwise); Python scalars for scalar outputs. They are always fresh copies, because the
runtime's outputs live in planned memory that the next call overwrites.
"""

from __future__ import annotations

import mmap
import os
import sys
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any, BinaryIO


def _preload_shared_libraries() -> None:
    """Loads this package's own libexecutorch* by absolute path before the extension needs them.

    The dynamic loader then matches the extension's dependencies by SONAME against these, so a different
    libexecutorch.so.* on LD_LIBRARY_PATH (searched before RUNPATH) can never replace ours.
    """
    import ctypes

    import executorch

    lib = Path(executorch.get_lib_dir())
    for stem in ("libexecutorch_threadpool", "libexecutorch", "libexecutorch_llm"):
        for path in sorted(lib.glob(f"{stem}.so.*")):
            ctypes.CDLL(str(path))


_preload_shared_libraries()

from executorch import _C  # noqa: E402  (after the preload above)

__all__ = [
    "BackendRegistry",
    "BundledCaseResult",
    "BundledProgram",
    "DataPath",
    "ETDump",
    "ExecuTorchError",
    "Method",
    "MethodMeta",
    "OperatorRegistry",
    "Program",
    "Runtime",
    "TensorInfo",
    "Verification",
]

#: What ``data_path`` takes: a ``.ptd`` file's path or contents, or a sequence of them (several data files).
DataPath = str | os.PathLike | bytes | bytearray | memoryview | Sequence[str | os.PathLike | bytes]


class ExecuTorchError(RuntimeError):
    """A runtime failure. ``code`` is the runtime's numeric Error code, ``error`` its name, ``detail`` the message
    without them."""

    def __init__(self, message: str, code: int, error: str) -> None:
        super().__init__(f"{message} [{error} (0x{code:02x})]")
        self.code = code
        self.error = error
        self.detail = message


_C._register_error_type(ExecuTorchError)

_INVALID_ARGUMENT = (0x12, "InvalidArgument")
_ACCESS_FAILED = (0x22, "AccessFailed")


def _error(message: str, code: tuple[int, str] = _INVALID_ARGUMENT) -> ExecuTorchError:
    return ExecuTorchError(message, code[0], code[1])


class Verification(Enum):
    """How much of a program ``load_program`` checks (upstream's ``Program::Verification``). This runtime always
    runs the full check (flatbuffer verifier plus every index, size and offset); the value is accepted as given."""

    Minimal = 0
    InternalConsistency = 1


@dataclass(frozen=True, repr=False)
class TensorInfo:
    """Shape, dtype and layout of one method input, output or attribute.

    Upstream's accessors: ``sizes()`` (the upper bound when ``dynamic``), ``dtype()`` (the ScalarType code: 6 =
    float32, 15 = bfloat16, ...), ``is_memory_planned()``, ``nbytes()``, and its ``repr``. The fields are this
    runtime's: ``name`` (``input0``, ``output1``, or an attribute's fully qualified name), ``kind`` (``Tensor``,
    ``Int``, ... for non-tensor values, whose other fields are unset), ``shape``, ``dtype_name`` (the numpy name,
    ``bfloat16`` for bfloat16), ``dim_order``, ``dynamic``, ``memory_planned``, ``size_bytes``.
    """

    name: str
    kind: str = "Tensor"
    shape: tuple[int, ...] | None = None
    dtype_name: str | None = None
    scalar_type: int = -1
    scalar_type_name: str = ""
    dim_order: tuple[int, ...] | None = None
    dynamic: bool = False
    memory_planned: bool = False
    size_bytes: int = 0

    def sizes(self) -> tuple[int, ...]:
        return tuple(self.shape or ())

    def dtype(self) -> int:
        return self.scalar_type

    def is_memory_planned(self) -> bool:
        """True when the program places the tensor itself (planned memory or a constant); outputs that are not
        planned get storage from the bindings."""
        return self.memory_planned

    def nbytes(self) -> int:
        return self.size_bytes

    def __repr__(self) -> str:
        return (
            f"TensorInfo(sizes={list(self.sizes())}, dtype={self.scalar_type_name}, "
            f"is_memory_planned={self.memory_planned}, nbytes={self.size_bytes})"
        )


@dataclass(frozen=True, repr=False)
class MethodMeta:
    """A method's inputs, outputs and attributes, known without loading it.

    Upstream's accessors: ``name()``, ``num_inputs()``, ``num_outputs()``, ``num_attributes()``,
    ``input_tensor_meta(i)``, ``output_tensor_meta(i)``, ``attribute_tensor_meta(i)`` (IndexError when out of range
    or not a tensor) and its ``repr``. The fields are this runtime's: ``inputs`` / ``outputs`` / ``attributes``
    (:class:`TensorInfo` of every value, tensors or not), ``backends`` (delegates the method calls) and
    ``planned_buffer_sizes``.
    """

    method_name: str
    inputs: tuple[TensorInfo, ...]
    outputs: tuple[TensorInfo, ...]
    attributes: tuple[TensorInfo, ...] = ()
    backends: tuple[str, ...] = ()
    planned_buffer_sizes: tuple[int, ...] = ()

    @staticmethod
    def _from_dict(d: dict[str, Any]) -> MethodMeta:
        def infos(entries: list[dict[str, Any]]) -> tuple[TensorInfo, ...]:
            return tuple(TensorInfo(**e) for e in entries)

        return MethodMeta(
            method_name=d["method_name"],
            inputs=infos(d["inputs"]),
            outputs=infos(d["outputs"]),
            attributes=infos(d["attributes"]),
            backends=tuple(d["backends"]),
            planned_buffer_sizes=tuple(d["planned_buffer_sizes"]),
        )

    def name(self) -> str:
        return self.method_name

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

    def num_attributes(self) -> int:
        return len(self.attributes)

    @staticmethod
    def _tensor(infos: tuple[TensorInfo, ...], index: int, what: str) -> TensorInfo:
        if not 0 <= index < len(infos):
            raise IndexError(f"Cannot get {what} tensor meta at {index}: the method has {len(infos)} {what}s")
        if infos[index].kind != "Tensor":
            raise IndexError(f"Cannot get {what} tensor meta at {index}: it is a {infos[index].kind}, not a tensor")
        return infos[index]

    def input_tensor_meta(self, index: int) -> TensorInfo:
        return self._tensor(self.inputs, index, "input")

    def output_tensor_meta(self, index: int) -> TensorInfo:
        return self._tensor(self.outputs, index, "output")

    def attribute_tensor_meta(self, index: int) -> TensorInfo:
        return self._tensor(self.attributes, index, "attribute")

    def __repr__(self) -> str:
        def strs(infos: tuple[TensorInfo, ...]) -> list[str]:
            return [repr(i) if i.kind == "Tensor" else i.kind for i in infos]

        return (
            f"MethodMeta(name={self.method_name!r}, num_inputs={self.num_inputs()}, "
            f"input_tensor_meta={strs(self.inputs)}, num_outputs={self.num_outputs()}, "
            f"output_tensor_meta={strs(self.outputs)})"
        )


_BF16_BITS = "executorch_dtype"  # dtype metadata key of bfloat16 bits (see cpp/python/bindings.cpp)


def _is_torch_tensor(value: Any) -> bool:
    """True for a torch.Tensor, without importing torch (it is only ever seen when the caller imported it)."""
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(value, torch.Tensor)


def _as_array(index: int, value: Any) -> Any:
    """numpy arrays pass through; torch tensors, __dlpack__ and buffer-protocol objects become arrays (no copy when
    already contiguous on the CPU)."""
    import numpy as np  # imported on first use, so that importing this module stays fast

    if isinstance(value, np.ndarray) or value is None or isinstance(value, (bool, int, float)):
        return value
    if _is_torch_tensor(value):
        import torch

        if value.device.type not in ("cpu", "cuda"):
            raise _error(f"input {index} is on device {value.device}: only CPU and CUDA tensors can be inputs")
        t = value.detach().cpu().contiguous()
        if t.dtype == torch.bfloat16:  # numpy has no bfloat16: pass the bits, tagged
            return t.view(torch.int16).numpy().view(np.dtype(np.uint16, metadata={_BF16_BITS: "bfloat16"}))
        return t.numpy()
    if isinstance(value, (list, tuple, dict, str)):
        raise _error(
            f"input {index} is a {type(value).__name__}: pass the inputs as a flat sequence of tensors, arrays and "
            "scalars"
        )
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


def _as_inputs(inputs: Any) -> Sequence[Any]:
    """A sequence of inputs; a single tensor or array (as upstream's ``__call__`` takes) becomes a 1-tuple."""
    return inputs if isinstance(inputs, (list, tuple)) else (inputs,)


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
    """A loaded method. Not thread-safe: use one Method per thread (``Program.load_method`` returns the same
    Method for the same name; ``Program.load_method(name, fresh=True)`` another one)."""

    def __init__(self, native: Any) -> None:
        self._native = native
        self._torch_io = False

    @property
    def metadata(self) -> MethodMeta:
        return MethodMeta._from_dict(self._native.metadata)

    def execute(self, inputs: Sequence[Any]) -> list[Any]:
        """Runs the method on ``inputs`` (in the method's input order) and returns its outputs."""
        self.set_inputs(inputs)
        return self.run()

    def __call__(self, inputs: Any = ()) -> list[Any]:
        """``execute``; a single tensor or array is taken as the only input."""
        return self.execute(_as_inputs(inputs))

    def set_inputs(self, inputs: Sequence[Any]) -> None:
        """Sets the inputs that ``run()`` runs on. Torch tensors among them make ``run()`` return torch tensors."""
        self._torch_io = any(_is_torch_tensor(v) for v in inputs)
        self._native.set_inputs([_as_array(i, v) for i, v in enumerate(inputs)])

    def _torch(self, torch_outputs: bool | None) -> bool:
        return self._torch_io if torch_outputs is None else torch_outputs

    def run(self, torch_outputs: bool | None = None) -> list[Any]:
        """Runs the method on the inputs it holds (from ``set_inputs``, ``execute`` or ``load_bundled_input``).
        Outputs are torch tensors with ``torch_outputs`` (by default: when the inputs were)."""
        use_torch = self._torch(torch_outputs)
        outputs = self._native.run(use_torch)
        return [_to_torch(o) for o in outputs] if use_torch else outputs

    def outputs(self, torch_outputs: bool | None = None) -> list[Any]:
        """The outputs of the last run, again (fresh copies)."""
        use_torch = self._torch(torch_outputs)
        outputs = self._native.outputs(use_torch)
        return [_to_torch(o) for o in outputs] if use_torch else outputs

    def get_attribute(self, name: str, torch_outputs: bool | None = None) -> Any:
        """A copy of the method's tensor named ``name`` (a mutable buffer or weight with a fully qualified name,
        see ``metadata.attributes``), as it is now."""
        use_torch = self._torch(torch_outputs)
        value = self._native.get_attribute(name, use_torch)
        return _to_torch(value) if use_torch else value

    def load_bundled_input(self, bundle: BundledProgram, index: int) -> None:
        """Sets the method's inputs to those of test case ``index`` of ``bundle``; ``run()`` then runs on them."""
        self._torch_io = False
        self._native.load_bundled_input(bundle._native, index)

    def verify_bundled_outputs(
        self, bundle: BundledProgram, index: int, rtol: float = 1e-5, atol: float = 1e-8
    ) -> BundledCaseResult:
        """Compares the method's current outputs with test case ``index`` of ``bundle``."""
        d = self._native.verify_bundled_outputs(bundle._native, index, rtol, atol)
        return BundledCaseResult(method=self.metadata.method_name, index=index, **d)


def _data_sources(data_path: DataPath | None) -> list[str | bytes]:
    """``data_path`` as the list the extension takes: paths as str, contents as bytes."""
    if data_path is None:
        return []
    items = [data_path] if isinstance(data_path, (str, os.PathLike, bytes, bytearray, memoryview)) else data_path
    out: list[str | bytes] = []
    for item in items:
        if isinstance(item, (bytes, bytearray, memoryview)):
            out.append(bytes(item))
        elif isinstance(item, (str, os.PathLike)):
            out.append(os.fspath(item))
        else:
            raise TypeError(f"data_path takes paths or bytes of .ptd files, got {type(item).__name__}")
    return out


def _reads_data_files(buffer: Any) -> bool:
    """Whether a program (its bytes, already verified by the runtime) can read a data file: some tensor of it is
    EXTERNAL (kept in a .ptd, found by its fully qualified name), or it calls delegates (which may read named data
    from one)."""
    from executorch._schema.KernelTypes import KernelTypes
    from executorch._schema.Program import Program as FbProgram
    from executorch._schema.Tensor import Tensor as FbTensor
    from executorch._schema.TensorDataLocation import TensorDataLocation

    program = FbProgram.GetRootAs(buffer, 0)
    for p in range(program.ExecutionPlanLength()):
        plan = program.ExecutionPlan(p)
        if plan.DelegatesLength() > 0:
            return True
        for v in range(plan.ValuesLength()):
            value = plan.Values(v)
            if value.ValType() != KernelTypes.Tensor:
                continue
            table = value.Val()
            tensor = FbTensor()
            tensor.Init(table.Bytes, table.Pos)
            info = tensor.ExtraTensorInfo()
            if info is not None and info.Location() == TensorDataLocation.EXTERNAL:
                return True
    return False


class Program:
    """A loaded program (with its data files, if any). Methods load on request and are kept: ``load_method``
    returns the same :class:`Method` for the same name, as upstream's does."""

    def __init__(
        self, native: Any, *, path: str | None = None, etdump: ETDump | None = None, debug_buffer: bool = False
    ) -> None:
        self._native = native
        self._path = path
        self._etdump = etdump
        self._debug_buffer = debug_buffer
        self._methods: dict[str, Method] = {}

    @property
    def method_names(self) -> set[str]:
        return set(self._native.method_names)

    @property
    def data_files(self) -> list[str]:
        """The data files the program was loaded with (paths; ``data buffer <i>`` for contents)."""
        return list(self._native.data_files)

    def _reads_data_files(self) -> bool:
        if self._native.in_memory:
            return _reads_data_files(memoryview(self._native))
        assert self._path is not None
        with open(self._path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
            return _reads_data_files(m)

    def _load(self, name: str, etdump: ETDump | None) -> Method:
        recorder = etdump if etdump is not None else self._etdump
        try:
            return Method(self._native.load_method(name, recorder._native if recorder is not None else None))
        except ExecuTorchError as e:
            if (
                self._native.data_files
                or "data_path=" in e.detail
                or name not in self.method_names
                or not self._reads_data_files()
            ):
                raise
            hint = (
                "; the program keeps data (weights) in a separate .ptd file: pass it with "
                "load_program(..., data_path=...)"
            )
            raise ExecuTorchError(e.detail + hint, e.code, e.error) from None

    def load_method(self, name: str, etdump: ETDump | None = None, *, fresh: bool = False) -> Method:
        """The method ``name``, loaded on first request and kept. With ``etdump`` (or ``fresh``), a new Method is
        loaded (not kept) whose runs are recorded there."""
        if etdump is not None or fresh:
            return self._load(name, etdump)
        method = self._methods.get(name)
        if method is None:
            method = self._methods[name] = self._load(name, None)
        return method

    def metadata(self, name: str) -> MethodMeta:
        """The metadata of method ``name``, without loading it."""
        return MethodMeta._from_dict(self._native.metadata(name))

    def has_etdump(self) -> bool:
        return self._etdump is not None

    def write_etdump_result_to_file(self, etdump_path: str, debug_buffer_path: str | None = None) -> None:
        """Writes the ETDump of the runs so far (load the program with ``enable_etdump=True``). With a debug buffer
        requested (``debug_buffer_size``), ``debug_buffer_path`` is written too, empty: this runtime records no
        intermediate outputs."""
        if self._etdump is None:
            raise RuntimeError("no ETDump: load the program with enable_etdump=True")
        self._etdump.write(etdump_path)
        if self._debug_buffer and debug_buffer_path is not None:
            Path(debug_buffer_path).write_bytes(b"")


class BundledProgram:
    """A bundled program (``.bpte``): a program with test inputs and expected outputs for its methods."""

    def __init__(self, data: bytes | bytearray | memoryview | str | os.PathLike[str]) -> None:
        raw = bytes(data) if isinstance(data, (bytes, bytearray, memoryview)) else Path(data).read_bytes()
        self._native = _C.BundledProgram.from_bytes(raw)

    @property
    def program(self) -> Program:
        return self.load_program()

    def load_program(self, data_path: DataPath | None = None) -> Program:
        """The program inside, with its data files if it keeps data outside (see ``Runtime.load_program``)."""
        return _finish(Program(_C.Program.from_bundled(self._native, _data_sources(data_path))))

    def verify(self, rtol: float = 1e-5, atol: float = 1e-8, etdump: ETDump | None = None) -> list[BundledCaseResult]:
        """Runs every test case of every method and compares its outputs within ``rtol`` / ``atol``."""
        results = self._native.verify(rtol, atol, etdump._native if etdump is not None else None)
        return [BundledCaseResult(**d) for d in results]


def _warn_debug_buffer(enable_etdump: bool, debug_buffer_size: int) -> None:
    # Upstream uses the debug buffer only with an ETDump (and ignores the size without one).
    if enable_etdump and debug_buffer_size:
        warnings.warn(
            "debug_buffer_size: this runtime records no intermediate outputs; the ETDump has every instruction's "
            "timing and the debug buffer file is written empty",
            RuntimeWarning,
            stacklevel=3,
        )


def _finish(program: Program) -> Program:
    """Refuses data files given to a program that keeps all its data inside the .pte."""
    files = program.data_files
    if files and not program._reads_data_files():
        raise ValueError(
            f"{', '.join(files)}: this program keeps all its data inside the .pte; it needs no data file "
            "(leave out data_path)"
        )
    return program


class BackendRegistry:
    @property
    def registered_backend_names(self) -> list[str]:
        """The registered backends, including those of every installed component library that loads here (the
        runtime would load them on demand)."""
        return list(_C.registered_backend_names())

    def is_available(self, backend_name: str) -> bool:
        """True when the backend is registered (loading its component library if installed) and usable here."""
        return bool(_C.backend_is_available(backend_name))


class OperatorRegistry:
    @property
    def operator_names(self) -> set[str]:
        """Every registered operator, including those of every installed component library."""
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

    def load_program(
        self,
        data: bytes | bytearray | memoryview | BinaryIO | str | os.PathLike[str],
        *,
        verification: Verification = Verification.InternalConsistency,
        enable_etdump: bool = False,
        debug_buffer_size: int = 0,
        data_path: DataPath | None = None,
    ) -> Program:
        """Loads a program from a path, the bytes of a ``.pte`` file, or a file object.

        ``data_path``: the ``.ptd`` file(s) holding data the program keeps outside the ``.pte`` (its weights when
        exported with ``external_constants``, XNNPACK's named data): a path, the file's bytes, or a list of them
        (each key in exactly one). Errors name the file: one that cannot be read or is not a ``.ptd``, files that
        clash, and a data file given to a program that reads none (ValueError). A tensor missing from the files is
        reported when its method loads. ``enable_etdump``: the program's methods record into an ETDump
        (``write_etdump_result_to_file``). ``verification`` is accepted; programs are always fully verified.
        """
        level = Verification(verification).value
        _warn_debug_buffer(enable_etdump, debug_buffer_size)
        sources = _data_sources(data_path)
        path: str | None = None
        if isinstance(data, (str, os.PathLike)):
            path = os.fspath(data)
            native = _C.Program.from_path(path, sources, level)
        else:
            if isinstance(data, (bytes, bytearray, memoryview)):
                raw = bytes(data)
            elif hasattr(data, "read"):
                raw = data.read()
            else:
                raise TypeError(
                    "Expected data to be bytes, bytearray, a path to a .pte file, or a file-like object, but got "
                    f"{type(data).__name__}."
                )
            native = _C.Program.from_bytes(raw, sources, level)
        etdump = ETDump() if enable_etdump else None
        return _finish(Program(native, path=path, etdump=etdump, debug_buffer=bool(etdump and debug_buffer_size)))

    @property
    def thread_count(self) -> int:
        """Threads of the process-wide pool (set it with EXECUTORCH_NUM_THREADS or ``set_thread_count``)."""
        return int(_C.thread_count())

    def set_thread_count(self, n: int) -> None:
        _C.set_thread_count(n)
