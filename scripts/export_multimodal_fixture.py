#!/usr/bin/env python3
"""Export the multimodal LLM fixture (``tests/fixtures/multimodal``) with upstream ExecuTorch.

A tiny image-encoder + text-decoder pair (random seeded weights) in the layout upstream's multimodal runner reads
(``extension/llm/runner/constants.h``): one program with the methods

* ``vision_encoder``: a uint8 image [1, 3, 32, 32] -> 16 patch embeddings [1, 16, DIM] (normalisation, an 8x8
  patch convolution, a two-layer projection);
* ``token_embedding``: token ids [1, seq] -> embeddings [1, seq, DIM] (seq dynamic);
* ``text_decoder``: embeddings [1, seq, DIM] and the start position [1] -> the last position's logits [1, VOCAB];
  a 2-layer transformer with learned positions whose KV cache is a pair of mutable buffers per layer (``index_put``
  at the positions), so prefill and decode calls share it;

and the metadata methods ``get_max_seq_len``, ``get_max_context_len``, ``get_vocab_size``, ``get_bos_id``,
``get_eos_ids``, ``use_kv_cache``, ``enable_dynamic_shape``. Linear layers and the convolution are lowered to
XNNPACK. The tokenizer is the LLM fixtures' SentencePiece model (``tests/fixtures/llm/tokenizer.model``).

Reference: the eager modules run what ``MultimodalRunner::generate`` runs for ``INPUTS`` (text with BOS, the
image, text), then greedy decode steps; the manifest holds the greedy tokens, and the script checks that upstream's
runtime (``executorch.runtime``) gives the same tokens from the exported program.

Run it with the export virtualenv (torch 2.13.0+cpu, executorch 1.5.1, sentencepiece)::

    ../exportenv/bin/python scripts/export_multimodal_fixture.py [--out DIR]
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

ROOT = Path(__file__).resolve().parent.parent
SEED = 20261206
DIM, HEADS, LAYERS, VOCAB = 64, 4, 2, 192
IMAGE, PATCH = 32, 8
MAX_SEQ_LEN, MAX_CONTEXT_LEN = 48, 96
BOS, EOS = 1, 2
# What the test generates from: text (with BOS), the image, text; then greedy decode steps.
INPUTS: list[str | None] = ["the little robot saw", None, "and walked to the river"]
MAX_NEW_TOKENS = 10
METADATA = {
    "get_max_seq_len": MAX_SEQ_LEN,
    "get_max_context_len": MAX_CONTEXT_LEN,
    "get_vocab_size": VOCAB,
    "get_bos_id": BOS,
    "get_eos_ids": [EOS],
    "use_kv_cache": True,
    "enable_dynamic_shape": True,
}


class VisionEncoder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.patch = nn.Conv2d(3, DIM, PATCH, stride=PATCH)
        self.proj = nn.Sequential(nn.Linear(DIM, 2 * DIM), nn.GELU(), nn.Linear(2 * DIM, DIM))

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        x = (image.to(torch.float32) / 255.0 - 0.5) / 0.25
        x = self.patch(x).flatten(2).transpose(1, 2)
        return self.proj(x)


class TokenEmbedding(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(VOCAB, DIM)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        return self.embed(tokens)


class Layer(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.norm1, self.norm2 = nn.LayerNorm(DIM), nn.LayerNorm(DIM)
        self.qkv, self.out = nn.Linear(DIM, 3 * DIM), nn.Linear(DIM, DIM)
        self.ffn = nn.Sequential(nn.Linear(DIM, 2 * DIM), nn.GELU(), nn.Linear(2 * DIM, DIM))
        head = DIM // HEADS
        self.register_buffer("k_cache", torch.zeros(1, HEADS, MAX_CONTEXT_LEN, head), persistent=False)
        self.register_buffer("v_cache", torch.zeros(1, HEADS, MAX_CONTEXT_LEN, head), persistent=False)

    def forward(self, x: torch.Tensor, positions: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        seq = x.shape[1]
        q, k, v = self.qkv(self.norm1(x)).view(1, seq, 3, HEADS, DIM // HEADS).permute(2, 0, 3, 1, 4).contiguous()
        self.k_cache.index_copy_(2, positions, k)
        self.v_cache.index_copy_(2, positions, v)
        scores = (q @ self.k_cache.transpose(-1, -2)) / (DIM // HEADS) ** 0.5
        att = torch.softmax(scores.masked_fill(~mask, float("-inf")), dim=-1) @ self.v_cache
        x = x + self.out(att.transpose(1, 2).reshape(1, seq, DIM))
        return x + self.ffn(self.norm2(x))


class TextDecoder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.pos = nn.Embedding(MAX_CONTEXT_LEN, DIM)
        self.layers = nn.ModuleList(Layer() for _ in range(LAYERS))
        self.norm = nn.LayerNorm(DIM)
        self.head = nn.Linear(DIM, VOCAB)

    def forward(self, embeddings: torch.Tensor, input_pos: torch.Tensor) -> torch.Tensor:
        positions = input_pos + torch.arange(embeddings.shape[1])
        mask = torch.arange(MAX_CONTEXT_LEN).unsqueeze(0) <= positions.unsqueeze(1)
        x = embeddings + self.pos(positions)
        for layer in self.layers:
            x = layer(x, positions, mask)
        return self.head(self.norm(x[:, -1, :]))


def make_image() -> np.ndarray:
    """A deterministic uint8 test picture [1, 3, 32, 32]: gradients and a square."""
    y, x = np.mgrid[0:IMAGE, 0:IMAGE]
    img = np.stack([x * 8, y * 8, (x + y) * 4]).astype(np.uint8)
    img[:, 8:20, 10:22] = [[[200]], [[30]], [[90]]]
    return img[None]


def image_tensor(image: np.ndarray) -> torch.Tensor:
    """The image as a tensor with ordinary strides (numpy gives its batch dimension stride 0, which ExecuTorch's
    export refuses)."""
    return torch.empty(image.shape, dtype=torch.uint8).copy_(torch.from_numpy(image))


def generate(step: Any, segments: list[Any], steps: int) -> list[int]:
    """MultimodalRunner::generate's calls: each segment prefilled in turn (``step(kind, value, pos)`` returns the
    logits and the segment's length), then greedy decode steps of one token until EOS or ``steps`` tokens."""
    pos, logits = 0, None
    for kind, value in segments:
        logits, n = step(kind, value, pos)
        pos += n
    tokens = [int(np.argmax(logits))]
    while len(tokens) < steps and tokens[-1] != EOS:
        logits, _ = step("tokens", [tokens[-1]], pos)
        pos += 1
        tokens.append(int(np.argmax(logits)))
    return tokens


