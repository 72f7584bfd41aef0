"""Text generation with LLM programs exported by upstream's ``export_llama`` (or optimum-executorch).

    from executorch.llm import TextLLMRunner, GenerationConfig
    runner = TextLLMRunner("llama.pte", "tokenizer.model")
    for piece in runner.generate("Once upon a time", GenerationConfig(max_new_tokens=64)):
        print(piece, end="", flush=True)
    print(runner.stats)

The program is the usual KV-cache export: ``forward(tokens int64[1, n], input_pos int64[1]) -> logits``, the
cache kept in the program's mutable buffers between calls, and metadata methods (``get_max_seq_len``,
``get_max_context_len``, ``get_vocab_size``, ``use_kv_cache``, ``enable_dynamic_shape``, ``get_bos_id``,
``get_eos_ids``, ...). The prompt is prefilled in one call when the program has a dynamic sequence length
(chunked to its bound), token by token otherwise. Sampling is greedy at temperature 0, otherwise temperature +
top-p with a seeded generator.

Tokenizers: Mistral's ``tekken.json``, a Hugging Face ``tokenizer.json``, a tiktoken file, a SentencePiece
``.model`` or a llama2.c ``tokenizer.bin``, read by the C++ tokenizers of libexecutorch_llm
(``executorch.tokenizers``; no Python tokenizer package is needed).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from executorch.runtime import ExecuTorchError, Method, Program, Runtime

__all__ = [
    "GenerationConfig",
    "LLMError",
    "Stats",
    "TextLLMRunner",
    "Tokenizer",
    "load_tokenizer",
]


class LLMError(ValueError):
    """A model, tokenizer or request that cannot work together (the message says what to change)."""


class Tokenizer(Protocol):
    vocab_size: int
    bos_id: int
    eos_ids: set[int]

    def encode(self, text: str) -> list[int]: ...

    def decode(self, ids: Sequence[int]) -> str: ...


class _NativeTokenizer:
    """A tokenizer of executorch.tokenizers (the C++ tokenizers) with this module's Tokenizer interface."""

    def __init__(self, path: Path) -> None:
        from executorch import tokenizers

        try:
            self._tok = tokenizers.load_tokenizer(str(path))
        except RuntimeError as e:
            raise LLMError(str(e)) from e
        self.vocab_size = int(self._tok.vocab_size())
        self.bos_id = int(self._tok.bos_tok())
        self.eos_ids = {int(self._tok.eos_tok())}

    def encode(self, text: str) -> list[int]:
        try:
            return [int(t) for t in self._tok.encode(text, 0, 0)]
        except RuntimeError as e:
            raise LLMError(str(e)) from e

    def decode(self, ids: Sequence[int]) -> str:
        try:
            return str(self._tok.decode_tokens([int(i) for i in ids]))
        except RuntimeError as e:
            raise LLMError(str(e)) from e


def load_tokenizer(path: str | os.PathLike[str]) -> Tokenizer:
    """Mistral's ``tekken.json``, a Hugging Face ``tokenizer.json`` (or its directory), a tiktoken file, a
    SentencePiece ``.model`` or a llama2.c ``tokenizer.bin``, read by the C++ tokenizers (upstream's probing order)."""
    p = Path(path)
    if not p.exists():
        raise LLMError(f"tokenizer file {p} does not exist")
    return _NativeTokenizer(p)


@dataclass
class GenerationConfig:
    """How to generate. ``max_new_tokens`` and ``seq_len`` (prompt + generated, default: the model's context)
    bound the length; ``temperature`` 0 is greedy; ``top_p`` < 1 samples from the smallest set of tokens whose
    probabilities add up to it; ``seed`` makes sampling repeatable; ``echo`` yields the prompt first."""

    max_new_tokens: int = 128
    seq_len: int | None = None
    temperature: float = 0.0
    top_p: float = 1.0
    seed: int | None = None
    echo: bool = False
    stop_on_eos: bool = True


