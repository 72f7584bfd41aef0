#!/usr/bin/env python3
"""Export the quantized `.pte` test fixtures (``tests/fixtures/quantized``) with upstream ExecuTorch.

Three upstream recipes, each giving two programs from the *same* quantized model:

* ``static_int8``: upstream's ``examples/xnnpack`` flow (``aot_compiler.py --quantize`` with
  ``quantization/utils.py``): ``torch.export.export(...).module()``, ``prepare_pt2e`` with
  ``XNNPACKQuantizer().set_global(get_symmetric_quantization_config(is_per_channel=True))``, calibration on
  seeded random inputs, ``convert_pt2e``, ``torch.export.export`` again.
* ``dynamic_int8``: the same with ``get_symmetric_quantization_config(is_per_channel=True, is_dynamic=True)``
  (dynamically quantized activations, per-channel int8 linear weights).
* ``8da4w``: upstream's LLM export (``examples/models/llama/source_transformation/quantize.py``, qmode
  ``8da4w``): torchao ``quantize_(model, Int8DynamicActivationIntxWeightConfig(weight_dtype=torch.int4,
  weight_granularity=PerGroup(32), intx_choose_qparams_algorithm="hqq_scale_only"))`` on the eager model,
  ``torch.export`` + ``run_decompositions({})``, lowered with ``XnnpackDynamicallyQuantizedPartitioner`` then
  ``XnnpackPartitioner`` (``export_llama -X``).

Variants:

* ``xnnpack_q8.pte``: ``to_edge_transform_and_lower(..., partitioner=[XnnpackPartitioner()])`` as
  ``aot_compiler.py`` does it (``get_transform_passes()``, ``EdgeCompileConfig(_check_ir_validity=False,
  _skip_dim_order=True)``, ``ExecutorchBackendConfig(extract_delegate_segments=False)``: the XNNPACK payload is
  stored inline in the program). 8da4w: the LLM export's partitioners and edge config, delegate payloads in
  segments (the default).
* ``portable_q8.pte``: ``to_edge(...).to_executorch()`` with no partitioner: the ``quantized_decomposed::`` ops
  stay in the program and run as kernels (upstream's ``executorch.kernels.quantized``).

Each program is run by upstream's runtime (``executorch.runtime``, with ``executorch.kernels.quantized``
loaded) on 2 seeded cases; those outputs are the references (``.npy`` per variant). The manifest
(``tests/fixtures/quantized/manifest.json``) also records the operators left outside delegates, the delegates,
the XNNPACK payload's node kinds and quantized value datatypes (decoded with upstream's
``backends/xnnpack/serialization/schema.fbs`` and ``flatc``), the output quantization scale when the program's
output is the dequantize of a per-tensor quantized value, and, for information, the errors against the eager
fp32 model and the converted (fake-quantized) module.

Run it with the export virtualenv (torch 2.13.0+cpu, executorch 1.5.1, torchao, torchvision 0.28.0 + pillow,
timm)::

    ../exportenv/bin/python scripts/export_quantized_fixtures.py [--only NAME] [--out DIR]

``--only NAME`` (repeatable) re-exports only those fixtures and keeps the other manifest entries.
"""

from __future__ import annotations

import argparse
import atexit
import copy
import importlib
import importlib.resources
import re
import shutil
import sys
import tempfile
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

SCRIPT_DIR = Path(__file__).resolve().parent
if str(SCRIPT_DIR) not in sys.path:
    sys.path.insert(0, str(SCRIPT_DIR))
ef: Any = importlib.import_module("export_fixtures")

REPO_ROOT = SCRIPT_DIR.parent
DEFAULT_OUT = REPO_ROOT / "tests" / "fixtures" / "quantized"
MANIFEST_FORMAT_VERSION = 1
VARIANTS = ("xnnpack_q8", "portable_q8")
CALIBRATION_INPUTS = 8
# Upstream's runtime must match the converted (fake-quantized) module within this (else the export fails):
# output steps for a per-tensor quantized output, a fraction of max |output| for fp32-output programs.
MAX_STEPS_VS_CONVERTED = 4
MAX_REL_VS_CONVERTED = 0.02

# XNNPACK value datatypes that carry quantization (schema.fbs XNNDatatype).
FLOAT_DATATYPES = {"xnn_datatype_fp32", "xnn_datatype_fp16", "xnn_datatype_bf16", "xnn_datatype_pfp32"}


