"""Checks run INSIDE a fresh virtual environment that has only the executorch wheel (and numpy) installed.

Usage: python python_checks.py FIXTURES_DIR PLUGIN_LIB CHECK...
Runs from a temporary directory; prints one line per check and "N passed, M failed".
"""

from __future__ import annotations

import ctypes
import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

FIXTURES = Path(sys.argv[1])
PLUGIN = Path(sys.argv[2])
CHECKS: dict[str, Callable[[], None]] = {}


def check(fn: Callable[[], None]) -> Callable[[], None]:
    CHECKS[fn.__name__] = fn
    return fn


@check
def fixtures_match() -> None:
    from executorch.runtime import Runtime

    manifest = json.loads((FIXTURES / "manifest.json").read_text())
    runtime = Runtime.get()
    count = 0
    for fx in manifest["fixtures"]:
        program = runtime.load_program(FIXTURES / fx["files"]["portable"])
        assert program.method_names == set(fx["methods"]), program.method_names
        for name, spec in fx["methods"].items():
            method = program.load_method(name)
            for case in spec["cases"]:
                outs = method.execute([np.load(FIXTURES / i["file"]) for i in case["inputs"]])
                for got, ref_spec in zip(outs, case["outputs"], strict=True):
                    ref = np.load(FIXTURES / ref_spec["file"])
                    assert got.dtype == ref.dtype and got.shape == ref.shape, (fx["name"], got.shape, ref.shape)
                    np.testing.assert_allclose(got, ref, atol=fx["atol"], rtol=fx["rtol"])
                    count += 1
    assert count > 20


@check
def quantized_programs() -> None:
    # Quantized programs from Python: the XNNPACK q8 and portable q8 ones (the latter through the quantized kernels
    # library, which the wheel ships and operator_names lists) match upstream's outputs within one output step.
    from executorch.runtime import Runtime

    root = FIXTURES / "quantized"
    manifest = json.loads((root / "manifest.json").read_text())
    runtime = Runtime.get()
    assert "quantized_decomposed::quantize_per_tensor.out" in runtime.operator_registry.operator_names
    count = 0
    for fx in manifest["fixtures"]:
        for variant, pte in fx["files"].items():
            if pte is None:
                continue
            method = runtime.load_program(root / pte).load_method("forward")
            case = fx["methods"]["forward"]["cases"][0]
            got = method.execute([np.load(root / i["file"]) for i in case["inputs"]])[0]
            ref = np.load(root / case["outputs"][variant][0]["file"])
            scale = (fx.get("output_scale") or {}).get(variant)
            atol = scale * 1.001 if scale else 1e-5 * max(1.0, float(np.abs(ref).max()))
            np.testing.assert_allclose(got, ref, atol=atol, rtol=0, err_msg=f"{fx['name']} {variant}")
            count += 1
    assert count >= 15, count


@check
def bytes_and_paths() -> None:
    from executorch.runtime import Runtime

    pte = FIXTURES / "add_mul" / "portable.pte"
    runtime = Runtime.get()
    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    a = runtime.load_program(pte.read_bytes()).load_method("forward").execute([x])[0]
    b = runtime.load_program(str(pte)).load_method("forward").execute([x])[0]
    c = runtime.load_program(pte).load_method("forward")([memoryview(x)])[0]
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(a, c)
    # Outputs are copies: the next call does not change them.
    method = runtime.load_program(pte).load_method("forward")
    first = method.execute([x])[0]
    saved = first.copy()
    method.execute([x + 100])
    np.testing.assert_array_equal(first, saved)


@check
def metadata() -> None:
    from executorch.runtime import Runtime

    program = Runtime.get().load_program(FIXTURES / "dynamic_batch" / "portable.pte")
    meta = program.load_method("forward").metadata
    assert meta.num_inputs() == 1 and meta.inputs[0].dtype == "float32"
    assert meta.inputs[0].dynamic and meta.inputs[0].shape[0] == 8, meta
    assert meta.input_names == ["input0"] and meta.output_names == ["output0"]
    assert program.metadata("forward") == meta


