"""Upstream ExecuTorch's ``executorch.extension.pybindings.portable_lib`` API on this runtime.

Scripts written against upstream's wheel run unchanged::

    from executorch.extension.pybindings.portable_lib import _load_for_executorch
    module = _load_for_executorch("model.pte")
    outputs = module.forward((x,))          # or module.run_method("forward", (x,)), module((x,))

Everything goes through :mod:`executorch.runtime` (one shared runtime, one registry, one thread pool per process):
torch tensors in give torch tensors out, numpy arrays give numpy arrays (float16 as numpy's, bfloat16 as
``ml_dtypes.bfloat16``); torch is never imported by this module. Custom-operator libraries built against the SDK
register into the same registry when loaded (``executorch.load_library(path)`` or ``ctypes.CDLL(path)``).

Profiling: ``enable_etdump=True`` records every run; ``write_etdump_result_to_file(path)`` writes upstream's ETDump
format (``executorch.devtools.Inspector`` reads it). Bundled programs (``.bpte``):
``_load_bundled_program_from_buffer``, ``_load_for_executorch_from_bundled_program``, ``load_bundled_input`` /
``plan_execute`` / ``verify_result_with_bundled_expected_output``.

Not provided (they raise NotImplementedError, naming the alternative): ``.ptd`` data files and
``debug_buffer_size`` (intermediate outputs).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from enum import IntEnum
from typing import Any

from executorch import runtime as _runtime

__all__ = [
    "BundledModule",
    "ExecuTorchModule",
    "MethodMeta",
    "TensorInfo",
    "Verification",
    "_get_operator_names",
    "_get_registered_backend_names",
    "_is_available",
    "_load_bundled_program_from_buffer",
    "_load_for_executorch",
    "_load_for_executorch_from_buffer",
    "_load_for_executorch_from_bundled_program",
    "_threadpool_get_thread_count",
    "_unsafe_reset_threadpool",
]

# ScalarType codes (upstream's, the .pte numbering) of the numpy dtype names executorch.runtime reports.
_SCALAR_TYPE_CODES = {
    "uint8": 0,
    "int8": 1,
    "int16": 2,
    "int32": 3,
    "int64": 4,
    "float16": 5,
    "float32": 6,
    "float64": 7,
    "bool": 11,
    "bfloat16": 15,
    "uint16": 27,
    "uint32": 28,
    "uint64": 29,
}


def _torch_imported() -> bool:
    """Outputs of calls without inputs (plan_execute, bundled verification) are torch tensors, as upstream's, when the
    caller uses torch; numpy arrays otherwise."""
    return sys.modules.get("torch") is not None


class Verification(IntEnum):
    """Accepted for compatibility: programs are always fully verified when loaded."""

    Minimal = 0
    InternalConsistency = 1


class TensorInfo:
    """Shape, dtype and size of one method input or output (upstream's ``TensorInfo``)."""

    def __init__(self, info: _runtime.TensorInfo) -> None:
        self._info = info

    def sizes(self) -> tuple[int, ...]:
        return tuple(self._info.shape or ())

    def dtype(self) -> int:
        """The ScalarType code (6 = float32, 15 = bfloat16, ...)."""
        return _SCALAR_TYPE_CODES.get(self._info.dtype or "", -1)

    def is_memory_planned(self) -> bool:
        return self._info.memory_planned

    def nbytes(self) -> int:
        return self._info.nbytes

    def __repr__(self) -> str:
        return f"TensorInfo(sizes={list(self.sizes())}, dtype={self._info.dtype}, nbytes={self.nbytes()})"


class MethodMeta:
    """A method's inputs and outputs (upstream's ``MethodMeta``)."""

    def __init__(self, meta: _runtime.MethodMeta) -> None:
        self._meta = meta

    def name(self) -> str:
        return self._meta.name

    def num_inputs(self) -> int:
        return self._meta.num_inputs()

    def num_outputs(self) -> int:
        return self._meta.num_outputs()

    def input_tensor_meta(self, index: int) -> TensorInfo:
        return TensorInfo(self._meta.inputs[index])

    def output_tensor_meta(self, index: int) -> TensorInfo:
        return TensorInfo(self._meta.outputs[index])

    def __repr__(self) -> str:
        return f"MethodMeta(name={self.name()}, num_inputs={self.num_inputs()}, num_outputs={self.num_outputs()})"


class BundledModule:
    """A bundled program (upstream's ``BundledModule``): a program with test inputs and expected outputs."""

    def __init__(self, bundle: _runtime.BundledProgram) -> None:
        self._bundle = bundle


class ExecuTorchModule:
    """A loaded program whose methods load on first use (upstream's ``ExecuTorchModule``)."""

    def __init__(self, program: _runtime.Program, enable_etdump: bool = False) -> None:
        self._program = program
        self._methods: dict[str, _runtime.Method] = {}
        self._etdump = _runtime.ETDump() if enable_etdump else None

    def _method(self, name: str) -> _runtime.Method:
        method = self._methods.get(name)
        if method is None:
            if name not in self._program.method_names:
                names = sorted(self._program.method_names)
                raise RuntimeError(f"the program has no method {name!r}; its methods: {names}")
            method = self._methods[name] = self._program.load_method(name, self._etdump)
        return method

    def run_method(self, method_name: str, inputs: Sequence[Any], clone_outputs: bool = True) -> list[Any]:
        """Runs ``method_name`` on ``inputs`` (a tuple or list). Outputs are always fresh copies."""
        del clone_outputs  # outputs are always copies here
        if not isinstance(inputs, (tuple, list)):
            raise TypeError(f"inputs must be a tuple or list of values, got {type(inputs).__name__}")
        return self._method(method_name).execute(inputs)

    def forward(self, inputs: Sequence[Any], clone_outputs: bool = True) -> list[Any]:
        return self.run_method("forward", inputs, clone_outputs)

    def __call__(self, inputs: Any, clone_outputs: bool = True) -> list[Any]:
        if not isinstance(inputs, (tuple, list)):
            inputs = (inputs,)
        return self.forward(inputs, clone_outputs)

    def method_names(self) -> list[str]:
        return sorted(self._program.method_names)

    def method_meta(self, method_name: str) -> MethodMeta:
        return MethodMeta(self._program.metadata(method_name))

    def plan_execute(self, method_name: str, clone_outputs: bool = True) -> list[Any]:
        """Runs ``method_name`` on the inputs it holds (e.g. from ``load_bundled_input``)."""
        del clone_outputs
        return self._method(method_name).run(torch_outputs=_torch_imported())

    def load_bundled_input(self, bundle: BundledModule, method_name: str, testset_idx: int) -> None:
        self._method(method_name).load_bundled_input(bundle._bundle, testset_idx)

    def verify_result_with_bundled_expected_output(
        self, bundle: BundledModule, method_name: str, testset_idx: int, rtol: float = 1e-5, atol: float = 1e-8
    ) -> list[Any]:
        """Checks the method's outputs (of its last run) against the test case; raises when they differ."""
        result = self._method(method_name).verify_bundled_outputs(bundle._bundle, testset_idx, rtol, atol)
        if not result.passed:
            raise RuntimeError(f"{method_name} test case {testset_idx}: result verification failed: {result.message}")
        return self._method(method_name).outputs(torch_outputs=_torch_imported())

    def has_etdump(self) -> bool:
        return self._etdump is not None

    def write_etdump_result_to_file(self, path: str, debug_buffer_path: str | None = None) -> None:
        """Writes the ETDump of the runs so far (load with ``enable_etdump=True``)."""
        if self._etdump is None:
            raise RuntimeError("no ETDump: load the program with enable_etdump=True")
        if debug_buffer_path is not None:
            raise NotImplementedError("debug buffers (intermediate outputs) are not supported by this runtime")
        self._etdump.write(path)


def _check_options(data: Any, debug_buffer_size: int) -> None:
    if data is not None:
        raise NotImplementedError("external .ptd data files are not supported here: export with the data inline")
    if debug_buffer_size:
        raise NotImplementedError("debug_buffer_size (intermediate outputs) is not supported by this runtime")


def _load_for_executorch(
    program_path: str | os.PathLike[str],
    data_path: str | None = None,
    enable_etdump: bool = False,
    debug_buffer_size: int = 0,
    program_verification: Verification = Verification.InternalConsistency,
) -> ExecuTorchModule:
    """Loads the program at ``program_path``."""
    del program_verification
    _check_options(data_path, debug_buffer_size)
    return ExecuTorchModule(_runtime.Runtime.get().load_program(program_path), enable_etdump)


def _load_for_executorch_from_buffer(
    buffer: bytes | bytearray | memoryview,
    data_map_buffer: bytes | None = None,
    enable_etdump: bool = False,
    debug_buffer_size: int = 0,
    program_verification: Verification = Verification.InternalConsistency,
) -> ExecuTorchModule:
    """Loads a program from the bytes of a ``.pte`` file."""
    del program_verification
    _check_options(data_map_buffer, debug_buffer_size)
    return ExecuTorchModule(_runtime.Runtime.get().load_program(buffer), enable_etdump)


def _load_bundled_program_from_buffer(buffer: bytes, non_const_pool_size: int = 0) -> BundledModule:
    """Reads a bundled program (the bytes of a ``.bpte`` file)."""
    del non_const_pool_size
    return BundledModule(_runtime.BundledProgram(buffer))


def _load_for_executorch_from_bundled_program(
    module: BundledModule,
    data_map_buffer: bytes | None = None,
    enable_etdump: bool = False,
    debug_buffer_size: int = 0,
) -> ExecuTorchModule:
    """Loads the program inside a bundled program."""
    _check_options(data_map_buffer, debug_buffer_size)
    return ExecuTorchModule(module._bundle.program, enable_etdump)


def _get_operator_names() -> list[str]:
    """Every operator registered in the process (the installed components' and any loaded custom library's)."""
    return sorted(_runtime.Runtime.get().operator_registry.operator_names)


def _get_registered_backend_names() -> list[str]:
    return _runtime.Runtime.get().backend_registry.registered_backend_names


def _is_available(backend_name: str) -> bool:
    return _runtime.Runtime.get().backend_registry.is_available(backend_name)


def _unsafe_reset_threadpool(num_threads: int) -> None:
    _runtime.Runtime.get().set_thread_count(num_threads)


def _threadpool_get_thread_count() -> int:
    return _runtime.Runtime.get().thread_count
