"""Checks run INSIDE a fresh virtual environment that has only the executorch wheel (and numpy) installed.

Usage: python python_checks.py FIXTURES_DIR PLUGIN_LIB CHECK...
Runs from a temporary directory; prints one line per check and "N passed, M failed". FIXTURES_DIR/../upstream_compat
is a copy of tests/upstream_compat (unplanned_outputs.pte).
"""

from __future__ import annotations

import ctypes
import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

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
    assert meta.num_inputs() == 1 and meta.inputs[0].dtype_name == "float32" and meta.inputs[0].dtype() == 6
    assert meta.inputs[0].dynamic and meta.inputs[0].shape[0] == 8, meta
    assert meta.input_names == ["input0"] and meta.output_names == ["output0"]
    assert program.metadata("forward") == meta
    # Upstream's accessors and strings (as upstream 1.5.1 prints them for this program).
    info = "TensorInfo(sizes=[8, 6], dtype=Float, is_memory_planned=True, nbytes=192)"
    assert meta.name() == "forward" and meta.input_tensor_meta(0).sizes() == (8, 6) and repr(meta.inputs[0]) == info
    assert str(meta) == (
        f"MethodMeta(name='forward', num_inputs=1, input_tensor_meta=['{info}'], num_outputs=1, "
        "output_tensor_meta=['TensorInfo(sizes=[8, 5], dtype=Float, is_memory_planned=True, nbytes=160)'])"
    ), str(meta)
    for bad in (lambda: meta.input_tensor_meta(1), lambda: meta.output_tensor_meta(-1)):
        try:
            bad()
        except IndexError:
            pass
        else:
            raise AssertionError("no IndexError")
    # Non-tensor outputs print as their kind; methods load once per name.
    llm = Runtime.get().load_program(FIXTURES / "llm" / "kv_portable.pte")
    assert str(llm.metadata("get_bos_id")) == (
        "MethodMeta(name='get_bos_id', num_inputs=0, input_tensor_meta=[], num_outputs=1, output_tensor_meta=['Int'])"
    )
    assert llm.load_method("get_bos_id") is llm.load_method("get_bos_id")
    assert llm.load_method("get_bos_id", fresh=True) is not llm.load_method("get_bos_id")


def _ptd_manifest() -> list[dict[str, object]]:
    return json.loads((FIXTURES / "ptd" / "manifest.json").read_text())["fixtures"]


def _assert_close(got: object, ref_file: Path, atol: float, rtol: float, label: str) -> None:
    ref = np.load(ref_file)
    assert isinstance(got, np.ndarray) and got.dtype == ref.dtype and got.shape == ref.shape, (label, got, ref.shape)
    err = np.abs(got.astype(np.float64) - ref) - (atol + rtol * np.abs(ref.astype(np.float64)))
    assert float(err.max(initial=-1)) <= 0, (label, float(np.abs(got.astype(np.float64) - ref).max()))


def _run_ptd_cases(fx: dict[str, Any], run: Callable[[list[np.ndarray]], list[Any]], label: str) -> int:
    root = FIXTURES / "ptd"
    count = 0
    for n, case in enumerate(fx["methods"]["forward"]["cases"]):
        outs = run([np.load(root / i["file"]) for i in case["inputs"]])
        assert len(outs) == len(case["outputs"]), (label, n, len(outs))
        for got, ref in zip(outs, case["outputs"], strict=True):
            _assert_close(got, root / ref["file"], fx["atol"], fx["rtol"], f"{label} case {n}")
            count += 1
    return count


