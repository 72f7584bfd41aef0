#!/usr/bin/env python3
"""Builds upstream ExecuTorch's own llama runner, unchanged, against an installed SDK and runs the committed LLM
fixtures (tests/fixtures/llm) through it. Upstream's files are not part of this project: fetch them from upstream's
repository (a 1.4 or newer tag) and pass the directory that holds ``examples/models/llama``. Never run by CI (CI
runs tests/llm_runner_app, our own application making the same calls); needs Debian's gflags
(``apt install libgflags-dev``)::

    for f in main.cpp runner/runner.{h,cpp} tokenizer/llama_tiktoken.{h,cpp}; do
        mkdir -p "DIR/examples/models/llama/$(dirname $f)"
        git -C UPSTREAM show "v1.4.1:examples/models/llama/$f" >"DIR/examples/models/llama/$f"
    done
    .venv/bin/python scripts/check_upstream_llama_runner.py --src DIR [--prefix dist/executorch-sdk] \\
        [--configs plain,threadpool]

Compiled from DIR/examples/models/llama: ``main.cpp``, ``runner/runner.cpp`` and ``tokenizer/llama_tiktoken.cpp``
(with their headers, reached as upstream includes them: ``<executorch/examples/models/llama/...>``), linked with
``executorch::llm`` (upstream's ``extension/llm/runner`` and ``pytorch/tokenizers`` API) and gflags. Configurations:
``plain``; ``threadpool`` (-DET_USE_THREADPOOL, as upstream's CMake build: main.cpp resets the thread pool).

Each program of tests/fixtures/llm/manifest.json runs greedily (``--temperature 0``) with the committed
SentencePiece tokenizer (found by upstream's probing order in ``load_tokenizer``), one BOS and the manifest's
prompt: with ``--max_new_tokens`` (decode_steps + 1) the text after the echoed prompt must be the manifest's
greedy text (the decoded argmax of upstream's reference logits, checked here too) and the "PyTorchObserver" report
must count the prompt's tokens and upstream's number of generated tokens; with ``--warmup`` the same; with the
default ``--seq_len 128`` (capped by the program's context) the text must start with it.

With ``--export-python ../exportenv/bin/python`` (torch, executorch 1.5.1) it also runs the Hugging Face
``tokenizer.json`` and the tiktoken file of tests/fixtures/tokenizers: their vocabularies are not the fixtures'
192, so the same tiny Llama is exported here by upstream's ``export_llama -kv`` once per tokenizer with that
tokenizer's vocabulary (``bytelevel.json``: 700; ``tiktoken.model``: its 694 ranks plus the 256 Llama 3 special
tokens that upstream's llama runner adds), the prompt is encoded by the ``tokenizers`` / ``tiktoken`` packages
with the tokenizer's BOS first, upstream's runtime gives the greedy tokens, and llama_main's text after the echoed
prompt must be their decoded text (up to an EOS). Prints one line per configuration and program, and "all checks
passed".
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
LLM = ROOT / "tests" / "fixtures" / "llm"
LLAMA = Path("examples") / "models" / "llama"
# Upstream's files, relative to LLAMA: compiled, and included as <executorch/examples/models/llama/...>.
SOURCES = ["main.cpp", "runner/runner.cpp", "tokenizer/llama_tiktoken.cpp"]
HEADERS = ["runner/runner.h", "tokenizer/llama_tiktoken.h"]
CONFIGS = {"plain": [], "threadpool": ["ET_USE_THREADPOOL"]}
CMAKELISTS = """cmake_minimum_required(VERSION 3.24)
project(upstream_llama_runner CXX)
set(CMAKE_CXX_STANDARD 17)
find_package(executorch REQUIRED)
find_package(gflags REQUIRED)
add_executable(llama_main {sources})
target_include_directories(llama_main PRIVATE "{include}")
target_compile_definitions(llama_main PRIVATE {defs})
target_link_libraries(llama_main PRIVATE executorch::llm {libs} gflags)
"""


def run(cmd: list[str], **kw: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, **kw)  # type: ignore[call-overload]


def must(cmd: list[str], **kw: object) -> subprocess.CompletedProcess[str]:
    proc = run(cmd, **kw)
    if proc.returncode != 0:
        sys.exit(f"failed: {' '.join(map(str, cmd))}\n{proc.stdout[-4000:]}{proc.stderr[-4000:]}")
    return proc


def stage(src: Path, work: Path) -> Path:
    """Copies upstream's files to work/include/executorch/examples/models/llama (unchanged); returns that folder."""
    dest = work / "include" / "executorch" / LLAMA
    for rel in SOURCES + HEADERS:
        path = src / LLAMA / rel
        if not path.is_file():
            sys.exit(f"{path} is missing: pass the folder that holds upstream's examples/models/llama")
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, dest / rel)
    return dest


