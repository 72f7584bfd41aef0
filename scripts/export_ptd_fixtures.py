#!/usr/bin/env python3
"""Export the program-data separation fixtures (``tests/fixtures/ptd``): `.pte` programs whose weights live in `.ptd`.

Upstream ExecuTorch 1.5.1 can keep a program's constant tensors outside the `.pte`, in FlatTensor data files
(``.ptd``, magic ``FT01`` / extended header ``FH01``): tensors the program itself reads are marked
``extra_tensor_info.location = EXTERNAL`` with a ``fully_qualified_name`` (fqn) that is the key in the data file's
``named_data``; delegates (XNNPACK) look their weights up by key (a sha256 of the bytes) in the same named data.
The recipe, as ``export_llama`` does it: tag the constants of the *unlifted* module with
``delegate_external_constants_pass_unlifted`` (so the delegate's weights move too), re-export, lower, then
``to_executorch(ExecutorchBackendConfig(external_constants=tag_fn))``; ``write_tensor_data_to_file(dir)`` writes one
``<tag>.ptd`` per tag.

Fixtures (each in ``<out>/<name>/``: ``model.pte``, its ``.ptd`` file(s), ``forward_case<N>_in<K>.npy``,
``forward_case<N>_out<K>.npy`` references and ``forward_case<N>_upstream_out<K>.npy``, upstream's runtime output):

* ``portable_mlp``: Conv2d + BatchNorm2d + ReLU + MaxPool2d + Linear + ReLU + Linear, no partitioner: every
  parameter and buffer is EXTERNAL in ``model.ptd``; one tensor created in ``forward`` (a lifted constant) stays in
  the `.pte` (upstream's pass leaves lifted constants in the program).
* ``xnnpack_cnn``: conv / depthwise conv / pointwise conv / global average pool / linear, fully lowered to XNNPACK;
  every XNNPACK weight is in ``model.ptd`` (keys read by the delegate). No BatchNorm: XNNPACK folds a BatchNorm into
  new constants that carry no tag, and those stay in the `.pte` (see ``xnnpack_mixed``).
* ``xnnpack_mixed``: Conv2d + BatchNorm2d (folded by XNNPACK: the folded weights stay in the `.pte`'s named data),
  a second convolution (weights in ``model.ptd``) and an Embedding on an int64 input that XNNPACK does not take
  (its table is an EXTERNAL fqn in the same ``model.ptd``): one delegate reads keys from both files.
* ``xnnpack_q8``: PT2E static int8 (``XNNPACKQuantizer``, per-channel, BatchNorm folded at quantization), lowered
  as upstream's ``examples/xnnpack/aot_compiler.py`` does. XNNPACK reads a quantized weight's tag from its
  *dequantize* node, which ``delegate_external_constants_pass_unlifted`` does not tag (only ``get_attr`` nodes), so
  upstream's pass alone moves only the biases; the script copies each weight's tag onto the dequantize node that
  reads it, and then the int8 weights and their per-channel scales are in ``model.ptd`` too (the manifest records
  both counts). Reference: upstream's runtime output.
* ``llm``: the tiny Llama of ``scripts/export_llm_fixtures.py`` (same params and seeded checkpoint), exported
  ``-kv --use_sdpa_with_kv_cache -X`` with its weights in ``model.ptd``. ``export_llama``'s argparse CLI has no
  switch for this in 1.5.1 (no ``--external_constants``); its LlmConfig has ``export.foundation_weights_file``, which
  only the Hydra entry point reads: the script turns the ``export_llama`` flags into an LlmConfig with upstream's
  ``LlmConfig.from_args``, sets ``foundation_weights_file: model`` and runs ``python -m
  executorch.extension.llm.export.export_llm --config <yaml>``. Cases: one prefill call with the prompt's tokens,
  then greedy decode steps (stateful: run them in order on one loaded method); references are upstream's logits.
  The tokenizer is ``../llm/tokenizer.model``.
* ``two_files``: a portable MLP whose constants go to two data files, ``encoder.ptd`` and ``head.ptd`` (the tag
  function returns the layer's name). Upstream's Python runtime takes one ``data_path`` only
  (``Runtime.load_program(..., data_path=)``, ``_load_for_executorch(..., data_path=)``; no Python ``Module``), and
  with either file alone ``load_method`` fails. Upstream's C++ ``Module(path, std::vector<std::string>
  data_files)`` (a ``MergedDataMap``) runs it: the script compiles a small runner against the wheel's C++ SDK
  (``include/``, ``lib/libexecutorch.so``, ``libexecutorch_kernels_optimized.so``) with ``c++`` and records its
  output as the upstream output (both file orders give the same output). Without a C++ compiler the upstream
  output is skipped (eager references only).
* ``mutable_external``: a ``register_buffer`` state updated in ``forward`` (``state = state * 0.5 + x``) whose
  *initial value* is in ``model.ptd``; the tensor is memory-planned and EXTERNAL, and upstream's runtime copies the
  value from the data file into the planned arena when the method is loaded. Upstream's config has no switch for
  this (``external_constants`` tags only tensors that are constant when the pass runs; ``external_mutable_weights``
  only trainable parameters of a joint training graph), so a small ``ExportPass`` sets ``et_init_buffer`` (as
  ``InitializedMutableBufferPass`` does) and ``constant_tag`` on the buffer's placeholder. Stateful cases.

For every fixture upstream's runtime is also run without its data file(s) (and, for ``two_files``, with each one
alone); the manifest records where it stops and the error text. Upstream runs happen in a child process of this
script (its C++ log lines are captured from stderr). What upstream 1.5.1 does:

* a program with EXTERNAL tensors, no data file: ``load_program`` succeeds, ``load_method`` fails with error 0x2
  (InvalidState), log ``method.cpp:353] external_data_map is null``;
* ``two_files`` with one of its files: ``load_method`` fails with 0x20 (NotFound), log ``method.cpp:398] Failed to
  get metadata for key head.weight`` (the C++ ``Module`` says the same);
* a program whose only external data is XNNPACK's (``xnnpack_cnn``, ``xnnpack_q8``: no EXTERNAL tensor, no named
  data in the `.pte`), no data file: upstream's runtime *crashes* in ``load_method`` (SIGSEGV; gdb puts it in
  ``xnnpack::delegate::getConstantDataPtr`` under ``XnnpackBackend::init``: the key is looked up in a null
  ``NamedDataMap``). The manifest says ``"outcome": "crashed"``.

Run it with the export virtualenv (torch 2.13.0+cpu, executorch 1.5.1, torchao, sentencepiece, hydra-core)::

    ../exportenv/bin/python scripts/export_ptd_fixtures.py [--out DIR] [--only NAME ...]

``--only NAME`` (repeatable) re-exports only those fixtures and keeps the other manifest entries. The output is
deterministic: two runs give byte-identical files.
"""

from __future__ import annotations

import argparse
import copy
import importlib
import json
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

