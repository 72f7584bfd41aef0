#!/usr/bin/env python3
"""Benchmark LLM programs: prefill and decode tokens/s, this runtime against upstream ExecuTorch (not a test).

Both runtimes step the same `.pte` from Python through their ``executorch.runtime`` API, in the same run:

* **ours**: the ``executorch`` wheel from ``dist/wheels``, installed into a temporary venv (numpy inputs);
* **upstream**: this interpreter's upstream ``executorch`` (torch inputs), with its ``llama::`` and quantized
  kernels loaded.

For each program: one prefill call of ``--prompt`` tokens at position 0 (prefill tokens/s), then ``--decode`` calls
of one token each (decode tokens/s); the median over ``--repeat`` rounds (each starts again at position 0). The
programs are the committed fixtures (``tests/fixtures/llm``, tiny: mostly per-call overhead) and, with
``--large``, a larger random-weight Llama exported here into a temporary directory (never committed) with the same
three recipes: dim 512, 8 layers, 8 heads / 4 KV heads, vocab 32000, context 256.

``--load busy`` repeats every measurement with a niced single-thread busy loop beside it.

``--llama-1b`` times, instead, a Llama-3.2-1B-shaped model (``ONE_B``: dim 2048, 16 layers, 32 / 8 heads, FFN 8192,
vocab 128256, context 2048; seeded random weights, never committed) against upstream and llama.cpp, 2 threads:
upstream's ``export_llama`` writes it as fp32 XNNPACK, int8 (``--pt2e_quantize xnnpack_dynamic``: int8 per-channel
weights, int8 dynamic activations) and ``8da4w`` (group 32) programs; the same checkpoint becomes a float32 GGUF
(Meta's layout is GGUF's: nothing permuted) that llama.cpp's own quantizer turns into ``Q8_0`` and ``Q4_0`` (every
matrix, the output layer too). llama.cpp runs through ``llama-cpp-python``'s C API (built from source by pip,
``-march=native``) with the same token ids: one prefill call of 128 tokens, then ``--decode`` single-token calls.
Per row: prefill and decode tokens/s, each process's peak RSS, and the memory roofline: the bandwidth a streaming
read measures in the same run (2 threads) over the bytes a decode step reads (the GGUF's matrices at that precision,
one embedding row, the KV cache at f16). The first greedy token of each runtime is printed as a check that the
weights are the same. The exports take about 20 minutes and are kept in ``--llama-1b-dir``.

Run it with the export virtualenv after building the SDK::

    bash scripts/build_sdk.sh
    ../exportenv/bin/python scripts/benchmark_llm.py [--large] [--load idle --load busy] [--repeat N]
    ../exportenv/bin/pip install llama-cpp-python gguf
    ../exportenv/bin/python scripts/benchmark_llm.py --llama-1b --llama-1b-dir ../llama1b --decode 128 \\
        --load idle --load busy --repeat 3
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
LLM = REPO_ROOT / "tests" / "fixtures" / "llm"
sys.path.insert(0, str(REPO_ROOT / "scripts"))

LARGE = {
    "dim": 512,
    "n_layers": 8,
    "n_heads": 8,
    "n_kv_heads": 4,
    "vocab_size": 32000,
    "multiple_of": 256,
    "norm_eps": 1e-5,
    "rope_theta": 10000.0,
}
LARGE_SEQ = 256
# Targets from the issue "LLM programs": ours/upstream time (lower is better), i.e. tokens/s at least upstream's.
TARGET = {"decode": 1.0, "prefill": 1.0}
BUSY_LOOP = "import os\nos.nice(10)\nwhile True: pass\n"

# Runs in either interpreter: argv = pte, "numpy" | "torch", prompt tokens, decode steps, rounds. Prints JSON.
STEP = r"""
import json, statistics, sys, time
pte, kind, prompt, steps, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
if kind == "torch":
    import torch
    import executorch.extension.llm.custom_ops.custom_ops  # noqa: F401
    import executorch.kernels.quantized  # noqa: F401
    def arr(v):
        return torch.tensor(v, dtype=torch.long)
else:
    import numpy as np
    def arr(v):
        return np.asarray(v, dtype=np.int64)
