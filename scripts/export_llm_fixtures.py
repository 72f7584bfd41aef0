#!/usr/bin/env python3
"""Export the LLM `.pte` test fixtures (``tests/fixtures/llm``) with upstream ExecuTorch's ``export_llama``.

One tiny Llama (random seeded weights, grouped-query attention, SwiGLU, RoPE, RMSNorm) and one SentencePiece
tokenizer trained here on the short text in ``CORPUS``, exported four ways, as upstream's LLM guide does:

* ``kv_portable.pte``: ``export_llama -kv`` (KV cache as mutable buffers updated by ``index_put`` / ``copy_``,
  attention as ATen ops, no delegate);
* ``kv_sdpa_xnnpack.pte``: ``-kv --use_sdpa_with_kv_cache -X`` (``llama::update_cache`` / ``llama::custom_sdpa``
  kernels, linear layers in XNNPACK);
* ``kv_8da4w.pte``: the same with ``-qmode 8da4w -G 32`` (int8 dynamic activations x int4 grouped weights);
* ``kv_int8_cache.pte``: ``-kv --use_sdpa_with_kv_cache --quantize_kv_cache -X`` (int8 KV cache with per-token
  scales, ``llama::custom_quantized_sdpa``).

Upstream's ``export_llama`` without ``-c`` builds the model with ``to_empty()`` (its buffers are left
uninitialised), so the script saves a seeded random checkpoint of the same parameters and passes it.

References: each program is run by upstream's runtime (``executorch.runtime`` with ``executorch.kernels.quantized``
and ``executorch.extension.llm.custom_ops`` loaded): one prefill call with the prompt's tokens, then greedy decode
steps of one token each. ``<variant>.logits.npy`` holds the logits of every call ([1 + steps, vocab], float32) and
the manifest the prompt, its tokens and the greedy tokens.

Run it with the export virtualenv (torch 2.13.0+cpu, executorch 1.5.1, sentencepiece)::

    ../exportenv/bin/python scripts/export_llm_fixtures.py [--out DIR]
"""

from __future__ import annotations

import argparse
import importlib.metadata
import io
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import torch

ROOT = Path(__file__).resolve().parent.parent
SEED = 20261202

# Small enough to keep the fixtures under 400 kB a program, large enough to have every part of a real Llama:
# 2 layers, 4 query heads sharing 2 KV heads, head dim 16, SwiGLU hidden 128.
PARAMS = {
    "dim": 64,
    "n_layers": 2,
    "n_heads": 4,
    "n_kv_heads": 2,
    "vocab_size": 192,
    "hidden_dim": 128,
    "multiple_of": 32,
    "norm_eps": 1e-5,
    "rope_theta": 10000.0,
}
MAX_SEQ_LEN = 48
PROMPT = "the little robot walked to the river"
DECODE_STEPS = 8

VARIANTS = {
    "kv_portable": ["-kv"],
    "kv_sdpa_xnnpack": ["-kv", "--use_sdpa_with_kv_cache", "-X"],
    "kv_8da4w": ["-kv", "--use_sdpa_with_kv_cache", "-X", "-qmode", "8da4w", "-G", "32"],
    "kv_int8_cache": ["-kv", "--use_sdpa_with_kv_cache", "--quantize_kv_cache", "-X"],
}

