"""The C++ tokenizers of libexecutorch_llm (namespace tokenizers, pytorch/tokenizers/*.h: upstream's
meta-pytorch/tokenizers API) against the Python packages `tokenizers`, `tiktoken` and `sentencepiece`.

tests/tokenizer_app is built against the installed SDK: tokenize_app encodes and decodes each parity text with each
fixture (tests/fixtures/tokenizers, made by scripts/make_tokenizer_fixtures.py) and must give the packages' ids
token for token and their decoded text byte for byte (reference.json; when the packages are importable the
references are also recomputed here). upstream_api uses every header as upstream's code does. Damaged files must
give an error with a message, never a crash.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from et_common import FIXTURES, REPO, build_app

TOK = FIXTURES / "tokenizers"
REF = json.loads((TOK / "reference.json").read_text())
TEXTS: list[str] = REF["texts"]
ENTRIES: dict[str, dict] = REF["tokenizers"]
CASES = [(name, i) for name in sorted(ENTRIES) for i in range(len(TEXTS))]


@pytest.fixture(scope="module")
def tokenizer_app(sdk: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """tests/tokenizer_app built against the installed SDK (executorch::llm), with -Wall -Wextra -Werror."""
    return build_app(sdk, REPO / "tests" / "tokenizer_app", tmp_path_factory.mktemp("tokenizer_app"))


def tokenize(app: Path, kind: str, tokenizer: Path, text: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    text_file = tmp_path / "text.txt"
    text_file.write_bytes(text.encode())
    return subprocess.run(
        [str(app / "tokenize_app"), kind, str(tokenizer), str(text_file)],
        capture_output=True,
        text=True,
        errors="replace",
        timeout=60,
    )


def parse(out: str) -> dict[str, str]:
    fields = {}
    for line in out.splitlines():
        key, _, value = line.partition(" ")
        fields[key] = value
    return fields


@pytest.mark.parametrize(("name", "index"), CASES, ids=[f"{n}-{i}" for n, i in CASES])
def test_parity_with_the_python_packages(tokenizer_app: Path, tmp_path: Path, name: str, index: int) -> None:
    entry = ENTRIES[name]
    done = tokenize(tokenizer_app, entry["kind"], TOK / entry["path"], TEXTS[index], tmp_path)
    assert done.returncode == 0, done.stderr
    fields = parse(done.stdout)
    ids = [int(x) for x in fields["ids"].split()]
    expected = entry["ids"][index]
    first = next(
        (i for i, (a, b) in enumerate(zip(ids, expected, strict=False)) if a != b), min(len(ids), len(expected))
    )
    assert ids == expected, (
        f"first difference at token {first}: {ids[first : first + 5]} != {expected[first : first + 5]}"
    )
    assert fields["decoded"] == entry["decoded"][index], (
        bytes.fromhex(fields["decoded"]).decode(errors="replace"),
        bytes.fromhex(entry["decoded"][index]).decode(errors="replace"),
    )
    bos, eos = int(fields["bos"]), int(fields["eos"])
    assert [int(x) for x in fields["ids_bos_eos"].split()] == [bos, *expected, eos]
    assert int(fields["vocab_size"]) == entry["vocab_size"]
    if "bos" in entry:
        assert (bos, eos) == (entry["bos"], entry["eos"])
    assert fields["decode_out_of_range"] in ("DecodeFailure", "OutOfRange")


def test_bos_and_eos_of_the_hf_tokenizers(tokenizer_app: Path, tmp_path: Path) -> None:
    """bytelevel.json: BOS / EOS from the special tokens' names; metaspace/: from tokenizer_config.json, and the
    bare tokenizer.json from the TemplateProcessing post-processor (EOS = BOS then, as upstream guesses)."""
    vocab = json.loads((TOK / "bytelevel.json").read_text())["added_tokens"]
    ids = {t["content"]: t["id"] for t in vocab}
    fields = parse(tokenize(tokenizer_app, "hf", TOK / "bytelevel.json", "x", tmp_path).stdout)
    assert (int(fields["bos"]), int(fields["eos"])) == (ids["<|begin_of_text|>"], ids["<|end_of_text|>"])
    fields = parse(tokenize(tokenizer_app, "hf", TOK / "metaspace", "x", tmp_path).stdout)
    assert (int(fields["bos"]), int(fields["eos"])) == (1, 2)
    fields = parse(tokenize(tokenizer_app, "hf", TOK / "metaspace" / "tokenizer.json", "x", tmp_path).stdout)
    assert (int(fields["bos"]), int(fields["eos"])) == (1, 1)


def test_upstream_api_compiles_and_behaves(tokenizer_app: Path) -> None:
    args = [TOK / "bytelevel.json", TOK / "tiktoken.model", TOK / "sp_bpe.model", TOK / "llama2c.bin"]
    args.append(TOK / "tekken.json")
    done = subprocess.run([str(tokenizer_app / "upstream_api"), *map(str, args)], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("bytelevel.json", "hf"),
        ("metaspace", "hf"),
        ("tiktoken.model", "tiktoken"),
        ("tekken.json", "tekken"),
        ("sp_bpe.model", "sp"),
        ("llama2c.bin", "llama2c"),
    ],
)
def test_probing_order_loads_the_right_kind(tokenizer_app: Path, tmp_path: Path, path: str, kind: str) -> None:
    """load_tokenizer tries Tekken (for a tekken.json), HF, tiktoken, SentencePiece, llama2.c in turn: each must
    refuse the others' files."""
    done = tokenize(tokenizer_app, "auto", TOK / path, "Hello", tmp_path)
    assert done.returncode == 0, done.stderr
    assert parse(done.stdout)["kind"] == kind