SCRIPT_DIR = Path(__file__).resolve().parent
if str(SCRIPT_DIR) not in sys.path:
    sys.path.insert(0, str(SCRIPT_DIR))
ef: Any = importlib.import_module("export_fixtures")
eq: Any = importlib.import_module("export_quantized_fixtures")
el: Any = importlib.import_module("export_llm_fixtures")

REPO_ROOT = SCRIPT_DIR.parent
DEFAULT_OUT = REPO_ROOT / "tests" / "fixtures" / "ptd"
LLM_FIXTURES = REPO_ROOT / "tests" / "fixtures" / "llm"
MANIFEST_FORMAT_VERSION = 1
PTE_NAME = "model.pte"
CALIBRATION_INPUTS = 8

TagFn = Callable[[torch.fx.Node], str | None]
Cases = list[tuple[torch.Tensor, ...]]  # the inputs of each call of forward


def model_tag(_node: torch.fx.Node) -> str:
    """Every constant into ``model.ptd``."""
    return "model"


# --------------------------------------------------------------------------
# Models
# --------------------------------------------------------------------------


class SmallConvMlp(nn.Module):
    """Conv2d(3->8) + BatchNorm2d + ReLU + MaxPool2d(2), then Linear(128->32) + ReLU + Linear(32->10) + a constant."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.pool = nn.MaxPool2d(2)
        self.fc1 = nn.Linear(8 * 4 * 4, 32)
        self.fc2 = nn.Linear(32, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.pool(torch.relu(self.bn(self.conv(x))))
        x = torch.relu(self.fc1(x.flatten(1)))
        # A tensor made in forward: a lifted constant, which upstream's pass keeps in the .pte.
        return self.fc2(x) + torch.tensor([0.5, -0.25, 0.125, 0.0, 1.0, -1.0, 0.75, -0.5, 0.25, 2.0])


class XnnCnn(nn.Module):
    """Conv2d(3->8) + ReLU, depthwise 3x3 + ReLU6, pointwise Conv2d(8->16) + ReLU, global avg pool, Linear(16->10)."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.dw = nn.Conv2d(8, 8, 3, stride=2, padding=1, groups=8)
        self.pw = nn.Conv2d(8, 16, 1)
        self.gap = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(16, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = torch.relu(self.conv(x))
        x = nn.functional.relu6(self.dw(x))
        x = torch.relu(self.pw(x))
        return self.fc(self.gap(x).flatten(1))


class XnnMixed(nn.Module):
    """Conv2d(3->8) + BatchNorm2d + ReLU, Conv2d(8->8, stride 2) + ReLU, global avg pool, plus Embedding(16, 8) of ids.

    Output: ``pool(features) + emb(ids).sum(1)`` ([1, 8]).
    """

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 8, 3, stride=2, padding=1)
        self.gap = nn.AdaptiveAvgPool2d(1)
        self.emb = nn.Embedding(16, 8)

    def forward(self, x: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
        x = torch.relu(self.bn(self.conv(x)))
        x = torch.relu(self.conv2(x))
        return self.gap(x).flatten(1) + self.emb(ids).sum(dim=1)


class Q8Net(nn.Module):
    """Conv2d(3->8) + BatchNorm2d + ReLU, Conv2d(8->16, stride 2) + ReLU, global avg pool, Linear(16->10)."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 16, 3, stride=2, padding=1)
        self.gap = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(16, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = torch.relu(self.bn(self.conv(x)))
        x = torch.relu(self.conv2(x))
        return self.fc(self.gap(x).flatten(1))


class TwoPartMlp(nn.Module):
    """``encoder``: Linear(8->32) + ReLU + LayerNorm(32); ``head``: Linear(32->4)."""

    def __init__(self) -> None:
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.LayerNorm(32))
        self.head = nn.Linear(32, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.encoder(x))


def two_file_tag(node: torch.fx.Node) -> str:
    """``encoder.*`` into ``encoder.ptd``, everything else into ``head.ptd``."""
    return "encoder" if "encoder" in node.name else "head"


class RunningState(nn.Module):
    """A [2, 4] buffer updated in forward: ``state = state * 0.5 + x``; returns ``fc(tanh(state))``."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.register_buffer("state", torch.randn(2, 4))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.state.mul_(0.5).add_(x)
        return self.fc(torch.tanh(self.state))


def tag_mutable_buffers_pass(names: Sequence[str], tag: str) -> Any:
    """An ExportPass that gives these buffers an initial state (``et_init_buffer``) stored under ``tag``."""
    from executorch.exir.pass_base import ExportPass

    class TagMutableBuffers(ExportPass):
        def placeholder(self, name: str, arg: Any, meta: Any) -> Any:
            if any(n in name for n in names):
                meta["et_init_buffer"] = True
                meta["constant_tag"] = tag
            return super().placeholder(name, arg, meta)

    return TagMutableBuffers()


# --------------------------------------------------------------------------
# Export helpers
# --------------------------------------------------------------------------


def seeded(seed: int) -> torch.Generator:
    torch.manual_seed(seed)
    return torch.Generator().manual_seed(seed + 1000)


def seeded_model(make: Callable[[], nn.Module], seed: int) -> tuple[nn.Module, torch.Generator]:
    """The model built after seeding, its norms randomized, in eval mode; and the generator for its inputs."""
    gen = seeded(seed)
    model = make()
    ef.randomize_norms(model, gen)
    return model.eval(), gen


def unlifted_tagged(module: nn.Module, example: tuple[torch.Tensor, ...], tag: TagFn) -> Any:
    """torch.export, unlift, tag every get_attr for the delegates (delegate_external_constants_pass_unlifted)."""
    from executorch.exir.passes.external_constants_pass import delegate_external_constants_pass_unlifted

    with torch.no_grad():
        unlifted = torch.export.export(module, example, strict=False).module()
    delegate_external_constants_pass_unlifted(module=unlifted, gen_tag_fn=tag)
    return unlifted


def tag_dequantize_nodes(module: torch.fx.GraphModule) -> int:
    """Copy a tagged get_attr's delegate_constant_tag onto the dequantize node that reads it (see the docstring)."""
    count = 0
    for node in module.graph.nodes:
        if node.op != "call_function" or "dequantize" not in str(node.target) or not node.args:
            continue
        src = node.args[0]
        if not isinstance(src, torch.fx.Node) or src.op != "get_attr":
            continue
        tag = src.meta.get("custom", {}).get("delegate_constant_tag")
        if tag is not None:
            node.meta.setdefault("custom", {})["delegate_constant_tag"] = tag
            count += 1
    return count


def lower_xnnpack(ep: Any, tag: TagFn, aot_compiler: bool = False) -> tuple[Any, Any]:
    """(EdgeProgramManager, ExecutorchProgramManager) lowered with XnnpackPartitioner, constants tagged by ``tag``."""
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.backends.xnnpack.utils.configs import get_transform_passes
    from executorch.exir import EdgeCompileConfig, ExecutorchBackendConfig, to_edge_transform_and_lower

    if aot_compiler:  # examples/xnnpack/aot_compiler.py's configuration for quantized models
        edge = to_edge_transform_and_lower(
            ep,
            partitioner=[XnnpackPartitioner()],
            transform_passes=get_transform_passes(),
            compile_config=EdgeCompileConfig(_check_ir_validity=False, _skip_dim_order=True),
        )
        config = ExecutorchBackendConfig(extract_delegate_segments=False, external_constants=tag)
    else:
        edge = to_edge_transform_and_lower(ep, partitioner=[XnnpackPartitioner()])
        config = ExecutorchBackendConfig(external_constants=tag)
    return edge, edge.to_executorch(config)


def write_program(manager: Any, out_dir: Path) -> list[str]:
    """Write model.pte and upstream's <tag>.ptd files; returns the data file names (sorted)."""
    (out_dir / PTE_NAME).write_bytes(manager.buffer)
    manager.write_tensor_data_to_file(str(out_dir))
    return sorted(p.name for p in out_dir.glob("*.ptd"))


# --------------------------------------------------------------------------
# Reading the files back (upstream's deserializers)
# --------------------------------------------------------------------------


def layout_json(layout: Any) -> dict[str, Any] | None:
    if layout is None:
        return None
    return {
        "scalar_type": layout.scalar_type.name,
        "sizes": [int(s) for s in layout.sizes],
        "dim_order": [int(d) for d in layout.dim_order],
    }


def read_ptd(path: Path) -> dict[str, Any]:
    """The FlatTensor header and named data of a .ptd file (FlatTensorSerializer.deserialize)."""
    from executorch.exir._serialize._cord import Cord
    from executorch.extension.flat_tensor.serialize.serialize import FlatTensorHeader, FlatTensorSerializer

    data = path.read_bytes()
    header = FlatTensorHeader.from_bytes(data[8:])
    payload = FlatTensorSerializer().deserialize(Cord(data))
    return {
        "file": path.name,
        "size": len(data),
        "file_identifier": data[4:8].decode("ascii"),  # the flatbuffer's, FT01
        "header": {
            "magic": header.magic.decode("ascii"),
            "length": header.length,
            "flatbuffer_offset": header.flatbuffer_offset,
            "flatbuffer_size": header.flatbuffer_size,
            "segment_base_offset": header.segment_base_offset,
            "segment_data_size": header.segment_data_size,
        },
        "segments": len(payload.buffers),
        "named_data": [
            {
                "key": key,
                "segment_index": entry.buffer_index,
                "size": len(payload.buffers[entry.buffer_index]),
                "tensor_layout": layout_json(entry.tensor_layout),
            }
            for key, entry in payload.named_data.items()
        ],
    }


def read_pte(path: Path) -> dict[str, Any]:
    """EXTERNAL tensors, named data kept in the .pte, delegates and the keys they read, operators, methods."""
    from executorch.exir._serialize._program import deserialize_pte_binary
    from executorch.exir.schema import Tensor, TensorDataLocation

    pte = deserialize_pte_binary(path.read_bytes())
    program = pte.program
    external: dict[str, dict[str, Any]] = {}
    inline_constants: list[dict[str, Any]] = []
    operators: set[str] = set()
    delegates: list[dict[str, Any]] = []
    for plan in program.execution_plan:
        for op in plan.operators:
            operators.add(f"{op.name}.{op.overload}" if op.overload else op.name)
        for value in plan.values:
            t = value.val
            if not isinstance(t, Tensor):
                continue
            info = t.extra_tensor_info
            if info is not None and info.location == TensorDataLocation.EXTERNAL:
                external.setdefault(
                    info.fully_qualified_name,
                    {
                        "fqn": info.fully_qualified_name,
                        "method": plan.name,
                        "scalar_type": t.scalar_type.name,
                        "sizes": [int(s) for s in t.sizes],
                        "dim_order": [int(d) for d in t.dim_order],
                        "memory_planned": t.allocation_info is not None,
                    },
                )
            elif t.data_buffer_idx > 0 and t.allocation_info is None:
                inline_constants.append(
                    {"method": plan.name, "scalar_type": t.scalar_type.name, "sizes": [int(s) for s in t.sizes]}
                )
        for delegate in plan.delegates:
            entry: dict[str, Any] = {"method": plan.name, "backend": delegate.id, "keys": []}
            if delegate.id == "XnnpackBackend":
                data = bytes(program.backend_delegate_data[delegate.processed.index].data)
                graph = eq.decode_xnnpack_payload(data)
                for c in graph.get("constant_data", []):
                    key = c["named_key"]
                    key = key.decode("ascii") if isinstance(key, bytes) else key
                    if key:
                        entry["keys"].append({"key": key, "size": c["size"]})
            delegates.append(entry)
    pte_named = []
    if pte.named_data is not None:
        for key, entry in pte.named_data.pte_data.items():
            pte_named.append({"key": key, "size": len(pte.named_data.buffers[entry.buffer_index])})
    return {
        "methods": [plan.name for plan in program.execution_plan],
        "external_tensors": list(external.values()),
        "inline_constant_tensors": inline_constants,
        "pte_named_data": pte_named,
        "delegates": delegates,
        "operators": sorted(operators),
    }


def data_facts(out_dir: Path, data_files: Sequence[str]) -> dict[str, Any]:
    """What each .ptd holds, what the .pte reads from where; fails if a key the program needs is nowhere."""
    ptds = [read_ptd(out_dir / f) for f in data_files]
    pte = read_pte(out_dir / PTE_NAME)
    where: dict[str, str] = {}
    for ptd in ptds:
        for nd in ptd["named_data"]:
            if nd["key"] in where:
                raise RuntimeError(f"key {nd['key']} in {where[nd['key']]} and {ptd['file']}")
            where[nd["key"]] = ptd["file"]
    pte_keys = {e["key"] for e in pte["pte_named_data"]}
    for t in pte["external_tensors"]:
        t["data_file"] = where.get(t["fqn"])
        if t["data_file"] is None:
            raise RuntimeError(f"EXTERNAL tensor {t['fqn']} is in no data file")
    delegate_keys: dict[str, int] = {}
    for d in pte["delegates"]:
        for k in d["keys"]:
            k["location"] = where.get(k["key"]) or ("pte" if k["key"] in pte_keys else None)
            if k["location"] is None:
                raise RuntimeError(f"delegate key {k['key']} is neither in the .pte nor in a data file")
            delegate_keys[k["location"]] = delegate_keys.get(k["location"], 0) + 1
    return {
        "data": ptds,
        "external_tensors": pte["external_tensors"],
        "delegates": pte["delegates"],
        "delegate_keys_by_location": dict(sorted(delegate_keys.items())),
        "pte_named_data": pte["pte_named_data"],
        "inline_constant_tensors": pte["inline_constant_tensors"],
        "operators": pte["operators"],
        "program_methods": pte["methods"],
    }


# --------------------------------------------------------------------------
# Upstream's runtime (in a child process)
# --------------------------------------------------------------------------


STAGES = ("load_program", "load_method", "execute")
LOG_LINE = re.compile(r"^(?:[EIWD] [0-9:.]+ executorch:|\[)(?P<msg>[\w./-]+\.(?:cpp|h):\d+\].*)$")


def runtime_log(stderr: str) -> list[str]:
    """Upstream's C++ log lines (``file.cpp:N] message``), without the CPU-info probing noise and timestamps."""
    lines = []
    for line in stderr.splitlines():
        m = LOG_LINE.match(line.strip())
        if m and not m.group("msg").startswith("cpuinfo_utils"):
            lines.append(m.group("msg"))
    return lines


def child_main(request_path: Path) -> None:
    """Runs one request of run_upstream() with upstream's Python runtime; writes the result next to the request."""
    import executorch.extension.llm.custom_ops.custom_ops  # llama:: kernels
    import executorch.kernels.quantized  # noqa: F401  # quantized_decomposed:: kernels

    from executorch.runtime import Runtime

    req = json.loads(request_path.read_text())
    result: dict[str, Any] = {}

    def finish() -> None:
        request_path.with_suffix(".result.json").write_text(json.dumps(result))

    def attempt(stage: str, fn: Callable[[], Any]) -> Any:
        try:
            value = fn()
        except Exception as exc:
            result[stage] = f"{type(exc).__name__}: {exc}"
            return None
        result[stage] = "ok"
        finish()  # progress, for a crash in the next stage
        return value

    data_path = req.get("data_path")
    program = attempt("load_program", lambda: Runtime.get().load_program(Path(req["pte"]), data_path=data_path))
    if program is None:
        return finish()
    method = attempt("load_method", lambda: program.load_method(req.get("method", "forward")))
    if method is None:
        return finish()
    outputs: list[list[str]] = []
    if req.get("greedy"):
        tokens = torch.tensor([req["greedy"]["prompt"]], dtype=torch.long)
        pos = 0
        inputs_written: list[list[str]] = []
        for step in range(1 + req["greedy"]["steps"]):
            inputs = [tokens, torch.tensor([pos], dtype=torch.long)]
            got = attempt("execute", lambda inputs=inputs: method.execute(inputs))
            if got is None:
                return finish()
            names = []
            for i, t in enumerate(inputs):
                name = f"{req['out_prefix']}_case{step}_in{i}.npy"
                np.save(Path(req["out_dir"]) / name, ef.to_numpy(t), allow_pickle=False)
                names.append(name)
            inputs_written.append(names)
            logits = got[0]
            out_name = f"{req['out_prefix']}_case{step}_out0.npy"
            np.save(Path(req["out_dir"]) / out_name, ef.to_numpy(logits), allow_pickle=False)
            outputs.append([out_name])
            row = logits.reshape(-1, logits.shape[-1])[-1]
            pos += tokens.shape[1]
            tokens = torch.tensor([[int(torch.argmax(row))]], dtype=torch.long)
        result["inputs"] = inputs_written
        result["outputs"] = outputs
        return finish()
    for idx, files in enumerate(req["cases"]):
        inputs = [torch.from_numpy(np.load(f)) for f in files]
        got = attempt("execute", lambda inputs=inputs: method.execute(inputs))
        if got is None:
            return finish()
        names = []
        for k, t in enumerate(got):
            name = f"{req['out_prefix']}_case{idx}_{req['suffix']}{k}.npy"
            if req.get("out_dir"):
                np.save(Path(req["out_dir"]) / name, ef.to_numpy(t), allow_pickle=False)
            names.append(name)
        outputs.append(names)
        if req.get("first_case_only"):
            break
    result["outputs"] = outputs
    return finish()


def run_upstream(request: dict[str, Any]) -> dict[str, Any]:
    """Runs child_main in a fresh interpreter; returns its result plus upstream's C++ log lines."""
    with tempfile.TemporaryDirectory(prefix="ptd_upstream_") as d:
        req_path = Path(d) / "request.json"
        req_path.write_text(json.dumps(request))
        proc = subprocess.run(
            [sys.executable, __file__, "--child", str(req_path)], capture_output=True, text=True, check=False
        )
        result_path = req_path.with_suffix(".result.json")
        if proc.returncode < 0 and result_path.exists():
            # Killed by a signal inside upstream's runtime: the first stage without a result is where.
            result = json.loads(result_path.read_text())
            stage = next(s for s in STAGES if s not in result)
            result[stage] = f"crashed: {signal.Signals(-proc.returncode).name} (the process died)"
        elif proc.returncode != 0 or not result_path.exists():
            raise RuntimeError(f"upstream child failed ({proc.returncode}):\n{proc.stderr[-4000:]}")
        else:
            result = json.loads(result_path.read_text())
    result["log"] = runtime_log(proc.stderr)
    return result


def refusal(out_dir: Path, case_files: Sequence[str], data_path: str | None) -> dict[str, Any]:
    """Where upstream's Python runtime stops without (some of) the data, and what it says."""
    res = run_upstream(
        {
            "pte": str(out_dir / PTE_NAME),
            "data_path": data_path,
            "cases": [[str(out_dir / f) for f in case_files]],
            "out_prefix": "refusal",
            "suffix": "out",
            "first_case_only": True,
        }
    )
    entry: dict[str, Any] = {
        "runner": "executorch.runtime (Python)",
        "data_files": [] if data_path is None else [Path(data_path).name],
    }
    for stage in STAGES:
        if stage in res:
            entry[stage] = res[stage]
    entry["log"] = res["log"]
    stages = [entry.get(s, "ok") for s in STAGES]
    if any(s.startswith("crashed") for s in stages):
        entry["outcome"] = "crashed"
    elif any(s != "ok" for s in stages):
        entry["outcome"] = "refused"
    else:
        entry["outcome"] = "ran"
    return entry


# --------------------------------------------------------------------------
# Upstream's C++ Module with several data files
# --------------------------------------------------------------------------


CXX_RUNNER = r"""
// Runs "forward" of a .pte with one float32 input and N .ptd files through upstream's Module(path, data_files).
// usage: run_module PTE INPUT.raw SHAPE(d0,d1,...) OUTPUT.raw [DATA.ptd ...]
#include <executorch/extension/module/module.h>
#include <executorch/extension/tensor/tensor.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  if (argc < 5) return 2;
  std::vector<std::string> data(argv + 5, argv + argc);
  executorch::extension::Module module(argv[1], data);
  std::vector<executorch::aten::SizesType> shape;
  std::stringstream dims(argv[3]);
  std::string dim;
  size_t numel = 1;
  while (std::getline(dims, dim, ',')) {
    shape.push_back(std::stoi(dim));
    numel *= shape.back();
  }
  std::vector<float> input(numel);
  std::ifstream in(argv[2], std::ios::binary);
  in.read(reinterpret_cast<char*>(input.data()), numel * sizeof(float));
  auto tensor = executorch::extension::from_blob(input.data(), shape);
  auto result = module.forward(tensor);
  if (!result.ok()) {
    std::fprintf(stderr, "forward failed: error 0x%x\n", static_cast<unsigned>(result.error()));
    return 1;
  }
  auto out = result.get()[0].toTensor();
  std::ofstream o(argv[4], std::ios::binary);
  o.write(static_cast<const char*>(out.const_data_ptr()), out.nbytes());
  return 0;
}
"""


def build_cxx_runner(work: Path) -> Path | None:
    """Compile CXX_RUNNER against the wheel's C++ SDK; None (with a message) when no compiler is there."""
    import executorch

    cxx = shutil.which("c++") or shutil.which("g++") or shutil.which("clang++")
    if cxx is None:
        print("two_files: no C++ compiler, skipping upstream's Module run", flush=True)
        return None
    root = Path(next(iter(executorch.__path__))).resolve()  # a namespace package: no __file__
    src = work / "run_module.cpp"
    src.write_text(CXX_RUNNER)
    exe = work / "run_module"
    lib = root / "lib"
    cmd = [
        cxx,
        "-std=c++17",
        "-O1",
        "-w",
        "-DC10_USING_CUSTOM_GENERATED_MACROS",
        "-DET_EVENT_TRACER_ENABLED",
        f"-I{root / 'include'}",
        f"-I{root / 'include' / 'executorch' / 'runtime' / 'core' / 'portable_type' / 'c10'}",
        str(src),
        "-o",
        str(exe),
        f"-L{lib}",
        "-Wl,--no-as-needed",
        "-lexecutorch",
        "-lexecutorch_kernels_optimized",
        f"-Wl,-rpath,{lib}",
    ]
    subprocess.run(cmd, check=True)
    return exe


def run_cxx_module(exe: Path, out_dir: Path, inputs: torch.Tensor, data_files: Sequence[str]) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="ptd_cxx_") as d:
        raw_in = Path(d) / "in.raw"
        raw_out = Path(d) / "out.raw"
        ef.to_numpy(inputs).tofile(raw_in)
        shape = ",".join(str(s) for s in inputs.shape)
        cmd = [str(exe), str(out_dir / PTE_NAME), str(raw_in), shape, str(raw_out)]
        proc = subprocess.run(cmd + [str(out_dir / f) for f in data_files], capture_output=True, text=True)
        result: dict[str, Any] = {
            "runner": "executorch::extension::Module (C++, upstream's libexecutorch.so)",
            "data_files": list(data_files),
            "ok": proc.returncode == 0,
            "log": runtime_log(proc.stderr),
        }
        if proc.returncode == 0:
            result["output"] = np.fromfile(raw_out, dtype="<f4")
        else:
            result["error"] = [line for line in proc.stderr.splitlines() if line.startswith("forward failed")]
    return result


