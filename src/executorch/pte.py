"""Reading and writing ``.pte`` program files in Python (no native code, no torch).

A ``.pte`` file is an ``ET12`` flatbuffer (``cpp/runtime/schema/program.fbs``), optionally with the ``eh00``
extended header at byte 8 and segment data (constants, delegate payloads, named data) after the flatbuffer::

    from executorch.pte import PteFile

    pte = PteFile.load("model.pte")             # or PteFile.from_bytes(data)
    plan = pte.program.executionPlan[0]         # the object tree: executorch._schema.*T classes (flatc object API)
    print(plan.name, len(pte.segments))         # segments: list of bytes, in Program.segments order
    data = pte.to_bytes()                       # a valid .pte again (extended header and segments laid out anew)

The object tree is flatc's generated object API (``executorch._schema``, generated from our schema at build time):
attribute names are the schema's field names in camelCase (``executionPlan``, ``dataBufferIdx``), unions are
``<field>Type`` plus the object, scalar vectors come back as numpy arrays. ``to_bytes()`` recomputes
``Program.segments`` from :attr:`PteFile.segments`, so edit segment data only through that list.

Errors in the file raise :class:`PteError` with a message naming the problem.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import flatbuffers
import numpy as np

from executorch._schema import BackendDelegateInlineData as _fb_inline
from executorch._schema import Buffer as _fb_buffer
from executorch._schema.AllocationDetails import AllocationDetailsT
from executorch._schema.BackendDelegate import BackendDelegateT
from executorch._schema.BackendDelegateDataReference import BackendDelegateDataReferenceT
from executorch._schema.BackendDelegateInlineData import BackendDelegateInlineDataT
from executorch._schema.Bool import BoolT
from executorch._schema.BoolList import BoolListT
from executorch._schema.Buffer import BufferT
from executorch._schema.Chain import ChainT
from executorch._schema.DataLocation import DataLocation
from executorch._schema.DataSegment import DataSegmentT
from executorch._schema.DelegateCall import DelegateCallT
from executorch._schema.Double import DoubleT
from executorch._schema.DoubleList import DoubleListT
from executorch._schema.EValue import EValueT
from executorch._schema.ExecutionPlan import ExecutionPlanT
from executorch._schema.FreeCall import FreeCallT
from executorch._schema.Instruction import InstructionT
from executorch._schema.InstructionArguments import InstructionArguments
from executorch._schema.Int import IntT
from executorch._schema.IntList import IntListT
from executorch._schema.JumpFalseCall import JumpFalseCallT
from executorch._schema.KernelCall import KernelCallT
from executorch._schema.KernelTypes import KernelTypes
from executorch._schema.MoveCall import MoveCallT
from executorch._schema.Null import NullT
from executorch._schema.Operator import OperatorT
from executorch._schema.OptionalTensorList import OptionalTensorListT
from executorch._schema.Program import Program, ProgramT
from executorch._schema.ScalarType import ScalarType
from executorch._schema.String import StringT
from executorch._schema.SubsegmentOffsets import SubsegmentOffsetsT
from executorch._schema.Tensor import TensorT
from executorch._schema.TensorList import TensorListT
from executorch._schema.TensorShapeDynamism import TensorShapeDynamism

__all__ = [
    "CONSTANT_ALIGNMENT",
    "FILE_IDENTIFIER",
    "SEGMENT_ALIGNMENT",
    "AllocationDetailsT",
    "BackendDelegateDataReferenceT",
    "BackendDelegateT",
    "BoolListT",
    "BoolT",
    "BufferT",
    "ChainT",
    "DataLocation",
    "DelegateCallT",
    "DoubleListT",
    "DoubleT",
    "EValueT",
    "ExecutionPlanT",
    "ExtendedHeader",
    "FreeCallT",
    "InstructionArguments",
    "InstructionT",
    "IntListT",
    "IntT",
    "JumpFalseCallT",
    "KernelCallT",
    "KernelTypes",
    "MoveCallT",
    "NullT",
    "OperatorT",
    "OptionalTensorListT",
    "ProgramT",
    "PteError",
    "PteFile",
    "ScalarType",
    "StringT",
    "SubsegmentOffsetsT",
    "TensorListT",
    "TensorShapeDynamism",
    "TensorT",
    "as_ints",
    "as_str",
    "dtype_name",
    "element_size",
    "kernel_call_counts",
    "operator_name",
    "pack_constants",
    "tensor_nbytes",
]

FILE_IDENTIFIER = b"ET12"
EXTENDED_HEADER_MAGIC = b"eh00"
#: Length of the extended header we write (magic, length, program size, segment base offset, segment data size).
EXTENDED_HEADER_LENGTH = 32
#: Upstream's defaults: segments start at multiples of 128 bytes; constants inside the constant segment at 16;
#: the largest force_align in the schema is 16 (the extended header is padded to it).
SEGMENT_ALIGNMENT = 128
CONSTANT_ALIGNMENT = 16
_FORCE_ALIGN = 16


class PteError(ValueError):
    """The bytes are not a valid ``.pte`` program (the message names what is wrong)."""


@dataclass(frozen=True)
class ExtendedHeader:
    """The ``eh00`` header at byte 8 (absent in files without segment data)."""

    length: int
    program_size: int
    segment_base_offset: int
    segment_data_size: int


_ELEMENT_SIZES = {
    ScalarType.BYTE: 1,
    ScalarType.CHAR: 1,
    ScalarType.SHORT: 2,
    ScalarType.INT: 4,
    ScalarType.LONG: 8,
    ScalarType.HALF: 2,
    ScalarType.FLOAT: 4,
    ScalarType.DOUBLE: 8,
    ScalarType.BOOL: 1,
    ScalarType.QINT8: 1,
    ScalarType.QUINT8: 1,
    ScalarType.QINT32: 4,
    ScalarType.BFLOAT16: 2,
    ScalarType.QUINT4X2: 1,
    ScalarType.QUINT2X4: 1,
    ScalarType.BITS16: 2,
    ScalarType.FLOAT8E5M2: 1,
    ScalarType.FLOAT8E4M3FN: 1,
    ScalarType.FLOAT8E5M2FNUZ: 1,
    ScalarType.FLOAT8E4M3FNUZ: 1,
    ScalarType.UINT16: 2,
    ScalarType.UINT32: 4,
    ScalarType.UINT64: 8,
}
_DTYPE_NAMES = {
    ScalarType.BYTE: "uint8",
    ScalarType.CHAR: "int8",
    ScalarType.SHORT: "int16",
    ScalarType.INT: "int32",
    ScalarType.LONG: "int64",
    ScalarType.HALF: "float16",
    ScalarType.FLOAT: "float32",
    ScalarType.DOUBLE: "float64",
    ScalarType.BOOL: "bool",
    ScalarType.QINT8: "qint8",
    ScalarType.QUINT8: "quint8",
    ScalarType.QINT32: "qint32",
    ScalarType.BFLOAT16: "bfloat16",
    ScalarType.QUINT4X2: "quint4x2",
    ScalarType.QUINT2X4: "quint2x4",
    ScalarType.BITS16: "bits16",
    ScalarType.FLOAT8E5M2: "float8_e5m2",
    ScalarType.FLOAT8E4M3FN: "float8_e4m3fn",
    ScalarType.FLOAT8E5M2FNUZ: "float8_e5m2fnuz",
    ScalarType.FLOAT8E4M3FNUZ: "float8_e4m3fnuz",
    ScalarType.UINT16: "uint16",
    ScalarType.UINT32: "uint32",
    ScalarType.UINT64: "uint64",
}


def element_size(scalar_type: int) -> int:
    """Bytes per element of a schema ``ScalarType``."""
    try:
        return _ELEMENT_SIZES[scalar_type]
    except KeyError:
        raise PteError(f"unknown tensor dtype {scalar_type}") from None


def dtype_name(scalar_type: int) -> str:
    """numpy-style name of a schema ``ScalarType`` (``float32``, ``int64``, ...)."""
    return _DTYPE_NAMES.get(scalar_type, f"dtype#{scalar_type}")


def tensor_nbytes(t: TensorT) -> int:
    """Bytes of a tensor's serialized (upper-bound) shape."""
    n = element_size(t.scalarType)
    for s in as_ints(t.sizes):
        n *= int(s)
    return n


