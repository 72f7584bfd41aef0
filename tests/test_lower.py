"""executorch.pte (reader/writer) and executorch.lower (CUDA lowering), from the wheel installed in a fresh venv.

No GPU is needed: the lowered programs are checked structurally (payload contract of docs/cuda.md), their
remaining kernel calls must resolve on the CPU, loading them must fail naming CudaBackend, and the partitioning
itself is checked end to end by turning every CUDA DelegateCall back into CPU kernel calls with the delegate's
semantics (inputs copied in, the subgraph run on private buffers, outputs copied out) and comparing the outputs
with the fixture references.
"""

from __future__ import annotations

import collections
import os
import random
import re
import shutil
import struct
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from et_common import BUILD_SDK, FIXTURES, MANIFEST, REPO, built_program, fixture_cases, wheel_file

sys.path.insert(0, str(REPO / "scripts"))
from et_packaging import cuda

PORTABLE = sorted(FIXTURES.glob("*/portable.pte"))
ALL_FIXTURES = sorted(FIXTURES.glob("*/portable.pte")) + sorted(FIXTURES.glob("*/xnnpack.pte"))


def _id(p: Path) -> str:
    return f"{p.parent.name}-{p.stem}"


@pytest.fixture(scope="session")
def wheel_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with the executorch wheel (and its dependencies: numpy, flatbuffers) installed."""
    wheel = wheel_file()
    root = tmp_path_factory.mktemp("lower-venv") / "env"
    subprocess.run([sys.executable, "-m", "venv", str(root)], check=True)
    pip = [str(root / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    subprocess.run([*pip, str(wheel)], check=True)
    return root


@pytest.fixture(scope="session")
def et(wheel_venv: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, ModuleType]]:
    """The installed package's modules, imported into this process (its own numpy and flatbuffers)."""
    (pkg,) = wheel_venv.glob("lib/python3*/site-packages/executorch")
    if pkg.parent.parent.name != f"python{sys.version_info[0]}.{sys.version_info[1]}":
        pytest.fail(f"{pkg}: the venv's Python differs from the test interpreter")
    shim = tmp_path_factory.mktemp("lower-import")
    (shim / "executorch").symlink_to(pkg, target_is_directory=True)
    sys.path.insert(0, str(shim))
    for name in [m for m in sys.modules if m == "executorch" or m.startswith("executorch.")]:
        del sys.modules[name]
    import executorch.inspect
    import executorch.lower
    import executorch.pte
    import executorch.runtime

    assert Path(executorch.pte.__file__).resolve().is_relative_to(pkg.resolve())
    yield {
        "pte": executorch.pte,
        "lower": executorch.lower,
        "inspect": executorch.inspect,
        "runtime": executorch.runtime,
    }
    sys.path.remove(str(shim))


def venv_python(venv: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, EXECUTORCH_LOG_LEVEL="fatal")
    env.pop("PYTHONPATH", None)
    return subprocess.run(
        [str(venv / "bin" / "python"), *args], capture_output=True, text=True, env=env, cwd=cwd, check=False
    )


# ------------------------------------------------------------------------------------------------ helpers
def run_cases(et: dict[str, ModuleType], program: bytes, fixture: str, variant: str) -> None:
    """Runs every reference case of ``fixture`` on ``program`` and compares with the references."""
    runtime = et["runtime"].Runtime.get()
    prog = runtime.load_program(program)
    for case in fixture_cases(variant):
        if case.fixture != fixture:
            continue
        method = prog.load_method(case.method)
        outs = method.execute([np.load(p) for p in case.inputs])
        assert len(outs) == len(case.outputs), case.id
        for got, ref_path in zip(outs, case.outputs, strict=True):
            ref = np.load(ref_path)
            np.testing.assert_allclose(np.asarray(got), ref, atol=case.atol, rtol=case.rtol, err_msg=case.id)


def kernel_ops(pte_mod: ModuleType, pte: Any) -> dict[str, collections.Counter[str]]:
    out = {}
    for plan in pte.plans:
        c: collections.Counter[str] = collections.Counter()
        for chain in plan.chains or []:
            for ins in chain.instructions or []:
                if ins.instrArgsType == pte_mod.InstructionArguments.KernelCall:
                    c[pte_mod.operator_name(plan.operators[ins.instrArgs.opIndex])] += 1
        out[pte_mod.as_str(plan.name)] = c
    return out


