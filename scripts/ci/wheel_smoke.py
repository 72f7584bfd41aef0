#!/usr/bin/env python3
"""Smoke test of an installed executorch wheel, for every CPython of the wheel matrix.

Usage: python wheel_smoke.py FIXTURES_DIR [--max-fixtures N]

Run by tests/test_wheel_matrix.py in a fresh venv of each CPython and by cibuildwheel's test-command (pyproject.toml)
in the wheel's test environment. Needs only the wheel and its dependencies (numpy, flatbuffers): imports executorch
and its extension, runs the first N portable fixtures (default 4) through executorch.runtime against their
references, runs one through upstream's portable_lib API (executorch.extension.pybindings.portable_lib), reads a
program with executorch.pte, and checks that the bundled SDK is found (CMake dir, libraries). Prints one line per
check and "smoke: all passed".
"""

from __future__ import annotations

import argparse
import json
import sys
import sysconfig
from pathlib import Path

import numpy as np


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("fixtures", type=Path)
    ap.add_argument("--max-fixtures", type=int, default=4)
    args = ap.parse_args()
    fixtures = args.fixtures

    import executorch._C

    import executorch

    ext = Path(executorch._C.__file__).name
    assert sysconfig.get_config_var("EXT_SUFFIX") in ext, (ext, sysconfig.get_config_var("EXT_SUFFIX"))
    print(f"import: executorch {executorch.__version__} ({ext}, Python {sys.version.split()[0]})")

    cmake_dir = Path(executorch.get_cmake_dir())
    assert (cmake_dir / "executorch-config.cmake").is_file(), cmake_dir
    libs = sorted(p.name for p in Path(executorch.get_lib_dir()).glob("libexecutorch*.so*"))
    assert any(n.startswith("libexecutorch.so.") for n in libs), libs
    print(f"sdk: {cmake_dir.name}, {len(libs)} libraries")

    from executorch.runtime import Runtime

    manifest = json.loads((fixtures / "manifest.json").read_text())
    runtime = Runtime.get()
    checked = 0
    names = []
    for fx in [f for f in manifest["fixtures"] if "portable" in f["files"]][: args.max_fixtures]:
        program = runtime.load_program(fixtures / fx["files"]["portable"])
        for name, spec in fx["methods"].items():
            method = program.load_method(name)
            for case in spec["cases"]:
                outs = method.execute([np.load(fixtures / i["file"]) for i in case["inputs"]])
                for got, ref_spec in zip(outs, case["outputs"], strict=True):
                    ref = np.load(fixtures / ref_spec["file"])
                    assert got.dtype == ref.dtype and got.shape == ref.shape, (fx["name"], got.shape, ref.shape)
                    np.testing.assert_allclose(got, ref, atol=fx["atol"], rtol=fx["rtol"])
                    checked += 1
        names.append(fx["name"])
    assert checked, "no fixture output checked"
    print(f"runtime: {checked} outputs of {', '.join(names)} match their references")

    from executorch.extension.pybindings.portable_lib import _get_operator_names, _load_for_executorch

    fx = next(f for f in manifest["fixtures"] if "portable" in f["files"] and "forward" in f["methods"])
    module = _load_for_executorch(str(fixtures / fx["files"]["portable"]))
    case = fx["methods"]["forward"]["cases"][0]
    outs = module.forward(tuple(np.load(fixtures / i["file"]) for i in case["inputs"]))
    ref = np.load(fixtures / case["outputs"][0]["file"])
    np.testing.assert_allclose(np.asarray(outs[0]), ref, atol=fx["atol"], rtol=fx["rtol"])
    assert module.method_meta("forward").num_inputs() == len(case["inputs"])
    assert _get_operator_names(), "no operator registered"
    print(f"portable_lib: {fx['name']}.forward matches")

    from executorch import pte

    pte_file = pte.PteFile.load(fixtures / fx["files"]["portable"])
    plans = [pte.as_str(plan.name) for plan in pte_file.program.executionPlan]
    assert "forward" in plans, plans
    print(f"pte: {fx['name']} read (plans {plans})")
    print("smoke: all passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
