"""Lowering a portable program to the CUDA delegate: ``python -m executorch.lower --backend cuda in.pte -o out.pte``.

For each method, every maximal run of consecutive ``KernelCall``s whose operator the CUDA delegate runs
(:data:`CUDA_OPERATORS`, read from ``cuda_operators.txt``, generated from the delegate's own operator table) and whose
tensor arguments are all fp32 becomes one ``DelegateCall`` to ``CudaBackend``. Its payload (docs/cuda.md) is
``ETCUDA01``, a little-endian u64 length and an ET12 ``Program`` with one plan, ``subgraph``, holding the run's
kernel calls; the outer call's arguments are ``[inputs..., outputs...]`` in the order of the subgraph's inputs
and outputs.

* Inputs of a run: the tensors it reads that were written before it. Constant tensors are not inputs: their data
  is copied into the payload's inline ``constant_buffer``. Scalars, lists and strings are copied into the subgraph.
* Outputs: the tensors it writes whose value (or memory, for tensors the memory planner made views of each other)
  is read outside the run, plus method inputs/outputs and mutable state written by the run. A tensor the run
  both reads (as it was before the run) and writes appears among the inputs and the outputs; inside the subgraph
  the two are different values, so the payload never writes a value it also receives.
* A run ends at control flow (``JumpFalseCall``, ``MoveCall``, ``FreeCall``, ``DelegateCall``), at a jump target,
  at a call whose scalar arguments are computed at run time (symbolic sizes), and where two tensors of the run
  share planned memory in a way the subgraph could not express (a static view of a tensor the run wrote becomes
  an ``aten::view_copy`` in the subgraph).
* The outer program afterwards: values no instruction and no method input/output refers to any more (the run's
  intermediates, constants used only by delegated calls) are replaced by ``Null`` values, so indices stay the
  same; operators no instruction uses are dropped from the method's operator table; constant data no remaining
  tensor refers to is dropped from the constant segment (the others are renumbered). Planned memory
  (``non_const_buffer_sizes``) is left as it was.
"""

from __future__ import annotations

import argparse
import copy
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from executorch import cuda_payload
from executorch.pte import (
    BackendDelegateT,
    BufferT,
    ChainT,
    DelegateCallT,
    EValueT,
    ExecutionPlanT,
    InstructionArguments,
    InstructionT,
    IntListT,
    IntT,
    KernelCallT,
    KernelTypes,
    NullT,
    OperatorT,
    ProgramT,
    PteError,
    PteFile,
    ScalarType,
    TensorShapeDynamism,
    TensorT,
    as_ints,
    as_str,
    instruction_values,
    kernel_call_counts,
    operator_name,
    pack_constants,
    serialize_program,
    tensor_nbytes,
)

__all__ = ["CUDA_BACKEND_ID", "CUDA_MAGIC", "CUDA_OPERATORS", "LowerReport", "lower", "lower_file", "main"]

CUDA_BACKEND_ID = "CudaBackend"
CUDA_MAGIC = cuda_payload.MAGIC
SUBGRAPH_NAME = "subgraph"
_VIEW_OP = "aten::view_copy.out"
_MAX_RANK = 8  # the delegate's rank limit (cpp/cuda/src/descs.h kMaxDim)

# Operators with more than one out argument (the others have exactly one, followed by the return slot).
_OUT_ARGS = {"aten::native_layer_norm.out": 3}
_LIST_TYPES = (KernelTypes.IntList, KernelTypes.TensorList, KernelTypes.OptionalTensorList)
_SCALAR_TYPES = (KernelTypes.Int, KernelTypes.Double, KernelTypes.Bool)