def cuda_payloads(et: dict[str, ModuleType], pte: Any) -> Iterator[tuple[Any, Any, Any, Any]]:
    """(plan, DelegateCall, delegate, subgraph PteFile) for every CudaBackend call."""
    m = et["pte"]
    for plan in pte.plans:
        for chain in plan.chains or []:
            for ins in chain.instructions or []:
                if ins.instrArgsType != m.InstructionArguments.DelegateCall:
                    continue
                d = plan.delegates[ins.instrArgs.delegateIndex]
                if m.as_str(d.id) == "CudaBackend":
                    yield plan, ins.instrArgs, d, et["inspect"].parse_cuda_payload(pte.delegate_data(d))


_N_OUT = {"aten::native_layer_norm.out": 3}


def LIST_TYPES(m: ModuleType) -> tuple[int, ...]:
    return (m.KernelTypes.IntList, m.KernelTypes.TensorList, m.KernelTypes.OptionalTensorList)


def emulate_on_cpu(et: dict[str, ModuleType], data: bytes) -> bytes:
    """Replaces every CudaBackend DelegateCall by CPU kernel calls with the delegate's semantics: each input is
    cloned into a private tensor, the subgraph's kernel calls run on private tensors (a fresh planned arena,
    constants appended to the constant segment), each output is cloned back into the outer tensor."""
    m = et["pte"]
    pte = m.PteFile.from_bytes(data)
    cs = pte.program.constantSegment
    if cs is None or len(pte.constant_offsets()) <= 1:
        if cs is None:
            cs = m.SubsegmentOffsetsT()
            cs.segmentIndex = pte.add_segment(b"")
            pte.program.constantSegment = cs
        cs.offsets = [0]
        pte.segments[cs.segmentIndex] = b""
    const_data = bytearray(pte.segments[cs.segmentIndex])

    def add_constant(blob: bytes) -> int:
        const_data.extend(b"\0" * ((-len(const_data)) % 16))
        cs.offsets.append(len(const_data))
        const_data.extend(blob)
        return len(cs.offsets) - 1

    def value(ev_type: int, val: Any) -> Any:
        ev = m.EValueT()
        ev.valType, ev.val = ev_type, val
        return ev

    for plan in pte.plans:
        ops = [m.operator_name(o) for o in plan.operators or []]

        def op_index(name: str, ops: list[str] = ops, plan: Any = plan) -> int:
            if name not in ops:
                o = m.OperatorT()
                o.name, _, o.overload = name.partition(".")
                plan.operators.append(o)
                ops.append(name)
            return ops.index(name)

        def call(name: str, args: list[int]) -> Any:
            kc = m.KernelCallT()
            kc.opIndex, kc.args = op_index(name), args
            ins = m.InstructionT()
            ins.instrArgsType, ins.instrArgs = m.InstructionArguments.KernelCall, kc
            return ins

        keep_delegates = [i for i, d in enumerate(plan.delegates or []) if m.as_str(d.id) != "CudaBackend"]
        delegate_remap = {old: new for new, old in enumerate(keep_delegates)}
        null = len(plan.values)
        plan.values.append(value(m.KernelTypes.Null, m.NullT()))
        memory_id = len(plan.nonConstBufferSizes)
        arena = 0
        for chain in plan.chains or []:
            new_ins = []
            for ins in chain.instructions or []:
                if ins.instrArgsType != m.InstructionArguments.DelegateCall:
                    new_ins.append(ins)
                    continue
                d = plan.delegates[ins.instrArgs.delegateIndex]
                if m.as_str(d.id) != "CudaBackend":
                    ins.instrArgs.delegateIndex = delegate_remap[ins.instrArgs.delegateIndex]
                    new_ins.append(ins)
                    continue
                sub = et["inspect"].parse_cuda_payload(pte.delegate_data(d))
                sp = sub.plans[0]
                base = len(plan.values)
                for ev in sp.values:
                    if ev.valType == m.KernelTypes.Tensor:
                        t = ev.val
                        if t.dataBufferIdx:
                            blob = np.asarray(sub.program.constantBuffer[t.dataBufferIdx].storage, np.uint8)
                            t.dataBufferIdx = add_constant(blob.tobytes())
                        else:
                            a = m.AllocationDetailsT()
                            a.memoryId, a.memoryOffsetLow, a.memoryOffsetHigh = memory_id, arena, 0
                            t.allocationInfo = a
                            arena += (m.tensor_nbytes(t) + 15) // 16 * 16
                    elif ev.valType in (
                        m.KernelTypes.IntList,
                        m.KernelTypes.TensorList,
                        m.KernelTypes.OptionalTensorList,
                    ):
                        ev.val.items = [i + base if i >= 0 else i for i in ev.val.items]
                    plan.values.append(ev)
                args = list(ins.instrArgs.args)
                n_in = len(sp.inputs)
                assert len(args) == n_in + len(sp.outputs)
                for outer, inner in zip(args[:n_in], sp.inputs, strict=True):
                    new_ins.append(call("aten::clone.out", [outer, null, base + inner, base + inner]))
                for kins in sp.chains[0].instructions:
                    name = m.operator_name(sp.operators[kins.instrArgs.opIndex])
                    kargs = [base + a for a in kins.instrArgs.args]
                    n_out = _N_OUT.get(name, 1)
                    if n_out == 1:
                        ret = kargs[-1]
                    else:
                        lst = m.TensorListT()
                        lst.items = kargs[-n_out:]
                        plan.values.append(value(m.KernelTypes.TensorList, lst))
                        ret = len(plan.values) - 1
                    new_ins.append(call(name, [*kargs, ret]))
                for outer, inner in zip(args[n_in:], sp.outputs, strict=True):
                    new_ins.append(call("aten::clone.out", [base + inner, null, outer, outer]))
            chain.instructions = new_ins
        plan.delegates = [plan.delegates[i] for i in keep_delegates]
        plan.nonConstBufferSizes = [*plan.nonConstBufferSizes, max(arena, 16)]
    pte.segments[cs.segmentIndex] = bytes(const_data)
    return pte.to_bytes()