def operator_name(op: OperatorT) -> str:
    """``name.overload`` (``aten::add.out``), or just the name when the overload is empty."""
    name = as_str(op.name)
    overload = as_str(op.overload)
    return f"{name}.{overload}" if overload else name


def kernel_call_counts(plan: ExecutionPlanT) -> dict[str, int]:
    """How often each operator is called by the plan's KernelCalls, in order of first call."""
    counts: dict[str, int] = {}
    for chain in plan.chains or []:
        for ins in chain.instructions or []:
            if ins.instrArgsType == InstructionArguments.KernelCall:
                name = operator_name(plan.operators[ins.instrArgs.opIndex])
                counts[name] = counts.get(name, 0) + 1
    return counts


def as_str(v: str | bytes | None) -> str:
    """A string of the object tree (bytes, str or None) as str."""
    if v is None:
        return ""
    return v.decode("utf-8", "replace") if isinstance(v, bytes) else v


def as_ints(v: Any) -> list[int]:
    """A scalar vector of the object tree (numpy array, list or None) as a list of ints."""
    if v is None:
        return []
    return [int(x) for x in v]


def _align(n: int, a: int) -> int:
    return (n + a - 1) // a * a


def _pack_aligned_bytes(builder: flatbuffers.Builder, data: Any, alignment: int) -> int:
    """A ``[ubyte]`` vector whose data starts at a multiple of ``alignment`` (the schema's force_align)."""
    raw = bytes(data) if not isinstance(data, np.ndarray) else data.astype(np.uint8, copy=False).tobytes()
    builder.StartVector(1, len(raw), alignment)
    builder.head = builder.head - len(raw)
    builder.Bytes[builder.head : builder.head + len(raw)] = raw
    builder.vectorNumElems = len(raw)
    return builder.EndVector()