# --------------------------------------------------------------------------
# Fixtures
# --------------------------------------------------------------------------


@dataclass
class Exported:
    """One exported fixture (model.pte and its data files already written to out_dir)."""

    description: str
    data_files: list[str]
    cases: Cases
    eager: nn.Module | None  # a fresh copy of the eager model; None: the reference is upstream's output
    atol: float = 1e-5
    rtol: float = 1e-5
    backends: list[str] = field(default_factory=list)
    stateful: bool = False
    notes: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)


def portable_fixture(
    out_dir: Path,
    model: nn.Module,
    cases: Cases,
    description: str,
    tag: TagFn = model_tag,
    passes: Sequence[Any] = (),
    **exported: Any,
) -> Exported:
    """The model exported without a partitioner, its constants tagged by ``tag``, written to out_dir."""
    from executorch.exir import ExecutorchBackendConfig, to_edge

    with torch.no_grad():
        ep = torch.export.export(copy.deepcopy(model), cases[0], strict=False)
    manager = to_edge(ep).to_executorch(ExecutorchBackendConfig(external_constants=tag, passes=list(passes)))
    return Exported(description, write_program(manager, out_dir), cases, model, **exported)


def xnnpack_fixture(out_dir: Path, model: nn.Module, cases: Cases, description: str) -> Exported:
    """The model fully lowered to XNNPACK, its constants and the delegate's weights in model.ptd, written to out_dir."""
    unlifted = unlifted_tagged(copy.deepcopy(model), cases[0], model_tag)
    ep = torch.export.export(unlifted, cases[0], strict=False)
    _edge, manager = lower_xnnpack(ep, model_tag)
    return Exported(
        description, write_program(manager, out_dir), cases, model, atol=1e-4, rtol=1e-4, backends=["XnnpackBackend"]
    )