# --------------------------------------------------------------------------
# Models that only the quantized fixtures use
# --------------------------------------------------------------------------


class Q8Ops(nn.Module):
    """One of each node kind upstream's static int8 XNNPACK flow handles, on [1,3,16,16].

    conv2d + BatchNorm + relu, depthwise conv2d + hardtanh(0, 6), add, 1x1 conv + sigmoid, mul, max_pool2d,
    avg_pool2d + hardswish, cat, transposed conv2d + hardtanh(-2, 2), adaptive_avg_pool2d, mean (keepdim), cat,
    linear + relu, linear.
    """

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.dw = nn.Conv2d(8, 8, 3, padding=1, groups=8)
        self.pw = nn.Conv2d(8, 8, 1)
        self.up = nn.ConvTranspose2d(16, 8, 2, stride=2)
        self.fc1 = nn.Linear(24, 16)
        self.fc2 = nn.Linear(16, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        a = torch.relu(self.bn(self.conv(x)))  # [1,8,16,16]
        b = nn.functional.hardtanh(self.dw(a), 0.0, 6.0)
        c = a + b
        d = c * torch.sigmoid(self.pw(c))
        pooled_max = nn.functional.max_pool2d(d, 2)  # [1,8,8,8]
        pooled_avg = nn.functional.hardswish(nn.functional.avg_pool2d(d, 2))
        g = torch.cat([pooled_max, pooled_avg], dim=1)  # [1,16,8,8]
        u = nn.functional.hardtanh(self.up(g), -2.0, 2.0)  # [1,8,16,16]
        pooled = nn.functional.adaptive_avg_pool2d(u, 1).flatten(1)  # [1,8]
        feats = torch.cat([pooled, g.mean(dim=(2, 3), keepdim=True).flatten(1)], dim=1)  # [1,24]
        return self.fc2(torch.relu(self.fc1(feats)))


class Conv3x3Stack(nn.Module):
    """Three 3x3 convolutions wide enough for the int8 Winograd path, on [1,16,20,19]: 16->24 (padding 1) + ReLU,
    24->17 (padding 1), 17->32 (no padding) + ReLU; odd channel counts and output sizes off the 2x2 tile."""

    def __init__(self) -> None:
        super().__init__()
        self.c1 = nn.Conv2d(16, 24, 3, padding=1)
        self.c2 = nn.Conv2d(24, 17, 3, padding=1)
        self.c3 = nn.Conv2d(17, 32, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.c3(self.c2(torch.relu(self.c1(x)))))


class LinearStack(nn.Module):
    """Linear(64->128) + SiLU, Linear(128->128) + ReLU, Linear(128->32): the 8da4w fixture."""

    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(64, 128)
        self.fc2 = nn.Linear(128, 128)
        self.fc3 = nn.Linear(128, 32)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = nn.functional.silu(self.fc1(x))
        x = torch.relu(self.fc2(x))
        return self.fc3(x)


# --------------------------------------------------------------------------
# Fixture specifications
# --------------------------------------------------------------------------


@dataclass
class QSpec:
    """A quantized fixture: model constructor, input shape, recipe and seed."""

    name: str
    description: str
    recipe: str  # "static_int8" | "dynamic_int8" | "8da4w"
    make: Callable[[], nn.Module]
    shape: tuple[int, ...]
    seed: int


def real_spec(name: str) -> tuple[Callable[[], nn.Module], int]:
    """Constructor and seed of one of export_fixtures.py's real networks (same weights as that fixture)."""
    for index, (spec_name, _desc, make, _shape) in enumerate(ef.real_model_specs()):
        if spec_name == name:
            return make, 100 + index
    raise KeyError(name)


def build_specs() -> list[QSpec]:
    tvm = ef.import_torchvision()
    import timm
    from torchvision.models.efficientnet import EfficientNet, _efficientnet_conf
    from torchvision.models.shufflenetv2 import ShuffleNetV2

    def efficientnet_b0(width: float) -> nn.Module:
        setting, last = _efficientnet_conf("efficientnet_b0", width_mult=width, depth_mult=1.0)
        return EfficientNet(setting, dropout=0.2, last_channel=last, num_classes=10)

    kws_make, kws_seed = real_spec("kws_ds_cnn")
    return [
        QSpec(
            "cnn",
            "export_fixtures.py's cnn (Conv2d 3->8 + BatchNorm2d + ReLU, MaxPool2d(2), Conv2d 8->16 stride 2 + ReLU, "
            "AdaptiveAvgPool2d(1), Linear 16->10; same seeded weights), static int8; input [1,3,16,16].",
            "static_int8",
            ef.Cnn,
            (1, 3, 16, 16),
            4,
        ),
        QSpec(
            "mobilenet",
            "export_fixtures.py's mobilenet (conv stem + BN + ReLU6, inverted residual with depthwise 3x3 + BN + "
            "hardswish, global mean, Linear 8->10; same seeded weights), static int8; input [1,3,32,32].",
            "static_int8",
            ef.MobileNet,
            (1, 3, 32, 32),
            6,
        ),
        QSpec(
            "resnet_block",
            "export_fixtures.py's resnet_block (stem + three basic blocks with 1x1 stride-2 shortcuts, "
            "AvgPool2d(2), AdaptiveAvgPool2d((2,2)), Linear 128->10; same seeded weights), static int8; "
            "input [1,3,32,32].",
            "static_int8",
            ef.ResNetBlocks,
            (1, 3, 32, 32),
            11,
        ),
        QSpec(
            "kws_ds_cnn",
            "upstream's MLPerf Tiny keyword-spotting DS-CNN (executorch.examples.models.mlperf_tiny; same seeded "
            "weights as export_fixtures.py's kws_ds_cnn), static int8; input [1,1,49,10].",
            "static_int8",
            kws_make,
            (1, 1, 49, 10),
            kws_seed,
        ),
        QSpec(
            "tv_mobilenet_v2",
            "torchvision mobilenet_v2(width_mult=0.2, num_classes=10) (export_fixtures.py: 0.35 at 128x128), "
            "static int8; input [1,3,48,48].",
            "static_int8",
            lambda: tvm.mobilenet_v2(width_mult=0.2, num_classes=10),
            (1, 3, 48, 48),
            200,
        ),
        QSpec(
            "tv_resnet18",
            "timm resnet18 at eighth width (channels 8/16/32/64, stem 8; export_fixtures.py: quarter width at "
            "128x128), 10 classes, static int8; input [1,3,48,48].",
            "static_int8",
            lambda: timm.create_model(
                "resnet18", pretrained=False, num_classes=10, channels=(8, 16, 32, 64), stem_width=8
            ),
            (1, 3, 48, 48),
            201,
        ),
        QSpec(
            "tv_shufflenet_v2",
            "torchvision ShuffleNetV2 (stage repeats 4/8/4 as in every shufflenet_v2_x*) at half of x0_5's widths: "
            "stem 24, stages 24/48/96, conv5 256 (x0_5: 48/96/192, conv5 1024; export_fixtures.py uses x0_5 at "
            "128x128), 10 classes, static int8; input [1,3,48,48].",
            "static_int8",
            lambda: ShuffleNetV2([4, 8, 4], [24, 24, 48, 96, 256], num_classes=10),
            (1, 3, 48, 48),
            202,
        ),
        QSpec(
            "tv_efficientnet_b0",
            "torchvision EfficientNet-B0 blocks at width_mult 0.25 (export_fixtures.py: 0.35 at 128x128), 10 "
            "classes, static int8: SiLU and the squeeze-excite sigmoid stay fp32 between quantized convolutions "
            "(Converts on both sides); input [1,3,48,48].",
            "static_int8",
            lambda: efficientnet_b0(0.25),
            (1, 3, 48, 48),
            203,
        ),
        QSpec(
            "q8_ops",
            "Every node kind of upstream's static int8 XNNPACK flow: conv2d + BatchNorm + ReLU, depthwise conv2d + "
            "hardtanh(0,6), add, 1x1 conv + sigmoid, mul, max_pool2d, avg_pool2d + hardswish, cat, "
            "ConvTranspose2d(16->8, 2, stride 2) + hardtanh(-2,2), adaptive_avg_pool2d(1), mean(keepdim), cat, "
            "Linear 24->16 + ReLU, Linear 16->10; static int8; input [1,3,16,16].",
            "static_int8",
            Q8Ops,
            (1, 3, 16, 16),
            300,
        ),
        QSpec(
            "conv3x3_q8",
            "Conv2d 16->24 3x3 padding 1 + ReLU, Conv2d 24->17 3x3 padding 1, Conv2d 17->32 3x3 + ReLU (wide "
            "enough for the int8 Winograd path: 100 and 81 output tiles of 2x2), static int8; input [1,16,20,19].",
            "static_int8",
            Conv3x3Stack,
            (1, 16, 20, 19),
            302,
        ),
        QSpec(
            "transformer",
            "export_fixtures.py's transformer (nn.TransformerEncoderLayer d_model 32, 4 heads, ff 64; same seeded "
            "linear weights, random LayerNorm affine), dynamic int8 (per-channel int8 linear weights, dynamically "
            "quantized activations); input [1,6,32].",
            "dynamic_int8",
            ef.Transformer,
            (1, 6, 32),
            5,
        ),
        QSpec(
            "linear_8da4w",
            "Linear 64->128 + SiLU, Linear 128->128 + ReLU, Linear 128->32, quantized 8da4w the way upstream's LLM "
            "export does (torchao Int8DynamicActivationIntxWeightConfig, int4 weights, PerGroup(32), "
            "hqq_scale_only; int8 per-token dynamic activations); input [1,5,64].",
            "8da4w",
            LinearStack,
            (1, 5, 64),
            301,
        ),
    ]


# --------------------------------------------------------------------------
# Quantization and lowering (upstream's recipes)
# --------------------------------------------------------------------------


def quantize_pt2e(
    model: nn.Module, example: tuple[torch.Tensor, ...], calibration: list[torch.Tensor], dynamic: bool
) -> Any:
    """examples/xnnpack/quantization/utils.py's quantize(): returns the converted GraphModule."""
    from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
        XNNPACKQuantizer,
        get_symmetric_quantization_config,
    )
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    graph_module = torch.export.export(model, example, strict=False).module()
    quantizer = XNNPACKQuantizer()
    quantizer.set_global(get_symmetric_quantization_config(is_per_channel=True, is_dynamic=dynamic))
    prepared = prepare_pt2e(graph_module, quantizer)
    with torch.no_grad():
        for x in calibration:
            prepared(x)
    return convert_pt2e(prepared)


