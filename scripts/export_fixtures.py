#!/usr/bin/env python3
"""Export the `.pte` test fixtures used by the C++ runtime's tests.

Every fixture is a small PyTorch model that is exported twice with the
upstream ExecuTorch exporter:

* ``portable.pte``: no partitioner, every operator runs as a kernel call.
* ``xnnpack.pte``: lowered with ``XnnpackPartitioner`` (fully or partially
  delegated to ``XnnpackBackend``).

For every method and test case the inputs and the *eager PyTorch* reference
outputs are written as ``.npy`` files, and ``tests/fixtures/manifest.json``
describes all of it. Each exported program is also run through upstream's
Python runtime (``executorch.runtime``) and checked against the eager
references; the script fails if upstream itself does not match.

Run it with the separate export virtualenv described in
``tests/fixtures/README.md``::

    ../exportenv/bin/python scripts/export_fixtures.py

Options: ``--out DIR`` (default ``tests/fixtures``), ``--only NAME`` (repeatable),
``--no-verify`` (skip the upstream runtime check).
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import math
import shutil
import sys
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = REPO_ROOT / "tests" / "fixtures"
MANIFEST_FORMAT_VERSION = 1

Case = tuple[torch.Tensor, ...]


@dataclass
class MethodSpec:
    """One method of a fixture program."""

    module: nn.Module
    cases: list[Case]
    dynamic_shapes: Any = None


@dataclass
class Fixture:
    """A model (one or more methods) plus its test cases and tolerances."""

    name: str
    description: str
    methods: dict[str, MethodSpec]
    atol: float = 1e-5
    rtol: float = 1e-5
    dynamic: bool = False
    notes: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------
# Models
# --------------------------------------------------------------------------


class Mlp(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(8, 16)
        self.fc2 = nn.Linear(16, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(torch.relu(self.fc1(x)))


class AddMul(nn.Module):
    """The README example: ``linear(relu(x * 2 + 1))``."""

    def __init__(self) -> None:
        super().__init__()
        self.linear = nn.Linear(4, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.linear(torch.relu(x * 2 + 1))


class Elementwise(nn.Module):
    """Broadcasting binary ops and a set of unary ops; ``b`` is kept away from 0."""

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        s = a + b
        d = a - b
        m = a * b
        q = a / b
        u = torch.relu(s) + torch.sigmoid(d) + torch.tanh(m)
        u = u + torch.exp(torch.clamp(q, -3.0, 3.0))
        u = u + torch.abs(d) + torch.neg(m)
        u = u + torch.sqrt(torch.abs(a) + 1.0)
        u = u + torch.maximum(a, b) - torch.minimum(a, b)
        u = u + torch.where(a > b, a, b)
        return torch.clamp(u, min=-10.0, max=10.0)


class Cnn(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.pool = nn.MaxPool2d(2)
        self.conv2 = nn.Conv2d(8, 16, 3, stride=2)
        self.gap = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(16, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.pool(torch.relu(self.bn1(self.conv1(x))))
        x = torch.relu(self.conv2(x))
        x = self.gap(x).flatten(1)
        return self.fc(x)


class Transformer(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layer = nn.TransformerEncoderLayer(d_model=32, nhead=4, dim_feedforward=64, dropout=0.0, batch_first=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.layer(x)


def conv_bn(cin: int, cout: int, kernel: int, stride: int = 1, groups: int = 1) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(cin, cout, kernel, stride, kernel // 2, groups=groups, bias=False),
        nn.BatchNorm2d(cout),
    )


class InvertedResidual(nn.Module):
    def __init__(self, channels: int, expand: int) -> None:
        super().__init__()
        hidden = channels * expand
        self.expand = conv_bn(channels, hidden, 1)
        self.depthwise = conv_bn(hidden, hidden, 3, groups=hidden)
        self.project = conv_bn(hidden, channels, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = nn.functional.relu6(self.expand(x))
        y = nn.functional.hardswish(self.depthwise(y))
        return x + self.project(y)


class MobileNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.stem = conv_bn(3, 8, 3, stride=2)
        self.block = InvertedResidual(8, 2)
        self.fc = nn.Linear(8, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = nn.functional.relu6(self.stem(x))
        x = self.block(x)
        x = x.mean(dim=(2, 3))
        return self.fc(x)


class Affine(nn.Module):
    """``forward`` of multi_method: ``x @ W + b``."""

    def __init__(self) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.randn(4, 5))
        self.bias = nn.Parameter(torch.randn(5))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x @ self.weight + self.bias


class Encode(nn.Module):
    """``encode`` of multi_method: ``relu(x) * 3``."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x) * 3