def export_portable_mlp(out_dir: Path) -> Exported:
    model, gen = seeded_model(SmallConvMlp, 401)
    cases = [(ef.randn(gen, 2, 3, 8, 8),), (ef.randn(gen, 2, 3, 8, 8) * 2,)]
    return portable_fixture(
        out_dir,
        model,
        cases,
        "Conv2d(3->8,3x3,pad 1) + BatchNorm2d (random statistics) + ReLU + MaxPool2d(2), Linear(128->32) "
        "+ ReLU + Linear(32->10) + a constant [10] made in forward; input [2,3,8,8]; no partitioner, "
        "external_constants: every parameter and buffer (also BatchNorm's int64 num_batches_tracked) is EXTERNAL "
        "in model.ptd; the lifted constant stays in the .pte.",
    )


def export_xnnpack_cnn(out_dir: Path) -> Exported:
    model, gen = seeded_model(XnnCnn, 402)
    cases = [(ef.randn(gen, 1, 3, 16, 16),), (ef.randn(gen, 1, 3, 16, 16) * 2,)]
    return xnnpack_fixture(
        out_dir,
        model,
        cases,
        "Conv2d(3->8,3x3) + ReLU, depthwise Conv2d(8,3x3,stride 2) + ReLU6, Conv2d(8->16,1x1) + ReLU, "
        "AdaptiveAvgPool2d(1), Linear(16->10); input [1,3,16,16]; fully lowered to XNNPACK with every XNNPACK "
        "weight in model.ptd (delegate_external_constants_pass_unlifted + external_constants).",
    )