@dataclass
class Stats:
    """Timings of the last ``generate`` (seconds) and token counts."""

    model_load_s: float = 0.0
    prompt_tokens: int = 0
    generated_tokens: int = 0
    time_to_first_token_s: float = 0.0
    prefill_s: float = 0.0
    decode_s: float = 0.0
    token_ids: list[int] = field(default_factory=list)

    @property
    def prefill_tokens_per_s(self) -> float:
        return self.prompt_tokens / self.prefill_s if self.prefill_s > 0 else 0.0

    @property
    def decode_tokens_per_s(self) -> float:
        # The first generated token comes from the prefill; each later one from a decode step.
        steps = max(self.generated_tokens - 1, 0)
        return steps / self.decode_s if self.decode_s > 0 else 0.0

    def __str__(self) -> str:
        return (
            f"prompt {self.prompt_tokens} tokens, generated {self.generated_tokens}; "
            f"time to first token {self.time_to_first_token_s * 1e3:.1f} ms; "
            f"prefill {self.prefill_tokens_per_s:.1f} tokens/s, decode {self.decode_tokens_per_s:.1f} tokens/s"
        )


def _metadata(program: Program, name: str, default: Any) -> Any:
    if name not in program.method_names:
        return default
    out = program.load_method(name).execute([])
    if not out:
        return default
    return out if len(out) > 1 else out[0]