def build(staged: Path, prefix: Path, config: str, work: Path) -> tuple[Path, int]:
    """The llama_main executable and the number of compiler warnings."""
    tree = work / "cmake"
    tree.mkdir(parents=True, exist_ok=True)
    defs = " ".join(CONFIGS[config]) or '""'
    libs = "executorch::threadpool" if "ET_USE_THREADPOOL" in CONFIGS[config] else ""
    sources = " ".join(f'"{(staged / rel).as_posix()}"' for rel in SOURCES)
    include = staged.parents[len(LLAMA.parts)].as_posix()  # the folder holding executorch/examples/...
    (tree / "CMakeLists.txt").write_text(CMAKELISTS.format(sources=sources, include=include, defs=defs, libs=libs))
    build_dir = work / "build"
    must(["cmake", "-S", str(tree), "-B", str(build_dir), "-G", "Ninja", f"-DCMAKE_PREFIX_PATH={prefix}"])
    proc = must(["cmake", "--build", str(build_dir)])
    return build_dir / "llama_main", proc.stdout.count("warning:")


def check(main: Path, program: Path, spec: dict, manifest: dict, extra: list[str], env: dict[str, str]) -> str | None:
    """None when llama_main reproduces the reference; otherwise what went wrong."""
    prompt = manifest["prompt"]
    cmd = [
        str(main),
        f"--model_path={program}",
        f"--tokenizer_path={LLM / manifest['tokenizer']}",
        f"--prompt={prompt}",
        "--temperature=0",
        "--num_bos=1",
        *extra,
    ]
    proc = run(cmd, env=env, timeout=600, cwd=main.parent)  # anything it writes stays in the build folder
    if proc.returncode != 0:
        return f"exit {proc.returncode}: {proc.stderr[-800:]}"
    printed, sep, report = proc.stdout.partition("PyTorchObserver ")
    if not sep:
        return f"no PyTorchObserver report in {proc.stdout[-400:]!r}"
    if not printed.startswith(prompt):
        return f"the prompt is not echoed first: {printed[:200]!r}"
    text = printed[len(prompt) :].strip()
    want = spec["greedy_text"].strip()
    stats = json.loads(report.splitlines()[0])
    if stats["prompt_tokens"] != len(manifest["prompt_tokens"]):
        return f"prompt_tokens {stats['prompt_tokens']}, expected {len(manifest['prompt_tokens'])}"
    if "--seq_len" in " ".join(extra) or not any(a.startswith("--max_new_tokens") for a in extra):
        return None if text.startswith(want) else f"text {text!r} does not start with {want!r}"
    if text != want:
        return f"text {text!r}, expected {want!r}"
    # Upstream's count: the decode loop's tokens, after the one the prefill predicts.
    if stats["generated_tokens"] != manifest["decode_steps"]:
        return f"generated_tokens {stats['generated_tokens']}, expected {manifest['decode_steps']}"
    return None