def export_xnnpack_mixed(out_dir: Path) -> Exported:
    model, gen = seeded_model(XnnMixed, 403)
    cases = [
        (ef.randn(gen, 1, 3, 12, 12), torch.randint(0, 16, (1, 5), generator=gen)),
        (ef.randn(gen, 1, 3, 12, 12) * 2, torch.randint(0, 16, (1, 5), generator=gen)),
    ]
    return xnnpack_fixture(
        out_dir,
        model,
        cases,
        "Conv2d(3->8,3x3) + BatchNorm2d (random statistics) + ReLU, Conv2d(8->8,3x3,stride 2) + ReLU, "
        "AdaptiveAvgPool2d(1), plus Embedding(16,8)(ids).sum(1); inputs [1,3,12,12] f32 and ids [1,5] i64. "
        "XNNPACK folds the BatchNorm into new constants that carry no tag: they stay in the .pte's named data "
        "while the second convolution's weights are in model.ptd; the embedding is not delegated and its table is "
        "an EXTERNAL fqn in model.ptd.",
    )


def export_xnnpack_q8(out_dir: Path) -> Exported:
    from executorch.exir.passes.external_constants_pass import delegate_external_constants_pass_unlifted

    model, gen = seeded_model(Q8Net, 404)
    cases = [(ef.randn(gen, 1, 3, 16, 16),), (ef.randn(gen, 1, 3, 16, 16),)]
    calib_gen = torch.Generator().manual_seed(404 + 2000)
    calibration = [ef.randn(calib_gen, 1, 3, 16, 16) for _ in range(CALIBRATION_INPUTS)]
    with torch.no_grad():
        eager = [ef.as_tuple(model(*c)) for c in cases]

    def lowered(tag_dequantize: bool) -> tuple[Any, Any, int]:
        converted = eq.quantize_pt2e(copy.deepcopy(model), cases[0], calibration, dynamic=False)
        delegate_external_constants_pass_unlifted(module=converted, gen_tag_fn=model_tag)
        tagged = tag_dequantize_nodes(converted) if tag_dequantize else 0
        ep = torch.export.export(converted, cases[0], strict=False)
        edge, manager = lower_xnnpack(ep, model_tag, aot_compiler=True)
        return edge, manager, tagged

    # Upstream's pass alone, for the record: which XNNPACK keys would stay in the .pte.
    with tempfile.TemporaryDirectory(prefix="ptd_q8_") as d:
        _edge, alone, _ = lowered(tag_dequantize=False)
        alone_files = write_program(alone, Path(d))
        alone_facts = data_facts(Path(d), alone_files)["delegate_keys_by_location"]

    edge, manager, tagged = lowered(tag_dequantize=True)
    graphs = [
        eq.decode_xnnpack_payload(data) for backend, data in eq.lowered_payloads(edge) if backend == "XnnpackBackend"
    ]
    scale, zero_point = eq.output_quantization(manager, graphs)
    data_files = write_program(manager, out_dir)
    return Exported(
        description="Conv2d(3->8,3x3) + BatchNorm2d (random statistics, folded at quantization) + ReLU, "
        "Conv2d(8->16,3x3,stride 2) + ReLU, AdaptiveAvgPool2d(1), Linear(16->10); input [1,3,16,16]; PT2E static "
        "int8 (XNNPACKQuantizer, per-channel, 8 seeded calibration inputs), lowered as examples/xnnpack/"
        "aot_compiler.py does, int8 weights, per-channel scales and int32 biases in model.ptd.",
        data_files=data_files,
        cases=cases,
        eager=None,
        atol=scale * 1.001 if scale is not None else 1e-3,
        rtol=0.0,
        backends=["XnnpackBackend"],
        notes=[
            "reference = upstream's runtime output (quantized)",
            "delegate_external_constants_pass_unlifted tags get_attr nodes; XNNPACK reads a quantized weight's tag "
            "from its dequantize node, so the script copies the tag onto the dequantize nodes that read a tagged "
            f"get_attr ({tagged} nodes); with upstream's pass alone the delegate keys are "
            + json.dumps(alone_facts, sort_keys=True),
        ],
        extra={
            "output_scale": scale,
            "output_zero_point": zero_point,
            "dequantize_nodes_tagged": tagged,
            "upstream_pass_alone_delegate_keys_by_location": alone_facts,
            "calibration_inputs": CALIBRATION_INPUTS,
            "eager_fp32_outputs_max_abs_err": None,  # filled in by finish() (information only)
            "_eager_fp32": eager,
        },
    )