# ------------------------------------------------------------------------------------------------ reader/writer
@pytest.mark.parametrize("path", ALL_FIXTURES, ids=_id)
def test_round_trip_is_byte_identical(et: dict[str, ModuleType], path: Path) -> None:
    data = path.read_bytes()
    pte = et["pte"].PteFile.from_bytes(data)
    assert pte.to_bytes() == data  # upstream's layout: header, 128-byte segment alignment, 16-byte constants


@pytest.mark.parametrize("variant", ["portable", "xnnpack"])
def test_round_trip_runs_every_fixture(et: dict[str, ModuleType], variant: str) -> None:
    for fx in MANIFEST["fixtures"]:
        pte = et["pte"].PteFile.load(FIXTURES / fx["files"][variant])
        # Rebuild the segment table from scratch (offsets recomputed) before writing.
        pte.program.segments = None
        run_cases(et, pte.to_bytes(), fx["name"], variant)


def test_writer_moves_segments_and_inline_data(et: dict[str, ModuleType]) -> None:
    m = et["pte"]
    pte = m.PteFile.load(FIXTURES / "mlp" / "xnnpack.pte")
    # Move the XNNPACK payload inline and add an unused segment in front of everything else: still runs.
    (plan,) = pte.plans
    d = plan.delegates[0]
    d.processed = pte.add_delegate_data(pte.delegate_data(d), inline=True)
    data = pte.to_bytes()
    again = m.PteFile.from_bytes(data)
    assert again.plans[0].delegates[0].processed.location == m.DataLocation.INLINE
    run_cases(et, data, "mlp", "xnnpack")
    header = m.parse_header(data)
    assert header is not None and header.segment_base_offset % 128 == 0
    for seg in again.program.segments:
        assert seg.offset % 128 == 0


def test_corrupt_files_raise_pte_error(et: dict[str, ModuleType]) -> None:
    m = et["pte"]
    data = (FIXTURES / "transformer" / "portable.pte").read_bytes()
    cases = {
        "empty": b"",
        "short": data[:5],
        "identifier": data[:4] + b"XY12" + data[8:],
        "old version": data[:4] + b"ET11" + data[8:],
        "truncated segments": data[: len(data) - 100],
        "truncated program": data[:2000],
        "bad header length": data[:12] + struct.pack("<I", 8) + data[16:],
    }
    messages = {}
    for name, bad in cases.items():
        with pytest.raises(m.PteError) as e:
            m.PteFile.from_bytes(bad)
        messages[name] = str(e.value)
    assert "too small" in messages["empty"]
    assert "not an ExecuTorch program" in messages["identifier"]
    assert "ET11" in messages["old version"]
    assert "truncated" in messages["truncated segments"]
    assert "truncated" in messages["truncated program"]
    # Random damage: a PteError or a readable program, never another exception.
    rng = random.Random(7)
    for _ in range(150):
        bad = bytearray(data)
        for _ in range(rng.randint(1, 6)):
            bad[rng.randrange(len(bad))] = rng.randrange(256)
        for fn in (et["inspect"].inspect_program, et["lower"].lower):
            try:
                fn(bytes(bad))
            except m.PteError:
                pass


