"""LLM programs exported by upstream's export_llama (tests/fixtures/llm: a tiny random Llama as -kv portable,
-kv --use_sdpa_with_kv_cache -X, the same with -qmode 8da4w, and with --quantize_kv_cache) on the installed SDK and
the wheel.

References are upstream's runtime logits for one prefill call and greedy decode steps (scripts/export_llm_fixtures.py).
The C++ runner checks the prefill of each program; the wheel's executorch.llm (in a fresh venv with no Python
tokenizer package) checks every decode step, the streamed text, the CLI and the errors, and executorch.tokenizers
against the Python packages' references (tests/fixtures/tokenizers).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from et_common import FIXTURES, REPO, build_app, wheel_file

LLM = FIXTURES / "llm"
MANIFEST = json.loads((LLM / "manifest.json").read_text())
VARIANTS = sorted(MANIFEST["variants"])

sys.path.insert(0, str(REPO / "tests"))


def run_prefill(sdk: Path, pte: Path, tmp_path: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    np.save(tmp_path / "tokens.npy", np.asarray([MANIFEST["prompt_tokens"]], np.int64))
    np.save(tmp_path / "pos.npy", np.asarray([0], np.int64))
    cmd = [str(sdk / "bin" / "executorch_runner"), str(pte), "--output-dir", str(tmp_path)]
    cmd += ["--input", str(tmp_path / "tokens.npy"), "--input", str(tmp_path / "pos.npy")]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)


def test_manifest_has_the_recipes() -> None:
    flags = {v: " ".join(s["export_llama_flags"]) for v, s in MANIFEST["variants"].items()}
    assert flags == {
        "kv_portable": "-kv",
        "kv_sdpa_xnnpack": "-kv --use_sdpa_with_kv_cache -X",
        "kv_8da4w": "-kv --use_sdpa_with_kv_cache -X -qmode 8da4w -G 32",
        "kv_int8_cache": "-kv --use_sdpa_with_kv_cache --quantize_kv_cache -X",
    }
    assert (LLM / MANIFEST["tokenizer"]).stat().st_size < 10_000


# EXECUTORCH_GEMM_ISA caps the CPU kernels' instruction set: the AVX2 and baseline paths are checked on an
# AVX-512 machine too (the 4-bit and matrix-vector kernels have their own per-ISA code).
ISAS = ["native", "avx2", "baseline"]


def isa_env(env: dict[str, str], isa: str) -> dict[str, str]:
    return env if isa == "native" else dict(env, EXECUTORCH_GEMM_ISA=isa)


@pytest.mark.parametrize("isa", ISAS)
@pytest.mark.parametrize("variant", VARIANTS)
def test_prefill_matches_upstream(sdk: Path, variant: str, isa: str, tmp_path: Path, quiet_env: dict[str, str]) -> None:
    spec = MANIFEST["variants"][variant]
    proc = run_prefill(sdk, LLM / spec["program"], tmp_path, isa_env(quiet_env, isa))
    assert proc.returncode == 0, proc.stderr
    got = np.load(tmp_path / "out0.npy").reshape(-1)[-MANIFEST["params"]["vocab_size"] :]
    ref = np.load(LLM / spec["logits"])[0]
    # fp32 and 8da4w alike (8da4w: the int8 kernel is exact, the float one within 1e-6).
    np.testing.assert_allclose(got, ref, atol=1e-4, rtol=0)


def test_missing_llm_component_names_its_package(sdk: Path, tmp_path: Path, quiet_env: dict[str, str]) -> None:
    # Every component but the LLM one: the XNNPACK program loads its delegates, then names the llama:: kernels it
    # lacks and the package that has them (the runtime's catalog, from components.toml).
    components = tmp_path / "components"
    components.mkdir()
    for lib in (sdk / "lib").glob("libexecutorch_*.so.*"):
        if not lib.name.startswith("libexecutorch_llm."):
            (components / lib.name).symlink_to(lib)
    env = dict(quiet_env, EXECUTORCH_COMPONENT_DIR=str(components))
    proc = run_prefill(sdk, LLM / MANIFEST["variants"]["kv_sdpa_xnnpack"]["program"], tmp_path, env)
    assert proc.returncode != 0
    assert "llama::custom_sdpa.out" in proc.stderr and "executorch-llm" in proc.stderr, proc.stderr


@pytest.fixture(scope="module")
def llm_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with the wheel only: executorch.llm reads the tokenizer with the C++ tokenizers (no Python
    tokenizer package)."""
    root = tmp_path_factory.mktemp("llmvenv") / "env"
    subprocess.run([sys.executable, "-m", "venv", str(root)], check=True)
    pip = [str(root / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    subprocess.run([*pip, str(wheel_file())], check=True)
    return root


def test_python_generation_cli_and_errors(llm_venv: Path, tmp_path: Path) -> None:
    from test_wheel import python_checks

    python_checks(
        llm_venv, Path("/nonexistent"), tmp_path, "llm_generation", "llm_cli", "llm_errors", "tokenizers_parity",
        "tokenizers_errors",
    )  # fmt: skip


@pytest.fixture(scope="module")
def llm_app(sdk: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """tests/llm_app built against the installed SDK (executorch::llm) and Debian's libsentencepiece."""
    return build_app(sdk, REPO / "tests" / "llm_app", tmp_path_factory.mktemp("llm_app")) / "llm_app"


@pytest.mark.parametrize("isa", ISAS)
@pytest.mark.parametrize("variant", VARIANTS)
def test_cpp_runner_reproduces_upstream(
    llm_app: Path, variant: str, isa: str, tmp_path: Path, quiet_env: dict[str, str]
) -> None:
    # The C++ TextLLMRunner: greedy generation gives upstream's text, and its step() API gives upstream's logits
    # for the prefill and every decode step.
    spec = MANIFEST["variants"][variant]
    n = MANIFEST["decode_steps"] + 1
    logits_file = tmp_path / "logits.bin"
    cmd = [str(llm_app), str(LLM / spec["program"]), str(LLM / MANIFEST["tokenizer"]), MANIFEST["prompt"], str(n)]
    env = isa_env(quiet_env, isa)
    proc = subprocess.run([*cmd, str(logits_file)], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    # The runner prints the text to stdout, then upstream's "PyTorchObserver {json}" report; the token callback
    # received the same text.
    printed, _, report = proc.stdout.partition("PyTorchObserver ")
    assert printed.strip() == spec["greedy_text"].strip(), proc.stdout
    callback = re.search(r"^callback text: \[(.*?)\]$", proc.stderr, re.M | re.S)
    assert callback is not None and callback.group(1).strip() == spec["greedy_text"].strip(), proc.stderr
    assert json.loads(report)["generated_tokens"] == n - 1, report
    # Upstream's count: the decode loop's tokens, not the one the prefill predicts.
    assert f"prompt {len(MANIFEST['prompt_tokens'])} tokens, generated {n - 1}" in proc.stderr, proc.stderr
    vocab = MANIFEST["params"]["vocab_size"]
    got = np.fromfile(logits_file, dtype=np.float32).reshape(-1, vocab)
    np.testing.assert_allclose(got, np.load(LLM / spec["logits"]), atol=1e-4, rtol=0)


def test_cpp_runner_refuses_an_over_long_prompt(llm_app: Path, quiet_env: dict[str, str]) -> None:
    spec = MANIFEST["variants"]["kv_sdpa_xnnpack"]
    cmd = [str(llm_app), str(LLM / spec["program"]), str(LLM / MANIFEST["tokenizer"]), "the river " * 40, "4"]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=quiet_env, timeout=300)
    assert proc.returncode == 3, proc.stderr
    assert "shorten the prompt" in proc.stderr and f"holds {MANIFEST['max_seq_len']}" in proc.stderr, proc.stderr


@pytest.fixture(scope="module")
def llm_runner_app(sdk: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """tests/llm_runner_app (upstream's runner API, as upstream's llama example calls it) built against the SDK."""
    build = tmp_path_factory.mktemp("llm_runner_app")
    return build_app(sdk, REPO / "tests" / "llm_runner_app", build) / "llm_runner_app"


def fields(stderr: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for line in stderr.splitlines():
        key, sep, value = line.partition(": ")
        if sep:
            out.setdefault(key, []).append(value)
    return out


@pytest.mark.parametrize("variant", VARIANTS)
def test_upstream_runner_api_reproduces_upstream(llm_runner_app: Path, variant: str, quiet_env: dict[str, str]) -> None:
    # load_tokenizer picks tokenizers::SPTokenizer for the SentencePiece file (no libsentencepiece);
    # create_text_llm_runner + warmup + generate as upstream's llama main.cpp: upstream's greedy text, streamed to
    # stdout and to the callback, upstream's stats; prefill() + generate("") continue the same way.
    spec = MANIFEST["variants"][variant]
    n = MANIFEST["decode_steps"] + 1
    want = spec["greedy_text"].strip()
    cmd = [str(llm_runner_app), str(LLM / spec["program"]), str(LLM / MANIFEST["tokenizer"]), MANIFEST["prompt"]]
    proc = subprocess.run([*cmd, str(n)], capture_output=True, text=True, env=quiet_env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    got = fields(proc.stderr)
    assert got["metadata"] == [
        f"max_seq_len={MANIFEST['max_seq_len']} max_context_len={MANIFEST['max_seq_len']} "
        f"vocab_size={MANIFEST['params']['vocab_size']} bos={MANIFEST['bos_id']} kv=1"
    ], proc.stderr
    assert got["eos"] == [str(MANIFEST["eos_id"])], proc.stderr
    assert got["loaded"] == ["1"]
    assert got["text"][0].strip("[]").strip() == want, proc.stderr
    assert got["pieces"] == [str(n)]
    stats = json.loads(got["stats"][0])
    assert (stats["prompt_tokens"], stats["generated_tokens"]) == (len(MANIFEST["prompt_tokens"]), n - 1)
    assert stats["SCALING_FACTOR_UNITS_PER_SECOND"] == 1_000_000 and stats["first_token_ms"] > 0
    assert got["prefill token"] == [str(spec["greedy_tokens"][0])]
    assert got["prefill text"][0].strip("[]").strip() == want, proc.stderr
    # stop() during the second piece (echo on: the prompt, then the prefill's token): the loop ends after its
    # next token, as upstream's token generator checks the flag after each token.
    assert got["stopped after"] == ["3"]
    assert got["seq_len too small"] == ["1"]
    assert got["argmax"] == ["1"] and got["seeded repeatable"] == ["1"]
    assert got["missing tokenizer"] == ["1"] and got["null tokenizer"] == ["1"]
    # The runner printed the text itself (echo off), then upstream's report line.
    printed, _, report = proc.stdout.partition("PyTorchObserver ")
    assert printed.strip() == want, proc.stdout
    assert json.loads(report.splitlines()[0])["generated_tokens"] == n - 1


MM = FIXTURES / "multimodal"
MM_MANIFEST = json.loads((MM / "manifest.json").read_text())


@pytest.fixture(scope="module")
def multimodal_app(sdk: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """tests/multimodal_app (upstream's multimodal runner API) built against the SDK."""
    build = tmp_path_factory.mktemp("multimodal_app")
    return build_app(sdk, REPO / "tests" / "multimodal_app", build) / "multimodal_app"


def test_multimodal_runner_reproduces_the_reference(multimodal_app: Path, tmp_path: Path) -> None:
    check_multimodal_app(multimodal_app, tmp_path)


def check_multimodal_app(multimodal_app: Path, tmp_path: Path) -> None:
    """tests/multimodal_app, built against an SDK prefix, the wheel or a conda prefix, on the multimodal fixture."""
    # create_multimodal_runner + generate over text (with BOS), the image and text, as upstream's multimodal runner
    # does it: the eager model's greedy text (upstream's runtime gives the same tokens), streamed to the callback and
    # to stdout, with the stats; prefill() + generate() of no inputs continue the same way; each bad input is an
    # error with a message, and the runner works after them.
    image = np.load(MM / MM_MANIFEST["image"])
    raw = tmp_path / "image.raw"
    raw.write_bytes(image.tobytes())
    _, c, h, w = image.shape
    texts = [i["text"] for i in MM_MANIFEST["inputs"] if "text" in i]
    n = MM_MANIFEST["max_new_tokens"]
    text_only = LLM / MANIFEST["variants"]["kv_portable"]["program"]
    wavs = write_wavs(tmp_path)
    cmd = [multimodal_app, MM / MM_MANIFEST["program"], LLM / MANIFEST["tokenizer"], raw, w, h, c, *texts, n, text_only]
    cmd += list(wavs)
    env = {**os.environ, "EXECUTORCH_LOG_LEVEL": "error"}
    proc = subprocess.run([str(a) for a in cmd], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    got = fields(proc.stderr)
    want = MM_MANIFEST["greedy_text"].strip()
    assert got["loaded before"] == ["0"] and got["loaded"] == ["1"], proc.stderr
    assert got["generate"] == ["0"] and got["text"][0].strip("[]").strip() == want, proc.stderr
    assert got["pieces"] == [str(n)]
    stats = json.loads(got["stats"][0])
    assert (stats["prompt_tokens"], stats["generated_tokens"]) == (MM_MANIFEST["prompt_tokens"], n - 1)
    assert got["prefill token"] == [str(MM_MANIFEST["greedy_tokens"][0])], proc.stderr
    assert got["prefill text"][0].partition(" ")[2].strip("[]").strip() == want, proc.stderr
    # The parts alone: the prefiller's token for BOS + the first text (the eager model's), the position moved past
    # them, the decoder's step gave vocabulary logits.
    assert got["parts loaded before"] == ["0"]
    first = MM_MANIFEST["first_input"]
    vocab = MM_MANIFEST["metadata"]["get_vocab_size"]
    want_parts = f"load 0 loaded 1 token {first['next_token']} pos {first['positions']} step 0 logits {vocab}"
    assert got["parts"] == [want_parts], proc.stderr
    invalid_argument, not_supported_program = "18", "35"
    for name, message in (
        ("image size", "Image: 10 values for 3 channels x 32 x 32 pixels"),
        ("image dtype", "vision_encoder takes Byte data; the input is Float"),
        ("audio", "an audio input needs the program's audio_encoder method"),
        ("too long", "has shape [1,200] but the program accepts [1,48] at most"),
        ("no inputs", "MultimodalInput vector cannot be empty"),
        ("temperature", "the temperature must be in [0, 1]"),
    ):
        assert got[f"error {name}"] == [invalid_argument], (name, proc.stderr)
        assert message in proc.stderr, (name, proc.stderr)
    assert got["after errors"][0].partition(" ")[2].strip("[]").strip() == want, proc.stderr
    assert got["text-only program"] == [not_supported_program], proc.stderr
    assert "the program has no token_embedding method: it is not a multimodal LLM" in proc.stderr
    assert got["null tokenizer"] == ["1"]
    assert got["bf16"] == ["BFloat16 1 -2.5 3.14062 wrong 18"]
    assert got["input"] == ["tokens raw_audio 1 1 2"]
    printed, _, report = proc.stdout.partition("PyTorchObserver ")
    assert printed.strip() == want, proc.stdout
    assert json.loads(report.splitlines()[0])["generated_tokens"] == n - 1
    # wav_loader.h: each file's samples, or none with the reason logged.
    assert got["wav 0"] == ["header 1 rate 16000 samples 4 first 1 last -1"], proc.stderr
    assert got["wav 1"] == ["header 1 rate 8000 samples 3 first 0.25 last -0.75"], proc.stderr
    for i, message in enumerate(wavs.values()):
        if message:
            assert got[f"wav {i}"][0].endswith("samples 0 first 0 last 0"), proc.stderr
            assert message in proc.stderr, (message, proc.stderr)


def write_wavs(tmp_path: Path) -> dict[Path, str]:
    """WAV files for wav_loader.h: 16-bit PCM (written by Python's wave module), 32-bit float with a LIST chunk
    before the data, and damaged ones, each with the message expected (empty: it loads)."""
    import struct
    import wave

    pcm = tmp_path / "pcm16.wav"
    with wave.open(str(pcm), "wb") as f:
        f.setnchannels(1)
        f.setsampwidth(2)
        f.setframerate(16000)
        f.writeframes(struct.pack("<4h", 32767, 0, 16384, -32767))

    def riff(fmt_tag: int, bits: int, rate: int, data: bytes, extra: bytes = b"") -> bytes:
        fmt = struct.pack("<HHIIHH", fmt_tag, 1, rate, rate * bits // 8, bits // 8, bits)
        body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt + extra + b"data" + struct.pack("<I", len(data))
        return b"RIFF" + struct.pack("<I", len(body) + len(data)) + body + data

    files = {pcm: "", tmp_path / "float32.wav": "", tmp_path / "truncated.wav": "claimed data size"}
    list_chunk = b"LIST" + struct.pack("<I", 4) + b"INFO"
    (tmp_path / "float32.wav").write_bytes(riff(3, 32, 8000, struct.pack("<3f", 0.25, 0.0, -0.75), list_chunk))
    (tmp_path / "truncated.wav").write_bytes(riff(1, 16, 8000, struct.pack("<4h", 1, 2, 3, 4))[:-4])
    for name, content, message in (
        ("pcm8.wav", riff(1, 8, 8000, bytes([1, 2, 3])), "Unsupported bits per sample: 8"),
        ("alaw.wav", riff(6, 8, 8000, bytes([1, 2, 3])), "Unsupported audio format: 0x0006"),
        ("not_wav.wav", b"this is not a wav file at all, no", "WAV header not detected"),
        ("no_data.wav", riff(1, 16, 8000, b"")[:-8] + b"xxxxxxxx", "missing Subchunk2ID 'data'"),
        ("missing.wav", None, "Failed to open WAV file"),
    ):
        if content is not None:
            (tmp_path / name).write_bytes(content)
        files[tmp_path / name] = message
    return files


@pytest.mark.parametrize("variant", VARIANTS)
def test_upstream_runner_components(llm_runner_app: Path, variant: str, quiet_env: dict[str, str]) -> None:
    # Upstream's runner parts (IOManager, TextDecoderRunner, TextPrefiller, TextTokenGenerator) on their own, and
    # assembled with TextLLMRunner's constructor from them as upstream's llm_runner_helper.cpp does: the same
    # tokens and text as create_text_llm_runner's runner at temperature 0, and errors (not aborts) for a prompt
    # longer than max_seq_len, a method the program lacks, an empty prompt and a temperature outside [0, 1].
    spec = MANIFEST["variants"][variant]
    n = MANIFEST["decode_steps"] + 1
    first, want = spec["greedy_tokens"][0], spec["greedy_text"].strip()
    n_prompt, max_seq_len = len(MANIFEST["prompt_tokens"]), MANIFEST["max_seq_len"]
    cmd = [str(llm_runner_app), str(LLM / spec["program"]), str(LLM / MANIFEST["tokenizer"]), MANIFEST["prompt"]]
    proc = subprocess.run([*cmd, str(n)], capture_output=True, text=True, env=quiet_env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    got = fields(proc.stderr)
    helper_text = got["text"][0]
    assert helper_text.strip("[]").strip() == want, proc.stderr
    # TextDecoderRunner::step over the prompt + logits_to_token: the runner's first generated token.
    assert got["decoder loaded before"] == ["0"] and got["decoder loaded"] == ["1 method: forward"]
    assert got["step logits"] == [str(MANIFEST["params"]["vocab_size"])]
    assert got["step token"] == [str(first)] == got["prefill token"], proc.stderr
    # TextPrefiller: the same token in one call, token by token and in chunks, the position moved past the prompt.
    assert got["prefiller loaded before"] == ["0"]
    assert got["prefiller token"] == [f"{first} pos: {n_prompt} loaded: 1"], proc.stderr
    assert got["sequential prefill token"] == [f"{first} pos: {n_prompt}"], proc.stderr
    assert got["chunked prefill token"] == [f"{first} pos: {n_prompt}"], proc.stderr
    # TextTokenGenerator::generate from that token: the rest of the runner's text (it has no first piece), the
    # logit processor run once per token.
    assert got["generator count"] == [f"{n - 1} pieces: {n - 1} processors: 1 calls: {n - 1}"], proc.stderr
    generator_text = got["generator text"][0].strip("[]")
    assert generator_text and helper_text.strip("[]").endswith(generator_text), proc.stderr
    # The assembled runner: create_text_llm_runner's text, pieces and counts, also through prefill() + generate("").
    assert got["component loaded before"] == ["0"] and got["component loaded"] == ["1"]
    assert got["component text"] == [helper_text] and got["component pieces"] == got["pieces"], proc.stderr
    stats = json.loads(got["component stats"][0])
    assert (stats["prompt_tokens"], stats["generated_tokens"]) == (n_prompt, n - 1)
    assert got["component prefill token"] == [str(first)]
    assert got["component prefill text"] == got["prefill text"] == [helper_text], proc.stderr
    assert got["module runner text"] == [helper_text], proc.stderr
    # Errors (runtime::Error codes: 0x12 InvalidArgument), not aborts.
    invalid = str(0x12)
    code, _, count = got["long prefill"][0].partition(" tokens ")
    assert code == invalid and int(count) > max_seq_len, proc.stderr
    assert got["empty prefill"] == [invalid] and got["prefill bad temperature"] == [invalid]
    assert got["generator bad temperature"] == [invalid] and got["generator no tokens"] == [invalid]
    assert got["long prompt"] == [invalid], proc.stderr
    assert "shorten the prompt" in got["long prompt message"][0] and f"holds {max_seq_len}" in proc.stderr
    assert got["missing method load"] == [f"{invalid} loaded: 0"], proc.stderr
    assert got["missing method step"] == [invalid], proc.stderr
    assert got["missing method prefill"] == [f"{invalid} pos: 0"], proc.stderr
    assert got["missing method runner"] == [invalid], proc.stderr
    assert got["missing method message"] == ["the program has no method no_such_method (error 0x12)"]
    # IOManager: (tokens, input_pos) passed through; a method of other inputs refused (0x2 InvalidState).
    assert got["io load"] == ["0"] and got["io decode inputs"] == ["2"] and got["io wrong method"] == [str(0x2)]