def _read_operator_list() -> frozenset[str]:
    here = Path(__file__).resolve().parent
    installed = here / "cuda_operators.txt"
    table = here.parent.parent / "cpp" / "cuda" / "src" / "ops.def"  # running from a checkout (src/executorch)
    if not installed.is_file() and table.is_file():
        return frozenset(re.findall(r'^ETCUDA_OP\(\w+, *"([^"]+)"', table.read_text(), re.M))
    try:
        lines = installed.read_text().splitlines()
    except OSError as e:
        raise RuntimeError(f"the CUDA operator list {installed} is missing from the executorch package: {e}") from None
    return frozenset(s for s in (line.split("#", 1)[0].strip() for line in lines) if s)


#: Operators the CUDA delegate runs (``name.overload``), from ``cuda_operators.txt``.
CUDA_OPERATORS: frozenset[str] = _read_operator_list()


@dataclass
class DelegatedRun:
    method: str
    first_instruction: int  # index in the original chain
    operators: list[str]
    inputs: list[int]  # outer value indices
    outputs: list[int]
    payload_bytes: int


@dataclass
class LowerReport:
    """What :func:`lower` did, for the CLI and the tests."""

    runs: list[DelegatedRun] = field(default_factory=list)
    #: method -> operators left on the CPU (name -> count)
    cpu_operators: dict[str, dict[str, int]] = field(default_factory=dict)
    constants_dropped: int = 0


# --------------------------------------------------------------------------------------------------- analysis
@dataclass(frozen=True)
class _Mem:
    memory_id: int
    lo: int
    hi: int