def _pack_buffer(self: BufferT, builder: flatbuffers.Builder) -> int:
    storage = _pack_aligned_bytes(builder, self.storage, _FORCE_ALIGN) if self.storage is not None else None
    _fb_buffer.BufferStart(builder)
    if storage is not None:
        _fb_buffer.BufferAddStorage(builder, storage)
    return _fb_buffer.BufferEnd(builder)


def _pack_inline_data(self: BackendDelegateInlineDataT, builder: flatbuffers.Builder) -> int:
    data = _pack_aligned_bytes(builder, self.data, _FORCE_ALIGN) if self.data is not None else None
    _fb_inline.BackendDelegateInlineDataStart(builder)
    if data is not None:
        _fb_inline.BackendDelegateInlineDataAddData(builder, data)
    return _fb_inline.BackendDelegateInlineDataEnd(builder)


# flatc's Python generator ignores force_align: pack the two 16-byte aligned byte vectors ourselves (and in one
# copy instead of one Prepend call per byte).
BufferT.Pack = _pack_buffer  # type: ignore[method-assign]
BackendDelegateInlineDataT.Pack = _pack_inline_data  # type: ignore[method-assign]


_BLOB_FIELDS = frozenset({"storage", "data"})


def _plain_lists(obj: Any) -> None:
    """Scalar vectors come back from flatc's object API as numpy arrays; turn them into lists of Python numbers
    (except the byte blobs ``Buffer.storage`` and ``BackendDelegateInlineData.data``, kept as uint8 arrays)."""
    stack = [obj]
    while stack:
        o = stack.pop()
        for k, v in vars(o).items():
            if isinstance(v, np.ndarray):
                if k not in _BLOB_FIELDS:
                    setattr(o, k, v.tolist())
            elif isinstance(v, list):
                stack.extend(x for x in v if x is not None and hasattr(x, "__dict__"))
            elif v is not None and hasattr(v, "__dict__"):
                stack.append(v)


