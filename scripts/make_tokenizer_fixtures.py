"""Writes the tokenizer fixtures of tests/test_tokenizers.py into tests/fixtures/tokenizers (deterministic).

Made with the PyPI packages `tokenizers`, `tiktoken` and `sentencepiece` only (requirements-dev.txt), trained on
the corpus below; nothing is downloaded. Writes:

  bytelevel.json        Hugging Face byte-level BPE (Llama 3's Split regex + ByteLevel, TemplateProcessing)
  metaspace/            Hugging Face BPE, Llama 2 / Mistral style (Prepend + Replace normalizers, byte_fallback,
                        Replace/ByteFallback/Fuse/Strip decoders), with a tokenizer_config.json naming BOS / EOS
  tiktoken.model        tiktoken's "<base64 token> <rank>" file of bytelevel.json's vocabulary
  tekken.json           Mistral's Tekken layout of tiktoken.model's ranks (the last TEKKEN_DROPPED left out by
                        default_vocab_size), Tekken's pattern, 1000 special-token slots
  sp_bpe.model          SentencePiece BPE (byte_fallback, identity normalization, extra whitespace kept)
  sp_bpe_ws.model       the same with remove_extra_whitespaces (SentencePiece's default)
  llama2c.bin           sp_bpe.model in llama2.c's tokenizer.bin format (upstream tokenizers' converter layout)
  parity.txt            the parity text (multilingual, code, emoji, whitespace runs, special-token strings)
  reference.json        the packages' token ids and decoded text of each fixture for each parity text

Run: .venv/bin/python scripts/make_tokenizer_fixtures.py
"""

# ruff: noqa: RUF001  (the corpus and the parity text are multilingual on purpose)
from __future__ import annotations

import base64
import json
import struct
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "tokenizers"

LLAMA3_PATTERN = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+"
    r"|\s+(?!\S)|\s+"
)
# Mistral's Tekken: its pre-tokenization pattern (tekken.json's config), its reserved special-token slots, and
# the special tokens a v7 file lists (mistral-common gives the rest of the slots "<SPECIAL_i>").
TEKKEN_PATTERN = (
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+"
    r"|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*|\p{N}"
    r"| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)
TEKKEN_SPECIAL = 1000
TEKKEN_TOKENS = ["<unk>", "<s>", "</s>", "[INST]", "[/INST]", "[AVAILABLE_TOOLS]", "[/AVAILABLE_TOOLS]"]
TEKKEN_DROPPED = 64

SPECIAL_TOKENS = [
    "<|begin_of_text|>",
    "<|end_of_text|>",
    "<|start_header_id|>",
    "<|end_header_id|>",
    "<|eot_id|>",
    "<|python_tag|>",
]

CORPUS = [
    "The quick brown fox jumps over the lazy dog. It's what we've done, they'll say, and I'm sure you'd agree.",
    "Tokenizers split text into pieces; byte-pair encoding merges the most frequent pairs first.",
    "def fibonacci(n: int) -> int:\n    if n < 2:\n        return n\n    return fibonacci(n - 1) + fibonacci(n - 2)\n",
    'for (int i = 0; i < 10; ++i) {\n\tprintf("%d\\n", i * 42);\n}\n',
    'const x = {"key": [1, 2, 3], "other": null};  // JSON-ish',
    "Numbers: 1234567890, 3.14159, 2024-06-01, 100%, $42.00, 0xFF, 1e-9.",
    "Café, naïve, façade, résumé, Ångström, crème brûlée, jalapeño, Øresund, Zürich.",
    "Привет, мир! Как дела? Съешь же ещё этих мягких французских булок, да выпей чаю.",
    "日本語のテキストも含まれています。東京は日本の首都です。",
    "中文文本：今天天气很好，我们去公园散步吧。机器学习和自然语言处理。",
    "한국어 문장도 있습니다. 안녕하세요!",
    "Emoji: 😀 😃 🎉 👍🏽 🇫🇷 👨‍👩‍👧‍👦 ❤️ 🚀✨",
    "Whitespace    runs,\ttabs,\t\tand\n\nnewlines   \n  indented lines\n",
    "Ελληνικά: Καλημέρα κόσμε. Arabic: مرحبا بالعالم. Hebrew: שלום עולם.",
    "Mixed CASE words, SHOUTING, camelCase, snake_case, kebab-case, PascalCase.",
    "the the the of of and and to to in in is is it it that that with with for for on on as as",
    "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore.",
]

PARITY_TEXT = """Hello, world! This is the parity text of the C++ tokenizers.
It's a test: we'll check that they've all got the same ids, don't you think?

<|begin_of_text|>A special token, then text<|end_of_text|> and <|eot_id|>after it.

def greet(name: str) -> str:
    return f"Hello, {name}!"   # trailing spaces\x20\x20\x20
\tif x == 1:\n\t\tpass

Numbers 12345 678 9, 3.14159265358979, -42, +7, 1,000,000.
Café naïve façade Ångström Zürich jalapeño — “quotes” and ‘single’ … ellipsis.
Привет, как дела? Ёжик в тумане.
東京タワーと富士山。中文：你好，世界！ 한국어 텍스트.
مرحبا بالعالم — Arabic text, right to left.
Emoji: 😀🎉 👍🏽 👨‍👩‍👧‍👦 🇯🇵 ❤️‍🔥 🧑🏿‍🚀.


Whitespace   runs    and	tabs		and
newlines


end.   """


def corpus() -> list[str]:
    return CORPUS * 3


def byte_level(out: Path) -> None:
    from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, pre_tokenizers, processors, trainers

    tok = Tokenizer(models.BPE(ignore_merges=True))
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(LLAMA3_PATTERN), behavior="isolated", invert=False),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=700,
        special_tokens=[AddedToken(t, special=True, normalized=False) for t in SPECIAL_TOKENS],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(corpus(), trainer)
    bos = tok.token_to_id("<|begin_of_text|>")
    tok.post_processor = processors.TemplateProcessing(
        single="<|begin_of_text|> $A", pair="<|begin_of_text|> $A $B", special_tokens=[("<|begin_of_text|>", bos)]
    )
    tok.save(str(out), pretty=True)