class _Plan:
    """Facts about one execution plan the partitioner needs."""

    def __init__(self, plan: ExecutionPlanT, operators: frozenset[str]) -> None:
        self.plan = plan
        self.delegable = operators
        self.values: list[EValueT] = plan.values or []
        self.ops = [operator_name(o) for o in plan.operators or []]
        self.inputs = set(as_ints(plan.inputs))
        self.outputs = set(as_ints(plan.outputs))
        self.mem: dict[int, _Mem] = {}
        for i, ev in enumerate(self.values):
            if ev.valType == KernelTypes.Tensor and ev.val.allocationInfo is not None:
                a = ev.val.allocationInfo
                lo = int(a.memoryOffsetLow) | (int(a.memoryOffsetHigh) << 32)
                n = tensor_nbytes(ev.val)
                if n > 0:
                    self.mem[i] = _Mem(int(a.memoryId), lo, lo + n)
        # Scalars computed while the method runs (sym sizes, prim ops, moves, method inputs) cannot be copied.
        self.dynamic: set[int] = {i for i in self.inputs if self.values[i].valType != KernelTypes.Tensor}
        for chain in plan.chains or []:
            for ins in chain.instructions or []:
                a = ins.instrArgs
                if ins.instrArgsType == InstructionArguments.KernelCall and len(a.args or []):
                    written = [int(a.args[-1])]
                elif ins.instrArgsType == InstructionArguments.DelegateCall:
                    written = as_ints(a.args)  # a delegate may return scalars among its outputs
                elif ins.instrArgsType == InstructionArguments.MoveCall:
                    written = [int(a.moveTo)]
                else:
                    continue
                self.dynamic.update(
                    v for v in written if 0 <= v < len(self.values) and self.values[v].valType in _SCALAR_TYPES
                )
        # Tensors some instruction or the caller writes; an exact alias never written is a static view (it gets
        # its data through the planned memory it shares with the tensor it views).
        self.written_somewhere: set[int] = set(self.inputs)
        for chain in plan.chains or []:
            for ins in chain.instructions or []:
                a = ins.instrArgs
                if ins.instrArgsType == InstructionArguments.KernelCall and len(a.args or []):
                    ret = int(a.args[-1])
                    self.written_somewhere.add(ret)
                    if 0 <= ret < len(self.values):
                        self.written_somewhere.update(self.list_items(ret))
                elif ins.instrArgsType == InstructionArguments.MoveCall:
                    self.written_somewhere.add(int(a.moveTo))
        # Memory ranges, sorted, for the overlap queries.
        by_id: dict[int, list[tuple[int, int, int]]] = {}
        for v, m in self.mem.items():
            by_id.setdefault(m.memory_id, []).append((m.lo, m.hi, v))
        self.by_id = {k: sorted(x) for k, x in by_id.items()}

    def is_tensor(self, v: int) -> bool:
        return self.values[v].valType == KernelTypes.Tensor

    def tensor(self, v: int) -> TensorT:
        return self.values[v].val

    def is_constant(self, v: int) -> bool:
        t = self.values[v].val
        return self.is_tensor(v) and t.allocationInfo is None and int(t.dataBufferIdx) > 0

    def list_items(self, v: int) -> list[int]:
        ev = self.values[v]
        return [i for i in as_ints(ev.val.items) if i >= 0] if ev.valType in _LIST_TYPES else []

    def overlapping(self, v: int) -> list[int]:
        """Other tensors whose planned memory overlaps ``v``'s."""
        m = self.mem.get(v)
        if m is None:
            return []
        return [u for lo, hi, u in self.by_id[m.memory_id] if u != v and lo < m.hi and m.lo < hi]

    def views(self, v: int) -> list[int]:
        """Static views of ``v``: tensors on exactly its planned bytes that no instruction writes."""
        return [u for u in self.overlapping(v) if self.exact_alias(u, v) and u not in self.written_somewhere]

    def exact_alias(self, u: int, v: int) -> bool:
        mu, mv = self.mem.get(u), self.mem.get(v)
        return mu is not None and mu == mv

    def kernel_io(self, kc: KernelCallT) -> tuple[list[int], list[int], list[int]] | None:
        """(args read, args written, tensors read incl. list items) of a candidate kernel call; None if the call
        cannot go to the delegate."""
        name = self.ops[kc.opIndex]
        if name not in self.delegable:
            return None
        args = as_ints(kc.args)
        n_out = _OUT_ARGS.get(name, 1)
        if len(args) < n_out + 1:
            return None
        reads, writes = args[: -n_out - 1], args[-n_out - 1 :]
        tensors_read: list[int] = []
        for v in args:
            ev = self.values[v]
            t = ev.valType
            if v in self.dynamic:
                return None
            if t == KernelTypes.Tensor:
                if ev.val.scalarType != ScalarType.FLOAT:
                    return None
                if ev.val.shapeDynamism == TensorShapeDynamism.DYNAMIC_UNBOUND:
                    return None
            elif t in (KernelTypes.TensorList, KernelTypes.OptionalTensorList):
                for item in self.list_items(v):
                    if self.values[item].valType == KernelTypes.Null and t == KernelTypes.OptionalTensorList:
                        continue
                    if not self.is_tensor(item) or self.tensor(item).scalarType != ScalarType.FLOAT:
                        return None
            elif t == KernelTypes.IntList:
                if any(item in self.dynamic for item in self.list_items(v)):
                    return None
        for v in reads:
            if self.is_tensor(v):
                tensors_read.append(v)
            elif self.values[v].valType in (KernelTypes.TensorList, KernelTypes.OptionalTensorList):
                tensors_read.extend(i for i in self.list_items(v) if self.is_tensor(i))
        outs, ret = writes[:-1], writes[-1]
        if not all(self.is_tensor(v) for v in outs) or len(set(outs)) != len(outs):
            return None
        # The trailing return slot must be the out tensor (or the list of out tensors): the payload drops it.
        ret_type = self.values[ret].valType
        if not (
            (ret_type == KernelTypes.Tensor and ret in outs)
            or (ret_type == KernelTypes.TensorList and self.list_items(ret) == outs)
            or ret_type == KernelTypes.Null
        ):
            return None
        if any(self.is_constant(v) for v in outs):
            return None
        for v in [*tensors_read, *outs]:
            t = self.tensor(v)
            rank = len(as_ints(t.sizes))
            if rank > _MAX_RANK or as_ints(t.dimOrder) not in ([], list(range(rank))):
                return None  # the delegate runs contiguous tensors of rank <= 8
        return reads, outs, tensors_read


