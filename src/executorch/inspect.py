"""What a ``.pte`` program holds: ``python -m executorch.inspect model.pte [--json]``.

Methods with their inputs and outputs (shape, dtype, dim order), operators with call counts, delegates (backend id,
payload size and location; for ``CudaBackend`` payloads written by ``executorch.lower`` also the operators inside),
and the segments. The API returns the same information as a dict::

    from executorch.inspect import inspect_program
    info = inspect_program("model.pte")          # path or bytes
    info["methods"][0]["operators"]              # {"aten::addmm.out": 2, ...}
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from executorch import cuda_payload
from executorch.pte import (
    DataLocation,
    ExecutionPlanT,
    InstructionArguments,
    KernelTypes,
    PteError,
    PteFile,
    TensorShapeDynamism,
    as_ints,
    as_str,
    dtype_name,
    kernel_call_counts,
    tensor_nbytes,
)

__all__ = ["inspect_program", "main", "parse_cuda_payload"]

_INSTRUCTION_NAMES = {
    InstructionArguments.KernelCall: "KernelCall",
    InstructionArguments.DelegateCall: "DelegateCall",
    InstructionArguments.MoveCall: "MoveCall",
    InstructionArguments.JumpFalseCall: "JumpFalseCall",
    InstructionArguments.FreeCall: "FreeCall",
}
_VALUE_NAMES = {
    KernelTypes.Null: "none",
    KernelTypes.Int: "int",
    KernelTypes.Bool: "bool",
    KernelTypes.Double: "float",
    KernelTypes.String: "str",
    KernelTypes.IntList: "int list",
    KernelTypes.DoubleList: "float list",
    KernelTypes.BoolList: "bool list",
    KernelTypes.TensorList: "tensor list",
    KernelTypes.OptionalTensorList: "optional tensor list",
}
_DYNAMISM = {
    TensorShapeDynamism.STATIC: "static",
    TensorShapeDynamism.DYNAMIC_BOUND: "dynamic (upper bound)",
    TensorShapeDynamism.DYNAMIC_UNBOUND: "dynamic (unbounded)",
}


def parse_cuda_payload(payload: bytes) -> PteFile:
    """The subgraph program of a ``CudaBackend`` payload (format: :mod:`executorch.cuda_payload`)."""
    return PteFile.from_bytes(cuda_payload.unpack(payload))


def _value(plan: ExecutionPlanT, index: int) -> dict[str, Any]:
    ev = plan.values[index]
    if ev.valType != KernelTypes.Tensor:
        out: dict[str, Any] = {"index": index, "kind": _VALUE_NAMES.get(ev.valType, f"type#{ev.valType}")}
        if ev.valType in (KernelTypes.Int, KernelTypes.Double, KernelTypes.Bool):
            out["value"] = next(iter(vars(ev.val).values()))
        return out
    t = ev.val
    return {
        "index": index,
        "kind": "tensor",
        "shape": as_ints(t.sizes),
        "dtype": dtype_name(t.scalarType),
        "dim_order": as_ints(t.dimOrder),
        "dynamism": _DYNAMISM.get(t.shapeDynamism, str(t.shapeDynamism)),
        "nbytes": tensor_nbytes(t),
        "planned": t.allocationInfo is not None,
    }


def _operators(plan: ExecutionPlanT) -> dict[str, int]:
    return dict(sorted(kernel_call_counts(plan).items()))


def _method(pte: PteFile, plan: ExecutionPlanT) -> dict[str, Any]:
    instructions: dict[str, int] = {}
    calls: dict[int, int] = {}
    for chain in plan.chains or []:
        for ins in chain.instructions or []:
            kind = _INSTRUCTION_NAMES.get(ins.instrArgsType, str(ins.instrArgsType))
            instructions[kind] = instructions.get(kind, 0) + 1
            if ins.instrArgsType == InstructionArguments.DelegateCall:
                d = int(ins.instrArgs.delegateIndex)
                calls[d] = calls.get(d, 0) + 1
    delegates = []
    for i, d in enumerate(plan.delegates or []):
        ref = d.processed
        payload = pte.delegate_data(d)
        entry: dict[str, Any] = {
            "index": i,
            "backend": as_str(d.id),
            "payload_bytes": len(payload),
            "location": "segment" if ref.location == DataLocation.SEGMENT else "inline",
            "data_index": int(ref.index),
            "compile_specs": [as_str(c.key) for c in d.compileSpecs or []],
            "calls": calls.get(i, 0),
        }
        if payload[:8] == cuda_payload.MAGIC:
            try:
                sub = parse_cuda_payload(payload)
                sub_plan = sub.plans[0]
                entry["subgraph"] = {
                    "operators": _operators(sub_plan),
                    "inputs": len(sub_plan.inputs or []),
                    "outputs": len(sub_plan.outputs or []),
                    "constants": max(len(sub.program.constantBuffer or []) - 1, 0),
                }
            except (PteError, IndexError) as e:
                entry["subgraph_error"] = str(e)
        delegates.append(entry)
    values = plan.values or []
    return {
        "name": as_str(plan.name),
        "inputs": [_value(plan, i) for i in as_ints(plan.inputs)],
        "outputs": [_value(plan, i) for i in as_ints(plan.outputs)],
        "operators": _operators(plan),
        "instructions": instructions,
        "delegates": delegates,
        "values": len(values),
        "planned_buffers": as_ints(plan.nonConstBufferSizes)[1:],
    }


def inspect_program(program: bytes | bytearray | memoryview | str | Path) -> dict[str, Any]:
    """A JSON-able description of a ``.pte`` program (path or bytes); raises PteError for a corrupt file."""
    if isinstance(program, str | Path):
        try:
            program = Path(program).read_bytes()
        except OSError as e:
            raise PteError(f"cannot read {program}: {e.strerror or e}") from None
    pte = PteFile.from_bytes(program)
    cs = pte.program.constantSegment
    offsets = pte.constant_offsets()
    roles: dict[int, str] = {}
    if cs is not None and len(offsets) > 1:
        roles[int(cs.segmentIndex)] = "constants"
    for m in pte.program.mutableDataSegments or []:
        roles[int(m.segmentIndex)] = "mutable data"
    for plan in pte.plans:
        for d in plan.delegates or []:
            if d.processed.location == DataLocation.SEGMENT:
                roles.setdefault(int(d.processed.index), f"delegate {as_str(d.id)}")
    for nd in pte.program.namedData or []:
        roles.setdefault(int(nd.segmentIndex), f"named data {as_str(nd.key)}")
    header = pte.header
    n_constants = len(offsets) - 1 if len(offsets) > 1 else max(len(pte.program.constantBuffer or []) - 1, 0)
    return {
        "file_bytes": len(program),
        "extended_header": None
        if header is None
        else {
            "program_size": header.program_size,
            "segment_base_offset": header.segment_base_offset,
            "segment_data_size": header.segment_data_size,
        },
        "methods": [_method(pte, p) for p in pte.plans],
        "constants": {
            "count": n_constants,
            "location": "segment" if len(offsets) > 1 else "inline",
            "bytes": len(pte.segments[cs.segmentIndex]) if cs is not None and len(offsets) > 1 else 0,
        },
        "segments": [
            {"index": i, "bytes": len(s), "content": roles.get(i, "unused" if not s else "other")}
            for i, s in enumerate(pte.segments)
        ],
        "named_data": [as_str(nd.key) for nd in pte.program.namedData or []],
    }


def _shape(v: dict[str, Any]) -> str:
    if v["kind"] != "tensor":
        return v["kind"] + (f" = {v['value']}" if "value" in v else "")
    dims = "x".join(str(s) for s in v["shape"]) or "scalar"
    extra = "" if v["dim_order"] == sorted(v["dim_order"]) else f" dim_order={v['dim_order']}"
    dyn = "" if v["dynamism"] == "static" else f" {v['dynamism']}"
    return f"{v['dtype']}[{dims}]{extra}{dyn}"


def format_text(info: dict[str, Any], name: str) -> str:
    lines = [f"{name}: {len(info['methods'])} method(s), {info['file_bytes']} bytes"]
    for m in info["methods"]:
        lines.append(f"method {m['name']}:")
        for what in ("inputs", "outputs"):
            lines.append(f"  {what}:")
            lines.extend(f"    {i}: {_shape(v)}" for i, v in enumerate(m[what]))
        kinds = ", ".join(f"{k} {n}" for k, n in m["instructions"].items()) or "none"
        lines.append(f"  instructions: {kinds}")
        if m["operators"]:
            lines.append(f"  operators ({len(m['operators'])}):")
            lines.extend(f"    {op} x{n}" for op, n in m["operators"].items())
        if m["delegates"]:
            lines.append(f"  delegates ({len(m['delegates'])}):")
        for d in m["delegates"]:
            lines.append(
                f"    {d['index']}: {d['backend']}, {d['payload_bytes']} bytes in {d['location']} {d['data_index']}, "
                f"called {d['calls']}x"
            )
            if "subgraph" in d:
                s = d["subgraph"]
                ops = ", ".join(f"{op} x{n}" if n > 1 else op for op, n in s["operators"].items())
                lines.append(
                    f"       subgraph: {s['inputs']} in, {s['outputs']} out, {s['constants']} constant(s): {ops}"
                )
            if "subgraph_error" in d:
                lines.append(f"       subgraph unreadable: {d['subgraph_error']}")
    c = info["constants"]
    lines.append(f"constants: {c['count']} ({c['location']}, {c['bytes']} bytes)")
    if info["segments"]:
        lines.append(f"segments ({len(info['segments'])}):")
        lines.extend(f"  {s['index']}: {s['bytes']} bytes, {s['content']}" for s in info["segments"])
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m executorch.inspect", description="Show what a .pte program holds.")
    ap.add_argument("program", help="the .pte file")
    ap.add_argument("--json", action="store_true", help="print JSON instead of text")
    args = ap.parse_args(argv)
    try:
        info = inspect_program(args.program)
    except PteError as e:
        print(f"error: {args.program}: {e}", file=sys.stderr)
        return 1
    except Exception as e:  # no tracebacks from the tool: say what failed
        print(f"error: {args.program}: cannot inspect this program ({type(e).__name__}: {e})", file=sys.stderr)
        return 1
    print(json.dumps(info, indent=2) if args.json else format_text(info, args.program))
    return 0


if __name__ == "__main__":
    sys.exit(main())