def metaspace(out_dir: Path) -> None:
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers

    tok = Tokenizer(models.BPE(unk_token="<unk>", byte_fallback=True, fuse_unk=True))
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always", split=True)
    trainer = trainers.BpeTrainer(
        vocab_size=900,
        special_tokens=["<unk>", "<s>", "</s>"] + [f"<0x{b:02X}>" for b in range(256)],
        show_progress=False,
    )
    tok.train_from_iterator(corpus(), trainer)
    # Llama 2 / Mistral's tokenizer.json: the spaces become "▁" in the normalizer, no pre-tokenizer.
    tok.normalizer = normalizers.Sequence([normalizers.Prepend("▁"), normalizers.Replace(" ", "▁")])
    tok.pre_tokenizer = None
    tok.decoder = decoders.Sequence(
        [decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse(), decoders.Strip(" ", 1, 0)]
    )
    tok.post_processor = processors.TemplateProcessing(
        single="<s> $A", pair="<s> $A $B", special_tokens=[("<s>", tok.token_to_id("<s>"))]
    )
    out_dir.mkdir(exist_ok=True)
    tok.save(str(out_dir / "tokenizer.json"), pretty=True)
    config = {"bos_token": "<s>", "eos_token": "</s>", "tokenizer_class": "LlamaTokenizer"}
    (out_dir / "tokenizer_config.json").write_text(json.dumps(config, indent=2) + "\n")


def bytes_to_unicode() -> dict[int, str]:
    """GPT-2's byte -> printable character table (the ByteLevel pre-tokenizer's)."""
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    table: dict[int, str] = {}
    extra = 0
    for b in range(256):
        if b in printable:
            table[b] = chr(b)
        else:
            table[b] = chr(256 + extra)
            extra += 1
    return table