def quantize_8da4w(model: nn.Module) -> nn.Module:
    """source_transformation/quantize.py's qmode "8da4w" with group size 32 (use_hqq defaults to True)."""
    from torchao.quantization import Int8DynamicActivationIntxWeightConfig, quantize_
    from torchao.quantization.granularity import PerGroup

    def filter_fn(m: nn.Module, _fqn: str) -> bool:
        return isinstance(m, nn.Linear) and m.weight.shape[1] % 32 == 0

    quantize_(
        model,
        Int8DynamicActivationIntxWeightConfig(
            weight_dtype=torch.int4,
            weight_granularity=PerGroup(32),
            intx_choose_qparams_algorithm="hqq_scale_only",
        ),
        filter_fn=filter_fn,
    )
    return model


def export_quantized(module: nn.Module, example: tuple[torch.Tensor, ...], recipe: str) -> Any:
    if recipe == "8da4w":
        # LLMEdgeManager._export: strict export, then decompose torchao's tensor subclasses.
        with torch.no_grad():
            ep = torch.export.export(module, example, strict=True).run_decompositions({})
            return torch.export.export(ep.module(), example, strict=True)
    return torch.export.export(module, example, strict=False)


def lower(ep: Any, variant: str, recipe: str) -> tuple[Any, Any]:
    """Return (EdgeProgramManager, ExecutorchProgramManager)."""
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import (
        XnnpackDynamicallyQuantizedPartitioner,
        XnnpackPartitioner,
    )
    from executorch.backends.xnnpack.utils.configs import get_transform_passes
    from executorch.exir import EdgeCompileConfig, ExecutorchBackendConfig, to_edge, to_edge_transform_and_lower

    if variant == "portable_q8":
        edge = to_edge(ep)
        return edge, edge.to_executorch()
    if recipe == "8da4w":
        edge = to_edge_transform_and_lower(
            ep,
            partitioner=[XnnpackDynamicallyQuantizedPartitioner(), XnnpackPartitioner()],
            compile_config=EdgeCompileConfig(_check_ir_validity=False, _skip_dim_order=True),
        )
        return edge, edge.to_executorch(ExecutorchBackendConfig(do_quant_fusion_and_const_prop=True))
    edge = to_edge_transform_and_lower(
        ep,
        partitioner=[XnnpackPartitioner()],
        transform_passes=get_transform_passes(),
        compile_config=EdgeCompileConfig(_check_ir_validity=False, _skip_dim_order=True),
    )
    return edge, edge.to_executorch(config=ExecutorchBackendConfig(extract_delegate_segments=False))