TOK = ROOT / "tests" / "fixtures" / "tokenizers"
# Upstream's Llama 3 special tokens (llama_tiktoken.cpp's get_special_tokens: 256, BOS first, EOS second).
LLAMA3_SPECIAL = [
    "<|begin_of_text|>", "<|end_of_text|>", "<|reserved_special_token_0|>", "<|reserved_special_token_1|>",
    "<|finetune_right_pad_id|>", "<|step_id|>", "<|start_header_id|>", "<|end_header_id|>", "<|eom_id|>",
    "<|eot_id|>", "<|python_tag|>", *(f"<|reserved_special_token_{i}|>" for i in range(2, 247)),
]  # fmt: skip
LLAMA3_PATTERN = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+"
)
EXPORT = """
import json, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
import export_llm_fixtures as ex
tmp, vocab, ids = Path(sys.argv[2]), int(sys.argv[3]), json.loads(sys.argv[4])
params = dict(ex.PARAMS, vocab_size=vocab)
(tmp / "params.json").write_text(json.dumps(params))
ex.write_checkpoint(tmp / "ckpt.pth", params)
pte = ex.export("model", ["-kv"], tmp / "params.json", tmp / "ckpt.pth", tmp)
print(json.dumps(ex.reference(pte, ids)[1]))
"""


def tokenizer_cases(export_python: Path, tmp: Path) -> list[dict]:
    """For bytelevel.json and tiktoken.model: a program of the tokenizer's vocabulary (upstream's export_llama) and
    the text upstream's runtime generates greedily from the encoded prompt."""
    import tiktoken
    from tokenizers import Tokenizer

    manifest = json.loads((LLM / "manifest.json").read_text())
    prompt = manifest["prompt"]
    from make_tokenizer_fixtures import bytes_to_unicode

    hf = Tokenizer.from_file(str(TOK / "bytelevel.json"))
    byte_of = {c: b for b, c in bytes_to_unicode().items()}
    ranks = {}
    for line in (TOK / "tiktoken.model").read_text().splitlines():
        token, rank = line.split()
        ranks[base64.b64decode(token)] = int(rank)
    special = {t: len(ranks) + i for i, t in enumerate(LLAMA3_SPECIAL)}
    tt = tiktoken.Encoding(name="llama3", pat_str=LLAMA3_PATTERN, mergeable_ranks=ranks, special_tokens=special)
    cases = [
        {
            "name": "bytelevel.json",
            "path": TOK / "bytelevel.json",
            "vocab": hf.get_vocab_size(with_added_tokens=True),
            "ids": [hf.token_to_id("<|begin_of_text|>"), *hf.encode(prompt, add_special_tokens=False).ids],
            "eos": {hf.token_to_id("<|end_of_text|>")},
            "piece": lambda t: bytes(byte_of[c] for c in hf.id_to_token(t)),
        },
        {
            "name": "tiktoken.model",
            "path": TOK / "tiktoken.model",
            "vocab": len(ranks) + len(LLAMA3_SPECIAL),
            "ids": [special["<|begin_of_text|>"], *tt.encode(prompt)],
            "eos": {special["<|end_of_text|>"], special["<|eot_id|>"]},
            "piece": lambda t: tt.decode_single_token_bytes(t),
        },
    ]
    for case in cases:
        work = tmp / case["name"]
        work.mkdir()
        code = [str(export_python), "-c", EXPORT, str(ROOT / "scripts"), str(work), str(case["vocab"])]
        proc = must([*code, json.dumps(case["ids"])])
        greedy = json.loads(proc.stdout.strip().splitlines()[-1])
        stop = case["eos"] | {2}  # export_llama's metadata: get_eos_ids [2]
        end = next((i for i, t in enumerate(greedy) if t in stop), len(greedy))
        case.update(program=work / "model.pte", greedy=greedy, text=printed_text(case["piece"], greedy[:end]))
        print(f"{case['name']}: {case['vocab']}-token program, prompt {case['ids']}, upstream greedy {greedy}")
    return cases


def printed_text(piece: Any, tokens: list[int]) -> str:
    """What the runner prints for these tokens: each token's bytes, except a lone byte that is neither printable nor
    whitespace (util.h's safe_printf, as upstream's), as UTF-8."""
    pieces = [piece(t) for t in tokens]
    kept = [p for p in pieces if len(p) != 1 or 0x20 <= p[0] < 0x7F or p[0] in b"\t\n\v\f\r"]
    return b"".join(kept).decode("utf-8", "replace").strip()