def tiktoken_file(bytelevel_json: Path, out: Path) -> dict[bytes, int]:
    """tiktoken ranks of bytelevel.json's vocabulary: the tokens (not the special ones) in id order."""
    data = json.loads(bytelevel_json.read_text())
    char_to_byte = {c: b for b, c in bytes_to_unicode().items()}
    special = {t["id"] for t in data["added_tokens"]}
    ranks: dict[bytes, int] = {}
    for token, _id in sorted(data["model"]["vocab"].items(), key=lambda kv: kv[1]):
        if _id in special:
            continue
        ranks[bytes(char_to_byte[c] for c in token)] = len(ranks)
    lines = [f"{base64.b64encode(token).decode()} {rank}" for token, rank in ranks.items()]
    out.write_text("\n".join(lines) + "\n")
    return ranks


def tekken_ranks(ranks: dict[bytes, int], kept: bool = True) -> dict[bytes, int]:
    """tiktoken.model's ranks in Tekken's order (byte b at rank b, as mistral-common requires; the merges keep
    their ranks, so encoding is the same), and with `kept` only those default_vocab_size keeps: all but the last
    TEKKEN_DROPPED."""
    assert sorted(r for t, r in ranks.items() if len(t) == 1) == list(range(256))
    out = {t: (t[0] if len(t) == 1 else r) for t, r in ranks.items()}
    return {t: r for t, r in out.items() if not kept or r < len(ranks) - TEKKEN_DROPPED}


def tekken_file(ranks: dict[bytes, int], out: Path) -> None:
    """tekken.json as Mistral writes it (v7: config, vocab by rank with base64 bytes, special_tokens)."""
    vocab = []
    for token, rank in sorted(tekken_ranks(ranks, kept=False).items(), key=lambda kv: kv[1]):
        entry: dict[str, object] = {"rank": rank, "token_bytes": base64.b64encode(token).decode()}
        entry["token_str"] = token.decode() if token.isascii() else None
        vocab.append(entry)
    data = {
        "config": {
            "pattern": TEKKEN_PATTERN,
            "num_vocab_tokens": len(ranks),
            "default_vocab_size": TEKKEN_SPECIAL + len(tekken_ranks(ranks)),
            "default_num_special_tokens": TEKKEN_SPECIAL,
            "version": "v7",
        },
        "vocab": vocab,
        "special_tokens": [{"rank": i, "token_str": t, "is_control": True} for i, t in enumerate(TEKKEN_TOKENS)],
    }
    out.write_text(json.dumps(data, ensure_ascii=False) + "\n")


def sentencepiece_model(out: Path, remove_extra_whitespaces: bool) -> None:
    import io

    import sentencepiece as spm

    model = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(corpus()),
        model_writer=model,
        model_type="bpe",
        vocab_size=700,
        byte_fallback=True,
        normalization_rule_name="identity",
        remove_extra_whitespaces=remove_extra_whitespaces,
        character_coverage=0.995,
        num_threads=1,
        hard_vocab_limit=False,
        minloglevel=2,
    )
    out.write_bytes(model.getvalue())


def llama2c_file(sp_model: Path, out: Path) -> None:
    """tokenizer.bin as upstream tokenizers' llama2c converter writes it (header: vocab, bos, eos, max length)."""
    import sentencepiece as spm

    sp = spm.SentencePieceProcessor(model_file=str(sp_model))
    tokens: list[bytes] = []
    scores: list[float] = []
    for i in range(sp.get_piece_size()):
        piece = sp.id_to_piece(i)
        if i == sp.bos_id():
            piece = "<s>"
        elif i == sp.eos_id():
            piece = "</s>"
        tokens.append(piece.replace("▁", " ").encode("utf-8"))
        scores.append(sp.get_score(i))
    with out.open("wb") as f:
        f.write(struct.pack("IIII", len(tokens), sp.bos_id(), sp.eos_id(), max(len(t) for t in tokens)))
        for token, score in zip(tokens, scores, strict=True):
            f.write(struct.pack("fI", score, len(token)))
            f.write(token)


def parity_texts() -> list[str]:
    """The whole parity text and each of its paragraphs."""
    paragraphs = [p for p in PARITY_TEXT.split("\n\n") if p.strip()]
    return [PARITY_TEXT, *paragraphs]