# --------------------------------------------------------------------------
# XNNPACK payload decoding
# --------------------------------------------------------------------------


_SCHEMA_MODULES: dict[str, Any] = {}


def xnnpack_schema() -> dict[str, Any]:
    """Python readers generated by flatc from upstream's backends/xnnpack/serialization/schema.fbs (once)."""
    if not _SCHEMA_MODULES:
        from executorch.exir._serialize._flatbuffer import _run_flatc

        schema = importlib.resources.files("executorch.backends.xnnpack.serialization").joinpath("schema.fbs")
        gen_dir = Path(tempfile.mkdtemp(prefix="xnnpack_schema_"))
        atexit.register(shutil.rmtree, gen_dir, True)
        (gen_dir / "schema.fbs").write_bytes(schema.read_bytes())
        _run_flatc(["--python", "--gen-object-api", "-o", str(gen_dir), str(gen_dir / "schema.fbs")])
        sys.path.insert(0, str(gen_dir))
        for name in ("XNNGraph", "XNodeUnion", "XValueUnion", "XNNQuantParams", "XNNDatatype"):
            module = importlib.import_module(f"fb_xnnpack.{name}")
            # flatc 24.3's object API calls e.g. XNodeUnionCreator but defines XnodeUnionCreator.
            for attr in [a for a in vars(module) if a.endswith("Creator")]:
                setattr(module, f"{name}Creator", getattr(module, attr))
            _SCHEMA_MODULES[name] = module
    return _SCHEMA_MODULES