@check
def errors_carry_codes() -> None:
    from executorch.runtime import ExecuTorchError, Runtime

    runtime = Runtime.get()
    method = runtime.load_program(FIXTURES / "add_mul" / "portable.pte").load_method("forward")
    cases: list[tuple[Callable[[], object], int, str]] = [
        (lambda: method.execute([np.zeros((2, 4), np.int64)]), 0x12, "dtype"),
        (lambda: method.execute([np.zeros((3, 4), np.float32)]), 0x12, "shape"),
        (lambda: method.execute([]), 0x12, "takes 1 inputs"),
        (lambda: runtime.load_program(b"not a program at all").load_method("forward"), 0x23, "not an ExecuTorch"),
        (lambda: runtime.load_program(FIXTURES / "mlp" / "portable.pte").load_method("nope"), 0x12, "has no method"),
        (lambda: runtime.load_program("/nonexistent.pte"), 0x22, "cannot open"),
    ]
    for fn, code, text in cases:
        try:
            fn()
        except ExecuTorchError as e:
            assert e.code == code and text in str(e), (code, e)
        else:
            raise AssertionError(f"no error for {text}")


@check
def missing_operator_names_package() -> None:
    # Run with EXECUTORCH_COMPONENT_DIR pointing at an empty directory (set by the test).
    from executorch.runtime import ExecuTorchError, Runtime

    try:
        Runtime.get().load_program(FIXTURES / "mlp" / "portable.pte").load_method("forward")
    except ExecuTorchError as e:
        assert e.code == 0x14 and "executorch-kernels" in str(e) and "aten::addmm.out" in str(e), e
    else:
        raise AssertionError("the method loaded without the kernels library")


@check
def inputs_from_dlpack_and_buffers() -> None:
    from executorch.runtime import Runtime

    method = Runtime.get().load_program(FIXTURES / "add_mul" / "portable.pte").load_method("forward")
    x = np.arange(8, dtype=np.float32).reshape(2, 4)

    class DLPackOnly:
        def __init__(self, a: np.ndarray) -> None:
            self._a = a

        def __dlpack__(self, **kwargs: object) -> object:
            return self._a.__dlpack__(**kwargs)

        def __dlpack_device__(self) -> tuple[int, int]:
            return self._a.__dlpack_device__()

    ref = method.execute([x])[0]
    np.testing.assert_array_equal(method.execute([DLPackOnly(x)])[0], ref)
    np.testing.assert_array_equal(method.execute([x.T.copy().T])[0], ref)  # Fortran-ordered input


@check
def one_registry_with_plugin() -> None:
    import executorch
    from executorch.runtime import Runtime

    runtime = Runtime.get()
    executorch.load_library(PLUGIN)
    assert "PluginTestBackend" in runtime.backend_registry.registered_backend_names
    assert runtime.backend_registry.is_available("PluginTestBackend")
    assert "my_ops::scale.out" in runtime.operator_registry.operator_names
    # C++ code in the same process (the plugin) sees the same registries...
    plugin = ctypes.CDLL(str(PLUGIN))
    plugin.plugin_has_operator.argtypes = [ctypes.c_char_p]
    assert plugin.plugin_registered() == 1
    assert plugin.plugin_has_operator(b"aten::addmm.out") == 1  # registered by the kernels library
    assert plugin.plugin_num_backends() == len(runtime.backend_registry.registered_backend_names)
    # ...and what C++ registers, Python sees.
    assert plugin.plugin_register_negate() == 1
    assert "my_ops::negate.out" in runtime.operator_registry.operator_names
    # A program using the custom operator runs.
    program = runtime.load_program(PLUGIN.parent / "custom_op.pte")
    x = np.load(PLUGIN.parent / "custom_op_in0.npy")
    out = program.load_method("forward").execute([x])[0]
    np.testing.assert_allclose(out, np.load(PLUGIN.parent / "custom_op_out0.npy"), rtol=1e-6, atol=1e-6)
    # Every libexecutorch* is mapped from exactly one file.
    maps: dict[str, set[str]] = {}
    for line in Path("/proc/self/maps").read_text().splitlines():
        parts = line.split()
        if len(parts) >= 6 and "/libexecutorch" in parts[-1]:
            name = Path(parts[-1]).name
            maps.setdefault(name.split(".so")[0], set()).add(parts[-1])
    assert {"libexecutorch", "libexecutorch_threadpool", "libexecutorch_kernels"} <= maps.keys(), maps
    assert all(len(paths) == 1 for paths in maps.values()), maps


@check
def thread_pool() -> None:
    from executorch import _C
    from executorch.runtime import Runtime

    runtime = Runtime.get()
    runtime.set_thread_count(2)
    assert runtime.thread_count == 2 and _C.num_threadpools() == 1