def parse_header(data: bytes | memoryview) -> ExtendedHeader | None:
    """Checks the identifier and returns the extended header (None when the file has none)."""
    size = len(data)
    if size < 8:
        raise PteError(f"file is {size} bytes, too small to be a .pte program")
    ident = bytes(data[4:8])
    if ident != FILE_IDENTIFIER:
        if ident[:2] == b"ET":
            raise PteError(
                f"program format version {ident.decode('ascii', 'replace')} is not supported; "
                "this reader handles ET12 (ExecuTorch 1.x exports)"
            )
        raise PteError("not an ExecuTorch program: the file identifier is not ET12")
    if size < 16 or bytes(data[8:12]) != EXTENDED_HEADER_MAGIC:
        return None
    (length,) = struct.unpack_from("<I", data, 12)
    if length < 24 or size < 8 + length:
        raise PteError(f"extended header length {length} is invalid")
    program_size, base = struct.unpack_from("<QQ", data, 16)
    seg_size = struct.unpack_from("<Q", data, 32)[0] if length >= 32 else 0
    if program_size < 8 or program_size > size:
        raise PteError(
            f"extended header says the program is {program_size} bytes but the file has {size} (truncated file?)"
        )
    if base != 0:
        if base < program_size:
            raise PteError("extended header: segments start inside the program data")
        if base + seg_size > size:
            raise PteError(
                f"segment data ({seg_size} bytes at offset {base}) extends past the end of the {size}-byte file "
                "(truncated file?)"
            )
    return ExtendedHeader(length, program_size, base, seg_size)


