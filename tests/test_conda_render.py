"""The online conda recipe (recipe/recipe.yaml as a conda-forge style build would see it: EXECUTORCH_CONDA_OFFLINE
unset) renders for every platform of the matrix, with one executorch-python variant per CPython of the wheel
matrix. Rendering needs no channel (py-rattler-build's Stage0Recipe.render; well under a second).

The variant config stands in for conda-forge's global pinning: the compiler and stdlib keys that compiler() and
stdlib() need, and python 3.10-3.13 (the wheel matrix: et_packaging.model.PYTHONS).
"""

from __future__ import annotations

import sys

import pytest

from et_common import REPO

sys.path.insert(0, str(REPO / "scripts"))
from et_packaging import model

rb = pytest.importorskip("rattler_build")

PLATFORMS = ("linux-64", "linux-aarch64", "osx-arm64")
LIBRARY_OUTPUTS = ("executorch-runtime", "executorch-threadpool", "executorch-kernels", "executorch-xnnpack")


def variants(platform: str) -> dict[str, list[str]]:
    linux = platform.startswith("linux")
    return {
        "python": list(model.PYTHONS),
        "c_compiler": ["gcc" if linux else "clang"],
        "cxx_compiler": ["gxx" if linux else "clangxx"],
        "c_stdlib": ["sysroot" if linux else "macosx_deployment_target"],
        "c_stdlib_version": ["2.28" if linux else "11.0"],
    }


@pytest.fixture(scope="module")
def rendered() -> dict[str, list]:
    with pytest.MonkeyPatch.context() as mp:
        for name in ("EXECUTORCH_CONDA_OFFLINE", "EXECUTORCH_CONDA_PYTHON", "EXECUTORCH_CONDA_PY_VER"):
            mp.delenv(name, raising=False)
        recipe = rb.Stage0Recipe.from_file(REPO / "recipe" / "recipe.yaml")
        return {
            plat: recipe.render(
                rb.VariantConfig(variants(plat)), rb.RenderConfig(platform=rb.PlatformConfig(target_platform=plat))
            )
            for plat in PLATFORMS
        }


def by_output(rendered: list) -> dict[str, list[dict]]:
    """Output name -> its distinct builds (variant plus build hash; a render lists an output once per combination of
    the variant config even where its hash does not depend on it)."""
    out: dict[str, dict[str, dict]] = {}
    for v in rendered:
        variant = dict(v.variant)
        out.setdefault(v.recipe.package.name, {})[f"{v.hash_info.prefix}h{v.hash_info.hash}"] = variant
    return {name: list(builds.values()) for name, builds in out.items()}


@pytest.mark.parametrize("platform", PLATFORMS)
def test_online_recipe_renders_one_python_variant_per_cpython(rendered: dict[str, list], platform: str) -> None:
    outputs = by_output(rendered[platform])
    assert set(LIBRARY_OUTPUTS) | {"executorch-python", "executorch"} <= set(outputs), sorted(outputs)
    pythons = sorted(str(v["python"]) for v in outputs["executorch-python"])
    assert pythons == sorted(model.PYTHONS), pythons
    # The meta-package is per platform: it pins its platform's builds exactly.
    assert [v["target_platform"] for v in outputs["executorch"]] == [platform] * len(outputs["executorch"])


@pytest.mark.parametrize("platform", PLATFORMS)
def test_library_outputs_do_not_vary_with_python(rendered: dict[str, list], platform: str) -> None:
    """The staging build is the C++ components only (online): one build of each library per platform, whatever
    the python variants; only executorch-python (and the meta-package pinning it) is built per python."""
    outputs = by_output(rendered[platform])
    for name in LIBRARY_OUTPUTS:
        assert len(outputs[name]) == 1, (name, outputs[name])
        assert "python" not in outputs[name][0], (name, outputs[name][0])


def test_cuda_output_is_linux_only(rendered: dict[str, list]) -> None:
    assert "executorch-cuda" not in by_output(rendered["osx-arm64"])
    assert "executorch-cuda" in by_output(rendered["linux-64"]) and "executorch-cuda" in by_output(
        rendered["linux-aarch64"]
    )