# --------------------------------------------------------------------------------------------------- subgraph
class _Subgraph:
    """Builds the payload program of one run, versioning outer values (a write makes a new subgraph value)."""

    def __init__(self, pte: PteFile, info: _Plan) -> None:
        self.pte = pte
        self.info = info
        self.values: list[EValueT] = []
        self.ops: list[str] = []
        self.op_index: dict[str, int] = {}
        self.instructions: list[InstructionT] = []
        self.constants: list[bytes] = []
        self.constant_index: dict[int, int] = {}  # outer data_buffer_idx -> payload constant_buffer index
        self.current: dict[int, int] = {}  # outer tensor value -> subgraph value holding its current version
        self.copied: dict[int, int] = {}  # outer non-tensor value -> subgraph copy
        self.inputs: list[tuple[int, int]] = []  # (outer, subgraph)
        self.written: dict[int, int] = {}  # outer -> latest subgraph version written by the run
        self.write_order: dict[int, int] = {}  # outer -> sequence number of its latest write
        self._seq = 0
        self.operators_run: list[str] = []

    def _add(self, ev: EValueT) -> int:
        self.values.append(ev)
        return len(self.values) - 1

    def _fresh_tensor(self, outer: int) -> int:
        t = copy.copy(self.info.tensor(outer))
        t.dataBufferIdx = 0
        t.allocationInfo = None
        t.extraTensorInfo = None
        ev = EValueT()
        ev.valType, ev.val = KernelTypes.Tensor, t
        return self._add(ev)

    def read_tensor(self, outer: int) -> int:
        if outer in self.current:
            return self.current[outer]
        # A static view of a tensor this run wrote (same planned bytes): reshape that tensor's current version.
        writers = [u for u in self.info.overlapping(outer) if u in self.written]
        if writers:
            base = max(writers, key=lambda u: self.write_order[u])
            idx = self._view(self.written[base], outer)
            self.current[outer] = idx
            return idx
        if self.info.is_constant(outer):
            t = self.info.tensor(outer)
            key = int(t.dataBufferIdx)
            if key not in self.constant_index:
                self.constants.append(self.pte.constant_data(t))
                self.constant_index[key] = len(self.constants)  # entry 0 is the empty placeholder
            idx = self._fresh_tensor(outer)
            self.values[idx].val.dataBufferIdx = self.constant_index[key]
        else:
            idx = self._fresh_tensor(outer)
            self.inputs.append((outer, idx))
        self.current[outer] = idx
        return idx

    def _int(self, value: int) -> int:
        ev = EValueT()
        ev.valType, ev.val = KernelTypes.Int, IntT()
        ev.val.intVal = value
        return self._add(ev)

    def _view(self, src: int, outer: int) -> int:
        sizes = as_ints(self.info.tensor(outer).sizes)
        lst = EValueT()
        lst.valType, lst.val = KernelTypes.IntList, IntListT()
        lst.val.items = [self._int(s) for s in sizes]
        size_list = self._add(lst)
        out = self._fresh_tensor(outer)
        self._call(_VIEW_OP, [src, size_list, out])
        return out

    def copy_value(self, outer: int) -> int:
        if outer in self.copied:
            return self.copied[outer]
        ev = copy.deepcopy(self.info.values[outer])
        if ev.valType == KernelTypes.IntList:
            ev.val.items = [self.copy_value(i) for i in as_ints(ev.val.items)]
        idx = self._add(ev)
        self.copied[outer] = idx
        return idx

    def read_arg(self, outer: int) -> int:
        t = self.info.values[outer].valType
        if t == KernelTypes.Tensor:
            return self.read_tensor(outer)
        if t in (KernelTypes.TensorList, KernelTypes.OptionalTensorList):
            ev = EValueT()
            ev.valType = t
            ev.val = copy.copy(self.info.values[outer].val)
            ev.val.items = [
                -1 if i < 0 or self.info.values[i].valType == KernelTypes.Null else self.read_tensor(i)
                for i in as_ints(self.info.values[outer].val.items)
            ]
            return self._add(ev)
        return self.copy_value(outer)

    def write_arg(self, outer: int) -> int:
        """A new version of out tensor ``outer`` (kernel_io only admits tensors as out arguments)."""
        idx = self._fresh_tensor(outer)
        self.current[outer] = idx
        self.written[outer] = idx
        self._seq += 1
        self.write_order[outer] = self._seq
        # Tensors read through the same memory (views of the old contents) must be read again.
        for u in self.info.overlapping(outer):
            if u not in self.written:
                self.current.pop(u, None)
        return idx

    def _call(self, name: str, args: list[int]) -> None:
        if name not in self.op_index:
            self.op_index[name] = len(self.ops)
            self.ops.append(name)
        kc = KernelCallT()
        kc.opIndex, kc.args = self.op_index[name], args
        ins = InstructionT()
        ins.instrArgsType, ins.instrArgs = InstructionArguments.KernelCall, kc
        self.instructions.append(ins)

    def add_kernel(self, kc: KernelCallT) -> None:
        name = self.info.ops[kc.opIndex]
        args = as_ints(kc.args)
        n_out = _OUT_ARGS.get(name, 1)
        new = [self.read_arg(v) for v in args[: -n_out - 1]]
        outs = [self.write_arg(v) for v in args[-n_out - 1 : -1]]
        # Payload calls carry the schema arguments only, out arguments last: no trailing return slot (the
        # signatures of cpp/cuda/src/payload.cpp).
        self._call(name, [*new, *outs])
        self.operators_run.append(name)

    def payload(self, outputs: list[int]) -> tuple[bytes, list[int]]:
        """The processed bytes, and the outer DelegateCall args [inputs..., outputs...]."""
        plan = ExecutionPlanT()
        plan.name = SUBGRAPH_NAME
        plan.values = self.values
        plan.inputs = [s for _, s in self.inputs]
        plan.outputs = [self.written[o] for o in outputs]
        chain = ChainT()
        chain.inputs, chain.outputs, chain.instructions = list(plan.inputs), list(plan.outputs), self.instructions
        plan.chains = [chain]
        plan.operators = []
        for name in self.ops:
            op = OperatorT()
            op.name, _, op.overload = name.partition(".")
            plan.operators.append(op)
        plan.delegates = []
        plan.nonConstBufferSizes = [0]
        program = ProgramT()
        program.version = 0
        program.executionPlan = [plan]
        program.constantBuffer = []
        for data in [b"", *self.constants]:
            buf = BufferT()
            buf.storage = np.frombuffer(data, dtype=np.uint8)
            program.constantBuffer.append(buf)
        fb = serialize_program(program)
        return cuda_payload.pack(fb), [o for o, _ in self.inputs] + outputs