@dataclass
class PteFile:
    """A ``.pte`` program: the flatbuffer's object tree and the segment data it refers to."""

    program: ProgramT
    #: Segment data in ``Program.segments`` order (``to_bytes`` lays them out and rewrites ``Program.segments``).
    segments: list[bytes] = field(default_factory=list)
    #: The header the file was read with (informational; ``to_bytes`` writes a new one).
    header: ExtendedHeader | None = None

    # ---------------------------------------------------------------- reading
    @classmethod
    def load(cls, path: str | Path) -> PteFile:
        try:
            data = Path(path).read_bytes()
        except OSError as e:
            raise PteError(f"cannot read {path}: {e.strerror or e}") from None
        return cls.from_bytes(data)

    @classmethod
    def from_bytes(cls, data: bytes | bytearray | memoryview) -> PteFile:
        data = bytes(data)
        header = parse_header(data)
        program_size = header.program_size if header is not None else len(data)
        buf = data[:program_size]
        (root,) = struct.unpack_from("<I", buf, 0)
        if root < 8 or root + 4 > len(buf):
            raise PteError(f"corrupt flatbuffer: root table offset {root} is outside the {len(buf)}-byte program")
        try:
            program = ProgramT.InitFromObj(Program.GetRootAs(buf, 0))
            _plain_lists(program)
        except Exception as e:  # the generated reader does no verification: any failure means corrupt data
            raise PteError(
                f"corrupt program flatbuffer ({type(e).__name__}: {e}); the file is damaged or truncated"
            ) from None
        segments: list[bytes] = []
        for i, seg in enumerate(program.segments or []):
            if seg is None:
                raise PteError(f"segment {i} is missing from Program.segments")
            off, size = int(seg.offset), int(seg.size)
            if size == 0:
                segments.append(b"")
                continue
            if header is None or header.segment_base_offset == 0:
                raise PteError(f"program lists segment {i} ({size} bytes) but the file has no segment data")
            start = header.segment_base_offset + off
            if start + size > len(data):
                raise PteError(
                    f"segment {i} ({size} bytes at file offset {start}) extends past the end of the "
                    f"{len(data)}-byte file (truncated file?)"
                )
            segments.append(data[start : start + size])
        pte = cls(program, segments, header)
        try:
            pte._check()
        except (AttributeError, TypeError, IndexError) as e:  # a table or union member missing where required
            raise PteError(f"corrupt program: {type(e).__name__}: {e}") from None
        return pte

    def _check(self) -> None:
        """Index checks on what inspect/lower use, so that they fail with a message instead of an IndexError."""
        p = self.program
        n_seg = len(self.segments)
        cs = p.constantSegment
        if cs is not None and len(as_ints(cs.offsets)) > 1:
            if cs.segmentIndex >= n_seg:
                raise PteError(f"constant segment refers to segment {cs.segmentIndex} but the program has {n_seg}")
        for plan_i, plan in enumerate(p.executionPlan or []):
            if plan is None:
                raise PteError(f"execution plan {plan_i} is missing")
            name = as_str(plan.name) or f"#{plan_i}"
            values = plan.values or []
            n_val, n_ops, n_del = len(values), len(plan.operators or []), len(plan.delegates or [])
            for what, idx in (("input", plan.inputs), ("output", plan.outputs)):
                for v in as_ints(idx):
                    if not 0 <= v < n_val:
                        raise PteError(f"method {name}: {what} value index {v} out of range ({n_val} values)")
            for vi, ev in enumerate(values):
                if ev is None:
                    raise PteError(f"method {name}: value {vi} is missing")
                if ev.valType in (KernelTypes.IntList, KernelTypes.TensorList, KernelTypes.OptionalTensorList):
                    for item in as_ints(ev.val.items):
                        if item >= n_val or item < -1:
                            raise PteError(f"method {name}: value {vi} lists value index {item} out of range")
                if ev.valType == KernelTypes.Tensor:
                    element_size(ev.val.scalarType)
            for d_i, d in enumerate(plan.delegates or []):
                ref = d.processed if d is not None else None
                if ref is None:
                    raise PteError(f"method {name}: delegate {d_i} has no processed data")
                limit = n_seg if ref.location == DataLocation.SEGMENT else len(p.backendDelegateData or [])
                if ref.index >= limit:
                    where = "segment" if ref.location == DataLocation.SEGMENT else "inline data"
                    raise PteError(f"method {name}: delegate {d_i} refers to {where} {ref.index} of {limit}")
            for c in plan.chains or []:
                for ii, ins in enumerate(c.instructions or []):
                    a = ins.instrArgs
                    t = ins.instrArgsType
                    if t == InstructionArguments.KernelCall:
                        if not 0 <= a.opIndex < n_ops:
                            raise PteError(f"method {name}: instruction {ii} uses operator {a.opIndex} of {n_ops}")
                    elif t == InstructionArguments.DelegateCall:
                        if not 0 <= a.delegateIndex < n_del:
                            raise PteError(
                                f"method {name}: instruction {ii} calls delegate {a.delegateIndex} of {n_del}"
                            )
                    elif t not in (
                        InstructionArguments.MoveCall,
                        InstructionArguments.JumpFalseCall,
                        InstructionArguments.FreeCall,
                    ):
                        raise PteError(f"method {name}: instruction {ii} has unknown type {t}")
                    for v in instruction_values(ins):
                        if not 0 <= v < n_val:
                            raise PteError(f"method {name}: instruction {ii} uses value {v} of {n_val}")

    # ---------------------------------------------------------------- accessors
    @property
    def plans(self) -> list[ExecutionPlanT]:
        return list(self.program.executionPlan or [])

    def plan(self, name: str) -> ExecutionPlanT:
        for p in self.plans:
            if as_str(p.name) == name:
                return p
        raise KeyError(f"no method named {name!r} (methods: {[as_str(p.name) for p in self.plans]})")

    def constant_offsets(self) -> list[int]:
        cs = self.program.constantSegment
        return as_ints(cs.offsets) if cs is not None else []

    def constant_data(self, t: TensorT) -> bytes:
        """The bytes of a constant tensor (``data_buffer_idx > 0``, no ``allocation_info``)."""
        idx = int(t.dataBufferIdx)
        nbytes = tensor_nbytes(t)
        offsets = self.constant_offsets()
        if len(offsets) > 1:
            if idx >= len(offsets):
                raise PteError(f"constant index {idx} out of range ({len(offsets)} constants)")
            seg = self.segments[self.program.constantSegment.segmentIndex]
            off = offsets[idx]
            if off + nbytes > len(seg):
                raise PteError(f"constant {idx} ({nbytes} bytes at {off}) lies outside the constant segment")
            return seg[off : off + nbytes]
        buffers = self.program.constantBuffer or []
        if idx >= len(buffers) or buffers[idx] is None or buffers[idx].storage is None:
            raise PteError(f"constant index {idx} out of range")
        data = bytes(np.asarray(buffers[idx].storage, dtype=np.uint8).tobytes())
        if len(data) < nbytes:
            raise PteError(f"constant buffer {idx} holds {len(data)} bytes, the tensor needs {nbytes}")
        return data[:nbytes]

    def delegate_data(self, delegate: BackendDelegateT) -> bytes:
        """The processed payload of a delegate (inline data or a segment)."""
        ref = delegate.processed
        if ref.location == DataLocation.SEGMENT:
            return self.segments[ref.index]
        inline = (self.program.backendDelegateData or [])[ref.index]
        return b"" if inline.data is None else np.asarray(inline.data, dtype=np.uint8).tobytes()

    def add_segment(self, data: bytes) -> int:
        """Appends a segment and returns its index."""
        self.segments.append(bytes(data))
        return len(self.segments) - 1

    def add_delegate_data(self, data: bytes, *, inline: bool = False) -> BackendDelegateDataReferenceT:
        """Stores a delegate payload (as a segment, upstream's default, or inline) and returns its reference."""
        ref = BackendDelegateDataReferenceT()
        if inline:
            blob = BackendDelegateInlineDataT()
            blob.data = np.frombuffer(bytes(data), dtype=np.uint8)
            if self.program.backendDelegateData is None:
                self.program.backendDelegateData = []
            self.program.backendDelegateData.append(blob)
            ref.location = DataLocation.INLINE
            ref.index = len(self.program.backendDelegateData) - 1
        else:
            ref.location = DataLocation.SEGMENT
            ref.index = self.add_segment(data)
        return ref

    # ---------------------------------------------------------------- writing
    def to_bytes(self) -> bytes:
        """Serializes: flatbuffer, extended header when some segment holds data, segments 128-byte aligned."""
        offsets = []
        end = 0
        for seg in self.segments:
            start = _align(end, SEGMENT_ALIGNMENT) if seg else end
            offsets.append(start if seg else 0)
            if seg:
                end = start + len(seg)
        entries = []
        for off, seg in zip(offsets, self.segments, strict=True):
            e = DataSegmentT()
            e.offset, e.size = off, len(seg)
            entries.append(e)
        self.program.segments = entries if (entries or self.program.segments is not None) else None
        return serialize_program(self.program, self.segments, offsets, end)