def test_only_a_file_named_tekken_json_is_tried_as_tekken(tokenizer_app: Path, tmp_path: Path) -> None:
    """Upstream's rule: a Tekken file under another name is not probed as Tekken (and no other kind reads it); a
    Hugging Face tokenizer.json named tekken.json falls through to the HF tokenizer."""
    other = tmp_path / "vocab.json"
    other.write_bytes((TOK / "tekken.json").read_bytes())
    done = tokenize(tokenizer_app, "auto", other, "Hello", tmp_path)
    assert done.returncode == 1 and "no tokenizer could load" in done.stderr, done.stderr
    hf = tmp_path / "tekken.json"
    hf.write_bytes((TOK / "bytelevel.json").read_bytes())
    done = tokenize(tokenizer_app, "auto", hf, "Hello", tmp_path)
    assert done.returncode == 0 and parse(done.stdout)["kind"] == "hf", done.stderr


def hf_json() -> dict:
    return json.loads((TOK / "bytelevel.json").read_text())


def damaged_hf(change: str) -> bytes:
    data = hf_json()
    if change == "model_type":
        data["model"]["type"] = "WordPiece"
    elif change == "pre_tokenizer":
        data["pre_tokenizer"] = {"type": "UnicodeScripts"}
    elif change == "normalizer":
        data["normalizer"] = {"type": "NFKD"}
    elif change == "regex":
        data["pre_tokenizer"]["pretokenizers"][0]["pattern"] = {"Regex": "(?<=a+)b("}
    elif change == "merge":
        data["model"]["merges"][0] = ["no-such-token", "x"]
    elif change == "vocab":
        data["model"]["vocab"] = [1, 2, 3]
    elif change == "added_tokens":
        data["added_tokens"][0]["id"] = "not a number"
    elif change == "float_id":  # found by tokenizer_fuzzer: a float cast to an integer was undefined behaviour
        data["model"]["vocab"]["a"] = 4.2e54
    return json.dumps(data).encode()