def enum_names(enum_class: type) -> dict[int, str]:
    return {v: k for k, v in vars(enum_class).items() if isinstance(v, int) and not k.startswith("_")}


def plain(obj: Any, enums: dict[str, dict[int, str]]) -> Any:
    """A flatc object-API value as JSON-like data: snake_case keys, union types and datatypes by name."""
    if isinstance(obj, list | tuple | np.ndarray):
        return [plain(v, enums) for v in obj]
    if isinstance(obj, np.generic):
        return obj.item()
    if not hasattr(obj, "__dict__"):
        return obj
    out: dict[str, Any] = {}
    for key, val in vars(obj).items():
        snake = re.sub(r"(?<!^)(?=[A-Z])", "_", key).lower()
        out[snake] = enums[snake][val] if snake in enums else plain(val, enums)
    return out


def decode_xnnpack_payload(payload: bytes) -> dict[str, Any]:
    """The XNNGraph of one XnnpackBackend payload (XNNHeader, then the flatbuffer read with schema.fbs)."""
    from executorch.backends.xnnpack.serialization.xnnpack_graph_serialize import XNNHeader

    mods = xnnpack_schema()
    header = XNNHeader.from_bytes(payload[: XNNHeader.EXPECTED_LENGTH])
    flatbuffer = payload[header.flatbuffer_offset : header.flatbuffer_offset + header.flatbuffer_size]
    graph_module = mods["XNNGraph"]
    graph = graph_module.XNNGraphT.InitFromObj(graph_module.XNNGraph.GetRootAs(flatbuffer, 0))
    datatypes = enum_names(mods["XNNDatatype"].XNNDatatype)
    enums = {
        "xnode_union_type": enum_names(mods["XNodeUnion"].XNodeUnion),
        "xvalue_union_type": enum_names(mods["XValueUnion"].XValueUnion),
        "quant_params_type": enum_names(mods["XNNQuantParams"].XNNQuantParams),
        "datatype": datatypes,
        "dq_datatype": datatypes,
    }
    return plain(graph, enums)


def value_table(graph: dict[str, Any]) -> dict[int, dict[str, Any]]:
    """id_out -> {"datatype", "quant" (quant-params kind or None), "params"}."""
    values: dict[int, dict[str, Any]] = {}
    for xvalue in graph.get("xvalues", []):
        kind = xvalue["xvalue_union_type"]
        body = xvalue["xvalue_union"]
        if kind == "XNNQuantizedTensorValue":
            tensor = body["tensor_value"]
            values[tensor["id_out"]] = {
                "datatype": tensor["datatype"],
                "quant": body["quant_params_type"],
                "params": body["quant_params"],
            }
        else:
            values[body["id_out"]] = {"datatype": body["datatype"], "quant": None, "params": None}
    return values