class TextLLMRunner:
    """A text-generation loop over one loaded LLM program (not thread-safe: one runner per thread)."""

    def __init__(
        self,
        model: str | os.PathLike[str],
        tokenizer: str | os.PathLike[str] | Tokenizer,
        method: str = "forward",
    ) -> None:
        t0 = time.perf_counter()
        self.program = Runtime.get().load_program(model)
        if method not in self.program.method_names:
            raise LLMError(f"{model} has no method {method!r} (it has {sorted(self.program.method_names)})")
        self.tokenizer: Tokenizer = (
            load_tokenizer(tokenizer) if isinstance(tokenizer, (str, os.PathLike)) else tokenizer
        )
        p = self.program
        self.max_seq_len = int(_metadata(p, "get_max_seq_len", 128))
        self.max_context_len = int(_metadata(p, "get_max_context_len", self.max_seq_len))
        self.vocab_size = int(_metadata(p, "get_vocab_size", self.tokenizer.vocab_size))
        self.use_kv_cache = bool(_metadata(p, "use_kv_cache", True))
        self.enable_dynamic_shape = bool(_metadata(p, "enable_dynamic_shape", False))
        bos = _metadata(p, "get_bos_id", self.tokenizer.bos_id)
        self.bos_id = int(bos)
        eos = _metadata(p, "get_eos_ids", None)
        if eos is None:
            self.eos_ids = set(self.tokenizer.eos_ids)
        else:
            self.eos_ids = {int(e) for e in (eos if isinstance(eos, (list, tuple)) else [eos])}
        if not self.use_kv_cache:
            raise LLMError(f"{model} was exported without a KV cache (use_kv_cache is false): export it with -kv")
        if self.tokenizer.vocab_size != self.vocab_size:
            raise LLMError(
                f"the tokenizer has {self.tokenizer.vocab_size} tokens but the model's vocabulary is "
                f"{self.vocab_size}: use the tokenizer the model was exported with"
            )
        meta = p.metadata(method)
        if meta.num_inputs() != 2:
            raise LLMError(
                f"{model}: method {method!r} takes {meta.num_inputs()} inputs; expected (tokens, input_pos) "
                "as export_llama -kv writes"
            )
        # The largest number of tokens one call takes (the tokens input's bound).
        shape = meta.inputs[0].shape or (1,)
        self.max_tokens_per_call = int(shape[-1]) if self.enable_dynamic_shape else 1
        self._method: Method = p.load_method(method)
        self.stats = Stats(model_load_s=time.perf_counter() - t0)

    def _step(self, tokens: Sequence[int], pos: int) -> Any:
        import numpy as np

        out = self._method.execute([np.asarray([tokens], np.int64), np.asarray([pos], np.int64)])
        logits = out[0]
        return logits.reshape(-1, logits.shape[-1])[-1].astype(np.float32)

    def prefill(self, tokens: Sequence[int], start_pos: int = 0) -> Any:
        """Feeds ``tokens`` at positions start_pos.. and returns the logits after the last one."""
        logits = None
        pos = start_pos
        step = self.max_tokens_per_call
        for i in range(0, len(tokens), step):
            chunk = list(tokens[i : i + step])
            logits = self._step(chunk, pos)
            pos += len(chunk)
        return logits

    def encode_prompt(self, prompt: str) -> list[int]:
        ids = self.tokenizer.encode(prompt)
        return [self.bos_id, *ids] if self.bos_id >= 0 else ids

    def generate_tokens(
        self,
        prompt_tokens: Sequence[int],
        config: GenerationConfig | None = None,
        logits_callback: Callable[[Any], None] | None = None,
    ) -> Iterator[int]:
        """Yields generated token ids (prefill first, then one decode step per token)."""
        import numpy as np

        cfg = config or GenerationConfig()
        limit = min(cfg.seq_len or self.max_context_len, self.max_context_len)
        n = len(prompt_tokens)
        if n == 0:
            raise LLMError("the prompt is empty")
        if n >= limit:
            raise LLMError(
                f"the prompt has {n} tokens, but the model's context holds {self.max_context_len} "
                f"(limit {limit}, and one more position is needed to generate): shorten the prompt"
            )
        rng = np.random.default_rng(cfg.seed)
        stats = self.stats = Stats(model_load_s=self.stats.model_load_s, prompt_tokens=n)
        t0 = time.perf_counter()
        logits = self.prefill(prompt_tokens)
        stats.prefill_s = time.perf_counter() - t0
        pos = n
        t_decode = time.perf_counter()
        while True:
            if logits_callback is not None:
                logits_callback(logits)
            tok = self._sample(logits, cfg, rng)
            stats.generated_tokens += 1
            stats.token_ids.append(tok)
            if stats.generated_tokens == 1:
                stats.time_to_first_token_s = time.perf_counter() - t0
                t_decode = time.perf_counter()
            yield tok
            if (cfg.stop_on_eos and tok in self.eos_ids) or stats.generated_tokens >= cfg.max_new_tokens:
                break
            if pos + 1 > limit:
                break
            logits = self._step([tok], pos)
            pos += 1
            stats.decode_s = time.perf_counter() - t_decode

    @staticmethod
    def _sample(logits: Any, cfg: GenerationConfig, rng: Any) -> int:
        import numpy as np

        if cfg.temperature <= 0:
            return int(np.argmax(logits))
        z = logits.astype(np.float64) / cfg.temperature
        z -= z.max()
        probs = np.exp(z)
        probs /= probs.sum()
        if cfg.top_p < 1.0:
            order = np.argsort(-probs, kind="stable")
            cum = np.cumsum(probs[order])
            keep = order[: int(np.searchsorted(cum, cfg.top_p) + 1)]
            mask = np.zeros_like(probs)
            mask[keep] = probs[keep]
            probs = mask / mask.sum()
        return int(rng.choice(len(probs), p=probs))

    def generate(self, prompt: str, config: GenerationConfig | None = None) -> Iterator[str]:
        """Yields the generated text piece by piece (the prompt first with ``echo``); stats in ``self.stats``."""
        cfg = config or GenerationConfig()
        if cfg.echo:
            yield prompt
        prompt_tokens = self.encode_prompt(prompt)
        generated: list[int] = []
        text = ""
        for tok in self.generate_tokens(prompt_tokens, cfg):
            if tok in self.eos_ids:
                continue
            generated.append(tok)
            # Decoding the whole continuation keeps word-joining pieces (SentencePiece's leading space) right.
            full = self.tokenizer.decode(generated)
            if len(full) > len(text) and full.startswith(text):
                yield full[len(text) :]
                text = full
            elif full != text:
                text = full


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m executorch.llm``: stream a completion of a prompt, then print a stats line."""
    import argparse
    import sys

    ap = argparse.ArgumentParser(prog="python -m executorch.llm", description=main.__doc__)
    ap.add_argument("--model", required=True, help="the .pte program (export_llama -kv)")
    ap.add_argument("--tokenizer", required=True, help="tokenizer.model (SentencePiece) or tokenizer.json")
    ap.add_argument("--prompt", required=True)
    ap.add_argument("--max-new-tokens", type=int, default=128)
    ap.add_argument("--seq-len", type=int, default=None, help="prompt + generated tokens at most")
    ap.add_argument("--temperature", type=float, default=0.0, help="0: greedy")
    ap.add_argument("--top-p", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--echo", action="store_true", help="print the prompt first")
    args = ap.parse_args(argv)
    try:
        runner = TextLLMRunner(args.model, args.tokenizer)
        cfg = GenerationConfig(
            max_new_tokens=args.max_new_tokens,
            seq_len=args.seq_len,
            temperature=args.temperature,
            top_p=args.top_p,
            seed=args.seed,
            echo=args.echo,
        )
        for piece in runner.generate(args.prompt, cfg):
            sys.stdout.write(piece)
            sys.stdout.flush()
    except (LLMError, ExecuTorchError, OSError) as e:
        print(f"\nerror: {e}", file=sys.stderr)
        return 2
    sys.stdout.write("\n")
    print(runner.stats, file=sys.stderr)
    return 0
