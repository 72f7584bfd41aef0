"""executorch.inspect (API and ``python -m executorch.inspect``) from the wheel installed in a fresh venv."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from test_lower import et, venv_python, wheel_venv  # noqa: F401  (session fixtures shared with test_lower)

from et_common import FIXTURES, MANIFEST

CASES = [(fx, variant) for fx in MANIFEST["fixtures"] for variant in ("portable", "xnnpack")]


@pytest.mark.parametrize(("fx", "variant"), CASES, ids=[f"{fx['name']}-{v}" for fx, v in CASES])
def test_inspect_matches_the_manifest(et: dict[str, ModuleType], fx: dict[str, Any], variant: str) -> None:  # noqa: F811
    info = et["inspect"].inspect_program(FIXTURES / fx["files"][variant])
    methods = {m["name"]: m for m in info["methods"]}
    assert set(methods) == set(fx["methods"])
    ops: set[str] = set()
    backends: set[str] = set()
    calls = 0
    for name, spec in fx["methods"].items():
        m = methods[name]
        case = spec["cases"][0]
        for what in ("inputs", "outputs"):
            assert len(m[what]) == len(case[what]), (name, what)
            for got, want in zip(m[what], case[what], strict=True):
                assert got["kind"] == "tensor" and got["dtype"] == want["dtype"], (name, what)
                if got["dynamism"] == "static":
                    assert got["shape"] == want["shape"], (name, what)
                else:  # serialized shapes are upper bounds
                    assert len(got["shape"]) == len(want["shape"])
        ops |= set(m["operators"])
        assert sum(m["operators"].values()) == m["instructions"].get("KernelCall", 0)
        for d in m["delegates"]:
            backends.add(d["backend"])
            calls += d["calls"]
            assert d["payload_bytes"] > 0 and d["location"] in ("segment", "inline")
        assert m["instructions"].get("DelegateCall", 0) == sum(d["calls"] for d in m["delegates"])
    assert ops == set(fx["operators"][variant])
    assert backends == set(fx["delegates"][variant])
    assert calls == fx["delegate_calls"][variant]
    assert sum(s["bytes"] for s in info["segments"]) <= info["file_bytes"]
    assert (info["extended_header"] is not None) == any(s["bytes"] for s in info["segments"])


def test_inspect_shows_cuda_delegates_and_moved_operators(et: dict[str, ModuleType]) -> None:  # noqa: F811
    data = et["lower"].lower(FIXTURES / "mlp" / "portable.pte")
    info = et["inspect"].inspect_program(data)
    (m,) = info["methods"]
    assert m["operators"] == {} and m["instructions"] == {"DelegateCall": 1}
    (d,) = m["delegates"]
    assert d["backend"] == "CudaBackend" and d["location"] == "segment"
    assert d["subgraph"] == {
        "operators": {"aten::addmm.out": 2, "aten::permute_copy.out": 2, "aten::relu.out": 1},
        "inputs": 1,
        "outputs": 1,
        "constants": 4,
    }
    assert info["constants"]["count"] == 0  # every weight moved into the payload
    assert [s["content"] for s in info["segments"]][1:] == ["delegate CudaBackend"]


def test_inspect_cli_text_and_json(wheel_venv: Path, et: dict[str, ModuleType]) -> None:  # noqa: F811
    path = FIXTURES / "mobilenet" / "xnnpack.pte"
    proc = venv_python(wheel_venv, "-m", "executorch.inspect", str(path), "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == json.loads(json.dumps(et["inspect"].inspect_program(path)))
    proc = venv_python(wheel_venv, "-m", "executorch.inspect", str(path))
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout
    assert "method forward:" in text and "float32[1x3x32x32]" in text
    assert "XnnpackBackend" in text and "aten::mean.out x1" in text and "segments (13):" in text


def test_inspect_cli_errors(wheel_venv: Path, tmp_path: Path) -> None:  # noqa: F811
    data = (FIXTURES / "cnn" / "portable.pte").read_bytes()
    files = {
        "empty": b"",
        "garbage": b"hello world, this is not a program at all" * 3,
        "truncated": data[: len(data) // 3],
        "old": data[:4] + b"ET09" + data[8:],
    }
    expect = {"empty": "too small", "garbage": "not an ExecuTorch program", "truncated": "truncated", "old": "ET09"}
    for name, content in files.items():
        p = tmp_path / f"{name}.pte"
        p.write_bytes(content)
        proc = venv_python(wheel_venv, "-m", "executorch.inspect", str(p))
        assert proc.returncode == 1, (name, proc.stdout)
        assert "Traceback" not in proc.stderr, proc.stderr
        assert proc.stderr.startswith("error: ") and expect[name] in proc.stderr, (name, proc.stderr)
    for missing in (tmp_path / "nope.pte", tmp_path):
        proc = venv_python(wheel_venv, "-m", "executorch.inspect", str(missing))
        assert proc.returncode == 1 and "cannot read" in proc.stderr and "Traceback" not in proc.stderr