from executorch.runtime import Runtime
program = Runtime.get().load_program(pte)
method = program.load_method("forward")
vocab = 100
tokens = [[(7 * i + 3) % vocab for i in range(prompt)]]
prefill, decode = [], []
for _ in range(rounds):
    t0 = time.perf_counter()
    out = method.execute([arr(tokens), arr([0])])
    t1 = time.perf_counter()
    first = int(out[0].reshape(-1, out[0].shape[-1])[-1].argmax())
    for k in range(steps):
        method.execute([arr([[5 + k]]), arr([prompt + k])])
    t2 = time.perf_counter()
    prefill.append(t1 - t0)
    decode.append((t2 - t1) / steps)
hwm = [ln.split()[1] for ln in open("/proc/self/status") if ln.startswith("VmHWM:")][0]
print(json.dumps({"prefill_s": statistics.median(prefill), "decode_s": statistics.median(decode),
                  "peak_rss_mb": int(hwm) / 1024, "first_token": first}))
"""


# --llama-1b: a Llama-3.2-1B-shaped model (seeded random weights; RoPE unscaled, so the GGUF needs no rope_freqs).
ONE_B = {
    "dim": 2048,
    "n_layers": 16,
    "n_heads": 32,
    "n_kv_heads": 8,
    "vocab_size": 128256,
    "ffn_dim_multiplier": 1.5,
    "multiple_of": 256,
    "norm_eps": 1e-5,
    "rope_theta": 500000.0,
}
ONE_B_CONTEXT = 2048
ONE_B_SEQ = 256  # export_llama's max_seq_length: one prefill call takes up to 255 tokens
ONE_B_PROMPT = 128
_XNN = ["-kv", "--use_sdpa_with_kv_cache", "-X"]
# precision: (export_llama flags, llama.cpp's GGUF type of the same weights)
ONE_B_VARIANTS = {
    "fp32": (_XNN, "F32"),
    "int8": ([*_XNN, "--pt2e_quantize", "xnnpack_dynamic"], "Q8_0"),
    "8da4w": ([*_XNN, "-qmode", "8da4w", "-G", "32"], "Q4_0"),
}
# Targets of the issue "LLM SDK" (ratios of tokens/s; lower bounds).
ONE_B_TARGET = {"decode_vs_llamacpp": 1.0, "decode_roofline": 0.8, "prefill_vs_llamacpp": 1.25, "vs_upstream": 1.0}

# llama.cpp through llama-cpp-python's C API (no high-level wrapper: its score buffers would inflate the RSS).
# argv = gguf, prompt tokens, decode steps, rounds, threads. Prints JSON like STEP.
LLAMA_CPP_STEP = r"""
import json, statistics, sys, time
import llama_cpp as L
path = sys.argv[1]
prompt, steps, rounds, threads = (int(a) for a in sys.argv[2:6])
L.llama_backend_init()
model = L.llama_model_load_from_file(path.encode(), L.llama_model_default_params())
cp = L.llama_context_default_params()
cp.n_ctx, cp.n_batch, cp.n_ubatch = 2048, prompt, prompt
cp.n_threads, cp.n_threads_batch = threads, threads
ctx = L.llama_init_from_model(model, cp)
vocab = L.llama_model_get_vocab(model)
n_vocab = L.llama_vocab_n_tokens(vocab)
batch = L.llama_batch_init(prompt, 0, 1)
def decode(tokens, pos0):
    batch.n_tokens = len(tokens)
    for i, t in enumerate(tokens):
        batch.token[i], batch.pos[i], batch.n_seq_id[i] = t, pos0 + i, 1
        batch.seq_id[i][0] = 0
        batch.logits[i] = i == len(tokens) - 1
    if L.llama_decode(ctx, batch) != 0:
        raise SystemExit("llama_decode failed")
    logits = L.llama_get_logits_ith(ctx, -1)
    return max(range(n_vocab), key=lambda j: logits[j]) if pos0 == 0 else None
tokens = [(7 * i + 3) % 100 for i in range(prompt)]
prefill, decode_s = [], []
for _ in range(rounds):
    L.llama_memory_clear(L.llama_get_memory(ctx), True)
    t0 = time.perf_counter()
    first = decode(tokens, 0)
    t1 = time.perf_counter()
    for k in range(steps):
        decode([5 + k], prompt + k)
    t2 = time.perf_counter()
    prefill.append(t1 - t0)
    decode_s.append((t2 - t1) / steps)