# --------------------------------------------------------------------------------------------------- lowering
def _runs(info: _Plan, chain: ChainT) -> list[tuple[int, int]]:
    """Maximal [start, end) ranges of delegable kernel calls, cut where memory sharing would make them wrong."""
    instructions = chain.instructions or []
    targets = {
        int(ins.instrArgs.destinationInstruction)
        for ins in instructions
        if ins.instrArgsType == InstructionArguments.JumpFalseCall
    }
    runs: list[tuple[int, int]] = []
    start = None
    written_at: dict[int, int] = {}  # tensors the current run wrote -> instruction of the latest write

    def conflicts(io: tuple[list[int], list[int], list[int]]) -> bool:
        _, writes, reads = io
        for v in reads:
            overlap = info.overlapping(v)
            if any(u in writes for u in overlap):
                return True  # a call writing memory it reads through another tensor
            v_at = written_at.get(v)
            for u in overlap:
                u_at = written_at.get(u)
                if u_at is None:
                    continue
                if v_at is not None:
                    if u_at > v_at:
                        return True  # v's memory was reused after v was written
                    continue
                # v was not written by the run but its memory was: only a static view of the latest writer
                # can be expressed (as aten::view_copy in the subgraph).
                if not (info.exact_alias(u, v) and _static(info, v) and _VIEW_OP in CUDA_OPERATORS):
                    return True
                if any(written_at.get(w, -1) > u_at for w in overlap):
                    return True
        return False

    for i, ins in enumerate(instructions):
        io = info.kernel_io(ins.instrArgs) if ins.instrArgsType == InstructionArguments.KernelCall else None
        if start is not None and (io is None or i in targets or conflicts(io)):
            runs.append((start, i))
            start = None
        if io is None:
            continue
        if start is None:
            written_at = {}
            if conflicts(io):
                continue
            start = i
        for w in io[1]:
            written_at[w] = i
    if start is not None:
        runs.append((start, len(instructions)))
    return runs