# ------------------------------------------------------------------------------------------------ lowering
@pytest.mark.parametrize("path", PORTABLE, ids=_id)
def test_lowered_program_structure(et: dict[str, ModuleType], path: Path) -> None:
    m = et["pte"]
    original = m.PteFile.load(path)
    data, report = et["lower"].lower_file(path)
    lowered = m.PteFile.from_bytes(data)
    before, after = kernel_ops(m, original), kernel_ops(m, lowered)
    moved: dict[str, collections.Counter[str]] = {name: collections.Counter() for name in before}
    for run in report.runs:
        moved[run.method].update(run.operators)
    for name in before:
        # Every operator either stayed on the CPU or moved into exactly one delegate.
        assert before[name] == after[name] + moved[name], name
    in_payloads: dict[str, collections.Counter[str]] = {name: collections.Counter() for name in before}
    n_calls = 0
    for plan, call, delegate, sub in cuda_payloads(et, lowered):
        n_calls += 1
        raw = lowered.delegate_data(delegate)
        assert raw[:8] == b"ETCUDA01"
        assert struct.unpack_from("<Q", raw, 8)[0] == len(raw) - 16
        assert delegate.compileSpecs in (None, [])
        (sp,) = sub.plans
        assert m.as_str(sp.name) == "subgraph" and len(sp.chains) == 1
        assert sub.program.constantBuffer and not len(sub.program.constantBuffer[0].storage)
        assert not sub.segments and not sp.delegates
        for ins in sp.chains[0].instructions:
            assert ins.instrArgsType == m.InstructionArguments.KernelCall
            name = m.operator_name(sp.operators[ins.instrArgs.opIndex])
            assert name in et["lower"].CUDA_OPERATORS
            # (>= below: the lowering may add a view_copy for a static view of a result)
            in_payloads[m.as_str(plan.name)][name] += 1
        for ev in sp.values:
            if ev.valType == m.KernelTypes.Tensor:
                assert ev.val.scalarType == m.ScalarType.FLOAT
                assert ev.val.allocationInfo is None
                if ev.val.dataBufferIdx:
                    assert ev.val.dataBufferIdx < len(sub.program.constantBuffer)
        args = list(call.args)
        assert len(args) == len(sp.inputs) + len(sp.outputs)
        written = set()
        for ins in sp.chains[0].instructions:
            name = m.operator_name(sp.operators[ins.instrArgs.opIndex])
            written.update(ins.instrArgs.args[-_N_OUT.get(name, 1) :])
        for outer, inner in zip(args, [*sp.inputs, *sp.outputs], strict=True):
            o, i = plan.values[outer].val, sp.values[inner].val
            assert list(o.sizes) == list(i.sizes) and o.scalarType == i.scalarType
            assert not i.dataBufferIdx
        assert not set(sp.inputs) & written  # the subgraph never writes a value it receives
    for name in before:
        assert in_payloads[name] >= moved[name], name
    assert n_calls == len(report.runs)
    # What stays on the CPU resolves there.
    runtime = et["runtime"].Runtime.get()
    runtime.load_program(path).load_method(next(iter(before)))  # loads the kernels library
    registered = set(runtime.operator_registry.operator_names)
    for name, ops in after.items():
        assert set(ops) <= registered, (name, set(ops) - registered)


@pytest.mark.parametrize("path", ALL_FIXTURES, ids=_id)
def test_lowered_program_computes_the_references(et: dict[str, ModuleType], path: Path) -> None:
    """The partitioning is right: with the delegate's semantics emulated by CPU kernels, the outputs match
    (XNNPACK programs keep their XNNPACK delegates; what they left to kernel calls is lowered)."""
    data = et["lower"].lower(path)
    run_cases(et, emulate_on_cpu(et, data), path.parent.name, path.stem)