def references(texts: list[str], ranks: dict[bytes, int]) -> dict[str, object]:
    import sentencepiece as spm
    import tiktoken
    from tokenizers import Tokenizer

    ref: dict[str, object] = {"texts": texts, "tokenizers": {}}
    entries: dict[str, object] = ref["tokenizers"]  # type: ignore[assignment]

    for name, path, kind in (("bytelevel", "bytelevel.json", "hf"), ("metaspace", "metaspace", "hf")):
        file = OUT / path / "tokenizer.json" if (OUT / path).is_dir() else OUT / path
        tok = Tokenizer.from_file(str(file))
        ids = [tok.encode(t, add_special_tokens=False).ids for t in texts]
        entries[name] = {
            "kind": kind,
            "path": path,
            "vocab_size": tok.get_vocab_size(with_added_tokens=True),
            "ids": ids,
            "decoded": [tok.decode(i, skip_special_tokens=False).encode().hex() for i in ids],
        }
    data = json.loads((OUT / "bytelevel.json").read_text())
    base = len(ranks)
    enc = tiktoken.Encoding(
        name="fixture",
        pat_str=LLAMA3_PATTERN,
        mergeable_ranks=ranks,
        special_tokens={t: base + i for i, t in enumerate(SPECIAL_TOKENS)},
    )
    assert data["added_tokens"][0]["content"] == SPECIAL_TOKENS[0]
    ids = [enc.encode(t, allowed_special="all") for t in texts]
    entries["tiktoken"] = {
        "kind": "tiktoken",
        "path": "tiktoken.model",
        "vocab_size": base + len(SPECIAL_TOKENS),
        "bos": base,
        "eos": base + 1,
        "ids": ids,
        "decoded": [enc.decode_bytes(i).hex() for i in ids],
    }
    # mistral-common's Tekkenizer is tiktoken over the kept ranks, ids shifted past the special slots (its encode
    # never reads special tokens in the text; the parity text has none of Tekken's).
    kept = tekken_ranks(ranks)
    enc = tiktoken.Encoding(name="tekken", pat_str=TEKKEN_PATTERN, mergeable_ranks=kept, special_tokens={})
    ids = [enc.encode(t, allowed_special=set(), disallowed_special=()) for t in texts]
    entries["tekken"] = {
        "kind": "tekken",
        "path": "tekken.json",
        "vocab_size": TEKKEN_SPECIAL + len(kept),
        "bos": TEKKEN_TOKENS.index("<s>"),
        "eos": TEKKEN_TOKENS.index("</s>"),
        "ids": [[i + TEKKEN_SPECIAL for i in seq] for seq in ids],
        "decoded": [enc.decode_bytes(i).hex() for i in ids],
    }
    for name, path, kind in (
        ("sp_bpe", "sp_bpe.model", "sp"),
        ("sp_bpe_ws", "sp_bpe_ws.model", "sp"),
        ("llama2c", "llama2c.bin", "llama2c"),
    ):
        model = "sp_bpe.model" if kind == "llama2c" else path
        sp = spm.SentencePieceProcessor(model_file=str(OUT / model))
        ids = [sp.encode(t) for t in texts]
        entries[name] = {
            "kind": kind,
            "path": path,
            "vocab_size": sp.get_piece_size(),
            "bos": sp.bos_id(),
            "eos": sp.eos_id(),
            "ids": ids,
            "decoded": [sp.decode(i).encode().hex() for i in ids],
        }
    return ref


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    byte_level(OUT / "bytelevel.json")
    metaspace(OUT / "metaspace")
    ranks = tiktoken_file(OUT / "bytelevel.json", OUT / "tiktoken.model")
    tekken_file(ranks, OUT / "tekken.json")
    sentencepiece_model(OUT / "sp_bpe.model", remove_extra_whitespaces=False)
    sentencepiece_model(OUT / "sp_bpe_ws.model", remove_extra_whitespaces=True)
    llama2c_file(OUT / "sp_bpe.model", OUT / "llama2c.bin")
    (OUT / "parity.txt").write_text(PARITY_TEXT)
    ref = references(parity_texts(), ranks)
    (OUT / "reference.json").write_text(json.dumps(ref, ensure_ascii=False, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