def check_tokenizer(main: Path, case: dict, env: dict[str, str]) -> str | None:
    """None when llama_main, with this tokenizer, prints upstream's greedy text after the echoed prompt."""
    prompt = json.loads((LLM / "manifest.json").read_text())["prompt"]
    cmd = [str(main), f"--model_path={case['program']}", f"--tokenizer_path={case['path']}", f"--prompt={prompt}"]
    cmd += ["--temperature=0", "--num_bos=1", f"--max_new_tokens={len(case['greedy'])}"]
    proc = run(cmd, env=env, timeout=600, cwd=main.parent)
    if proc.returncode != 0:
        return f"exit {proc.returncode}: {proc.stderr[-800:]}"
    printed, sep, report = proc.stdout.partition("PyTorchObserver ")
    if not sep or not printed.startswith(prompt):
        return f"no echoed prompt and report in {proc.stdout[-400:]!r}"
    text = printed[len(prompt) :].strip()
    if text != case["text"]:
        return f"text {text!r}, expected {case['text']!r}"
    if json.loads(report.splitlines()[0])["prompt_tokens"] != len(case["ids"]):
        return f"prompt_tokens {report.splitlines()[0]}, expected {len(case['ids'])}"
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--src", type=Path, required=True, help="the folder holding upstream's examples/models/llama")
    default_prefix = Path(os.environ.get("ET_SDK_PREFIX", ROOT / "dist" / "executorch-sdk"))
    parser.add_argument("--prefix", type=Path, default=default_prefix, help="the installed SDK")
    parser.add_argument("--configs", default="plain,threadpool")
    parser.add_argument(
        "--export-python", type=Path, help="the export venv's python: also check tokenizer.json and tiktoken"
    )
    args = parser.parse_args()
    src, prefix = args.src.resolve(), args.prefix.resolve()
    if not (prefix / "lib" / "cmake" / "executorch").is_dir():
        sys.exit(f"no installed SDK at {prefix} (cmake --install BUILD --prefix {prefix})")
    for rel in SOURCES:
        data = (src / LLAMA / rel).read_bytes()
        print(f"upstream {LLAMA / rel}: {len(data)} bytes, sha256 {hashlib.sha256(data).hexdigest()[:16]}")
    manifest = json.loads((LLM / "manifest.json").read_text())
    vocab = manifest["params"]["vocab_size"]
    for name, spec in sorted(manifest["variants"].items()):
        logits = np.load(LLM / spec["logits"]).reshape(-1, vocab)
        if logits.argmax(axis=-1).tolist() != spec["greedy_tokens"]:
            sys.exit(f"{name}: the manifest's greedy tokens are not the argmax of its reference logits")
    env = dict(os.environ, EXECUTORCH_LOG_LEVEL="error")
    runs = {
        "max_new_tokens": [f"--max_new_tokens={manifest['decode_steps'] + 1}"],
        "warmup": [f"--max_new_tokens={manifest['decode_steps'] + 1}", "--warmup"],
        "seq_len": [],  # main.cpp's default --seq_len 128, capped by the program's context
    }
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        cases = tokenizer_cases(args.export_python, Path(tmp)) if args.export_python else []
        staged = stage(src, Path(tmp))
        for config in args.configs.split(","):
            work = Path(tmp) / config
            work.mkdir(parents=True, exist_ok=True)
            main_exe, warnings = build(staged, prefix, config, work)
            print(f"{config}: built {', '.join(SOURCES)} ({warnings} compiler warnings)")
            for name, spec in sorted(manifest["variants"].items()):
                bad = []
                for label, extra in runs.items():
                    why = check(main_exe, LLM / spec["program"], spec, manifest, extra, env)
                    if why is not None:
                        bad.append(f"{label}: {why}")
                print(f"  {name:16} {len(runs) - len(bad)}/{len(runs)} runs match ({spec['greedy_text']!r})")
                for line in bad:
                    print(f"    FAIL {line}")
                failures += len(bad)
            for case in cases:
                why = check_tokenizer(main_exe, case, env)
                print(f"  {case['name']:16} {'matches' if why is None else 'FAIL ' + why} ({case['text']!r})")
                failures += why is not None
    if failures:
        sys.exit(f"{failures} failures")
    print("all checks passed")


if __name__ == "__main__":
    main()
