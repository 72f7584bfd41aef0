"""Upstream ExecuTorch's ``executorch.extension.pybindings.portable_lib`` API on this runtime.

Scripts written against upstream's wheel run unchanged::

    from executorch.extension.pybindings.portable_lib import _load_for_executorch
    module = _load_for_executorch("model.pte")             # ("model.pte", "model.ptd") with a data file
    outputs = module.forward((x,))          # or module.run_method("forward", (x,)), module((x,))

    program = _load_program("model.pte", data_path="model.ptd")
    method = program.load_method("forward")
    outputs = method((x,))                  # or set_inputs / execute / get_outputs

Everything goes through :mod:`executorch.runtime` (one shared runtime, one registry, one thread pool per process):
torch tensors in give torch tensors out, numpy arrays give numpy arrays (float16 as numpy's, bfloat16 as
``ml_dtypes.bfloat16``); torch is never imported by this module. Custom-operator libraries built against the SDK
register into the same registry when loaded (``executorch.load_library(path)`` or ``ctypes.CDLL(path)``).

As upstream's, ``_load_for_executorch*`` modules load their program (and data files) when first used, so an invalid
program or data buffer raises then; a program or data file path that cannot be opened raises at once. Besides one
data file (a path, or bytes for the ``_buffer`` / bundled variants), every ``data_path`` / ``data_map_buffer`` here
also takes a list of them (a program whose data is split over several ``.ptd`` files).

Profiling: ``enable_etdump=True`` records every run; ``write_etdump_result_to_file(path)`` writes upstream's ETDump
format (``executorch.devtools.Inspector`` reads it). Bundled programs (``.bpte``):
``_load_bundled_program_from_buffer``, ``_load_for_executorch_from_bundled_program``,
``BundledModule.verify_result_with_bundled_expected_output``, and the older ``load_bundled_input`` /
``plan_execute`` / ``verify_result_with_bundled_expected_output`` of the module.

``debug_buffer_size`` is accepted with a RuntimeWarning: this runtime records no intermediate outputs, so the
debug buffer file is written empty. Not provided (NotImplementedError, naming the alternative):
``_load_for_executorch_from_data_loader`` (its ``PyDataLoader`` comes from C++ extensions built against upstream's
wheel). ``_create_profile_block`` / ``_dump_profile_results`` / ``_reset_profile_results`` behave as in
upstream's release wheel, whose legacy profiler is compiled out (they do nothing; the dump is empty).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from executorch import runtime as _runtime
from executorch.runtime import DataPath, ExecuTorchError, MethodMeta, TensorInfo, Verification

__all__ = [
    "BundledModule",
    "ExecuTorchMethod",
    "ExecuTorchModule",
    "ExecuTorchProgram",
    "MethodMeta",
    "TensorInfo",
    "Verification",
    "_create_profile_block",
    "_dump_profile_results",
    "_get_operator_names",
    "_get_registered_backend_names",
    "_is_available",
    "_load_bundled_program_from_buffer",
    "_load_for_executorch",
    "_load_for_executorch_from_buffer",
    "_load_for_executorch_from_bundled_program",
    "_load_for_executorch_from_data_loader",
    "_load_program",
    "_load_program_from_buffer",
    "_reset_profile_results",
    "_threadpool_get_thread_count",
    "_unsafe_reset_threadpool",
]


def _torch_imported() -> bool:
    """Outputs of calls without inputs (plan_execute, bundled verification) are torch tensors, as upstream's, when the
    caller uses torch; numpy arrays otherwise."""
    return sys.modules.get("torch") is not None


def _check_debug_buffer(enable_etdump: bool, debug_buffer_size: int) -> None:
    _runtime._warn_debug_buffer(enable_etdump, debug_buffer_size)


def _check_readable(paths: Sequence[str | bytes], what: str) -> None:
    """Opens every path now (as upstream does when it maps its files), so that a missing file fails at load."""
    for p in paths:
        if isinstance(p, bytes):
            continue
        try:
            with open(p, "rb"):
                pass
        except OSError as e:
            raise ExecuTorchError(f"cannot open {what} {p}: {e.strerror}", 0x22, "AccessFailed") from None


def _sources(data: DataPath | None) -> list[str | bytes]:
    return _runtime._data_sources(data)


class BundledModule:
    """A bundled program (upstream's ``BundledModule``): a program with test inputs and expected outputs."""

    def __init__(self, bundle: _runtime.BundledProgram) -> None:
        self._bundle = bundle
        self._program: _runtime.Program | None = None

    def verify_result_with_bundled_expected_output(
        self, method_name: str, testset_idx: int, rtol: float = 1e-5, atol: float = 1e-8
    ) -> list[Any]:
        """Runs ``method_name`` on test case ``testset_idx``'s inputs and checks its outputs against the expected
        ones (RuntimeError when they differ); returns the outputs."""
        if self._program is None:
            self._program = self._bundle.load_program()
        method = self._program.load_method(method_name)
        method.load_bundled_input(self._bundle, testset_idx)
        outputs = method.run(torch_outputs=_torch_imported())
        result = method.verify_bundled_outputs(self._bundle, testset_idx, rtol, atol)
        if not result.passed:
            raise RuntimeError(f"{method_name} test case {testset_idx}: result verification failed: {result.message}")
        return outputs


class ExecuTorchMethod:
    """A loaded method of an :class:`ExecuTorchProgram` (upstream's ``ExecuTorchMethod``)."""

    def __init__(self, method: _runtime.Method) -> None:
        self._method = method

    def set_inputs(self, inputs: Sequence[Any]) -> None:
        self._method.set_inputs(inputs)

    def execute(self) -> None:
        """Runs the method on the inputs set by ``set_inputs``; ``get_outputs()`` returns the outputs."""
        self._method.run()

    def get_outputs(self, clone_outputs: bool = True) -> list[Any]:
        """The outputs of the last ``execute()`` (always fresh copies here)."""
        del clone_outputs
        return self._method.outputs()

    def call(self, inputs: Any = (), clone_outputs: bool = True) -> list[Any]:
        """Runs the method on ``inputs`` (a sequence, or a single tensor) and returns its outputs."""
        del clone_outputs
        return self._method.execute(_runtime._as_inputs(inputs))

    __call__ = call

    def method_meta(self) -> MethodMeta:
        return self._method.metadata

    def get_attribute(self, name: str) -> Any:
        """A copy of the method's tensor ``name`` (e.g. a mutable buffer exported with emit_mutable_buffer_names)."""
        return self._method.get_attribute(name, torch_outputs=_torch_imported() or None)


class ExecuTorchProgram:
    """A loaded program (upstream's ``ExecuTorchProgram``); ``load_method`` loads a new method every call."""

    def __init__(self, program: _runtime.Program) -> None:
        self._program = program
        self._names = list(program._native.method_names)

    def num_methods(self) -> int:
        return len(self._names)

    def get_method_name(self, method_index: int) -> str:
        if not 0 <= method_index < len(self._names):
            raise ExecuTorchError(
                f"method index {method_index} is out of range: the program has {len(self._names)} methods",
                0x12,
                "InvalidArgument",
            )
        return self._names[method_index]

    def load_method(self, method_name: str) -> ExecuTorchMethod:
        return ExecuTorchMethod(self._program.load_method(method_name, fresh=True))

    def method_meta(self, method_name: str) -> MethodMeta:
        return self._program.metadata(method_name)

    def has_etdump(self) -> bool:
        return self._program.has_etdump()

    def write_etdump_result_to_file(self, path: str, debug_buffer_path: str | None = None) -> None:
        self._program.write_etdump_result_to_file(path, debug_buffer_path)


class ExecuTorchModule:
    """A program whose methods load on first use (upstream's ``ExecuTorchModule``). The program itself (and its
    data files) loads on first use too, as upstream's ``Module`` does: an invalid program or data file raises
    then."""

    def __init__(
        self, load: Callable[[], _runtime.Program], enable_etdump: bool = False, debug_buffer_size: int = 0
    ) -> None:
        self._load = load
        self._loaded: _runtime.Program | None = None
        self._methods: dict[str, _runtime.Method] = {}
        self._etdump = _runtime.ETDump() if enable_etdump else None
        self._debug_buffer = bool(enable_etdump and debug_buffer_size)

    @property
    def _program(self) -> _runtime.Program:
        if self._loaded is None:
            self._loaded = self._load()
        return self._loaded

    def _method(self, name: str) -> _runtime.Method:
        method = self._methods.get(name)
        if method is None:
            program = self._program
            if name not in program.method_names:
                names = sorted(program.method_names)
                raise _runtime._error(f"the program has no method {name!r}; its methods: {names}")
            method = self._methods[name] = program.load_method(name, self._etdump, fresh=True)
        return method

    def run_method(self, method_name: str, inputs: Sequence[Any] = (), clone_outputs: bool = True) -> list[Any]:
        """Runs ``method_name`` on ``inputs`` (a tuple or list). Outputs are always fresh copies."""
        del clone_outputs  # outputs are always copies here
        if not isinstance(inputs, (tuple, list)):
            raise TypeError(f"inputs must be a tuple or list of values, got {type(inputs).__name__}")
        return self._method(method_name).execute(inputs)

    def forward(self, inputs: Sequence[Any] = (), clone_outputs: bool = True) -> list[Any]:
        return self.run_method("forward", inputs, clone_outputs)

    def __call__(self, inputs: Any = (), clone_outputs: bool = True) -> list[Any]:
        return self.forward(_runtime._as_inputs(inputs), clone_outputs)

    def method_names(self) -> list[str]:
        return sorted(self._program.method_names)

    def method_meta(self, method_name: str) -> MethodMeta:
        return self._program.metadata(method_name)

    def plan_execute(self, method_name: str, clone_outputs: bool = True) -> list[Any]:
        """Runs ``method_name`` on the inputs it holds (e.g. from ``load_bundled_input``)."""
        del clone_outputs
        return self._method(method_name).run(torch_outputs=_torch_imported() or None)

    def load_bundled_input(self, bundle: BundledModule, method_name: str, testset_idx: int) -> None:
        self._method(method_name).load_bundled_input(bundle._bundle, testset_idx)

    def verify_result_with_bundled_expected_output(
        self, bundle: BundledModule, method_name: str, testset_idx: int, rtol: float = 1e-5, atol: float = 1e-8
    ) -> list[Any]:
        """Checks the method's outputs (of its last run) against the test case; raises when they differ."""
        result = self._method(method_name).verify_bundled_outputs(bundle._bundle, testset_idx, rtol, atol)
        if not result.passed:
            raise RuntimeError(f"{method_name} test case {testset_idx}: result verification failed: {result.message}")
        return self._method(method_name).outputs(torch_outputs=_torch_imported() or None)

    def has_etdump(self) -> bool:
        return self._etdump is not None

    def write_etdump_result_to_file(self, path: str, debug_buffer_path: str | None = None) -> None:
        """Writes the ETDump of the runs so far (load with ``enable_etdump=True``)."""
        if self._etdump is None:
            raise RuntimeError("no ETDump: load the program with enable_etdump=True")
        self._etdump.write(path)
        if self._debug_buffer and debug_buffer_path is not None:  # no intermediate outputs recorded: empty
            with open(debug_buffer_path, "wb"):
                pass


def _load_for_executorch(
    program_path: str | os.PathLike[str],
    data_path: DataPath | None = None,
    enable_etdump: bool = False,
    debug_buffer_size: int = 0,
    program_verification: Verification = Verification.InternalConsistency,
) -> ExecuTorchModule:
    """Loads the program at ``program_path``, with its ``.ptd`` data file(s) ``data_path``."""
    _check_debug_buffer(enable_etdump, debug_buffer_size)
    sources = _sources(data_path)
    _check_readable([os.fspath(program_path)], "program")
    _check_readable(sources, "data file")
    runtime = _runtime.Runtime.get()
    return ExecuTorchModule(
        lambda: runtime.load_program(program_path, verification=program_verification, data_path=sources),
        enable_etdump,
        debug_buffer_size,
    )


def _load_for_executorch_from_buffer(
    buffer: bytes | bytearray | memoryview,
    data_map_buffer: DataPath | None = None,
    enable_etdump: bool = False,
    debug_buffer_size: int = 0,
    program_verification: Verification = Verification.InternalConsistency,
) -> ExecuTorchModule:
    """Loads a program from the bytes of a ``.pte`` file, with the bytes of its ``.ptd`` data file(s)."""
    _check_debug_buffer(enable_etdump, debug_buffer_size)
    data, sources = bytes(buffer), _sources(data_map_buffer)
    _check_readable(sources, "data file")
    runtime = _runtime.Runtime.get()
    return ExecuTorchModule(
        lambda: runtime.load_program(data, verification=program_verification, data_path=sources),
        enable_etdump,
        debug_buffer_size,
    )


def _load_for_executorch_from_bundled_program(
    module: BundledModule,
    data_map_buffer: DataPath | None = None,
    enable_etdump: bool = False,
    debug_buffer_size: int = 0,
) -> ExecuTorchModule:
    """Loads the program inside a bundled program, with its data file(s) (bytes or a path, as upstream's two
    overloads take)."""
    _check_debug_buffer(enable_etdump, debug_buffer_size)
    sources = _sources(data_map_buffer)
    _check_readable(sources, "data file")
    return ExecuTorchModule(lambda: module._bundle.load_program(sources), enable_etdump, debug_buffer_size)


def _load_for_executorch_from_data_loader(
    loader: Any, data_path: str | None = None, enable_etdump: bool = False, debug_buffer_size: int = 0
) -> ExecuTorchModule:
    """Not provided: upstream's ``PyDataLoader`` objects come from C++ extensions built against upstream's wheel."""
    del loader, data_path, enable_etdump, debug_buffer_size
    raise NotImplementedError(
        "_load_for_executorch_from_data_loader needs upstream's PyDataLoader (a C++ extension of upstream's wheel), "
        "which this runtime cannot use: read the program into bytes and call _load_for_executorch_from_buffer"
    )


def _load_bundled_program_from_buffer(buffer: bytes, non_const_pool_size: int = 16 * 1024) -> BundledModule:
    """Reads a bundled program (the bytes of a ``.bpte`` file)."""
    del non_const_pool_size
    return BundledModule(_runtime.BundledProgram(buffer))


def _load_program(
    path: str | os.PathLike[str],
    enable_etdump: bool = False,
    debug_buffer_size: int = 0,
    program_verification: Verification = Verification.Minimal,
    data_path: DataPath | None = None,
) -> ExecuTorchProgram:
    """Loads the program at ``path`` (with its data file(s)) now; its methods load with ``load_method``."""
    return ExecuTorchProgram(
        _runtime.Runtime.get().load_program(
            path,
            verification=program_verification,
            enable_etdump=enable_etdump,
            debug_buffer_size=debug_buffer_size,
            data_path=data_path,
        )
    )


def _load_program_from_buffer(
    buffer: bytes | bytearray | memoryview,
    enable_etdump: bool = False,
    debug_buffer_size: int = 0,
    program_verification: Verification = Verification.Minimal,
    data_path: DataPath | None = None,
) -> ExecuTorchProgram:
    """Loads a program from the bytes of a ``.pte`` file (with its data file(s)) now."""
    return ExecuTorchProgram(
        _runtime.Runtime.get().load_program(
            bytes(buffer),
            verification=program_verification,
            enable_etdump=enable_etdump,
            debug_buffer_size=debug_buffer_size,
            data_path=data_path,
        )
    )


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


def _create_profile_block(name: str) -> None:
    """Upstream's legacy profiler, compiled out of its release wheel: does nothing (use ``enable_etdump``)."""
    del name


def _dump_profile_results() -> bytes:
    """Upstream's legacy profiler, compiled out of its release wheel: empty (use ``enable_etdump``)."""
    return b""


def _reset_profile_results() -> None:
    """Upstream's legacy profiler, compiled out of its release wheel: does nothing."""