def node_io(node: dict[str, Any], values: dict[int, dict[str, Any]]) -> tuple[list[int], list[int]]:
    inputs: list[int] = []
    outputs: list[int] = []
    for key, val in node.items():
        if not key.endswith("_id") or not isinstance(val, int) or val not in values:
            continue
        (outputs if key.startswith("output") else inputs).append(val)
    return inputs, outputs


def short_dtype(datatype: str) -> str:
    return datatype.removeprefix("xnn_datatype_")


def summarize_payloads(graphs: list[dict[str, Any]]) -> dict[str, Any]:
    """Node kinds (with input/output datatypes) and quantized value datatypes over all XNNPACK payloads."""
    kinds: dict[str, dict[str, Any]] = {}
    datatypes: dict[str, int] = {}
    for graph in graphs:
        values = value_table(graph)
        for value in values.values():
            if value["quant"] is not None:
                key = f"{short_dtype(value['datatype'])}/{value['quant']}"
                datatypes[key] = datatypes.get(key, 0) + 1
        for xnode in graph.get("xnodes", []):
            kind = xnode["xnode_union_type"]
            inputs, outputs = node_io(xnode["xnode_union"], values)
            entry = kinds.setdefault(kind, {"count": 0, "inputs": set(), "outputs": set(), "fused": 0})
            entry["count"] += 1
            if xnode.get("output_min_max") is not None:
                entry["fused"] += 1
            entry["inputs"].update(short_dtype(values[i]["datatype"]) for i in inputs)
            entry["outputs"].update(short_dtype(values[o]["datatype"]) for o in outputs)
    node_kinds = {
        kind: {
            "count": e["count"],
            "inputs": sorted(e["inputs"]),
            "outputs": sorted(e["outputs"]),
            "with_output_min_max": e["fused"],
        }
        for kind, e in sorted(kinds.items())
    }

    def is_float(dtype: str) -> bool:
        return f"xnn_datatype_{dtype}" in FLOAT_DATATYPES

    quantized = sorted(k for k, e in node_kinds.items() if not all(is_float(d) for d in e["inputs"] + e["outputs"]))
    float_only = sorted(k for k in node_kinds if k not in quantized)
    return {
        "payloads": len(graphs),
        "datatypes": dict(sorted(datatypes.items())),
        "node_kinds": node_kinds,
        "quantized_node_kinds": quantized,
        "float_node_kinds": float_only,
    }


def lowered_payloads(edge: Any) -> list[tuple[str, bytes]]:
    """(backend id, processed bytes) of every lowered module, in graph order."""
    from executorch.exir.lowered_backend_module import LoweredBackendModule

    gm = edge.exported_program().graph_module
    out: list[tuple[str, bytes]] = []
    for node in gm.graph.nodes:
        if node.op == "get_attr":
            sub = getattr(gm, str(node.target))
            if isinstance(sub, LoweredBackendModule):
                out.append((sub.backend_id, bytes(sub.processed_bytes)))
    return out


# --------------------------------------------------------------------------
# Program facts
# --------------------------------------------------------------------------


def output_quantization(manager: Any, graphs: list[dict[str, Any]]) -> tuple[float | None, int | None]:
    """(scale, zero point) when the program's single output is the dequantize of a per-tensor quantized value."""
    gm = manager.exported_program().graph_module
    output_node = next(n for n in gm.graph.nodes if n.op == "output")
    outs = output_node.args[0]
    if len(outs) != 1:
        return None, None
    producer = outs[0]
    target = str(producer.target)
    if "dequantize_per_tensor" in target and isinstance(producer.args[1], float):
        return float(producer.args[1]), int(producer.args[2])
    if target == "<built-in function getitem>" and "executorch_call_delegate" in str(producer.args[0].target):
        delegate_node = producer.args[0]
        lowered = [n for n in gm.graph.nodes if n.op == "call_function" and "executorch_call_delegate" in str(n.target)]
        graph = graphs[lowered.index(delegate_node)]
        values = value_table(graph)
        out_id = graph["output_ids"][producer.args[1]]
        for xnode in graph.get("xnodes", []):
            body = xnode["xnode_union"]
            if body.get("output_id") != out_id:
                continue
            inputs, _ = node_io(body, values)
            if xnode["xnode_union_type"] == "XNNConvert" and len(inputs) == 1:
                src = values[inputs[0]]
                if src["quant"] == "PerTensorQuant":
                    return float(src["params"]["scale"]), int(src["params"]["zero_point"])
    return None, None