def _static(info: _Plan, v: int) -> bool:
    return info.tensor(v).shapeDynamism == TensorShapeDynamism.STATIC


def _used_outside(info: _Plan, chains: list[ChainT], run_chain: int, start: int, end: int) -> set[int]:
    """Values named by any instruction outside [start, end) of chain ``run_chain`` (list items included)."""
    used: set[int] = set()
    for ci, chain in enumerate(chains):
        for i, ins in enumerate(chain.instructions or []):
            if ci == run_chain and start <= i < end:
                continue
            for v in instruction_values(ins):
                used.add(v)
                used.update(info.list_items(v))
    return used


def _lower_plan(
    pte: PteFile, plan: ExecutionPlanT, operators: frozenset[str], inline: bool, report: LowerReport
) -> bool:
    info = _Plan(plan, operators)
    chains = plan.chains or []
    changed = False
    for ci, chain in enumerate(chains):
        runs = _runs(info, chain)
        if not runs:
            continue
        old = chain.instructions
        new_instructions: list[InstructionT] = []
        new_index: dict[int, int] = {}
        pos = 0
        for start, end in runs:
            for i in range(pos, start):
                new_index[i] = len(new_instructions)
                new_instructions.append(old[i])
            sub = _Subgraph(pte, info)
            for i in range(start, end):
                sub.add_kernel(old[i].instrArgs)
            used = _used_outside(info, chains, ci, start, end)
            observed = used | info.inputs | info.outputs
            outputs = []
            for v in sub.written:
                overlap = info.overlapping(v)
                if any(sub.write_order.get(u, -1) > sub.write_order[v] for u in overlap):
                    continue  # its memory was reused later in the run: dead afterwards
                t = info.tensor(v)
                if (
                    v in observed
                    or any(u in observed for u in info.views(v))
                    or t.extraTensorInfo is not None
                    or int(t.dataBufferIdx) > 0
                ):
                    outputs.append(v)
            payload, args = sub.payload(outputs)
            delegate = BackendDelegateT()
            delegate.id = CUDA_BACKEND_ID
            delegate.processed = pte.add_delegate_data(payload, inline=inline)
            delegate.compileSpecs = []
            if plan.delegates is None:
                plan.delegates = []
            plan.delegates.append(delegate)
            dc = DelegateCallT()
            dc.delegateIndex, dc.args = len(plan.delegates) - 1, args
            ins = InstructionT()
            ins.instrArgsType, ins.instrArgs = InstructionArguments.DelegateCall, dc
            for i in range(start, end):
                new_index[i] = len(new_instructions)
            new_instructions.append(ins)
            pos = end
            report.runs.append(
                DelegatedRun(
                    as_str(plan.name), start, sub.operators_run, args[: len(sub.inputs)], outputs, len(payload)
                )
            )
        for i in range(pos, len(old)):
            new_index[i] = len(new_instructions)
            new_instructions.append(old[i])
        new_index[len(old)] = len(new_instructions)
        for ins in new_instructions:
            if ins.instrArgsType == InstructionArguments.JumpFalseCall:
                ins.instrArgs.destinationInstruction = new_index[int(ins.instrArgs.destinationInstruction)]
        chain.instructions = new_instructions
        chain.stacktrace = None  # one frame list per instruction: no longer lines up
        changed = True
    return changed


