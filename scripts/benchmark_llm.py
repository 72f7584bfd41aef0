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

Run it with the export virtualenv after building the SDK::

    bash scripts/build_sdk.sh
    ../exportenv/bin/python scripts/benchmark_llm.py [--large] [--load idle --load busy] [--repeat N]
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
    method.execute([arr(tokens), arr([0])])
    t1 = time.perf_counter()
    for k in range(steps):
        method.execute([arr([[5 + k]]), arr([prompt + k])])
    t2 = time.perf_counter()
    prefill.append(t1 - t0)
    decode.append((t2 - t1) / steps)
print(json.dumps({"prefill_s": statistics.median(prefill), "decode_s": statistics.median(decode)}))
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


def geomean(values: Sequence[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--large", action="store_true", help="also export and time the larger config")
    ap.add_argument("--large-dir", type=Path, help="keep the larger config's programs here (reused when present)")
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
