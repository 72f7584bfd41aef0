"""Every committed upstream-exported program runs on the installed SDK and matches eager PyTorch."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from et_common import MANIFEST, REPO, Case, fixture_cases

PORTABLE = fixture_cases("portable")


def run_case(sdk: Path, case: Case, out_dir: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    cmd = [str(sdk / "bin" / "executorch_runner"), str(case.pte), "--method", case.method, "--output-dir", str(out_dir)]
    for i in case.inputs:
        cmd += ["--input", str(i)]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=out_dir, timeout=120)


@pytest.mark.parametrize("case", PORTABLE, ids=[c.id for c in PORTABLE])
def test_portable_fixture_matches_reference(sdk: Path, case: Case, tmp_path: Path, quiet_env: dict[str, str]) -> None:
    proc = run_case(sdk, case, tmp_path, quiet_env)
    assert proc.returncode == 0, proc.stderr
    for i, ref_path in enumerate(case.outputs):
        ref = np.load(ref_path)
        got = np.load(tmp_path / f"out{i}.npy")
        assert got.dtype == ref.dtype, f"output {i}: dtype {got.dtype}, expected {ref.dtype}"
        assert got.shape == ref.shape, f"output {i}: shape {got.shape}, expected {ref.shape}"
        if np.issubdtype(ref.dtype, np.floating):
            np.testing.assert_allclose(got, ref, atol=case.atol, rtol=case.rtol)
        else:
            np.testing.assert_array_equal(got, ref)


def test_every_fixture_operator_is_registered(sdk: Path, quiet_env: dict[str, str]) -> None:
    proc = subprocess.run(
        [str(sdk / "bin" / "executorch_runner"), "--ops"], capture_output=True, text=True, env=quiet_env, check=True
    )
    registered = {line.split(" ", 1)[1] for line in proc.stdout.splitlines() if line.startswith("operator ")}
    needed = {op for fx in MANIFEST["fixtures"] for ops in fx["operators"].values() for op in ops}
    assert needed - registered == set()


def test_dynamic_batch_beyond_bound_is_rejected(sdk: Path, tmp_path: Path, quiet_env: dict[str, str]) -> None:
    fixture = next(fx for fx in MANIFEST["fixtures"] if fx["name"] == "dynamic_batch")
    cases = [c for c in PORTABLE if c.fixture == "dynamic_batch"]
    assert len(cases) >= 3 and fixture["dynamic"]
    too_big = tmp_path / "too_big.npy"
    np.save(too_big, np.zeros((9, np.load(cases[0].inputs[0]).shape[1]), dtype=np.float32))
    proc = subprocess.run(
        [str(sdk / "bin" / "executorch_runner"), str(cases[0].pte), "--input", str(too_big)],
        capture_output=True,
        text=True,
        env=quiet_env,
    )
    assert proc.returncode == 2 and "at most" in proc.stderr, proc.stderr


def test_operator_docs_are_current(sdk: Path) -> None:
    proc = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "gen_operator_docs.py"), str(sdk), "--check"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_committed_fixtures_stay_small() -> None:
    # The fixtures (fp32, quantized, LLM, .ptd) and the fuzz corpora are committed: the repository keeps them under
    # 64 MB (the project's budget for committed fixtures is 100 MB).
    roots = (REPO / "tests" / "fixtures", REPO / "tests" / "fuzz")
    total = sum(p.stat().st_size for root in roots for p in root.rglob("*") if p.is_file())
    assert total < 64_000_000, f"committed fixtures take {total / 1e6:.1f} MB"