def _used_values(plan: ExecutionPlanT) -> set[int]:
    info_values = plan.values or []
    used: set[int] = set(as_ints(plan.inputs)) | set(as_ints(plan.outputs))
    for chain in plan.chains or []:
        for ins in chain.instructions or []:
            used.update(instruction_values(ins))
    todo = list(used)
    while todo:
        v = todo.pop()
        ev = info_values[v]
        if ev.valType in _LIST_TYPES:
            for item in as_ints(ev.val.items):
                if item >= 0 and item not in used:
                    used.add(item)
                    todo.append(item)
    return used


def _prune_plan(plan: ExecutionPlanT) -> None:
    used = _used_values(plan)
    for i, ev in enumerate(plan.values or []):
        if i not in used and ev.valType != KernelTypes.Null:
            null = EValueT()
            null.valType, null.val = KernelTypes.Null, NullT()
            plan.values[i] = null
    ops_used = sorted(
        {
            int(ins.instrArgs.opIndex)
            for chain in plan.chains or []
            for ins in chain.instructions or []
            if ins.instrArgsType == InstructionArguments.KernelCall
        }
    )
    remap = {old: new for new, old in enumerate(ops_used)}
    plan.operators = [plan.operators[i] for i in ops_used]
    for chain in plan.chains or []:
        for ins in chain.instructions or []:
            if ins.instrArgsType == InstructionArguments.KernelCall:
                ins.instrArgs.opIndex = remap[int(ins.instrArgs.opIndex)]


def _prune_constants(pte: PteFile) -> int:
    """Drops constant data no tensor refers to any more; returns how many constants went."""
    refs: list[TensorT] = []
    for plan in pte.plans:
        for ev in plan.values or []:
            if ev.valType == KernelTypes.Tensor and ev.val.allocationInfo is None and int(ev.val.dataBufferIdx) > 0:
                refs.append(ev.val)
    offsets = pte.constant_offsets()
    legacy = len(offsets) <= 1
    total = (len(pte.program.constantBuffer or []) if legacy else len(offsets)) - 1
    keep = sorted({int(t.dataBufferIdx) for t in refs})
    if total <= 0 or len(keep) == total:
        return 0
    data = {}
    for t in refs:
        idx = int(t.dataBufferIdx)
        size = tensor_nbytes(t)
        if len(data.get(idx, b"")) < size or idx not in data:
            data[idx] = pte.constant_data(t)
    remap = {old: new for new, old in enumerate(keep, start=1)}
    blobs = [data[old] for old in keep]
    if legacy:
        buffers = [pte.program.constantBuffer[0]]
        for b in blobs:
            buf = BufferT()
            buf.storage = np.frombuffer(b, dtype=np.uint8)
            buffers.append(buf)
        pte.program.constantBuffer = buffers
    else:
        segment, new_offsets = pack_constants(blobs)
        pte.segments[pte.program.constantSegment.segmentIndex] = segment
        pte.program.constantSegment.offsets = new_offsets
    for t in refs:
        t.dataBufferIdx = remap[int(t.dataBufferIdx)]
    return total - len(keep)