@check
def ptd_fixtures() -> None:
    # Every program of tests/fixtures/ptd with its data file(s), through executorch.runtime and through upstream's
    # portable_lib, from paths and from bytes; stateful fixtures run their cases in order on one method.
    from executorch.extension.pybindings import portable_lib as pl
    from executorch.runtime import Runtime

    root = FIXTURES / "ptd"
    runtime = Runtime.get()
    count = 0
    for fx in _ptd_manifest():
        pte = root / fx["program"]
        files = [root / f for f in fx["data_files"]]
        data_path: Any = files[0] if len(files) == 1 else files
        program = runtime.load_program(pte, data_path=data_path)
        assert program.method_names == set(fx["program_methods"]), program.method_names
        assert program.data_files == [str(f) for f in files], program.data_files
        count += _run_ptd_cases(fx, program.load_method("forward").execute, f"{fx['name']} runtime")
        in_memory = runtime.load_program(pte.read_bytes(), data_path=[f.read_bytes() for f in reversed(files)])
        count += _run_ptd_cases(fx, in_memory.load_method("forward").execute, f"{fx['name']} bytes")
        module = pl._load_for_executorch(str(pte), [str(f) for f in files] if len(files) > 1 else str(files[0]))
        count += _run_ptd_cases(fx, module.forward, f"{fx['name']} portable_lib")
        from_buffer = pl._load_for_executorch_from_buffer(pte.read_bytes(), [f.read_bytes() for f in files])
        count += _run_ptd_cases(fx, from_buffer.forward, f"{fx['name']} portable_lib buffer")
        method = pl._load_program(str(pte), data_path=data_path).load_method("forward")
        count += _run_ptd_cases(fx, method.call, f"{fx['name']} _load_program")
    assert count >= 7 * 5 * 2, count
    # The initial value of a mutable EXTERNAL buffer comes from the data file; the method updates it in place.
    fx = next(f for f in _ptd_manifest() if f["name"] == "mutable_external")
    method = runtime.load_program(root / fx["program"], data_path=root / fx["data_files"][0]).load_method("forward")
    assert "state" in [a.name for a in method.metadata.attributes], method.metadata.attributes
    state0 = method.get_attribute("state")
    x = np.load(root / fx["methods"]["forward"]["cases"][0]["inputs"][0]["file"])
    method.execute([x])
    np.testing.assert_allclose(method.get_attribute("state"), state0 * 0.5 + x, rtol=1e-6, atol=1e-6)


def _expect(fn: Callable[[], object], kind: type[BaseException], *texts: str) -> BaseException:
    try:
        fn()
    except kind as e:
        assert all(t in str(e) for t in texts), (texts, str(e))
        return e
    raise AssertionError(f"no {kind.__name__} for {texts}")