def run_upstream(pte: Path, cases: list[tuple[torch.Tensor, ...]]) -> list[tuple[torch.Tensor, ...]]:
    from executorch.runtime import Runtime

    program = Runtime.get().load_program(pte)
    results: list[tuple[torch.Tensor, ...]] = []
    for inputs in cases:
        method = program.load_method("forward")
        if method is None:
            raise RuntimeError(f"{pte}: cannot load forward")
        results.append(tuple(t.clone() for t in method.execute(list(inputs))))
    return results


def max_abs(a: Sequence[torch.Tensor], b: Sequence[torch.Tensor]) -> float:
    return max(float((x.double() - y.double()).abs().max()) for x, y in zip(a, b, strict=True))


def rounded(v: float) -> float:
    return float(f"{v:.6g}")


# --------------------------------------------------------------------------
# One fixture
# --------------------------------------------------------------------------


def build_model(spec: QSpec) -> tuple[nn.Module, list[tuple[torch.Tensor, ...]], list[torch.Tensor]]:
    """Seeded model (random BatchNorm statistics / norm affine), 2 test cases, calibration inputs."""
    torch.manual_seed(spec.seed)
    gen = torch.Generator().manual_seed(spec.seed + 1000)
    model = spec.make()
    ef.randomize_norms(model, gen)
    model.eval()
    cases = [(ef.randn(gen, *spec.shape),), (ef.randn(gen, *spec.shape),)]
    calib_gen = torch.Generator().manual_seed(spec.seed + 2000)
    calibration = [ef.randn(calib_gen, *spec.shape) for _ in range(CALIBRATION_INPUTS)]
    return model, cases, calibration