def test_lowered_transformer_moves_most_of_the_graph(et: dict[str, ModuleType]) -> None:
    m = et["pte"]
    data, report = et["lower"].lower_file(FIXTURES / "transformer" / "portable.pte")
    assert len(report.runs) >= 3
    moved = collections.Counter(op for run in report.runs for op in run.operators)
    assert moved["aten::addmm.out"] == 4 and moved["aten::native_layer_norm.out"] == 2
    lowered = m.PteFile.from_bytes(data)
    # The weights went with the matmuls: the outer constant segment keeps only what CPU kernels still use.
    assert report.constants_dropped > 0
    assert len(lowered.constant_offsets()) < len(
        m.PteFile.load(FIXTURES / "transformer" / "portable.pte").constant_offsets()
    )


def test_lower_nothing_keeps_the_program(et: dict[str, ModuleType]) -> None:
    for fx in MANIFEST["fixtures"]:
        path = FIXTURES / fx["files"]["portable"]
        data = et["lower"].lower(path, operators=[])
        assert data == path.read_bytes()
        run_cases(et, data, fx["name"], "portable")


def test_partial_lowering_leaves_other_methods_on_cpu(et: dict[str, ModuleType]) -> None:
    path = FIXTURES / "multi_method" / "portable.pte"
    data, report = et["lower"].lower_file(path, operators={"aten::relu.out"})
    assert [r.method for r in report.runs] == ["encode"]
    rt = et["runtime"]
    prog = rt.Runtime.get().load_program(data)
    # forward has no delegate: it still runs on the CPU.
    for case in fixture_cases("portable"):
        if case.fixture == "multi_method" and case.method == "forward":
            (out,) = prog.load_method("forward").execute([np.load(p) for p in case.inputs])
            np.testing.assert_allclose(out, np.load(case.outputs[0]), atol=case.atol, rtol=case.rtol)
    with pytest.raises(rt.ExecuTorchError, match="CudaBackend"):
        prog.load_method("encode")


@pytest.mark.parametrize("inline", [False, True])
def test_loading_a_lowered_program_without_cuda_fails_clearly(et: dict[str, ModuleType], inline: bool) -> None:
    m = et["pte"]
    data = et["lower"].lower(FIXTURES / "mlp" / "portable.pte", inline=inline)
    (plan,) = m.PteFile.from_bytes(data).plans
    expected = m.DataLocation.INLINE if inline else m.DataLocation.SEGMENT
    assert [d.processed.location for d in plan.delegates] == [expected]
    rt = et["runtime"]
    prog = rt.Runtime.get().load_program(data)
    with pytest.raises(rt.ExecuTorchError) as e:
        prog.load_method("forward")
    assert "CudaBackend" in str(e.value) and "cuda" in str(e.value).lower()


def test_kernel_error_names_the_operator_and_argument(et: dict[str, ModuleType]) -> None:
    # The program's input declared Int (same size as Float, so memory planning is unchanged) reaches float-only
    # kernels: the error names the method, the operator and, from the kernel, the argument and its dtype.
    m = et["pte"]
    pte = m.PteFile.load(FIXTURES / "mlp" / "portable.pte")
    (plan,) = pte.plans
    tensor = plan.values[plan.inputs[0]].val
    tensor.scalarType = m.ScalarType.INT
    rt = et["runtime"]
    method = rt.Runtime.get().load_program(pte.to_bytes()).load_method("forward")
    with pytest.raises(rt.ExecuTorchError) as e:
        method.execute([np.ones([int(d) for d in tensor.sizes], np.int32)])
    msg = str(e.value)
    want = r"method forward: operator aten::\S+ failed at instruction \d+: .*\barguments? \d.*\bInt\b"
    assert re.search(want, msg), msg