def lower_program(
    pte: PteFile, backend: str = "cuda", *, inline: bool = False, operators: Iterable[str] | None = None
) -> LowerReport:
    """Lowers ``pte`` in place (see the module documentation) and returns what moved.

    ``operators`` restricts the delegated operators to a subset of :data:`CUDA_OPERATORS` (default: all of them;
    an empty set lowers nothing).
    """
    if backend.lower() != "cuda":
        raise ValueError(f"unknown backend {backend!r}: this tool lowers to 'cuda' only")
    chosen = CUDA_OPERATORS if operators is None else frozenset(operators)
    unknown = sorted(chosen - CUDA_OPERATORS)
    if unknown:
        raise ValueError(f"the CUDA delegate does not run {', '.join(unknown)} (see executorch/cuda_operators.txt)")
    report = LowerReport()
    changed = False
    for plan in pte.plans:
        if _lower_plan(pte, plan, chosen, inline, report):
            _prune_plan(plan)
            changed = True
    if changed:
        report.constants_dropped = _prune_constants(pte)
    for plan in pte.plans:
        report.cpu_operators[as_str(plan.name)] = kernel_call_counts(plan)
    return report


Program = bytes | bytearray | memoryview | str | Path


def lower(
    program: Program, backend: str = "cuda", *, inline: bool = False, operators: Iterable[str] | None = None
) -> bytes:
    """Lowers a ``.pte`` (bytes or a path) to ``backend`` ("cuda") and returns the new program's bytes.

    ``inline=True`` stores the delegate payloads in the flatbuffer instead of segments; ``operators`` limits what
    is delegated (a subset of :data:`CUDA_OPERATORS`). Raises :class:`executorch.pte.PteError` for a corrupt or
    truncated input.
    """
    return lower_file(program, backend, inline=inline, operators=operators)[0]


def lower_file(
    program: Program, backend: str = "cuda", *, inline: bool = False, operators: Iterable[str] | None = None
) -> tuple[bytes, LowerReport]:
    """Like :func:`lower`, also returning the :class:`LowerReport`."""
    pte = PteFile.load(program) if isinstance(program, str | Path) else PteFile.from_bytes(program)
    report = lower_program(pte, backend, inline=inline, operators=operators)
    return pte.to_bytes(), report


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m executorch.lower",
        description="Move runs of CUDA-capable fp32 kernel calls of a .pte program into CudaBackend delegates.",
    )
    ap.add_argument("input", help="the .pte program to lower (e.g. a portable export)")
    ap.add_argument("-o", "--output", required=True, help="where to write the lowered .pte")
    ap.add_argument("--backend", default="cuda", choices=["cuda"], help="delegate to lower to (default: cuda)")
    ap.add_argument("--inline", action="store_true", help="store delegate payloads inline instead of as segments")
    ap.add_argument("-q", "--quiet", action="store_true", help="print nothing on success")
    args = ap.parse_args(argv)
    try:
        data, report = lower_file(args.input, args.backend, inline=args.inline)
    except PteError as e:
        print(f"error: {args.input}: {e}", file=sys.stderr)
        return 1
    except Exception as e:  # no tracebacks from the tool: say what failed
        print(f"error: {args.input}: cannot lower this program ({type(e).__name__}: {e})", file=sys.stderr)
        return 1
    try:
        Path(args.output).write_bytes(data)
    except OSError as e:
        print(f"error: cannot write {args.output}: {e.strerror or e}", file=sys.stderr)
        return 1
    if not args.quiet:
        for run in report.runs:
            ops: dict[str, int] = {}
            for name in run.operators:
                ops[name] = ops.get(name, 0) + 1
            listed = ", ".join(f"{n} x{c}" if c > 1 else n for n, c in ops.items())
            print(
                f"{run.method}: instruction {run.first_instruction}: {len(run.operators)} kernel call(s) -> "
                f"{CUDA_BACKEND_ID} ({len(run.inputs)} in, {len(run.outputs)} out, {run.payload_bytes} bytes): {listed}"
            )
        for method, ops in report.cpu_operators.items():
            left = ", ".join(f"{n} x{c}" if c > 1 else n for n, c in sorted(ops.items())) or "none"
            print(f"{method}: left on the CPU: {left}")
        if not report.runs:
            print("nothing to lower: no run of CUDA-capable fp32 kernel calls")
        print(f"wrote {args.output} ({len(data)} bytes, {len(report.runs)} delegate call(s))")
    return 0


if __name__ == "__main__":
    sys.exit(main())