# The tokenizer's training text (written for these fixtures).
CORPUS = """\
the little robot walked to the river and looked at the water.
the water was cold and clear, and the robot saw small fish in it.
a girl sat on a stone by the river and sang a song about the morning.
the robot listened to the song and wanted to learn the words.
she taught it the first line, then the second, and the robot sang along.
in the evening the sun went down behind the hills and the sky turned red.
the robot walked home along the old road, singing the song to the trees.
the next day it came back to the river with a basket of apples.
the girl laughed and said that robots do not need to eat apples.
the robot said that the apples were a gift, not a meal.
they sat together and watched the boats go by on the river.
one boat carried a family of ducks, and another carried a man with a red hat.
the man waved at them and shouted that the weather would change soon.
clouds came over the hills, and the first drops of rain fell on the water.
the robot opened a large umbrella and held it over the girl.
they waited under the umbrella until the rain stopped and the sun came out.
a rainbow rose over the river, bright and wide, from one hill to the other.
the girl said it was the most beautiful thing she had ever seen.
the robot counted the colours of the rainbow: red, orange, yellow, green, blue and violet.
then it wrote the numbers one, two, three, four, five and six in the sand.
every morning after that, the robot and the girl met by the river.
they read books, built small houses of sticks, and learned songs from the birds.
when winter came, the river froze and they walked on the ice together.
the robot was careful, because it was heavy and the ice was thin near the bank.
in spring the ice melted, the flowers opened, and the fish came back.
years later the girl became a teacher, and the robot helped in her school.
the children loved the robot, and it taught them the song from the river.
"""


def train_tokenizer(out: Path) -> Any:
    import sentencepiece as spm

    model = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(CORPUS.splitlines()),
        model_writer=model,
        vocab_size=PARAMS["vocab_size"],
        model_type="bpe",
        character_coverage=1.0,
        unk_id=0,
        bos_id=1,
        eos_id=2,
        pad_id=-1,
        num_threads=1,
        seed_sentencepiece_size=100000,
        normalization_rule_name="identity",  # no NFKC table in the model (it would be 240 kB)
        minloglevel=2,
    )
    (out / "tokenizer.model").write_bytes(model.getvalue())
    return spm.SentencePieceProcessor(model_proto=model.getvalue())


def write_checkpoint(path: Path, params: dict[str, Any] = PARAMS, max_seq_len: int = MAX_SEQ_LEN) -> None:
    """A seeded random checkpoint for upstream's Llama with these params (export_llama -c)."""
    from executorch.examples.models.llama.llama_transformer import construct_transformer
    from executorch.examples.models.llama.model_args import ModelArgs

    torch.manual_seed(SEED)
    args = ModelArgs(**params, max_seq_len=max_seq_len, max_context_len=max_seq_len)
    model = construct_transformer(args)
    state = {}
    with torch.no_grad():  # in place, so that a 1B-parameter model is held once
        for name, p in model.named_parameters():
            if name.endswith("norm.weight"):
                state[name] = p.detach().normal_().mul_(0.2).add_(1.0)  # RMSNorm gains: random, around one
            else:
                state[name] = p.detach().normal_().mul_(1.0 / p.shape[-1] ** 0.5)
    torch.save(state, path)


def export_llama_args(
    flags: list[str],
    params: Path,
    ckpt: Path,
    output_dir: Path,
    output_name: str,
    max_seq_len: int = MAX_SEQ_LEN,
    max_context_len: int | None = None,
) -> list[str]:
    """export_llama's arguments for a Llama (its params, checkpoint, lengths, BOS/EOS) plus `flags`.

    `max_seq_len` bounds a prefill call, `max_context_len` (default: the same) the KV cache."""
    meta = json.dumps({"get_bos_id": 1, "get_eos_ids": [2]})
    return [
        "--model",
        "llama2",
        "-p",
        str(params),
        "-c",
        str(ckpt),
        "--max_seq_length",
        str(max_seq_len),
        "--max_context_length",
        str(max_context_len or max_seq_len),
        "--metadata",
        meta,
        "--output-dir",
        str(output_dir),
        "--output_name",
        output_name,
        *flags,
    ]


def export(
    variant: str,
    flags: list[str],
    params: Path,
    ckpt: Path,
    tmp: Path,
    max_seq_len: int = MAX_SEQ_LEN,
    max_context_len: int | None = None,
) -> Path:
    """Runs upstream's export_llama with these flags; returns tmp/<variant>.pte."""
    args = export_llama_args(flags, params, ckpt, tmp, f"{variant}.pte", max_seq_len, max_context_len)
    cmd = [sys.executable, "-m", "executorch.examples.models.llama.export_llama", *args]
    subprocess.run(cmd, check=True, cwd=tmp, stdout=subprocess.DEVNULL)
    return tmp / f"{variant}.pte"