@check
def ptd_errors() -> None:
    # Each mistake with data files raises, naming the file (and the key), through both APIs.
    from executorch.extension.pybindings import portable_lib as pl
    from executorch.runtime import ExecuTorchError, Runtime

    root = FIXTURES / "ptd"
    rt = Runtime.get()
    mlp, mlp_ptd = root / "portable_mlp" / "model.pte", root / "portable_mlp" / "model.ptd"
    tmp = Path("ptd_errors")
    tmp.mkdir(exist_ok=True)
    truncated = tmp / "truncated.ptd"
    truncated.write_bytes(mlp_ptd.read_bytes()[:200])
    e = _expect(
        lambda: rt.load_program(mlp, data_path="/nonexistent/model.ptd"), ExecuTorchError, "/nonexistent/model.ptd"
    )
    assert e.code == 0x22, e  # AccessFailed
    e = _expect(lambda: rt.load_program(mlp, data_path=truncated), ExecuTorchError, str(truncated), "not a valid .ptd")
    assert e.code == 0x24, e  # InvalidExternalData
    _expect(lambda: rt.load_program(mlp, data_path=b"invalid bytes"), ExecuTorchError, "data buffer 0")
    # The data file of another program: the key the method needs is named.
    other = rt.load_program(mlp, data_path=root / "two_files" / "head.ptd")
    _expect(lambda: other.load_method("forward"), ExecuTorchError, "conv.weight", "head.ptd")
    # One of two files: the key in the other one is named.
    two = root / "two_files"
    one = rt.load_program(two / "model.pte", data_path=[two / "encoder.ptd"])
    _expect(lambda: one.load_method("forward"), ExecuTorchError, "head.weight", "encoder.ptd")
    # Two files holding the same keys.
    _expect(lambda: rt.load_program(mlp, data_path=[mlp_ptd, mlp_ptd]), ExecuTorchError, str(mlp_ptd))
    # A data file given to a program that needs none.
    plain = FIXTURES / "mlp" / "portable.pte"
    _expect(lambda: rt.load_program(plain, data_path=mlp_ptd), ValueError, str(mlp_ptd), "needs no data file")
    _expect(lambda: pl._load_for_executorch(str(plain), str(mlp_ptd)).forward(()), ValueError, "needs no data file")
    # A program that needs its data file, loaded without it: the method names what is missing and what to pass.
    for name in ("portable_mlp", "xnnpack_cnn", "xnnpack_q8", "llm", "two_files", "mutable_external"):
        program = rt.load_program(root / name / "model.pte")
        _expect(lambda p=program: p.load_method("forward"), ExecuTorchError, "data_path=")
    x = np.load(root / "portable_mlp" / "forward_case0_in0.npy")
    _expect(lambda: pl._load_for_executorch(str(mlp)).forward((x,)), RuntimeError, "data_path=")
    # portable_lib, as upstream: paths that cannot be opened fail at load; contents fail when first used.
    _expect(lambda: pl._load_for_executorch(str(mlp), "/nonexistent/model.ptd"), RuntimeError, "/nonexistent")
    _expect(lambda: pl._load_for_executorch("/nonexistent/model.pte"), RuntimeError, "/nonexistent/model.pte")
    lazy = pl._load_for_executorch_from_buffer(mlp.read_bytes(), b"invalid bytes")
    _expect(lambda: lazy.forward((x,)), RuntimeError, "not a valid .ptd")
    _expect(lambda: pl._load_program(str(mlp), data_path=str(truncated)), RuntimeError, "truncated.ptd")


@check
def unplanned_outputs() -> None:
    # Outputs a program does not memory plan (exported with MemoryPlanningPass(alloc_graph_output=False)) get
    # storage from the bindings, in both APIs; every run returns fresh copies.
    from executorch.extension.pybindings import portable_lib as pl
    from executorch.runtime import Runtime

    compat = FIXTURES.parent / "upstream_compat"  # tests/upstream_compat (the test copies it beside)
    pte = compat / "unplanned_outputs.pte"
    inputs = [np.load(compat / f"unplanned_outputs_in{i}.npy") for i in range(2)]
    refs = [np.load(compat / f"unplanned_outputs_out{i}.npy") for i in range(2)]
    method = Runtime.get().load_program(pte).load_method("forward")
    meta = method.metadata
    assert [meta.output_tensor_meta(i).is_memory_planned() for i in range(2)] == [False, False], meta
    first = method.execute(inputs)
    second = method.execute([inputs[0] * 2, inputs[1]])
    for got, ref in zip(first, refs, strict=True):
        np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)
    assert not np.allclose(first[1], second[1])
    for outs in (
        pl._load_for_executorch(str(pte)).forward(tuple(inputs)),
        pl._load_program(str(pte)).load_method("forward")(inputs),
    ):
        for got, ref in zip(outs, refs, strict=True):
            np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)


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