def export_fixture(spec: QSpec, out_root: Path) -> dict[str, Any]:
    out_dir = out_root / spec.name
    if out_dir.exists():
        shutil.rmtree(out_dir)
    out_dir.mkdir(parents=True)

    model, cases, calibration = build_model(spec)
    with torch.no_grad():
        eager = [ef.as_tuple(model(*inputs)) for inputs in cases]
    example = cases[0]
    if spec.recipe == "8da4w":
        quantized: Any = quantize_8da4w(copy.deepcopy(model))
    else:
        quantized = quantize_pt2e(model, example, calibration, dynamic=spec.recipe == "dynamic_int8")
    with torch.no_grad():
        fake_quant = [ef.as_tuple(quantized(*inputs)) for inputs in cases]

    files: dict[str, str | None] = {}
    operators: dict[str, list[str] | None] = {}
    delegates: dict[str, Any] = {}
    output_scale: dict[str, float | None] = {}
    output_zero_point: dict[str, int | None] = {}
    errors: dict[str, Any] = {}
    failures: dict[str, str] = {}
    references: dict[str, list[tuple[torch.Tensor, ...]]] = {}
    xnnpack: dict[str, Any] | None = None
    sizes: dict[str, int] = {}
    for variant in VARIANTS:
        try:
            edge, manager = lower(export_quantized(quantized, example, spec.recipe), variant, spec.recipe)
        except Exception as exc:  # an upstream recipe that does not export: record why
            reason = f"{type(exc).__name__}: {str(exc).splitlines()[0]}"
            # Sets in upstream's messages ("Missing out variants: {...}") print in hash order: sort them.
            reason = re.sub(r"\{([^{}]*)\}", lambda m: "{" + ", ".join(sorted(m.group(1).split(", "))) + "}", reason)
            failures[variant] = f"upstream export failed: {reason}"
            files[variant] = None
            operators[variant] = None
            delegates[variant] = None
            output_scale[variant] = None
            output_zero_point[variant] = None
            print(f"{spec.name}/{variant}: {failures[variant]}", flush=True)
            continue
        pte = out_dir / f"{variant}.pte"
        pte.write_bytes(manager.buffer)
        files[variant] = f"{spec.name}/{pte.name}"
        sizes[variant] = pte.stat().st_size
        program = manager.executorch_program
        operators[variant] = ef.operator_names(program)
        ids, calls = ef.delegate_info(program)
        delegates[variant] = {"ids": ids, "calls": calls}
        payloads = lowered_payloads(edge)
        graphs = [decode_xnnpack_payload(data) for backend, data in payloads if backend == "XnnpackBackend"]
        if variant == "xnnpack_q8":
            xnnpack = summarize_payloads(graphs)
        output_scale[variant], output_zero_point[variant] = output_quantization(manager, graphs)

        got = run_upstream(pte, cases)
        references[variant] = got
        errors[variant] = {
            "max_abs_err_vs_eager_fp32": rounded(max(max_abs(g, e) for g, e in zip(got, eager, strict=True))),
            "max_abs_err_vs_converted": rounded(max(max_abs(g, f) for g, f in zip(got, fake_quant, strict=True))),
            "max_abs_reference": rounded(max(float(t.abs().max()) for out in got for t in out)),
        }
        scale = output_scale[variant]
        err = errors[variant]["max_abs_err_vs_converted"]
        if scale is not None:
            errors[variant]["err_vs_converted_in_output_steps"] = rounded(err / scale)
        # A broken upstream run (not quantization noise) fails the export.
        limit = (
            MAX_STEPS_VS_CONVERTED * scale
            if scale is not None
            else MAX_REL_VS_CONVERTED * errors[variant]["max_abs_reference"]
        )
        if err > limit:
            raise RuntimeError(f"{spec.name}/{variant}: upstream output is {err:.3g} from the converted module")

    # Inputs and per-variant reference outputs.
    cases_json: list[dict[str, Any]] = []
    for idx, inputs in enumerate(cases):
        prefix = f"forward_case{idx}"
        case: dict[str, Any] = {
            "inputs": [ef.save_npy(out_dir / f"{prefix}_in{i}.npy", t) for i, t in enumerate(inputs)],
            "outputs": {},
        }
        for variant, outs in references.items():
            case["outputs"][variant] = [
                ef.save_npy(out_dir / f"{prefix}_{variant}_out{i}.npy", t) for i, t in enumerate(outs[idx])
            ]
        for entry in case["inputs"] + [e for v in case["outputs"].values() for e in v]:
            entry["file"] = f"{spec.name}/{entry['file']}"
        cases_json.append(case)

    portable_vs_xnnpack: float | None = None
    if len(references) == 2:
        portable_vs_xnnpack = rounded(
            max(max_abs(p, x) for p, x in zip(references["portable_q8"], references["xnnpack_q8"], strict=True))
        )

    entry: dict[str, Any] = {
        "name": spec.name,
        "description": spec.description + " Random weights (seeded).",
        "recipe": spec.recipe,
        "files": files,
        "methods": {"forward": {"cases": cases_json}},
        "output_scale": output_scale,
        "output_zero_point": output_zero_point,
        "operators": operators,
        "delegates": delegates,
        "xnnpack": xnnpack,
        "errors": errors,
        "max_abs_diff_portable_vs_xnnpack": portable_vs_xnnpack,
        "calibration_inputs": CALIBRATION_INPUTS if spec.recipe == "static_int8" else 0,
    }
    if failures:
        entry["failures"] = failures
    print(
        f"{spec.name}: sizes={sizes} scale={output_scale} errors={errors} p-vs-x={portable_vs_xnnpack}",
        flush=True,
    )
    return entry


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--only", action="append", default=[])
    args = parser.parse_args(argv)

    warnings.filterwarnings("ignore", category=FutureWarning)
    warnings.filterwarnings("ignore", category=UserWarning)
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    # Out variants (AOT) and kernels (runtime) of the quantized_decomposed:: ops.
    importlib.import_module("executorch.kernels.quantized")

    out_root: Path = args.out
    out_root.mkdir(parents=True, exist_ok=True)
    specs = {s.name: s for s in build_specs()}
    unknown = set(args.only) - set(specs)
    if unknown:
        parser.error(f"unknown fixture(s): {sorted(unknown)}")

    ef.write_manifest(
        out_root,
        "scripts/export_quantized_fixtures.py",
        MANIFEST_FORMAT_VERSION,
        list(specs),
        args.only,
        lambda name: export_fixture(specs[name], out_root),
        versions=("executorch", "torchao"),
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