def reference(pte: Path, prompt_ids: list[int]) -> tuple[np.ndarray, list[int]]:
    """Upstream's runtime on the program, in a process of its own (without torch.export's state)."""
    out = pte.with_suffix(".npy")
    subprocess.run([sys.executable, __file__, "--reference", str(pte), *map(str, prompt_ids)], check=True)
    logits = np.load(out)
    return logits, [int(np.argmax(row)) for row in logits]


def run_reference(pte: Path, prompt_ids: list[int]) -> None:
    # Importing these registers upstream's llama:: and quantized_decomposed kernels into its runtime.
    import executorch.extension.llm.custom_ops.custom_ops
    import executorch.kernels.quantized  # noqa: F401

    from executorch.runtime import Runtime

    program = Runtime.get().load_program(pte.read_bytes())  # kept alive: upstream's Method does not hold it
    method = program.load_method("forward")
    logits = []
    tokens = torch.tensor([prompt_ids], dtype=torch.long)
    pos = 0
    for _ in range(1 + DECODE_STEPS):
        out = method.execute([tokens, torch.tensor([pos], dtype=torch.long)])[0]
        row = out.reshape(-1, out.shape[-1])[-1].to(torch.float32).numpy()
        logits.append(row)
        pos += tokens.shape[1]
        tokens = torch.tensor([[int(np.argmax(row))]], dtype=torch.long)
    np.save(pte.with_suffix(".npy"), np.stack(logits).astype(np.float32))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "tests" / "fixtures" / "llm")
    ap.add_argument("--only", action="append", choices=sorted(VARIANTS), help="export only these variants")
    ap.add_argument("--reference", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("tokens", nargs="*", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.reference:
        run_reference(args.reference, args.tokens)
        return
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)

    sp = train_tokenizer(out)
    prompt_ids = [sp.bos_id(), *sp.encode(PROMPT)]
    manifest: dict = {
        "generator": "scripts/export_llm_fixtures.py",
        "torch": importlib.metadata.version("torch"),
        "executorch": importlib.metadata.version("executorch"),
        "params": PARAMS,
        "max_seq_len": MAX_SEQ_LEN,
        "tokenizer": "tokenizer.model",
        "bos_id": sp.bos_id(),
        "eos_id": sp.eos_id(),
        "prompt": PROMPT,
        "prompt_tokens": prompt_ids,
        "decode_steps": DECODE_STEPS,
        "variants": {},
    }
    old = out / "manifest.json"
    if args.only and old.is_file():  # --only: keep the other variants' entries
        manifest["variants"] = {
            v: e for v, e in json.loads(old.read_text())["variants"].items() if v in VARIANTS and v not in args.only
        }
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        params = tmp / "params.json"
        params.write_text(json.dumps(PARAMS))
        ckpt = tmp / "checkpoint.pth"
        write_checkpoint(ckpt)
        for variant, flags in VARIANTS.items():
            if args.only and variant not in args.only:
                continue
            pte = export(variant, flags, params, ckpt, tmp)
            (out / f"{variant}.pte").write_bytes(pte.read_bytes())
            logits, generated = reference(pte, prompt_ids)
            np.save(out / f"{variant}.logits.npy", logits)
            manifest["variants"][variant] = {
                "export_llama_flags": flags,
                "program": f"{variant}.pte",
                "logits": f"{variant}.logits.npy",
                "greedy_tokens": generated,
                "greedy_text": sp.decode(generated),
            }
            print(f"{variant}: {pte.stat().st_size} bytes, greedy {generated!r}")
    manifest["variants"] = {v: manifest["variants"][v] for v in VARIANTS if v in manifest["variants"]}
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")


if __name__ == "__main__":
    main()