class DynamicBatch(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(6, 5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.fc(x))


class Int64Input(nn.Module):
    """Embedding lookup on int64 ids plus an int64 elementwise add.

    Outputs: ``emb(ids).sum(-1) + offsets`` (float32) and ``ids + offsets``
    (int64).
    """

    def __init__(self) -> None:
        super().__init__()
        self.emb = nn.Embedding(20, 8)

    def forward(self, ids: torch.Tensor, offsets: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        summed = self.emb(ids).sum(dim=-1) + offsets.to(torch.float32)
        return summed, ids + offsets


class MultiOutput(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.randn(4, 3))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        return x + 1, x.sum(dim=1), torch.relu(x) @ self.weight


class BasicBlock(nn.Module):
    """ResNet basic block: conv-bn-relu, conv-bn, shortcut (1x1 stride-s conv + BN when the shape changes)."""

    def __init__(self, cin: int, cout: int, stride: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.shortcut: nn.Module = nn.Identity()
        if stride != 1 or cin != cout:
            self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return torch.relu(y + self.shortcut(x))


class ResNetBlocks(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, 1, 1, bias=False), nn.BatchNorm2d(8), nn.ReLU())
        self.layer1 = BasicBlock(8, 8, 1)
        self.layer2 = BasicBlock(8, 16, 2)
        self.layer3 = BasicBlock(16, 32, 2)
        self.pool = nn.AvgPool2d(2)
        self.adaptive = nn.AdaptiveAvgPool2d((2, 2))
        self.fc = nn.Linear(32 * 2 * 2, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.layer3(self.layer2(self.layer1(self.stem(x))))
        x = self.adaptive(self.pool(x))
        return self.fc(torch.flatten(x, 1))


class SqueezeExcite(nn.Module):
    def __init__(self, channels: int, reduced: int) -> None:
        super().__init__()
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.reduce = nn.Conv2d(channels, reduced, 1)
        self.expand = nn.Conv2d(reduced, channels, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        s = torch.relu(self.reduce(self.pool(x)))
        return x * nn.functional.hardsigmoid(self.expand(s))


class MobileNetV3Block(nn.Module):
    """Expand 1x1 + BN + hardswish, depthwise kxk + BN + hardswish, squeeze-excite, project 1x1 + BN."""

    def __init__(self, cin: int, hidden: int, cout: int, kernel: int, stride: int) -> None:
        super().__init__()
        self.expand = conv_bn(cin, hidden, 1)
        self.depthwise = conv_bn(hidden, hidden, kernel, stride=stride, groups=hidden)
        self.se = SqueezeExcite(hidden, max(hidden // 4, 4))
        self.project = conv_bn(hidden, cout, 1)
        self.residual = stride == 1 and cin == cout

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = nn.functional.hardswish(self.expand(x))
        y = nn.functional.hardswish(self.depthwise(y))
        y = self.project(self.se(y))
        return x + y if self.residual else y


class MobileNetV3(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.stem = conv_bn(3, 16, 3, stride=2)
        self.block1 = MobileNetV3Block(16, 32, 16, 3, 1)
        self.block2 = MobileNetV3Block(16, 48, 24, 5, 2)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc1 = nn.Linear(24, 32)
        self.fc2 = nn.Linear(32, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = nn.functional.hardswish(self.stem(x))
        x = self.block2(self.block1(x))
        x = torch.flatten(self.pool(x), 1)
        return self.fc2(nn.functional.hardswish(self.fc1(x)))


class ManualCausalAttention(nn.Module):
    """Multi-head self-attention written out: softmax(q @ k^T / sqrt(d) + causal mask) @ v."""

    def __init__(self, dim: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, c = x.shape
        d = c // self.heads
        q, k, v = self.qkv(x).split(c, dim=-1)
        q = q.view(b, t, self.heads, d).transpose(1, 2)
        k = k.view(b, t, self.heads, d).transpose(1, 2)
        v = v.view(b, t, self.heads, d).transpose(1, 2)
        mask = torch.triu(torch.full((t, t), float("-inf")), diagonal=1)
        scores = q @ k.transpose(-2, -1) / math.sqrt(d) + mask
        y = torch.softmax(scores, dim=-1) @ v
        return self.proj(y.transpose(1, 2).reshape(b, t, c))


class SdpaCausalAttention(nn.Module):
    """The same attention through ``F.scaled_dot_product_attention(is_causal=True)``."""

    def __init__(self, dim: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, c = x.shape
        d = c // self.heads
        q, k, v = self.qkv(x).split(c, dim=-1)
        q = q.view(b, t, self.heads, d).transpose(1, 2)
        k = k.view(b, t, self.heads, d).transpose(1, 2)
        v = v.view(b, t, self.heads, d).transpose(1, 2)
        y = nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.proj(y.transpose(1, 2).reshape(b, t, c))


class GptBlock(nn.Module):
    def __init__(self, dim: int, heads: int, sdpa: bool) -> None:
        super().__init__()
        self.ln1 = nn.LayerNorm(dim)
        self.attn: nn.Module = SdpaCausalAttention(dim, heads) if sdpa else ManualCausalAttention(dim, heads)
        self.ln2 = nn.LayerNorm(dim)
        self.fc = nn.Linear(dim, 2 * dim)
        self.out = nn.Linear(2 * dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.ln1(x))
        return x + self.out(nn.functional.gelu(self.fc(self.ln2(x)), approximate="tanh"))


class GptDecoder(nn.Module):
    def __init__(self, vocab: int = 64, dim: int = 32, heads: int = 4, max_len: int = 16) -> None:
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        self.pos = nn.Embedding(max_len, dim)
        self.blocks = nn.ModuleList([GptBlock(dim, heads, sdpa=False), GptBlock(dim, heads, sdpa=True)])
        self.ln_f = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab, bias=False)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        t = ids.shape[1]
        x = self.tok(ids) + self.pos(torch.arange(t))
        for block in self.blocks:
            x = block(x)
        return torch.log_softmax(self.head(self.ln_f(x)), dim=-1)


def conv_norm_relu(cin: int, cout: int, norm: str) -> nn.Sequential:
    layer: nn.Module = nn.GroupNorm(4, cout) if norm == "group" else nn.BatchNorm2d(cout)
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), layer, nn.ReLU())


class TinyUNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.enc1 = conv_norm_relu(3, 8, "group")
        self.enc2 = conv_norm_relu(8, 16, "batch")
        self.mid = conv_norm_relu(16, 16, "group")
        self.pool = nn.MaxPool2d(2)
        self.up_t = nn.ConvTranspose2d(16, 16, 2, stride=2)
        self.dec2 = conv_norm_relu(32, 16, "batch")
        self.up_bilinear = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False)
        self.dec1 = conv_norm_relu(24, 8, "group")
        self.aux = nn.Conv2d(16, 8, 1)
        self.head = nn.Conv2d(8, 2, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        e1 = self.enc1(x)  # 16x16
        e2 = self.enc2(self.pool(e1))  # 8x8
        m = self.mid(self.pool(e2))  # 4x4
        d2 = self.dec2(torch.cat([self.up_t(m), e2], dim=1))  # 8x8
        d1 = self.dec1(torch.cat([self.up_bilinear(d2), e1], dim=1))  # 16x16
        aux = nn.functional.interpolate(self.aux(m), scale_factor=4.0, mode="nearest")
        return self.head(d1 + aux)


class AudioConv1d(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv1d(4, 16, 5, stride=2, padding=2)
        self.conv2 = nn.Conv1d(16, 16, 3, padding=1, groups=4)
        self.conv3 = nn.Conv1d(16, 32, 3, stride=2, groups=2)
        self.conv4 = nn.Conv1d(32, 32, 3, padding=1, groups=32)
        self.fc = nn.Linear(32, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = nn.functional.silu(self.conv1(x))
        x = nn.functional.elu(self.conv2(x))
        x = nn.functional.avg_pool1d(x, 2)
        x = nn.functional.leaky_relu(self.conv3(x), 0.1)
        x = nn.functional.relu(self.conv4(x))
        return torch.log_softmax(self.fc(x.mean(dim=-1)), dim=-1)


class Wav2Letter(nn.Module):
    """Wav2Letter (Collobert et al. 2016), the 1-D convolutional speech recogniser of upstream's model zoo
    (``executorch.examples.models.wav2letter``, defined in torchaudio, which has no release for torch 2.13):
    Conv1d(n_features -> w, 48, stride 2), 7 x Conv1d(w -> w, 7), Conv1d(w -> wide, 32), Conv1d(wide -> wide, 1),
    each + ReLU, then Conv1d(wide -> classes, 1) and log_softmax over the classes. Upstream uses w = 250,
    wide = 2000; ``width`` and ``wide`` scale that down."""

    def __init__(self, n_features: int = 40, classes: int = 29, width: int = 250, wide: int = 2000) -> None:
        super().__init__()
        layers: list[nn.Module] = [nn.Conv1d(n_features, width, 48, stride=2, padding=23), nn.ReLU()]
        for _ in range(7):
            layers += [nn.Conv1d(width, width, 7, padding=3), nn.ReLU()]
        layers += [nn.Conv1d(width, wide, 32, padding=16), nn.ReLU(), nn.Conv1d(wide, wide, 1), nn.ReLU()]
        layers += [nn.Conv1d(wide, classes, 1)]
        self.net = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return nn.functional.log_softmax(self.net(x), dim=1)


class OpsMisc(nn.Module):
    """A grab-bag of indexing, reduction, rounding, comparison, logical and creation ops.

    Inputs: ``x`` f32 [4,8], ``y`` f32 [4,8] (kept away from 0), ``idx`` i64 [3] in 0..3, ``img`` f32
    [1,3,8,8]. Outputs are float32 or int64 only.
    """

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)

    def forward(
        self, x: torch.Tensor, y: torch.Tensor, idx: torch.Tensor, img: torch.Tensor
    ) -> tuple[torch.Tensor, ...]:
        # split / split_with_sizes / slicing with step / select
        a, b, c = torch.split(x, 3, dim=1)  # 3, 3, 2
        p, q = torch.split(x, [5, 3], dim=1)
        parts = torch.cat([a * 2, b - 1, c], dim=1) + torch.cat([q, p], dim=1)
        stepped = x[:, ::2] + x[1:, 1::2].sum(dim=0, keepdim=True)  # [4,4]
        row = x.select(0, 2)  # [8]

        # index_select / gather / index with a tensor / expand
        picked = torch.index_select(x, 0, idx)  # [3,8]
        gidx = (torch.arange(8).expand(4, 8) * 3 + idx[0]) % 8
        gathered = torch.gather(x, 1, gidx)  # [4,8]
        indexed = x[idx]  # [3,8]
        col = x[:, :1].expand(4, 8)
        gathered = gathered + col + row

        # cumsum / pow / rsqrt / rounding / amax / amin / clamp / remainder / fmod
        scaled = x * 3.0
        rounding = torch.floor(scaled) + torch.ceil(scaled) * 0.5 + torch.round(scaled) * 0.25
        powed = torch.pow(x, 2) + torch.pow(torch.abs(y), x * 0.5) + torch.rsqrt(torch.abs(x) + 1.0)
        mods = torch.remainder(scaled, y) + torch.fmod(scaled, 1.5)
        stats = torch.cumsum(x, dim=1) + x.amax(dim=1, keepdim=True) - x.amin(dim=0, keepdim=True)
        stats = torch.clamp(stats, -4.0, 4.0)

        # comparisons, logical and bitwise ops on bool, where
        gt = x > y
        le = x <= 0.5
        eq = torch.round(scaled) == torch.round(y)
        ne = x != y
        logic = torch.logical_and(gt, le) | torch.logical_or(eq, ~ne)
        logic = torch.logical_xor(logic, x < -1.0) ^ (gt & le)
        mask = torch.logical_not(logic)
        chosen = torch.where(mask, x, y) + logic.to(torch.float32)

        # creation ops
        created = torch.zeros(4, 8) + torch.ones(4, 8) * 2 + torch.full((4, 8), 0.5) + torch.arange(8.0)

        # constant_pad_nd / topk / argmax / argmin
        padded = nn.functional.pad(x, (1, 2, 0, 1), value=-1.0)  # [5,11]
        top_values, top_indices = torch.topk(x, 3, dim=1)
        arg = torch.stack([torch.argmax(x, dim=1), torch.argmin(x, dim=0)[:4]])  # [2,4]

        # channels-last conv (dim-order ops), back to contiguous
        conv = self.conv(img.to(memory_format=torch.channels_last)).contiguous()

        floats = parts + gathered + rounding + powed + mods + stats + chosen + created
        return (
            floats,
            stepped,
            picked + indexed,
            padded,
            top_values,
            top_indices,
            arg,
            conv,
        )


class NoConstants(nn.Module):
    """No weights and no tensor constants: the exporter writes one empty data segment and no extended header."""

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.mm(a, b) + a


# --------------------------------------------------------------------------
# Fixture definitions
# --------------------------------------------------------------------------


def randomize_one_batchnorm(m: nn.modules.batchnorm._BatchNorm, gen: torch.Generator) -> None:
    n = m.num_features
    with torch.no_grad():
        m.running_mean.copy_(torch.randn(n, generator=gen) * 0.1)
        m.running_var.copy_(torch.rand(n, generator=gen) * 0.5 + 0.75)
        m.weight.copy_(torch.rand(n, generator=gen) * 0.5 + 0.75)
        m.bias.copy_(torch.randn(n, generator=gen) * 0.1)


def randomize_batchnorm(module: nn.Module, gen: torch.Generator) -> None:
    """Give BatchNorm2d layers non-trivial statistics and affine parameters."""
    for m in module.modules():
        if isinstance(m, nn.BatchNorm2d):
            randomize_one_batchnorm(m, gen)


def randomize_groupnorm(module: nn.Module, gen: torch.Generator) -> None:
    """Give GroupNorm layers non-trivial affine parameters."""
    for m in module.modules():
        if isinstance(m, nn.GroupNorm):
            n = m.num_channels
            with torch.no_grad():
                m.weight.copy_(torch.rand(n, generator=gen) * 0.5 + 0.75)
                m.bias.copy_(torch.randn(n, generator=gen) * 0.1)


def randn(gen: torch.Generator, *shape: int) -> torch.Tensor:
    return torch.randn(*shape, generator=gen, dtype=torch.float32)


def away_from_zero(gen: torch.Generator, *shape: int) -> torch.Tensor:
    """Random values with ``|v| >= 0.5`` (safe divisors)."""
    v = randn(gen, *shape)
    return torch.sign(v + (v == 0).float()) * (v.abs() + 0.5)


def build_fixtures() -> list[Fixture]:
    fixtures: list[Fixture] = []

    def seeded(seed: int) -> torch.Generator:
        torch.manual_seed(seed)
        return torch.Generator().manual_seed(seed + 1000)

    g = seeded(1)
    mlp = Mlp().eval()
    fixtures.append(
        Fixture(
            name="mlp",
            description="Linear(8->16) + ReLU + Linear(16->4); input [2,8].",
            methods={"forward": MethodSpec(mlp, [(randn(g, 2, 8),), (randn(g, 2, 8) * 3,)])},
        )
    )

    g = seeded(2)
    add_mul = AddMul().eval()
    fixtures.append(
        Fixture(
            name="add_mul",
            description="README example: linear(relu(x * 2 + 1)), Linear(4->3); input [2,4].",
            methods={"forward": MethodSpec(add_mul, [(randn(g, 2, 4),), (randn(g, 2, 4),)])},
        )
    )

    g = seeded(3)
    fixtures.append(
        Fixture(
            name="elementwise",
            description="Broadcasting add/sub/mul/div of [3,4] and [4], relu, "
            "sigmoid, tanh, exp, abs, neg, sqrt, clamp, maximum, minimum, "
            "where(a > b).",
            methods={
                "forward": MethodSpec(
                    Elementwise().eval(),
                    [
                        (randn(g, 3, 4), away_from_zero(g, 4)),
                        (randn(g, 3, 4) * 2, away_from_zero(g, 4)),
                    ],
                )
            },
        )
    )

    g = seeded(4)
    cnn = Cnn().eval()
    randomize_batchnorm(cnn, g)
    fixtures.append(
        Fixture(
            name="cnn",
            description="Conv2d(3->8,3x3,pad 1) + BatchNorm2d + ReLU + MaxPool2d(2) "
            "+ Conv2d(8->16,3x3,stride 2) + ReLU + AdaptiveAvgPool2d(1) + "
            "Linear(16->10); input [1,3,16,16].",
            methods={"forward": MethodSpec(cnn, [(randn(g, 1, 3, 16, 16),)])},
            atol=1e-4,
            rtol=1e-4,
        )
    )

    g = seeded(5)
    fixtures.append(
        Fixture(
            name="transformer",
            description="nn.TransformerEncoderLayer(d_model=32, nhead=4, "
            "dim_feedforward=64, batch_first=True, dropout=0) in eval; input "
            "[1,6,32]. Partially delegated in the XNNPACK program.",
            methods={"forward": MethodSpec(Transformer().eval(), [(randn(g, 1, 6, 32),)])},
            atol=1e-4,
            rtol=1e-4,
        )
    )

    g = seeded(6)
    mobilenet = MobileNet().eval()
    randomize_batchnorm(mobilenet, g)
    fixtures.append(
        Fixture(
            name="mobilenet",
            description="Tiny MobileNet-V2-style net: conv stem 3->8 stride 2 + BN "
            "+ ReLU6, inverted residual (1x1 expand 8->16 + BN + ReLU6, depthwise "
            "3x3 + BN + hardswish, 1x1 project 16->8 + BN, residual add), global "
            "mean, Linear(8->10); input [1,3,32,32].",
            methods={"forward": MethodSpec(mobilenet, [(randn(g, 1, 3, 32, 32),)])},
            atol=1e-4,
            rtol=1e-4,
        )
    )

    g = seeded(7)
    fixtures.append(
        Fixture(
            name="multi_method",
            description="One program with two methods: forward(x[2,4]) = x @ W[4,5] "
            "+ b[5]; encode(x[3,4]) = relu(x) * 3.",
            methods={
                "forward": MethodSpec(Affine().eval(), [(randn(g, 2, 4),)]),
                "encode": MethodSpec(Encode().eval(), [(randn(g, 3, 4),), (randn(g, 3, 4),)]),
            },
        )
    )

    g = seeded(8)
    batch = torch.export.Dim("batch", min=1, max=8)
    fixtures.append(
        Fixture(
            name="dynamic_batch",
            description="relu(Linear(6->5)) with a dynamic batch dim (1..8); "
            "exported with example batch 2, cases with batch 1, 3 and 8. Output "
            "shape follows the input batch.",
            methods={
                "forward": MethodSpec(
                    DynamicBatch().eval(),
                    [(randn(g, 1, 6),), (randn(g, 3, 6),), (randn(g, 8, 6),)],
                    dynamic_shapes=({0: batch},),
                )
            },
            dynamic=True,
        )
    )

    g = seeded(9)
    fixtures.append(
        Fixture(
            name="int64_input",
            description="Embedding(20,8) on int64 ids [2,5], sum over the last dim, "
            "plus a second int64 input [2,5]. Outputs: emb(ids).sum(-1) + "
            "offsets (float32 [2,5]) and ids + offsets (int64 [2,5]).",
            methods={
                "forward": MethodSpec(
                    Int64Input().eval(),
                    [
                        (
                            torch.randint(0, 20, (2, 5), generator=g),
                            torch.randint(-3, 4, (2, 5), generator=g),
                        ),
                        (
                            torch.randint(0, 20, (2, 5), generator=g),
                            torch.randint(-3, 4, (2, 5), generator=g),
                        ),
                    ],
                )
            },
        )
    )

    g = seeded(10)
    fixtures.append(
        Fixture(
            name="multi_output",
            description="Returns a tuple of 3 outputs for x [2,4]: x + 1 [2,4], "
            "x.sum(dim=1) [2], relu(x) @ W[4,3] [2,3].",
            methods={"forward": MethodSpec(MultiOutput().eval(), [(randn(g, 2, 4),), (randn(g, 2, 4),)])},
        )
    )

    g = seeded(11)
    resnet = ResNetBlocks().eval()
    randomize_batchnorm(resnet, g)
    fixtures.append(
        Fixture(
            name="resnet_block",
            description="Tiny ResNet: conv stem 3->8 + BN + ReLU, three basic blocks (8->8, "
            "8->16 stride 2, 16->32 stride 2; conv-BN-ReLU, conv-BN, 1x1 stride-2 conv + BN "
            "shortcut when downsampling, residual add, ReLU), AvgPool2d(2), AdaptiveAvgPool2d((2,2)), "
            "Linear(128->10); input [1,3,32,32].",
            methods={"forward": MethodSpec(resnet, [(randn(g, 1, 3, 32, 32),)])},
            atol=1e-4,
            rtol=1e-4,
        )
    )

    g = seeded(12)
    mobilenet_v3 = MobileNetV3().eval()
    randomize_batchnorm(mobilenet_v3, g)
    fixtures.append(
        Fixture(
            name="mobilenet_v3",
            description="Tiny MobileNet-V3-style net: conv stem 3->16 stride 2 + BN + hardswish, "
            "two blocks (1x1 expand + BN + hardswish, depthwise 3x3 / 5x5 stride 2 + BN + hardswish, "
            "squeeze-excite: AdaptiveAvgPool2d(1), 1x1 conv, ReLU, 1x1 conv, hardsigmoid, multiply; "
            "1x1 project + BN; residual add in the stride-1 block), AdaptiveAvgPool2d(1), "
            "Linear(24->32) + hardswish + Linear(32->10); input [1,3,32,32].",
            methods={"forward": MethodSpec(mobilenet_v3, [(randn(g, 1, 3, 32, 32),)])},
            atol=1e-4,
            rtol=1e-4,
        )
    )

    g = seeded(13)
    fixtures.append(
        Fixture(
            name="gpt_decoder",
            description="Tiny GPT decoder: Embedding(64,32) on int64 ids [2,8] + positional "
            "Embedding(16,32) of arange(T); block 1 with attention written out (4 heads, "
            "q @ k^T / sqrt(d) + triu(-inf) causal mask, softmax, @ v), block 2 with "
            "F.scaled_dot_product_attention(is_causal=True); pre-LayerNorm, MLP 32->64->32 with "
            "gelu(approximate='tanh'), final LayerNorm, Linear(32->64) head, log_softmax.",
            methods={
                "forward": MethodSpec(
                    GptDecoder().eval(),
                    [
                        (torch.randint(0, 64, (2, 8), generator=g),),
                        (torch.randint(0, 64, (2, 8), generator=g),),
                    ],
                )
            },
            atol=1e-4,
            rtol=1e-4,
        )
    )

    g = seeded(14)
    unet = TinyUNet().eval()
    randomize_batchnorm(unet, g)
    randomize_groupnorm(unet, g)
    fixtures.append(
        Fixture(
            name="unet",
            description="Tiny U-Net on [1,3,16,16]: conv3x3 + GroupNorm(4) / BatchNorm2d + ReLU "
            "stages, MaxPool2d(2) down twice, ConvTranspose2d(16,16,2,stride 2) up + skip cat, "
            "nn.Upsample(scale 2, bilinear) up + skip cat, F.interpolate(scale 4, nearest) of a "
            "1x1-conv side branch added, 1x1 conv head to 2 channels.",
            methods={"forward": MethodSpec(unet, [(randn(g, 1, 3, 16, 16),)])},
            atol=1e-4,
            rtol=1e-4,
        )
    )

    g = seeded(15)
    fixtures.append(
        Fixture(
            name="audio_conv1d",
            description="1-D conv net on [2,4,64]: Conv1d(4->16,k5,stride 2) + SiLU, "
            "Conv1d(16->16,k3,groups 4) + ELU, avg_pool1d(2), Conv1d(16->32,k3,stride 2,groups 2) + "
            "leaky_relu(0.1), depthwise Conv1d(32,k3) + ReLU, mean over time, Linear(32->10), "
            "log_softmax.",
            methods={"forward": MethodSpec(AudioConv1d().eval(), [(randn(g, 2, 4, 64),), (randn(g, 2, 4, 64) * 2,)])},
            atol=1e-4,
            rtol=1e-4,
        )
    )

    g = seeded(16)
    fixtures.append(
        Fixture(
            name="ops_misc",
            description="Grab-bag on x, y [4,8] f32, idx [3] i64, img [1,3,8,8] f32: split / "
            "split_with_sizes, slicing with step, select, index_select, gather, index with a tensor, "
            "expand, cumsum, pow, rsqrt, floor/ceil/round, amax/amin, argmax/argmin, clamp, "
            "remainder/fmod, comparisons, logical and bitwise ops on bool, where, zeros/ones/full/"
            "arange, F.pad (constant_pad_nd), topk, cat/stack, and a Conv2d on a channels-last copy "
            "of img (dim-order ops). 8 outputs (f32 and i64).",
            methods={
                "forward": MethodSpec(
                    OpsMisc().eval(),
                    [
                        (
                            randn(g, 4, 8),
                            away_from_zero(g, 4, 8),
                            torch.tensor([2, 0, 3], dtype=torch.int64),
                            randn(g, 1, 3, 8, 8),
                        ),
                        (
                            randn(g, 4, 8) * 2,
                            away_from_zero(g, 4, 8),
                            torch.tensor([1, 1, 0], dtype=torch.int64),
                            randn(g, 1, 3, 8, 8),
                        ),
                    ],
                )
            },
        )
    )

    g = seeded(17)
    fixtures.append(
        Fixture(
            name="no_constants",
            description="mm(a, b) + a for a, b [4,4]: a program without weights or tensor constants. Upstream "
            "writes it with one empty data segment (offset 0, size 0) and no extended header.",
            methods={
                "forward": MethodSpec(
                    NoConstants().eval(), [(randn(g, 4, 4), randn(g, 4, 4)), (randn(g, 4, 4), randn(g, 4, 4))]
                )
            },
        )
    )

    fixtures.extend(build_real_models())
    return fixtures


# --------------------------------------------------------------------------
# Real networks (torchvision, timm, upstream's model zoo) with random weights
# --------------------------------------------------------------------------


def import_torchvision() -> Any:
    """``torchvision.models`` without its compiled extension.

    The torchvision build offered for torch 2.13 here has a ``_C`` extension that does not load against the CPU
    torch, and its import registers fake kernels for ``torchvision::nms`` / ``qnms`` unconditionally. Defining
    those two schemas first lets the pure-Python model definitions import (no classification model uses them).
    """
    import importlib

    if "torchvision" not in sys.modules:
        lib = torch.library.Library("torchvision", "DEF")
        lib.define("nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
        lib.define("qnms(Tensor qdets, Tensor scores, float iou_threshold) -> Tensor")
        import_torchvision.keep = lib  # type: ignore[attr-defined]
    return importlib.import_module("torchvision.models")


def randomize_norms(module: nn.Module, gen: torch.Generator) -> None:
    """Seeded random running statistics and affine parameters for every BatchNorm (1-D, 2-D) and LayerNorm."""
    for m in module.modules():
        if isinstance(m, nn.modules.batchnorm._BatchNorm):
            randomize_one_batchnorm(m, gen)
        elif isinstance(m, nn.LayerNorm) and m.elementwise_affine:
            with torch.no_grad():
                m.weight.copy_(torch.rand(m.weight.shape, generator=gen) * 0.5 + 0.75)
                m.bias.copy_(torch.randn(m.bias.shape, generator=gen) * 0.1)


def real_model_specs(full_size: bool = False, large: bool = False) -> list[tuple[str, str, Any, tuple[int, ...]]]:
    """(name, description, constructor, input shape) of the real-network fixtures.

    Widths, depths and class counts are reduced where the full network would make the committed fixtures large
    (every program holds its weights, twice per fixture); the layer types, strides and block structure are the
    real ones. ``full_size``: the published configurations at 224x224 with 1000 classes instead (what
    ``scripts/benchmark.py --full-size`` exports into a temporary directory; never committed), with ViT-B/16 too
    when ``large`` (``--vit``: 86 M parameters, 17.6 GFLOP per image).
    """
    if full_size:
        return full_size_specs(large)
    tvm = import_torchvision()
    import timm
    from executorch.examples.models.mlperf_tiny.ds_cnn import DSCNNKWS
    from torchvision.models.efficientnet import EfficientNet, _efficientnet_conf
    from torchvision.models.regnet import BlockParams, RegNet

    def efficientnet_b0(width: float) -> nn.Module:
        setting, last = _efficientnet_conf("efficientnet_b0", width_mult=width, depth_mult=1.0)
        return EfficientNet(setting, dropout=0.2, last_channel=last, num_classes=10)

    def regnet_y(width: int) -> nn.Module:
        params = BlockParams.from_init_params(
            depth=10, w_0=width, w_a=width * 1.5, w_m=2.4, group_width=8, se_ratio=0.25
        )
        return RegNet(params, num_classes=10)

    def deit_tiny(depth: int) -> nn.Module:
        return timm.create_model("deit_tiny_patch16_224", pretrained=False, num_classes=10, img_size=112, depth=depth)

    img = (1, 3, 128, 128)
    return [
        (
            "tv_mobilenet_v2",
            "torchvision mobilenet_v2(width_mult=0.35, num_classes=10) on [1,3,128,128].",
            lambda: tvm.mobilenet_v2(width_mult=0.35, num_classes=10),
            img,
        ),
        (
            "tv_mobilenet_v3_small",
            "torchvision mobilenet_v3_small(width_mult=0.5, num_classes=10) on [1,3,128,128].",
            lambda: tvm.mobilenet_v3_small(width_mult=0.5, num_classes=10),
            img,
        ),
        (
            "tv_mobilenet_v3_large",
            "torchvision mobilenet_v3_large(width_mult=0.35, num_classes=10) on [1,3,128,128].",
            lambda: tvm.mobilenet_v3_large(width_mult=0.35, num_classes=10),
            img,
        ),
        (
            "tv_resnet18",
            "timm resnet18 at quarter width (channels 16/32/64/128, stem 16), 10 classes, on [1,3,128,128].",
            lambda: timm.create_model(
                "resnet18", pretrained=False, num_classes=10, channels=(16, 32, 64, 128), stem_width=16
            ),
            img,
        ),
        (
            "tv_efficientnet_b0",
            "torchvision EfficientNet-B0 blocks at width_mult 0.35, 10 classes, on [1,3,128,128].",
            lambda: efficientnet_b0(0.35),
            img,
        ),
        (
            "tv_squeezenet1_1",
            "torchvision squeezenet1_1(num_classes=10) on [1,3,128,128].",
            lambda: tvm.squeezenet1_1(num_classes=10),
            img,
        ),
        (
            "tv_shufflenet_v2",
            "torchvision shufflenet_v2_x0_5(num_classes=10) on [1,3,128,128].",
            lambda: tvm.shufflenet_v2_x0_5(num_classes=10),
            img,
        ),
        (
            "tv_regnet_y",
            "torchvision RegNet-Y (10 blocks, w_0 16, group width 8, SE 0.25), 10 classes, on [1,3,128,128].",
            lambda: regnet_y(16),
            img,
        ),
        (
            "timm_deit_tiny",
            "timm deit_tiny_patch16_224 (dim 192, 3 heads) at depth 2, img 112, 10 classes.",
            lambda: deit_tiny(2),
            (1, 3, 112, 112),
        ),
        (
            "kws_ds_cnn",
            "upstream's MLPerf Tiny keyword-spotting DS-CNN (executorch.examples.models.mlperf_tiny) on [1,1,49,10].",
            lambda: DSCNNKWS(),
            (1, 1, 49, 10),
        ),
        (
            "w2l_conv1d",
            "Wav2Letter 1-D conv speech net (upstream zoo's w2l) at width 48 / 192 instead of 250 / 2000, 40 MFCC "
            "features x 200 frames, 29 classes.",
            lambda: Wav2Letter(width=48, wide=192),
            (1, 40, 200),
        ),
    ]


def full_size_specs(large: bool = False) -> list[tuple[str, str, Any, tuple[int, ...]]]:
    # New networks go at the end: build_real_models seeds each one by its position.
    tvm = import_torchvision()
    import timm
    from executorch.examples.models.mlperf_tiny.ds_cnn import DSCNNKWS

    img = (1, 3, 224, 224)
    return [
        ("mobilenet_v2", "torchvision mobilenet_v2()", lambda: tvm.mobilenet_v2(), img),
        ("mobilenet_v3_small", "torchvision mobilenet_v3_small()", lambda: tvm.mobilenet_v3_small(), img),
        ("mobilenet_v3_large", "torchvision mobilenet_v3_large()", lambda: tvm.mobilenet_v3_large(), img),
        ("resnet18", "torchvision resnet18()", lambda: tvm.resnet18(), img),
        ("efficientnet_b0", "torchvision efficientnet_b0()", lambda: tvm.efficientnet_b0(), img),
        ("squeezenet1_1", "torchvision squeezenet1_1()", lambda: tvm.squeezenet1_1(), img),
        ("shufflenet_v2", "torchvision shufflenet_v2_x1_0()", lambda: tvm.shufflenet_v2_x1_0(), img),
        ("regnet_y_400mf", "torchvision regnet_y_400mf()", lambda: tvm.regnet_y_400mf(), img),
        ("deit_tiny", "timm deit_tiny_patch16_224", lambda: timm.create_model("deit_tiny_patch16_224"), img),
        ("kws_ds_cnn", "MLPerf Tiny DS-CNN", lambda: DSCNNKWS(), (1, 1, 49, 10)),
        ("w2l_conv1d", "Wav2Letter (width 250 / 2000)", lambda: Wav2Letter(), (1, 40, 400)),
        ("resnet50", "torchvision resnet50()", lambda: tvm.resnet50(), img),
        ("deit_small", "timm deit_small_patch16_224", lambda: timm.create_model("deit_small_patch16_224"), img),
    ] + ([("vit_b_16", "torchvision vit_b_16()", lambda: tvm.vit_b_16(), img)] if large else [])


def build_real_models(full_size: bool = False, large: bool = False) -> list[Fixture]:
    fixtures: list[Fixture] = []
    for seed, (name, description, make, shape) in enumerate(real_model_specs(full_size, large), start=100):
        torch.manual_seed(seed)
        gen = torch.Generator().manual_seed(seed + 1000)
        model = make()
        randomize_norms(model, gen)
        model.eval()
        cases = [(randn(gen, *shape),), (randn(gen, *shape) * 0.5,)]
        with torch.no_grad():
            scale = float(model(cases[0][0]).abs().max())  # tolerances relative to the output's magnitude
        fixtures.append(
            Fixture(
                name=name,
                description=description + " Random weights (seeded), random BatchNorm statistics.",
                methods={"forward": MethodSpec(model, cases)},
                atol=5e-4 * scale,
                rtol=1e-3,
                notes=["real network"],
            )
        )
    return fixtures


# --------------------------------------------------------------------------
# Export
# --------------------------------------------------------------------------


def export_methods(fixture: Fixture) -> dict[str, torch.export.ExportedProgram]:
    eps: dict[str, torch.export.ExportedProgram] = {}
    for method_name, spec in fixture.methods.items():
        example = spec.cases[0]
        if spec.dynamic_shapes is not None:
            # Export with an example that is not a specialisable size (1).
            example = tuple(torch.zeros((2, *t.shape[1:]), dtype=t.dtype) for t in example)
        with torch.no_grad():
            eps[method_name] = torch.export.export(
                spec.module, example, dynamic_shapes=spec.dynamic_shapes, strict=False
            )
    return eps


def lower(
    eps: dict[str, torch.export.ExportedProgram], variant: str
) -> Any:  # executorch.exir.ExecutorchProgramManager
    from executorch.exir import to_edge, to_edge_transform_and_lower

    if variant == "portable":
        edge = to_edge(eps)
    elif variant == "xnnpack":
        from executorch.backends.xnnpack.partition.xnnpack_partitioner import (
            XnnpackPartitioner,
        )

        edge = to_edge_transform_and_lower(eps, partitioner=[XnnpackPartitioner()])
    else:
        raise ValueError(variant)
    return edge.to_executorch()


def operator_names(program: Any) -> list[str]:
    """Operator names with overload, as the runtime's kernel registry sees them."""
    names: set[str] = set()
    for plan in program.execution_plan:
        for op in plan.operators:
            names.add(f"{op.name}.{op.overload}" if op.overload else op.name)
    return sorted(names)


def delegate_info(program: Any) -> tuple[list[str], int]:
    """Return (sorted backend ids, number of DelegateCall instructions)."""
    from executorch.exir.schema import DelegateCall

    ids: set[str] = set()
    calls = 0
    for plan in program.execution_plan:
        ids.update(d.id for d in plan.delegates)
        for chain in plan.chains:
            for instr in chain.instructions:
                if isinstance(instr.instr_args, DelegateCall):
                    calls += 1
    return sorted(ids), calls


def to_numpy(t: torch.Tensor) -> np.ndarray:
    arr = np.ascontiguousarray(t.detach().cpu().numpy())
    return arr.astype(arr.dtype.newbyteorder("<"), copy=False)


def save_npy(path: Path, t: torch.Tensor) -> dict[str, Any]:
    arr = to_numpy(t)
    np.save(path, arr, allow_pickle=False)
    return {"file": path.name, "dtype": str(arr.dtype), "shape": list(arr.shape)}


def as_tuple(out: Any) -> tuple[torch.Tensor, ...]:
    if isinstance(out, torch.Tensor):
        return (out,)
    return tuple(out)


def compare(got: Sequence[Any], want: Sequence[torch.Tensor], atol: float, rtol: float) -> list[str]:
    problems: list[str] = []
    if len(got) != len(want):
        return [f"output count {len(got)} != {len(want)}"]
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        g_arr = to_numpy(g) if isinstance(g, torch.Tensor) else np.asarray(g)
        w_arr = to_numpy(w)
        if g_arr.dtype != w_arr.dtype or g_arr.shape != w_arr.shape:
            problems.append(f"out{i}: {g_arr.dtype}{list(g_arr.shape)} != {w_arr.dtype}{list(w_arr.shape)}")
            continue
        if np.issubdtype(w_arr.dtype, np.floating):
            ok = np.allclose(g_arr, w_arr, atol=atol, rtol=rtol)
        else:
            ok = np.array_equal(g_arr, w_arr)
        if not ok:
            err = np.max(np.abs(g_arr.astype(np.float64) - w_arr.astype(np.float64)))
            problems.append(f"out{i}: max abs err {err:.3g}")
    return problems


def max_abs_err(got: Sequence[Any], want: Sequence[torch.Tensor]) -> float:
    worst = 0.0
    for g, w in zip(got, want, strict=False):
        g_arr = to_numpy(g).astype(np.float64)
        w_arr = to_numpy(w).astype(np.float64)
        if g_arr.shape == w_arr.shape and g_arr.size:
            worst = max(worst, float(np.max(np.abs(g_arr - w_arr))))
    return worst


def verify_with_upstream(
    pte: Path,
    fixture: Fixture,
    references: dict[str, list[tuple[Case, tuple[torch.Tensor, ...]]]],
) -> tuple[list[str], float]:
    from executorch.runtime import Runtime

    runtime = Runtime.get()
    program = runtime.load_program(pte)
    problems: list[str] = []
    worst = 0.0
    for method_name, cases in references.items():
        for idx, (inputs, outputs) in enumerate(cases):
            method = program.load_method(method_name)
            if method is None:
                problems.append(f"{method_name}: cannot load")
                break
            got = method.execute(list(inputs))
            for p in compare(got, outputs, fixture.atol, fixture.rtol):
                problems.append(f"{method_name} case{idx} {p}")
            worst = max(worst, max_abs_err(got, outputs))
    return problems, worst


def export_fixture(fixture: Fixture, out_root: Path, verify: bool) -> dict[str, Any]:
    out_dir = out_root / fixture.name
    if out_dir.exists():
        shutil.rmtree(out_dir)
    out_dir.mkdir(parents=True)

    # Eager references.
    references: dict[str, list[tuple[Case, tuple[torch.Tensor, ...]]]] = {}
    methods_json: dict[str, Any] = {}
    for method_name, spec in fixture.methods.items():
        cases_json = []
        references[method_name] = []
        for idx, inputs in enumerate(spec.cases):
            with torch.no_grad():
                outputs = as_tuple(spec.module(*inputs))
            references[method_name].append((inputs, outputs))
            prefix = f"{method_name}_case{idx}"
            cases_json.append(
                {
                    "inputs": [save_npy(out_dir / f"{prefix}_in{i}.npy", t) for i, t in enumerate(inputs)],
                    "outputs": [save_npy(out_dir / f"{prefix}_out{i}.npy", t) for i, t in enumerate(outputs)],
                }
            )
        methods_json[method_name] = {"cases": cases_json}

    # Rewrite file paths relative to the fixtures root.
    for method in methods_json.values():
        for case in method["cases"]:
            for entry in case["inputs"] + case["outputs"]:
                entry["file"] = f"{fixture.name}/{entry['file']}"

    files: dict[str, str] = {}
    operators: dict[str, list[str]] = {}
    delegates: dict[str, list[str]] = {}
    delegate_calls: dict[str, int] = {}
    sizes: dict[str, int] = {}
    upstream: dict[str, Any] = {}
    for variant in ("portable", "xnnpack"):
        eps = export_methods(fixture)
        manager = lower(eps, variant)
        pte = out_dir / f"{variant}.pte"
        pte.write_bytes(manager.buffer)
        files[variant] = f"{fixture.name}/{pte.name}"
        sizes[variant] = pte.stat().st_size
        program = manager.executorch_program
        operators[variant] = operator_names(program)
        delegates[variant], delegate_calls[variant] = delegate_info(program)
        if verify:
            problems, worst = verify_with_upstream(pte, fixture, references)
            upstream[variant] = {"matched": not problems, "max_abs_err": worst}
            if problems:
                raise RuntimeError(f"{fixture.name}/{variant}: upstream runtime mismatch: " + "; ".join(problems))

    xnn_calls = delegate_calls["xnnpack"]
    if xnn_calls == 0:
        xnn_state = "none"
    elif operators["xnnpack"]:
        xnn_state = "partial"
    else:
        xnn_state = "full"

    entry: dict[str, Any] = {
        "name": fixture.name,
        "description": fixture.description,
        "files": files,
        "methods": methods_json,
        "atol": fixture.atol,
        "rtol": fixture.rtol,
        "operators": operators,
        "delegates": delegates,
        "delegate_calls": delegate_calls,
        "xnnpack_delegation": xnn_state,
        "dynamic": fixture.dynamic,
    }
    if fixture.notes:
        entry["notes"] = fixture.notes
    print(
        f"{fixture.name}: sizes={sizes} xnnpack={xnn_state} (delegate calls {xnn_calls}) upstream={upstream}",
        flush=True,
    )
    return entry


def write_manifest(
    out_root: Path,
    generator: str,
    format_version: int,
    names: Sequence[str],
    only: Sequence[str],
    export: Callable[[str], dict[str, Any]],
    versions: Sequence[str] = ("executorch",),
) -> None:
    """Exports the fixtures `names` in order (with `only`, just those: the others keep their entries of the manifest
    already in out_root) and writes out_root/manifest.json, with torch's version and those of the `versions`
    packages."""
    manifest_path = out_root / "manifest.json"
    previous: dict[str, Any] = {}
    if only and manifest_path.exists():
        previous = {e["name"]: e for e in json.loads(manifest_path.read_text()).get("fixtures", [])}

    entries: list[dict[str, Any]] = []
    for name in names:
        if only and name not in only:
            if name in previous:
                entries.append(previous[name])
            continue
        entries.append(export(name))

    manifest = {
        "format_version": format_version,
        "generator": generator,
        "torch_version": torch.__version__,
        **{f"{package}_version": importlib.metadata.version(package) for package in versions},
        "fixtures": entries,
    }
    manifest_path.write_text(json.dumps(manifest, indent=2) + "\n")
    print(f"wrote {manifest_path}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--only", action="append", default=[])
    parser.add_argument("--no-verify", action="store_true")
    args = parser.parse_args(argv)

    warnings.filterwarnings("ignore", category=FutureWarning)
    warnings.filterwarnings("ignore", category=UserWarning)

    out_root: Path = args.out
    out_root.mkdir(parents=True, exist_ok=True)
    fixtures = {f.name: f for f in build_fixtures()}
    unknown = set(args.only) - set(fixtures)
    if unknown:
        parser.error(f"unknown fixture(s): {sorted(unknown)}")

    def export(name: str) -> dict[str, Any]:
        return export_fixture(fixtures[name], out_root, not args.no_verify)

    write_manifest(out_root, "scripts/export_fixtures.py", MANIFEST_FORMAT_VERSION, list(fixtures), args.only, export)
    return 0


if __name__ == "__main__":
    sys.exit(main())