@check
def tokenizers_parity() -> None:
    # executorch.tokenizers (the C++ tokenizers, upstream's pytorch_tokenizers_cpp API) against the ids and text of
    # Hugging Face tokenizers / tiktoken / sentencepiece (tests/fixtures/tokenizers/reference.json), with none of
    # those packages installed; load_tokenizer probes the kind, and each class loads its own.
    import importlib.util

    from executorch import tokenizers

    for name in ("tokenizers", "tiktoken", "sentencepiece"):
        assert importlib.util.find_spec(name) is None, f"{name} is installed: the check must run without it"
    root = FIXTURES / "tokenizers"
    ref = json.loads((root / "reference.json").read_text())
    classes = {
        "hf": tokenizers.HFTokenizer,
        "tiktoken": tokenizers.Tiktoken,
        "tekken": tokenizers.Tekken,
        "sp": tokenizers.SPTokenizer,
        "llama2c": tokenizers.Llama2cTokenizer,
    }
    # The tiktoken fixture is Llama 3's layout: its pattern and special tokens are given to the constructor (as
    # tests/tokenizer_app does); load_tokenizer's Tiktoken() takes upstream's defaults instead.
    llama3_pattern = (
        r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
        r"|\s*[\r\n]+|\s+(?!\S)|\s+"
    )
    special = ["<|begin_of_text|>", "<|end_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"]
    special.append("<|python_tag|>")
    cases = 0
    for name, entry in ref["tokenizers"].items():
        path = str(root / entry["path"])
        if entry["kind"] == "tiktoken":
            own = tokenizers.Tiktoken(llama3_pattern, special, 0, 1)
        else:
            own = classes[entry["kind"]]()
        own.load(path)
        probed = tokenizers.load_tokenizer(path)
        assert type(probed) is classes[entry["kind"]], (name, type(probed))
        for tok in (own,) if entry["kind"] == "tiktoken" else (own, probed):
            assert tok.is_loaded() and tok.vocab_size() == entry["vocab_size"], (name, tok.vocab_size())
            if "bos" in entry:
                assert (tok.bos_tok(), tok.eos_tok()) == (entry["bos"], entry["eos"]), name
            for text, ids, decoded in zip(ref["texts"], entry["ids"], entry["decoded"], strict=True):
                assert tok.encode(text) == ids, (name, text[:40])
                assert tok.encode(text, 1, 1) == [tok.bos_tok(), *ids, tok.eos_tok()], name
                # reference.json holds the decoded bytes as hex; decode_tokens replaces bytes that are not UTF-8
                assert tok.decode_tokens(ids) == bytes.fromhex(decoded).decode("utf-8", "replace"), (name, text[:40])
                cases += 1
    assert cases == sum(len(e["ids"]) * (1 if e["kind"] == "tiktoken" else 2) for e in ref["tokenizers"].values())
    assert cases > 0


@check
def tokenizers_errors() -> None:
    import tempfile

    from executorch import tokenizers
    from executorch.llm import LLMError, load_tokenizer

    root = FIXTURES / "tokenizers"
    with tempfile.TemporaryDirectory() as tmp:
        bad_json = Path(tmp) / "tokenizer.json"
        bad_json.write_text('{"model": {"type": "WordPiece", "vocab": {}}}')
        garbage = Path(tmp) / "garbage.bin"
        garbage.write_bytes(b"\x00\xff" * 40)
        for make, path, text in (
            (tokenizers.HFTokenizer, root / "missing.json", "missing.json"),
            (tokenizers.HFTokenizer, bad_json, "WordPiece"),
            (tokenizers.SPTokenizer, garbage, "garbage.bin"),
        ):
            try:
                make().load(str(path))
            except RuntimeError as e:
                assert "LoadFailure" in str(e) or "ParseFailure" in str(e), e
                assert text in str(e), e
            else:
                raise AssertionError(f"no error for {path}")
        try:
            tokenizers.load_tokenizer(str(garbage))
        except RuntimeError as e:
            assert "garbage.bin" in str(e) and "not a tokenizer" in str(e), e
        else:
            raise AssertionError("load_tokenizer accepted garbage")
        try:
            load_tokenizer(garbage)
        except LLMError as e:
            assert "garbage.bin" in str(e), e
        else:
            raise AssertionError("executorch.llm.load_tokenizer accepted garbage")
    tok = tokenizers.HFTokenizer()
    try:
        tok.encode("text")
    except RuntimeError as e:
        assert "Uninitialized" in str(e), e
    else:
        raise AssertionError("an unloaded tokenizer encoded")


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