hwm = [ln.split()[1] for ln in open("/proc/self/status") if ln.startswith("VmHWM:")][0]
print(json.dumps({"prefill_s": statistics.median(prefill), "decode_s": statistics.median(decode_s),
                  "peak_rss_mb": int(hwm) / 1024, "first_token": first}))
"""

# A streaming read of 1 GiB with `threads` threads (best of 7): the bandwidth of the memory roofline.
STREAM_C = r"""
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
int main(void) {
  size_t n = (size_t)1 << 27;
  uint64_t *a = malloc(n * sizeof *a);
  for (size_t i = 0; i < n; ++i) a[i] = i;
  double best = 1e9;
  uint64_t sink = 0;
  for (int r = 0; r < 7; ++r) {
    double t0 = omp_get_wtime();
    uint64_t s = 0;
#pragma omp parallel for reduction(+ : s) schedule(static)
    for (size_t i = 0; i < n; ++i) s += a[i];
    double t = omp_get_wtime() - t0;
    sink += s;
    if (t < best) best = t;
  }
  printf("%.3f %llu\n", (double)(n * sizeof *a) / best / 1e9, (unsigned long long)(sink & 1));
  return 0;
}
"""


def wheel_venv(work: Path, wheel: Path) -> Path:
    venv = work / "ours-venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", str(wheel)], check=True)
    return venv / "bin" / "python"


def export_large(work: Path) -> dict[str, Path]:
    """The larger config's three programs in `work` (kept when already there)."""
    import export_llm_fixtures as ex

    work.mkdir(parents=True, exist_ok=True)
    existing = {f"large-{v}": work / f"{v}.pte" for v in ex.VARIANTS}
    if all(p.is_file() for p in existing.values()):
        return existing
    params = work / "params.json"
    params.write_text(json.dumps(LARGE))
    ckpt = work / "large.pth"
    ex.write_checkpoint(ckpt, LARGE, LARGE_SEQ)
    out = {}
    for variant, flags in ex.VARIANTS.items():
        out[f"large-{variant}"] = ex.export(variant, flags, params, ckpt, work, LARGE_SEQ)
        print(f"exported large {variant}: {out[f'large-{variant}'].stat().st_size / 1e6:.0f} MB", file=sys.stderr)
    ckpt.unlink()
    return out


def measure(python: str, pte: Path, kind: str, prompt: int, steps: int, rounds: int, script: Path) -> dict[str, float]:
    env = dict(os.environ, EXECUTORCH_LOG_LEVEL="fatal")
    cmd = [python, str(script), str(pte), kind, str(prompt), str(steps), str(rounds)]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def export_one_b(work: Path) -> dict[str, dict[str, Path]]:
    """The 1B model's programs (upstream's export_llama) and GGUF files (llama.cpp's quantizer) in `work`.

    Everything is kept in `work` and reused when present: the exports take about 20 minutes on 2 cores."""
    import export_llm_fixtures as ex

    work.mkdir(parents=True, exist_ok=True)
    out = {v: {"pte": work / f"{v}.pte", "gguf": work / f"{v}.gguf"} for v in ONE_B_VARIANTS}
    if all(f.is_file() for files in out.values() for f in files.values()):
        return out
    params, ckpt = work / "params.json", work / "llama1b.pth"
    params.write_text(json.dumps(ONE_B))
    if not ckpt.is_file():
        ex.write_checkpoint(ckpt, ONE_B, ONE_B_SEQ)
    f32 = out["fp32"]["gguf"]
    if not f32.is_file():
        write_gguf(ckpt, f32)
    for variant, (flags, gguf_type) in ONE_B_VARIANTS.items():
        if not out[variant]["pte"].is_file():
            ex.export(variant, flags, params, ckpt, work, ONE_B_SEQ, ONE_B_CONTEXT)
        if not out[variant]["gguf"].is_file():
            quantize_gguf(f32, out[variant]["gguf"], gguf_type)
        print(
            f"1B {variant}: {out[variant]['pte'].stat().st_size / 1e6:.0f} MB .pte, "
            f"{out[variant]['gguf'].stat().st_size / 1e6:.0f} MB .gguf",
            file=sys.stderr,
        )
    return out