def main() -> None:
    import sentencepiece as spm
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import EdgeCompileConfig, to_edge_transform_and_lower
    from torch.export import Dim, export

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "tests" / "fixtures" / "multimodal")
    args = ap.parse_args()
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)

    torch.manual_seed(SEED)
    vision, embed, decoder = VisionEncoder().eval(), TokenEmbedding().eval(), TextDecoder().eval()
    sp = spm.SentencePieceProcessor(model_file=str(ROOT / "tests" / "fixtures" / "llm" / "tokenizer.model"))
    assert sp.get_piece_size() == VOCAB and (sp.bos_id(), sp.eos_id()) == (BOS, EOS)
    image = make_image()
    segments: list[Any] = []
    for i, text in enumerate(INPUTS):
        if text is None:
            segments.append(("image", image))
        else:
            segments.append(("tokens", ([BOS] if i == 0 else []) + sp.encode(text)))

    seq = Dim("seq", min=1, max=MAX_SEQ_LEN)
    with torch.no_grad():
        programs = {
            "vision_encoder": export(vision, (image_tensor(image),), strict=False),
            "token_embedding": export(
                embed, (torch.zeros(1, 4, dtype=torch.long),), dynamic_shapes=({1: seq},), strict=False
            ),
            "text_decoder": export(
                decoder,
                (torch.zeros(1, 4, DIM), torch.tensor([0])),
                dynamic_shapes=({1: seq}, None),
                strict=False,
            ),
        }
    edge = to_edge_transform_and_lower(
        programs,
        partitioner=[XnnpackPartitioner()],
        constant_methods=METADATA,
        compile_config=EdgeCompileConfig(_check_ir_validity=False),
    )
    pte = out / "model.pte"
    pte.write_bytes(edge.to_executorch().buffer)

    def eager_step(kind: str, value: Any, pos: int) -> tuple[np.ndarray, int]:
        with torch.no_grad():
            if kind == "image":
                emb = vision(image_tensor(value))
            else:
                emb = embed(torch.tensor([value]))
            return decoder(emb, torch.tensor([pos])).numpy()[0], emb.shape[1]

    for layer in decoder.layers:
        layer.k_cache.zero_()
        layer.v_cache.zero_()
    expected = generate(eager_step, segments, MAX_NEW_TOKENS)
    for layer in decoder.layers:
        layer.k_cache.zero_()
        layer.v_cache.zero_()
    first_logits, first_len = eager_step(*segments[0], 0)  # the first input alone: what a prefiller call returns

    from executorch.runtime import Runtime

    program = Runtime.get().load_program(pte)
    methods = {name: program.load_method(name) for name in ("vision_encoder", "token_embedding", "text_decoder")}

    def runtime_step(kind: str, value: Any, pos: int) -> tuple[np.ndarray, int]:
        if kind == "image":
            emb = methods["vision_encoder"].execute([image_tensor(value)])[0]
        else:
            emb = methods["token_embedding"].execute([torch.tensor([value])])[0]
        logits = methods["text_decoder"].execute([emb, torch.tensor([pos])])[0]
        return logits.numpy()[0], emb.shape[1]

    upstream = generate(runtime_step, segments, MAX_NEW_TOKENS)
    assert upstream == expected, (upstream, expected)

    np.save(out / "image.npy", image)
    manifest = {
        "generator": "scripts/export_multimodal_fixture.py",
        "torch": importlib.metadata.version("torch"),
        "executorch": importlib.metadata.version("executorch"),
        "program": "model.pte",
        "tokenizer": "../llm/tokenizer.model",
        "image": "image.npy",
        "metadata": METADATA,
        "inputs": [{"image": "image.npy"} if t is None else {"text": t} for t in INPUTS],
        "num_bos": 1,
        "max_new_tokens": MAX_NEW_TOKENS,
        "first_input": {"positions": first_len, "next_token": int(np.argmax(first_logits))},
        "prompt_tokens": sum(len(v) if k == "tokens" else (IMAGE // PATCH) ** 2 for k, v in segments),
        "greedy_tokens": expected,
        "greedy_text": sp.decode(expected),
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    print(f"{pte.stat().st_size} bytes; greedy {expected} {sp.decode(expected)!r}")


if __name__ == "__main__":
    main()