@check
def llm_generation() -> None:
    # executorch.llm over upstream's export_llama programs (tests/fixtures/llm): the prefill and every greedy
    # decode step reproduce upstream's logits, so the tokens are upstream's; the KV cache lives across calls.
    from executorch.llm import GenerationConfig, TextLLMRunner

    root = FIXTURES / "llm"
    manifest = json.loads((root / "manifest.json").read_text())
    for variant, spec in manifest["variants"].items():
        runner = TextLLMRunner(root / spec["program"], root / manifest["tokenizer"])
        assert runner.max_context_len == manifest["max_seq_len"]
        assert runner.vocab_size == manifest["params"]["vocab_size"]
        assert runner.encode_prompt(manifest["prompt"]) == manifest["prompt_tokens"]
        seen: list[np.ndarray] = []
        cfg = GenerationConfig(max_new_tokens=manifest["decode_steps"] + 1, stop_on_eos=False)
        tokens = list(runner.generate_tokens(manifest["prompt_tokens"], cfg, logits_callback=seen.append))
        assert tokens == spec["greedy_tokens"], (variant, tokens, spec["greedy_tokens"])
        ref = np.load(root / spec["logits"])
        np.testing.assert_allclose(np.stack(seen), ref, atol=1e-4, rtol=0, err_msg=variant)
        # Streaming text is the tokenizer's decoding of those tokens; sampling with a seed repeats itself.
        text = "".join(runner.generate(manifest["prompt"], cfg))
        assert text == spec["greedy_text"], (text, spec["greedy_text"])
        sampled = GenerationConfig(max_new_tokens=6, temperature=0.8, top_p=0.9, seed=7)
        assert list(runner.generate_tokens(manifest["prompt_tokens"], sampled)) == list(
            runner.generate_tokens(manifest["prompt_tokens"], sampled)
        )
        assert runner.stats.generated_tokens >= 1 and runner.stats.prefill_tokens_per_s > 0


@check
def llm_cli() -> None:
    root = FIXTURES / "llm"
    manifest = json.loads((root / "manifest.json").read_text())
    spec = manifest["variants"]["kv_sdpa_xnnpack"]
    n = manifest["decode_steps"] + 1
    cmd = [sys.executable, "-m", "executorch.llm", "--model", str(root / spec["program"])]
    cmd += ["--tokenizer", str(root / manifest["tokenizer"]), "--prompt", manifest["prompt"]]
    cmd += ["--max-new-tokens", str(n)]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == spec["greedy_text"].strip(), proc.stdout
    assert re.search(r"prefill [0-9.]+ tokens/s, decode [0-9.]+ tokens/s", proc.stderr), proc.stderr
    # An over-long prompt is refused before anything runs, naming the limit.
    long_prompt = [*cmd[:-4], "--prompt", "the river " * 40]
    proc = subprocess.run(long_prompt, capture_output=True, text=True, check=False)
    assert proc.returncode == 2 and "shorten the prompt" in proc.stderr and "48" in proc.stderr, proc.stderr


@check
def llm_errors() -> None:
    from executorch.llm import LLMError, TextLLMRunner

    root = FIXTURES / "llm"
    manifest = json.loads((root / "manifest.json").read_text())
    pte = root / manifest["variants"]["kv_portable"]["program"]

    class WrongVocab:
        vocab_size, bos_id, eos_ids = 32000, 1, {2}

        def encode(self, text: str) -> list[int]:
            return [3]

        def decode(self, ids: object) -> str:
            return ""

    for bad, text in (
        (lambda: TextLLMRunner(pte, WrongVocab()), "use the tokenizer the model was exported with"),
        (lambda: TextLLMRunner(pte, root / "missing.model"), "does not exist"),
        (lambda: TextLLMRunner(FIXTURES / "mlp" / "portable.pte", root / manifest["tokenizer"]), "takes 1 inputs"),
    ):
        try:
            bad()
        except LLMError as e:
            assert text in str(e), e
        else:
            raise AssertionError(f"no error for {text}")


def main() -> int:
    passed = failed = 0
    for name in sys.argv[3:]:
        try:
            CHECKS[name]()
        except Exception as e:  # report every failing check, not just the first
            failed += 1
            print(f"FAIL {name}: {type(e).__name__}: {e}")
        else:
            passed += 1
            print(f"ok {name}")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