def serialize_program(
    program: ProgramT, segments: list[bytes] | None = None, offsets: list[int] | None = None, data_size: int = 0
) -> bytes:
    """Packs ``program`` (its ``segments`` table already filled in) and appends the segment data."""
    builder = flatbuffers.Builder(1024)
    builder.Finish(program.Pack(builder), file_identifier=FILE_IDENTIFIER)
    fb = bytes(builder.Output())
    segments = segments or []
    if not any(segments):
        return fb
    # The extended header goes right after the identifier; the root offset moves by the header's padded length
    # (flatbuffer offsets are relative, and the padding keeps every force_align'ed vector aligned).
    hlen = _align(EXTENDED_HEADER_LENGTH, _FORCE_ALIGN)
    program_size = len(fb) + hlen
    base = _align(program_size, SEGMENT_ALIGNMENT)
    header = struct.pack("<4sIQQQ", EXTENDED_HEADER_MAGIC, EXTENDED_HEADER_LENGTH, program_size, base, data_size)
    header += b"\0" * (hlen - len(header))
    (root,) = struct.unpack_from("<I", fb, 0)
    out = bytearray(struct.pack("<I", root + hlen) + fb[4:8] + header + fb[8:])
    out += b"\0" * (base - len(out))
    for off, seg in zip(offsets or [], segments, strict=True):
        if seg:
            out += b"\0" * (base + off - len(out))
            out += seg
    return bytes(out)


def pack_constants(blobs: list[bytes]) -> tuple[bytes, list[int]]:
    """A constant segment: the blobs back to back, each starting at a multiple of 16; offsets[0] is the
    placeholder for ``data_buffer_idx`` 0 (so the returned offsets have one entry more than ``blobs``)."""
    out = bytearray()
    offsets = [0]
    for b in blobs:
        out += b"\0" * (_align(len(out), CONSTANT_ALIGNMENT) - len(out))
        offsets.append(len(out))
        out += b
    return bytes(out), offsets


def instruction_values(ins: InstructionT) -> Iterator[int]:
    """Every value index an instruction names directly."""
    a = ins.instrArgs
    t = ins.instrArgsType
    if t in (InstructionArguments.KernelCall, InstructionArguments.DelegateCall):
        yield from as_ints(a.args)
    elif t == InstructionArguments.MoveCall:
        yield int(a.moveFrom)
        yield int(a.moveTo)
    elif t == InstructionArguments.JumpFalseCall:
        yield int(a.condValueIndex)
    elif t == InstructionArguments.FreeCall:
        yield int(a.valueIndex)