def write_gguf(ckpt: Path, path: Path) -> None:
    """The checkpoint's weights, unchanged, as a float32 GGUF of llama.cpp's `llama` architecture.

    Upstream's Llama keeps Meta's layout (RoPE on adjacent pairs), which is GGUF's, so no tensor is permuted. The
    vocabulary is a placeholder of the right size (the benchmark feeds token ids)."""
    import gguf
    import torch

    state = torch.load(ckpt, mmap=True, weights_only=True)
    c = ONE_B
    w = gguf.GGUFWriter(str(path), "llama")
    w.add_context_length(ONE_B_CONTEXT)
    w.add_embedding_length(c["dim"])
    w.add_block_count(c["n_layers"])
    w.add_feed_forward_length(state["layers.0.feed_forward.w1.weight"].shape[0])
    w.add_head_count(c["n_heads"])
    w.add_head_count_kv(c["n_kv_heads"])
    w.add_rope_dimension_count(c["dim"] // c["n_heads"])
    w.add_rope_freq_base(c["rope_theta"])
    w.add_layer_norm_rms_eps(c["norm_eps"])
    w.add_file_type(gguf.LlamaFileType.ALL_F32)
    w.add_vocab_size(c["vocab_size"])
    t = gguf.TokenType
    pieces = [b"<unk>", b"<s>", b"</s>", *(f"<0x{i:02X}>".encode() for i in range(256))]
    kinds = [t.UNKNOWN, t.CONTROL, t.CONTROL, *([t.BYTE] * 256)]
    pieces += [f"\u2581t{i}".encode() for i in range(c["vocab_size"] - len(pieces))]
    kinds += [t.NORMAL] * (c["vocab_size"] - len(kinds))
    w.add_tokenizer_model("llama")
    w.add_token_list(pieces)
    w.add_token_scores([0.0] * len(pieces))
    w.add_token_types(kinds)
    w.add_bos_token_id(1)
    w.add_eos_token_id(2)
    names = {"tok_embeddings": "token_embd", "norm": "output_norm", "output": "output"}
    block = {
        "attention.wq": "attn_q",
        "attention.wk": "attn_k",
        "attention.wv": "attn_v",
        "attention.wo": "attn_output",
        "feed_forward.w1": "ffn_gate",
        "feed_forward.w2": "ffn_down",
        "feed_forward.w3": "ffn_up",
        "attention_norm": "attn_norm",
        "ffn_norm": "ffn_norm",
    }
    for name, tensor in state.items():
        stem = name.removesuffix(".weight")
        if stem.startswith("layers."):
            _, layer, rest = stem.split(".", 2)
            gname = f"blk.{layer}.{block[rest]}"
        else:
            gname = names[stem]
        w.add_tensor(f"{gname}.weight", tensor.float().numpy())
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def quantize_gguf(f32: Path, out: Path, gguf_type: str) -> None:
    """llama.cpp's own quantizer (`llama_model_quantize`), every matrix in `gguf_type` (the output layer too)."""
    if gguf_type == "F32":
        if out != f32:
            out.write_bytes(f32.read_bytes())
        return
    code = f"""
import llama_cpp as L
p = L.llama_model_quantize_default_params()
p.nthread = {os.cpu_count() or 1}
p.ftype = L.LLAMA_FTYPE_MOSTLY_{gguf_type}
p.output_tensor_type = L.GGML_TYPE_{gguf_type}
p.token_embedding_type = L.GGML_TYPE_{gguf_type}
raise SystemExit(L.llama_model_quantize({str(f32)!r}.encode(), {str(out)!r}.encode(), p))
"""
    subprocess.run([sys.executable, "-c", code], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def stream_bandwidth(work: Path, threads: int) -> float:
    """GB/s of a streaming read (STREAM_C, compiled here with -O3 -march=native -fopenmp)."""
    src, exe = work / "stream.c", work / "stream"
    src.write_text(STREAM_C)
    subprocess.run(["cc", "-O3", "-march=native", "-fopenmp", str(src), "-o", str(exe)], check=True)
    proc = subprocess.run(
        [str(exe)], env=dict(os.environ, OMP_NUM_THREADS=str(threads)), capture_output=True, text=True, check=True
    )
    return float(proc.stdout.split()[0])


def bytes_per_token(gguf_path: Path, position: int) -> float:
    """Bytes a decode step reads: every weight matrix but the embedding table (one row of it), the norms, and the
    KV cache up to `position` (f16, llama.cpp's default; taken the same for every runtime)."""
    import gguf

    reader = gguf.GGUFReader(str(gguf_path))
    total = 0
    for t in reader.tensors:
        n = int(t.n_bytes)
        total += n // ONE_B["vocab_size"] if t.name == "token_embd.weight" else n
    c = ONE_B
    kv = c["n_layers"] * 2 * position * c["n_kv_heads"] * (c["dim"] // c["n_heads"]) * 2
    return float(total + kv)


def run_one_b(args: argparse.Namespace, ours: str, script: Path, work: Path) -> list[dict[str, Any]]:
    files = export_one_b(args.llama_1b_dir or work / "llama1b")
    threads = 2
    cpp_script = work / "llama_cpp_step.py"
    cpp_script.write_text(LLAMA_CPP_STEP)
    env = dict(os.environ, EXECUTORCH_LOG_LEVEL="fatal", OMP_NUM_THREADS=str(threads))
    steps = args.decode
    results = []
    for load in args.load or ["idle"]:
        busy = subprocess.Popen([sys.executable, "-c", BUSY_LOOP]) if load == "busy" else None
        try:
            bandwidth = stream_bandwidth(work, threads)
            for variant, f in files.items():
                row: dict[str, Any] = {
                    "program": f"llama1b-{variant}",
                    "load": load,
                    "prompt": ONE_B_PROMPT,
                    "steps": steps,
                    "bandwidth_gbs": bandwidth,
                }
                row["bytes_per_token"] = bytes_per_token(f["gguf"], ONE_B_PROMPT + steps // 2)
                row["ours"] = measure(ours, f["pte"], "numpy", ONE_B_PROMPT, steps, args.repeat, script)
                row["upstream"] = measure(sys.executable, f["pte"], "torch", ONE_B_PROMPT, steps, args.repeat, script)
                cmd = [
                    sys.executable,
                    str(cpp_script),
                    str(f["gguf"]),
                    str(ONE_B_PROMPT),
                    str(steps),
                    str(args.repeat),
                    str(threads),
                ]
                proc = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
                if proc.returncode != 0:
                    raise RuntimeError(f"{' '.join(cmd)} failed:\n{proc.stderr[-2000:]}")
                row["llama.cpp"] = json.loads(proc.stdout.strip().splitlines()[-1])
                results.append(row)
                print(json.dumps(row), file=sys.stderr)
        finally:
            if busy is not None:
                busy.kill()
    return results


def print_one_b(results: list[dict[str, Any]]) -> None:
    print(
        "\n| program | load | prefill tok/s ours | upstream | llama.cpp | decode tok/s ours | upstream | llama.cpp |"
        " roofline tok/s | ours % of roofline | llama.cpp % | peak RSS MiB ours | upstream | llama.cpp |"
        " first token ours / upstream / llama.cpp |"
    )
    print("|---|---|" + "---:|" * 13 + "---|")
    for r in results:
        o, u, c = r["ours"], r["upstream"], r["llama.cpp"]
        roof = r["bandwidth_gbs"] * 1e9 / r["bytes_per_token"]
        runs = (o, u, c)
        cells = [r["program"], r["load"]]
        cells += [f"{r['prompt'] / x['prefill_s']:.0f}" for x in runs]
        cells += [f"{1 / x['decode_s']:.1f}" for x in runs]
        cells += [f"{roof:.1f}", f"{100 / o['decode_s'] / roof:.0f}", f"{100 / c['decode_s'] / roof:.0f}"]
        cells += [f"{x['peak_rss_mb']:.0f}" for x in runs]
        cells.append(" / ".join(str(x["first_token"]) for x in runs))
        print("| " + " | ".join(cells) + " |")
    print()
    for r in results:
        o, u, c = r["ours"], r["upstream"], r["llama.cpp"]
        roof = r["bandwidth_gbs"] * 1e9 / r["bytes_per_token"]
        ratios = {
            "decode ours/llama.cpp": (c["decode_s"] / o["decode_s"], ONE_B_TARGET["decode_vs_llamacpp"]),
            "decode ours/roofline": (1 / o["decode_s"] / roof, ONE_B_TARGET["decode_roofline"]),
            "prefill ours/llama.cpp": (c["prefill_s"] / o["prefill_s"], ONE_B_TARGET["prefill_vs_llamacpp"]),
            "decode ours/upstream": (u["decode_s"] / o["decode_s"], ONE_B_TARGET["vs_upstream"]),
            "prefill ours/upstream": (u["prefill_s"] / o["prefill_s"], ONE_B_TARGET["vs_upstream"]),
        }
        text = ", ".join(f"{k} {v:.2f} (>= {t})" for k, (v, t) in ratios.items())
        print(f"{r['program']} {r['load']}: tokens/s {text}; bandwidth {r['bandwidth_gbs']:.1f} GB/s")


def geomean(values: Sequence[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--large", action="store_true", help="also export and time the larger config")
    ap.add_argument("--large-dir", type=Path, help="keep the larger config's programs here (reused when present)")
    ap.add_argument(
        "--llama-1b",
        action="store_true",
        help="time only the Llama-3.2-1B-shaped model: ours, upstream and llama.cpp (needs llama-cpp-python, gguf)",
    )
    ap.add_argument("--llama-1b-dir", type=Path, help="keep the 1B model's programs and GGUF files here (reused)")
    ap.add_argument("--load", action="append", choices=["idle", "busy"], help="idle (default) and/or busy")
    ap.add_argument("--repeat", type=int, default=5, help="rounds per measurement (median); default 5")
    ap.add_argument("--decode", type=int, default=32, help="decode steps per round; default 32")
    ap.add_argument("--wheel", type=Path, help="our wheel (default: the one in dist/wheels)")
    ap.add_argument("--json", type=Path, help="also write the results as JSON")
    args = ap.parse_args(argv)
    wheel = args.wheel or next(
        (REPO_ROOT / "dist" / "wheels").glob(
            f"executorch-*-cp{sys.version_info[0]}{sys.version_info[1]}-*_{platform.machine()}.whl"
        )
    )
    manifest = json.loads((LLM / "manifest.json").read_text())
    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as d:
        work = Path(d)
        script = work / "step.py"
        script.write_text(STEP)
        ours = str(wheel_venv(work, wheel))
        if args.llama_1b:
            results = run_one_b(args, ours, script, work)
            print_one_b(results)
            if args.json:
                args.json.write_text(json.dumps(results, indent=2) + "\n")
            return 0
        programs = {v: LLM / s["program"] for v, s in manifest["variants"].items()}
        prompts = {v: len(manifest["prompt_tokens"]) for v in programs}
        if args.large:
            large = export_large(args.large_dir or work / "large")
            programs.update(large)
            prompts.update({v: 128 for v in large})
        for load in args.load or ["idle"]:
            busy = subprocess.Popen([sys.executable, "-c", BUSY_LOOP]) if load == "busy" else None
            try:
                for name, pte in programs.items():
                    steps = min(args.decode, (LARGE_SEQ if name.startswith("large") else 48) - prompts[name] - 1)
                    row: dict[str, Any] = {"program": name, "load": load, "prompt": prompts[name], "steps": steps}
                    row["ours"] = measure(ours, pte, "numpy", prompts[name], steps, args.repeat, script)
                    row["upstream"] = measure(sys.executable, pte, "torch", prompts[name], steps, args.repeat, script)
                    results.append(row)
            finally:
                if busy is not None:
                    busy.kill()
    print(
        "\n| program | load | prompt | prefill tok/s ours | upstream | ours/upstream time | decode tok/s ours |"
        " upstream | ours/upstream time |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in results:
        o, u = r["ours"], r["upstream"]
        print(
            f"| {r['program']} | {r['load']} | {r['prompt']} | {r['prompt'] / o['prefill_s']:.0f} | "
            f"{r['prompt'] / u['prefill_s']:.0f} | {o['prefill_s'] / u['prefill_s']:.3f} | {1 / o['decode_s']:.1f} | "
            f"{1 / u['decode_s']:.1f} | {o['decode_s'] / u['decode_s']:.3f} |"
        )
    for load in args.load or ["idle"]:
        rows = [r for r in results if r["load"] == load]
        for phase, key in (("prefill", "prefill_s"), ("decode", "decode_s")):
            g = geomean([r["ours"][key] / r["upstream"][key] for r in rows])
            print(f"{load} {phase}: geomean ours/upstream time {g:.3f} (target <= {TARGET[phase]})")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