def export_two_files(out_dir: Path) -> Exported:
    model, gen = seeded_model(TwoPartMlp, 405)
    cases = [(ef.randn(gen, 3, 8),), (ef.randn(gen, 3, 8) * 2,)]
    return portable_fixture(
        out_dir,
        model,
        cases,
        "encoder: Linear(8->32) + ReLU + LayerNorm(32) (random affine); head: Linear(32->4); input "
        "[3,8]; no partitioner; the tag function returns 'encoder' for encoder.* and 'head' otherwise, so "
        "write_tensor_data_to_file writes encoder.ptd and head.ptd. Upstream's Python runtime takes one data "
        "file; upstream's C++ Module(path, data_files) runs it with both (either order).",
        tag=two_file_tag,
        notes=[
            "upstream's Python runtime takes one data file (Runtime.load_program(data_path=), "
            "_load_for_executorch(data_path=)): it refuses either file alone (without_data); the upstream outputs "
            "come from upstream's C++ Module(path, std::vector<std::string> data_files), compiled by this script "
            "against the wheel's C++ SDK, and are the same for both file orders"
        ],
    )


def export_mutable_external(out_dir: Path) -> Exported:
    model, gen = seeded_model(RunningState, 406)
    cases = [(ef.randn(gen, 2, 4),) for _ in range(3)]
    return portable_fixture(
        out_dir,
        model,
        cases,
        "Linear(4->4) of tanh(state), where state is a [2,4] register_buffer (seeded random initial "
        "value) updated in forward: state = state * 0.5 + x; input [2,4]; no partitioner. The buffer is memory "
        "planned and EXTERNAL: its initial value is the 'state' entry of model.ptd, which the runtime copies into "
        "the planned arena when the method is loaded. Stateful: run the cases in order on one loaded method.",
        passes=[tag_mutable_buffers_pass(["state"], "model")],
        stateful=True,
        notes=[
            "upstream's ExecutorchBackendConfig has no switch for a mutable buffer's initial value in a .ptd: the "
            "script's ExportPass sets et_init_buffer and constant_tag on the buffer's placeholder "
            "(external_mutable_weights only tags trainable parameters of a joint training graph)"
        ],
    )


LLM_FLAGS = ["-kv", "--use_sdpa_with_kv_cache", "-X"]


def llm_child_config(out_yaml: Path, params: Path, ckpt: Path, output_dir: Path) -> None:
    """export_llama's flags -> upstream's LlmConfig (LlmConfig.from_args) + foundation_weights_file, as YAML."""
    from executorch.examples.models.llama.export_llama_lib import build_args_parser
    from executorch.extension.llm.export.config.llm_config import LlmConfig
    from omegaconf import OmegaConf

    argv = el.export_llama_args(LLM_FLAGS, params, ckpt, output_dir, str(output_dir / PTE_NAME))
    config = LlmConfig.from_args(build_args_parser().parse_args(argv))
    config.export.foundation_weights_file = "model"
    out_yaml.write_text(OmegaConf.to_yaml(OmegaConf.structured(config)))