def damaged_tekken(change: str) -> bytes:
    data = json.loads((TOK / "tekken.json").read_text())
    if change == "rank":
        data["vocab"][300]["rank"] = 7
    elif change == "base64":
        data["vocab"][300]["token_bytes"] = "!!!!"
    elif change == "no_bos":
        data["special_tokens"] = [t for t in data["special_tokens"] if t["token_str"] != "<s>"]
    elif change == "special_rank":
        data["special_tokens"][3]["rank"] = 5000
    elif change == "pattern":
        data["config"]["pattern"] = "(?<=a+)b("
    elif change == "no_config":
        del data["config"]
    elif change == "sizes":
        data["config"]["default_vocab_size"] = 10
    return json.dumps(data).encode()


def damaged_sp(change: str) -> bytes:
    data = (TOK / "sp_bpe.model").read_bytes()
    if change == "byte_piece":
        assert data.count(b"<0x05>") == 1
        return data.replace(b"<0x05>", b"<0x-5>")
    return data[: len(data) // 2] if change == "truncated" else data[:1] + b"\xff" * 32


HF_CASES = {
    "truncated": (lambda: (TOK / "bytelevel.json").read_bytes()[:5000], "not valid JSON"),
    "not_json": (lambda: b"this is not json", "not valid JSON"),
    "empty": (lambda: b"", "not valid JSON"),
    "no_model": (lambda: b'{"version": "1.0"}', 'no "model"'),
    "model_type": (lambda: damaged_hf("model_type"), 'unsupported model type "WordPiece"'),
    "pre_tokenizer": (lambda: damaged_hf("pre_tokenizer"), 'unsupported pre_tokenizer type "UnicodeScripts"'),
    "normalizer": (lambda: damaged_hf("normalizer"), 'unsupported normalizer type "NFKD"'),
    "regex": (lambda: damaged_hf("regex"), "bad regex"),
    "merge": (lambda: damaged_hf("merge"), "not in the vocabulary"),
    "vocab": (lambda: damaged_hf("vocab"), "model.vocab is not an object"),
    "added_tokens": (lambda: damaged_hf("added_tokens"), "an added token's id is not an integer"),
    "float_id": (lambda: damaged_hf("float_id"), "the vocabulary id of token a is not an integer"),
}
OTHER_CASES = {
    "tiktoken_bad_base64": ("tiktoken", lambda: b"!!!! 0\n", "not valid base64"),
    "tiktoken_no_rank": ("tiktoken", lambda: b"YQ==\n", "no space"),
    "tiktoken_bad_rank": ("tiktoken", lambda: b"YQ== x1\n", "bad rank"),
    "tiktoken_duplicate": ("tiktoken", lambda: b"YQ== 0\nYQ== 1\n", "repeated token"),
    "tiktoken_empty": ("tiktoken", lambda: b"", "has no tokens"),
    "tekken_truncated": ("tekken", lambda: (TOK / "tekken.json").read_bytes()[:3000], "not a tekken.json"),
    "tekken_hf_json": ("tekken", lambda: (TOK / "bytelevel.json").read_bytes(), "not a tekken.json"),
    "tekken_rank": ("tekken", lambda: damaged_tekken("rank"), "vocab entry 300 has rank 7"),
    "tekken_base64": ("tekken", lambda: damaged_tekken("base64"), "token_bytes is not valid base64"),
    "tekken_no_bos": ("tekken", lambda: damaged_tekken("no_bos"), "no <s> or </s>"),
    "tekken_special_rank": ("tekken", lambda: damaged_tekken("special_rank"), "past the 1000 reserved ids"),
    "tekken_pattern": ("tekken", lambda: damaged_tekken("pattern"), "the pattern does not compile"),
    "tekken_no_config": ("tekken", lambda: damaged_tekken("no_config"), "not a tekken.json"),
    "tekken_sizes": ("tekken", lambda: damaged_tekken("sizes"), "1000 special tokens in a vocabulary of 10"),
    "sp_truncated": ("sp", lambda: damaged_sp("truncated"), "not a SentencePiece model"),
    "sp_garbage": ("sp", lambda: damaged_sp("garbage"), "not a SentencePiece model"),
    "sp_json": ("sp", lambda: (TOK / "bytelevel.json").read_bytes(), "not a SentencePiece model"),
    # found by tokenizer_fuzzer: a byte piece "<0x-5>" indexed a 256-entry table out of bounds
    "sp_byte_piece": ("sp", lambda: damaged_sp("byte_piece"), "byte_fallback without the 256 byte pieces"),
    "llama2c_truncated": ("llama2c", lambda: (TOK / "llama2c.bin").read_bytes()[:3000], "truncated"),
    "llama2c_header": ("llama2c", lambda: b"\x01\x02", "shorter than its 16-byte header"),
    "llama2c_bad_header": ("llama2c", lambda: b"\xff" * 64, "bad header"),
}


def assert_clean_error(done: subprocess.CompletedProcess[str], message: str) -> None:
    assert done.returncode == 1, (done.returncode, done.stderr)  # not a signal, not an exception
    assert "error: cannot load" in done.stderr and message in done.stderr, done.stderr


@pytest.mark.parametrize("case", sorted(HF_CASES))
def test_damaged_tokenizer_json(tokenizer_app: Path, tmp_path: Path, case: str) -> None:
    content, message = HF_CASES[case]
    path = tmp_path / "tokenizer.json"
    path.write_bytes(content())
    assert_clean_error(tokenize(tokenizer_app, "hf", path, "Hello", tmp_path), message)


@pytest.mark.parametrize("case", sorted(OTHER_CASES))
def test_damaged_tokenizer_files(tokenizer_app: Path, tmp_path: Path, case: str) -> None:
    kind, content, message = OTHER_CASES[case]
    path = tmp_path / "tokenizer.bin"
    path.write_bytes(content())
    assert_clean_error(tokenize(tokenizer_app, kind, path, "Hello", tmp_path), message)


@pytest.mark.parametrize("kind", ["hf", "tiktoken", "tekken", "sp", "llama2c"])
def test_missing_file(tokenizer_app: Path, tmp_path: Path, kind: str) -> None:
    assert_clean_error(tokenize(tokenizer_app, kind, tmp_path / "missing", "Hello", tmp_path), "cannot open")


def test_directory_without_tokenizer_json(tokenizer_app: Path, tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    assert_clean_error(tokenize(tokenizer_app, "hf", tmp_path / "empty", "Hello", tmp_path), "no tokenizer.json")


def test_unsupported_sentencepiece_normalization(tokenizer_app: Path, tmp_path: Path) -> None:
    """A model with a precompiled charsmap (nmt_nfkc) is refused, naming the rule."""
    spm = pytest.importorskip("sentencepiece")
    sys.path.insert(0, str(REPO / "scripts"))
    import io

    from make_tokenizer_fixtures import corpus

    model = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(corpus()),
        model_writer=model,
        model_type="bpe",
        vocab_size=300,
        minloglevel=2,
        hard_vocab_limit=False,
        normalization_rule_name="nmt_nfkc",
    )
    path = tmp_path / "nfkc.model"
    path.write_bytes(model.getvalue())
    assert_clean_error(tokenize(tokenizer_app, "sp", path, "Hello", tmp_path), 'normalization rule "nmt_nfkc"')


def test_references_match_the_installed_packages() -> None:
    """reference.json is what the packages give now (skipped where they are not installed)."""
    for module in ("tokenizers", "tiktoken", "sentencepiece"):
        pytest.importorskip(module)
    sys.path.insert(0, str(REPO / "scripts"))
    import make_tokenizer_fixtures as make

    ranks = {}
    for line in (TOK / "tiktoken.model").read_text().splitlines():
        token, rank = line.split()
        import base64

        ranks[base64.b64decode(token)] = int(rank)
    fresh = make.references(make.parity_texts(), ranks)
    assert fresh["texts"] == TEXTS
    for name, entry in ENTRIES.items():
        assert fresh["tokenizers"][name] == entry, name


def test_fixtures_are_small() -> None:
    total = sum(p.stat().st_size for p in TOK.rglob("*") if p.is_file())
    assert total < 2 * 1024 * 1024
    assert shutil.which("cmake")