def test_runner_reports_missing_cuda_backend(et: dict[str, ModuleType], sdk: Path, tmp_path: Path) -> None:
    runner = sdk / "bin" / "executorch_runner"
    lowered = tmp_path / "mlp_cuda.pte"
    lowered.write_bytes(et["lower"].lower(FIXTURES / "mlp" / "portable.pte"))
    proc = subprocess.run(
        [
            str(runner),
            str(lowered),
            "--input",
            str(FIXTURES / "mlp" / "forward_case0_in0.npy"),
            "--output-dir",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "CudaBackend" in proc.stderr


def test_lower_cli(wheel_venv: Path, tmp_path: Path) -> None:
    src = FIXTURES / "transformer" / "portable.pte"
    out = tmp_path / "cuda.pte"
    proc = venv_python(wheel_venv, "-m", "executorch.lower", "--backend", "cuda", str(src), "-o", str(out))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "CudaBackend" in proc.stdout and "left on the CPU" in proc.stdout
    shown = venv_python(wheel_venv, "-m", "executorch.inspect", str(out))
    assert shown.returncode == 0, shown.stderr
    assert "CudaBackend" in shown.stdout and "subgraph:" in shown.stdout and "aten::addmm.out" in shown.stdout
    # Bad inputs: one line naming the problem, exit status 1, no traceback.
    bad = tmp_path / "bad.pte"
    bad.write_bytes(src.read_bytes()[:3000])
    for args in ([str(bad)], [str(tmp_path / "missing.pte")], [str(src), "--backend", "tpu"]):
        proc = venv_python(wheel_venv, "-m", "executorch.lower", *args, "-o", str(tmp_path / "x.pte"))
        assert proc.returncode != 0
        assert "Traceback" not in proc.stderr and "error" in proc.stderr, proc.stderr
    proc = venv_python(wheel_venv, "-m", "executorch.lower", str(bad), "-o", str(tmp_path / "x.pte"))
    assert "truncated" in proc.stderr
    assert not (tmp_path / "x.pte").exists()


def ops_def_operators() -> list[str]:
    """The operators of the CUDA delegate's table, cpp/cuda/src/ops.def, in order."""
    return re.findall(r'^ETCUDA_OP\(\w+, *"([^"]+)"', (REPO / "cpp" / "cuda" / "src" / "ops.def").read_text(), re.M)


def test_operator_list_is_the_delegates(et: dict[str, ModuleType]) -> None:
    # The wheel's executorch/cuda_operators.txt lists the table's operators.
    assert set(et["lower"].CUDA_OPERATORS) == set(ops_def_operators())
    assert (Path(et["lower"].__file__).parent / "cuda_operators.txt").is_file()


def test_operator_list_is_generated_from_the_table(tmp_path: Path) -> None:
    """The list the build generates from the delegate's operator table cpp/cuda/src/ops.def (installed as
    executorch/cuda_operators.txt) holds its ETCUDA_OP names, in order."""
    cmake = shutil.which("cmake")
    if cmake is None:
        pytest.skip("cmake is not installed")
    out = tmp_path / "operators.txt"
    cuda_dir = REPO / "cpp" / "cuda"
    subprocess.run(
        [cmake, f"-DOPS_DEF={cuda_dir / 'src' / 'ops.def'}", f"-DOUT={out}", "-P", str(cuda_dir / "operators.cmake")],
        check=True,
        capture_output=True,
    )
    assert [line for line in out.read_text().splitlines() if not line.startswith("#")] == ops_def_operators()


# ------------------------------------------------------------------------------------ the C++ delegate (no GPU)
def _cuda_test_binary(release_build: Path, name: str) -> Path:
    """A CUDA test program of the release tree: scripts/build_sdk.sh builds them where nvcc 13 and the NVIDIA wheels
    are installed (elsewhere these tests skip, naming what is missing)."""
    missing = cuda.cuda_toolchain_missing()
    if missing is not None:
        pytest.skip(f"the CUDA delegate is not built here: {missing}")
    return built_program(release_build, name, BUILD_SDK)


@pytest.mark.cuda
def test_cuda_backend_host_checks(release_build: Path) -> None:
    """libexecutorch_cuda through the runtime: availability and its reason, payload rejections (AOTInductor,
    truncation, unknown operators, ...), a hand-built payload, Module errors (tests/cpp/cuda_backend_test.cpp)."""
    proc = subprocess.run(
        [_cuda_test_binary(release_build, "cuda_backend_test")], capture_output=True, text=True, timeout=300
    )
    out = proc.stdout  # GoogleTest's summary
    passed = proc.returncode == 0 and "[  PASSED  ]" in out and "[  FAILED  ]" not in out
    assert passed, out[-4000:] + proc.stderr[-2000:]


@pytest.mark.cuda
def test_cuda_delegate_emulation_runs_every_lowered_fixture(
    et: dict[str, ModuleType], release_build: Path, tmp_path: Path
) -> None:
    """The delegate's own reader, shape planner and executor (device operations emulated on the host, cuBLAS with
    its column-major rules) run every portable fixture as lowered by executorch.lower and match the references."""
    exe = _cuda_test_binary(release_build, "cuda_emulation_test")
    pairs: list[str] = []
    for fx in MANIFEST["fixtures"]:
        out = tmp_path / f"{fx['name']}.pte"
        out.write_bytes(et["lower"].lower(FIXTURES / fx["files"]["portable"]))
        pairs += [str(out), str(FIXTURES / fx["name"])]
    proc = subprocess.run([exe, *pairs], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