def prompt_tokens() -> list[int]:
    import sentencepiece as spm

    sp = spm.SentencePieceProcessor(model_file=str(LLM_FIXTURES / "tokenizer.model"))
    return [sp.bos_id(), *sp.encode(el.PROMPT)]


def export_llm(out_dir: Path) -> Exported:
    with tempfile.TemporaryDirectory(prefix="ptd_llm_") as d:
        tmp = Path(d)
        params = tmp / "params.json"
        params.write_text(json.dumps(el.PARAMS))
        ckpt = tmp / "checkpoint.pth"
        el.write_checkpoint(ckpt)
        build = tmp / "out"
        build.mkdir()
        cfg = tmp / "llm_config.yaml"
        subprocess.run(
            [sys.executable, __file__, "--llm-config", str(cfg), str(params), str(ckpt), str(build)], check=True
        )
        subprocess.run(
            [sys.executable, "-m", "executorch.extension.llm.export.export_llm", "--config", str(cfg)],
            check=True,
            cwd=tmp,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for f in sorted(build.iterdir()):
            shutil.copyfile(f, out_dir / f.name)
    data_files = sorted(p.name for p in out_dir.glob("*.ptd"))
    return Exported(
        description="upstream's Llama (llama_transformer; scripts/export_llm_fixtures.py's PARAMS and seeded "
        f"checkpoint: dim 64, 2 layers, 4 heads / 2 KV heads, vocab 192, max_seq_len {el.MAX_SEQ_LEN}) exported "
        "'-kv --use_sdpa_with_kv_cache -X' with export.foundation_weights_file=model (upstream's export_llm, "
        "Hydra config): weights in model.ptd. Inputs (tokens int64 [1,n], input_pos int64 [1]); output: "
        "last-position logits. Cases: a prefill with the prompt's tokens, then greedy decode steps; stateful "
        "(KV cache in mutable buffers).",
        data_files=data_files,
        cases=[],
        eager=None,
        atol=1e-4,
        rtol=0.0,
        backends=["XnnpackBackend"],
        stateful=True,
        notes=["reference = upstream's runtime logits", "tokenizer: ../llm/tokenizer.model"],
        extra={"export_llama_flags": LLM_FLAGS, "foundation_weights_file": "model"},
    )


EXPORTERS: dict[str, Callable[[Path], Exported]] = {
    "portable_mlp": export_portable_mlp,
    "xnnpack_cnn": export_xnnpack_cnn,
    "xnnpack_mixed": export_xnnpack_mixed,
    "xnnpack_q8": export_xnnpack_q8,
    "llm": export_llm,
    "two_files": export_two_files,
    "mutable_external": export_mutable_external,
}


# --------------------------------------------------------------------------
# One fixture: references, upstream, facts, manifest entry
# --------------------------------------------------------------------------


def npy_entry(name: str, out_dir: Path) -> dict[str, Any]:
    arr = np.load(out_dir / name)
    return {"file": f"{out_dir.name}/{name}", "dtype": str(arr.dtype), "shape": list(arr.shape)}


def max_err(a: Sequence[np.ndarray], b: Sequence[np.ndarray]) -> float:
    return max(float(np.max(np.abs(x.astype(np.float64) - y.astype(np.float64)))) for x, y in zip(a, b, strict=True))


def rounded(v: float) -> float:
    return float(f"{v:.6g}")


def upstream_outputs(
    name: str, out_dir: Path, exp: Exported, case_inputs: list[list[str]]
) -> tuple[list[list[str]] | None, str | None]:
    """Upstream's outputs per case (file names written to out_dir) and a description of the runner (None: not run)."""
    if name == "two_files":
        with tempfile.TemporaryDirectory(prefix="ptd_cxx_build_") as d:
            exe = build_cxx_runner(Path(d))
            if exe is None:
                return None, None
            outputs: list[list[str]] = []
            runs: list[dict[str, Any]] = []
            for idx, inputs in enumerate(exp.cases):
                results = [
                    run_cxx_module(exe, out_dir, inputs[0], order) for order in (exp.data_files, exp.data_files[::-1])
                ]
                for r in results:
                    if not r["ok"]:
                        raise RuntimeError(f"two_files: upstream Module failed: {r}")
                if not np.array_equal(results[0]["output"], results[1]["output"]):
                    raise RuntimeError("two_files: the data file order changes upstream's output")
                with torch.no_grad():
                    shape = ef.as_tuple(exp.eager(*inputs))[0].shape if exp.eager is not None else (-1,)
                fname = f"forward_case{idx}_upstream_out0.npy"
                np.save(out_dir / fname, results[0]["output"].reshape(shape), allow_pickle=False)
                outputs.append([fname])
            # Upstream's Module with one of the two files, for the record.
            for f in exp.data_files:
                r = run_cxx_module(exe, out_dir, exp.cases[0][0], [f])
                runs.append({k: v for k, v in r.items() if k != "output"})
            exp.extra["cxx_module_data_file_orders"] = [list(exp.data_files), list(exp.data_files[::-1])]
            exp.extra["cxx_module_with_one_file"] = runs
        return outputs, "executorch::extension::Module(pte, {" + ", ".join(exp.data_files) + "}) (C++)"
    res = run_upstream(
        {
            "pte": str(out_dir / PTE_NAME),
            "data_path": str(out_dir / exp.data_files[0]),
            "cases": [[str(out_dir / f) for f in files] for files in case_inputs],
            "out_dir": str(out_dir),
            "out_prefix": "forward",
            "suffix": "upstream_out",
        }
    )
    if any(res.get(s) != "ok" for s in STAGES):
        raise RuntimeError(f"{name}: upstream's runtime failed: {res}")
    return res["outputs"], "executorch.runtime.Runtime.load_program(pte, data_path=ptd) (Python)"


def finish(name: str, out_dir: Path, exp: Exported) -> dict[str, Any]:
    cases_json: list[dict[str, Any]] = []
    if name == "llm":
        res = run_upstream(
            {
                "pte": str(out_dir / PTE_NAME),
                "data_path": str(out_dir / exp.data_files[0]),
                "greedy": {"prompt": prompt_tokens(), "steps": el.DECODE_STEPS},
                "out_dir": str(out_dir),
                "out_prefix": "forward",
            }
        )
        if any(res.get(s) != "ok" for s in STAGES):
            raise RuntimeError(f"llm: upstream's runtime failed: {res}")
        runner = "executorch.runtime.Runtime.load_program(pte, data_path=ptd) (Python)"
        case_inputs: list[list[str]] = res["inputs"]
        for inputs, outputs in zip(res["inputs"], res["outputs"], strict=True):
            outs = [npy_entry(f, out_dir) for f in outputs]
            cases_json.append(
                {"inputs": [npy_entry(f, out_dir) for f in inputs], "outputs": outs, "upstream_outputs": outs}
            )
        logits = np.stack([np.load(out_dir / o[0]).reshape(-1) for o in res["outputs"]])
        greedy = [int(np.argmax(row)) for row in logits]
        exp.extra.update(
            {
                "params": el.PARAMS,
                "max_seq_len": el.MAX_SEQ_LEN,
                "tokenizer": "../llm/tokenizer.model",
                "prompt": el.PROMPT,
                "prompt_tokens": prompt_tokens(),
                "decode_steps": el.DECODE_STEPS,
                "greedy_tokens": greedy,
            }
        )
        inline = LLM_FIXTURES / "kv_sdpa_xnnpack.logits.npy"
        if inline.exists():  # the same model with its weights inside the .pte (tests/fixtures/llm)
            exp.extra["max_abs_diff_vs_llm_kv_sdpa_xnnpack"] = rounded(float(np.max(np.abs(np.load(inline) - logits))))
        reference = "upstream"
        worst = 0.0
    else:
        # Inputs, eager references.
        case_inputs = []
        eager_outputs: list[tuple[torch.Tensor, ...]] = []
        state_model = copy.deepcopy(exp.eager) if exp.eager is not None else None
        for idx, inputs in enumerate(exp.cases):
            names = [f"forward_case{idx}_in{i}.npy" for i in range(len(inputs))]
            for n, t in zip(names, inputs, strict=True):
                ef.save_npy(out_dir / n, t)
            case_inputs.append(names)
            if state_model is not None:
                with torch.no_grad():
                    eager_outputs.append(ef.as_tuple(state_model(*inputs)))
        outputs, runner = upstream_outputs(name, out_dir, exp, case_inputs)
        worst = 0.0
        for idx, names in enumerate(case_inputs):
            case: dict[str, Any] = {"inputs": [npy_entry(n, out_dir) for n in names]}
            up = [np.load(out_dir / f) for f in outputs[idx]] if outputs is not None else None
            if exp.eager is not None:
                ref_names = [f"forward_case{idx}_out{k}.npy" for k in range(len(eager_outputs[idx]))]
                for n, t in zip(ref_names, eager_outputs[idx], strict=True):
                    ef.save_npy(out_dir / n, t)
                case["outputs"] = [npy_entry(n, out_dir) for n in ref_names]
                if up is not None:
                    ref = [ef.to_numpy(t) for t in eager_outputs[idx]]
                    for k, (g, w) in enumerate(zip(up, ref, strict=True)):
                        if g.shape != w.shape or not np.allclose(g, w, atol=exp.atol, rtol=exp.rtol):
                            raise RuntimeError(f"{name} case{idx} out{k}: upstream does not match eager")
                    worst = max(worst, max_err(up, ref))
            else:
                # Upstream's output is the reference: keep one copy, named *_out<k>.npy.
                ref_names = [f"forward_case{idx}_out{k}.npy" for k in range(len(outputs[idx]))]
                for src, dst in zip(outputs[idx], ref_names, strict=True):
                    (out_dir / src).rename(out_dir / dst)
                outputs[idx] = ref_names
                case["outputs"] = [npy_entry(n, out_dir) for n in ref_names]
            if outputs is not None:
                case["upstream_outputs"] = [npy_entry(n, out_dir) for n in outputs[idx]]
            cases_json.append(case)
        reference = "eager" if exp.eager is not None else "upstream"
        eager_fp32 = exp.extra.pop("_eager_fp32", None)
        if eager_fp32 is not None:
            up_all = [np.load(out_dir / f) for o in outputs for f in o]
            ref_all = [ef.to_numpy(t) for e in eager_fp32 for t in e]
            exp.extra["eager_fp32_outputs_max_abs_err"] = rounded(max_err(up_all, ref_all))

    # Without the data file(s).
    first_inputs = case_inputs[0]
    without = [refusal(out_dir, first_inputs, None)]
    if len(exp.data_files) > 1:
        without += [refusal(out_dir, first_inputs, str(out_dir / f)) for f in exp.data_files]
    for w in without:
        if w["outcome"] == "ran":
            raise RuntimeError(f"{name}: upstream's runtime ran without all data files: {w}")

    facts = data_facts(out_dir, exp.data_files)
    sizes = {p.name: p.stat().st_size for p in sorted(out_dir.iterdir()) if p.suffix in (".pte", ".ptd")}
    entry: dict[str, Any] = {
        "name": name,
        "description": exp.description + " Random weights (seeded).",
        "program": f"{name}/{PTE_NAME}",
        "data_files": [f"{name}/{f}" for f in exp.data_files],
        "sizes": sizes,
        "methods": {"forward": {"stateful": exp.stateful, "cases": cases_json}},
        "program_methods": facts["program_methods"],
        "reference": reference,
        "atol": exp.atol,
        "rtol": exp.rtol,
        "upstream": {
            "runner": runner,
            "max_abs_err_vs_reference": rounded(worst) if reference == "eager" and runner is not None else None,
        },
        "backends": exp.backends,
        "operators": facts["operators"],
        "data": facts["data"],
        "external_tensors": facts["external_tensors"],
        "delegates": facts["delegates"],
        "delegate_keys_by_location": facts["delegate_keys_by_location"],
        "pte_named_data": facts["pte_named_data"],
        "inline_constant_tensors": facts["inline_constant_tensors"],
        "without_data": without,
    }
    if exp.notes:
        entry["notes"] = exp.notes
    entry.update(exp.extra)
    print(
        f"{name}: {sizes} external={len(facts['external_tensors'])} delegate keys={facts['delegate_keys_by_location']}"
        f" pte named={len(facts['pte_named_data'])} upstream err={entry['upstream']['max_abs_err_vs_reference']}",
        flush=True,
    )
    return entry


def export_one(name: str, out_root: Path) -> dict[str, Any]:
    out_dir = out_root / name
    if out_dir.exists():
        shutil.rmtree(out_dir)
    out_dir.mkdir(parents=True)
    exp = EXPORTERS[name](out_dir)
    return finish(name, out_dir, exp)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--only", action="append", default=[], choices=sorted(EXPORTERS))
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--llm-config", nargs=4, type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    warnings.filterwarnings("ignore", category=FutureWarning)
    warnings.filterwarnings("ignore", category=UserWarning)
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    if args.child:
        child_main(args.child)
        return 0
    if args.llm_config:
        llm_child_config(*args.llm_config)
        return 0
    # Out variants of the quantized_decomposed:: ops (to_executorch of the q8 program).
    importlib.import_module("executorch.kernels.quantized")

    out_root: Path = args.out.resolve()
    out_root.mkdir(parents=True, exist_ok=True)
    ef.write_manifest(
        out_root,
        "scripts/export_ptd_fixtures.py",
        MANIFEST_FORMAT_VERSION,
        list(EXPORTERS),
        args.only,
        lambda name: export_one(name, out_root),
        versions=("executorch", "torchao"),
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
