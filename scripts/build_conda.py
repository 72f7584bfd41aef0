#!/usr/bin/env python3
"""Builds the conda channel dist/conda-channel from recipe/recipe.yaml (generated from components.toml).

Usage:
  build_conda.py [--channel DIR] [--build-dir DIR] [--clean] [--arch x86_64|aarch64] [--tree DIR]
                 [--cuda-build-dir DIR | --no-cuda]              build, verify and index the channel
  build_conda.py --write-recipe                                  regenerate recipe/recipe.yaml from components.toml
  build_conda.py --check-recipe                                  exit 1 when recipe/recipe.yaml is out of date
  build_conda.py --check                                         exit 2 when components.toml, the recipe or
                                                                 pyproject.toml's install.components are broken

The build is offline: py-rattler-build with no remote channel (channels=[]) and the system toolchain
(EXECUTORCH_CONDA_OFFLINE=1 drops the recipe's compiler()/stdlib() lines). Build once, package many: the packages
of an architecture are staged from the C++ tree scripts/build_sdk.sh built for it (build/release for linux-64,
build/aarch64 for linux-aarch64: --arch, --tree), brought up to date first; only the Python extension is compiled
(build/conda/python-<arch>; for aarch64 cross-compiled as the aarch64 wheels are). Every package is checked before
it enters the channel: file hashes against info/paths.json, no build-machine path in any payload file
(scripts/check_artifacts.py), no file that needs prefix rewriting, $ORIGIN-only RUNPATHs and
lib<name>.so.<major>.<minor> SONAMEs. A package that fails is left out of the channel and the script exits 1. The
functions are also used by tests/test_conda.py.

The recipe's per-output `tests` run during the build (test_strategy="native"; output_tests says which, and why an
output has none that needs an environment offline): a strict package_contents test of every output, and for a
library output a CMake consumer (recipe/test_consumer.sh, with the system cmake/ninja/compiler) in a new
environment made of the outputs just built. A failed test fails the build.

executorch-cuda (optional) installs libexecutorch_cuda from the executorch-cuda wheel's CMake tree
(build/cuda-wheel; recipe/install_cuda.sh sets its RUNPATH to $ORIGIN): --cuda-build-dir uses a tree as it is
(scripts/build_sdk.sh, right after building that wheel), the default brings build/cuda-wheel up to date first when
nvcc and the NVIDIA wheels are there (cuda_toolchain_missing), and --no-cuda leaves the package out.

Reproducible: every package is rewritten deterministically (normalize_conda): archive entries sorted, mtimes and
info/index.json's timestamp set to SOURCE_DATE_EPOCH (default: the commit time of HEAD), its `depends` sorted
(rattler-build lists run_exports in hash order), uid/gid 0, no info/recipe (it would record build paths). Two
builds of one commit give byte-identical .conda files (tests/test_reproducible.py).
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import textwrap
import time
import warnings
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import tomllib

try:
    import yaml
except ImportError:  # requirements-dev.txt (pyyaml), installed by scripts/setup.sh
    raise SystemExit(f"error: PyYAML is missing in {sys.executable}: run scripts/setup.sh") from None

REPO = Path(__file__).resolve().parent.parent
MANIFEST = REPO / "components.toml"
RECIPE = REPO / "recipe" / "recipe.yaml"
sys.path.insert(0, str(Path(__file__).resolve().parent))
import check_artifacts  # noqa: E402

# ---------------------------------------------------------------------------------------------------- manifest


def load_manifest(path: Path = MANIFEST) -> dict:
    try:
        return tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise SystemExit(f"error: cannot read {path}: {e}") from None


_COMPONENT_KEYS = {"status", "description", "library", "cmake_component", "wheel", "conda", "depends", "files"}


def manifest_problems(manifest: dict) -> list[str]:
    """What is wrong with components.toml (missing keys, unknown dependencies, duplicate names, bad globs)."""
    out = []
    package = manifest.get("package")
    if not isinstance(package, dict):
        return ["[package] is missing"]
    out += [f"[package] lacks {k}" for k in ("name", "run_exports_upper_bound", "conda_meta") if k not in package]
    comps = manifest.get("components")
    if not isinstance(comps, dict) or not comps:
        return [*out, "no [components.<name>] tables"]
    seen: dict[tuple[str, str], str] = {}
    for name, comp in comps.items():
        where = f"[components.{name}]"
        if not isinstance(comp, dict):
            out.append(f"{where} is not a table")
            continue
        out += [f"{where} lacks {k}" for k in sorted(_COMPONENT_KEYS - set(comp))]
        if comp.get("status") not in ("built", "planned"):
            out.append(f"{where} status = {comp.get('status')!r}; expected 'built' or 'planned'")
        for dep in comp.get("depends", []):
            if dep not in comps or dep == name:
                out.append(f"{where} depends on {dep!r}, which is not another component")
            elif comp.get("status") == "built" and comps[dep].get("status") != "built":
                out.append(f"{where} is built but depends on {dep!r}, which is not")
        files = comp.get("files")
        if not isinstance(files, list) or not files or not all(isinstance(f, str) for f in files):
            out.append(f"{where} files must be a non-empty list of globs")
            files = []
        for pattern in [*files, comp.get("library", ""), comp.get("devlink", "")]:
            try:
                expand(pattern, "conda", "3.0")
            except (KeyError, IndexError, ValueError):
                out.append(f"{where} glob {pattern!r} uses a placeholder other than {{prefix}} and {{site}}")
        if "cuda_architectures" in comp:
            arch = comp["cuda_architectures"]
            if not isinstance(arch, dict) or set(arch) != {"cuda_version", "sass", "ptx"}:
                out.append(f"{where} cuda_architectures must have exactly cuda_version, sass and ptx")
            elif not arch["sass"] or not arch["ptx"] or max(arch["ptx"]) != max(arch["sass"] + arch["ptx"]):
                out.append(f"{where} cuda_architectures: the newest architecture must be claimed as PTX")
            for key in ("conda_build_string", "devlink", "wheel_pyproject"):
                if key not in comp:
                    out.append(f"{where} lacks {key} (needed by a CUDA component)")
        if comp.get("wheel") != "executorch" and "wheel_pyproject" not in comp:
            out.append(f"{where} ships in its own wheel {comp.get('wheel')!r} but has no wheel_pyproject")
        for key in ("conda", "cmake_component"):
            if key in comp:
                if (key, comp[key]) in seen:
                    out.append(f"{where} {key} {comp[key]!r} is also component {seen[key, comp[key]]}'s")
                seen[key, comp[key]] = name
    return out


def check_inputs() -> list[str]:
    """Problems with the build inputs: components.toml, recipe/ and pyproject.toml's install.components."""
    manifest = load_manifest()
    problems = [f"components.toml: {p}" for p in manifest_problems(manifest)]
    if problems:
        return problems
    for script in ("build.sh", "install_component.sh", "install_python.sh", "test_consumer.sh"):
        if not (RECIPE.parent / script).is_file():
            problems.append(f"recipe/{script} is missing (git checkout recipe/)")
    if not RECIPE.is_file() or RECIPE.read_text() != render_recipe(manifest, project_version()):
        problems.append(
            "recipe/recipe.yaml differs from what components.toml gives: run scripts/build_conda.py --write-recipe"
        )
    pyprojects = {"executorch": "pyproject.toml"}
    pyprojects |= {c["wheel"]: c["wheel_pyproject"] for c in manifest["components"].values() if "wheel_pyproject" in c}
    for wheel, rel in pyprojects.items():
        try:
            pyproject = tomllib.loads((REPO / rel).read_text())
        except (OSError, tomllib.TOMLDecodeError) as e:
            problems.append(f"{rel}: {e}")
            continue
        have = pyproject.get("tool", {}).get("scikit-build", {}).get("install", {}).get("components")
        if have != wheel_components(manifest, wheel):
            problems.append(
                f"{rel} [tool.scikit-build] install.components = {have}, but components.toml ships "
                f"{wheel_components(manifest, wheel)} in the {wheel} wheel"
            )
        if pyproject.get("project", {}).get("name") != wheel:
            problems.append(f"{rel}: [project] name is not {wheel!r}")
    for script in ("install_cuda.sh",):
        if any("cuda_architectures" in c for c in manifest["components"].values()):
            if not (RECIPE.parent / script).is_file():
                problems.append(f"recipe/{script} is missing (git checkout recipe/)")
    return problems


def source_date_epoch() -> int:
    """SOURCE_DATE_EPOCH, else the commit time of HEAD, else 1980-01-01 (the earliest zip timestamp)."""
    if os.environ.get("SOURCE_DATE_EPOCH"):
        return int(os.environ["SOURCE_DATE_EPOCH"])
    proc = subprocess.run(["git", "-C", str(REPO), "log", "-1", "--format=%ct"], capture_output=True, text=True)
    return int(proc.stdout) if proc.returncode == 0 and proc.stdout.strip() else 315532800


def foreign_build_dir(build: Path, source: Path = REPO) -> str | None:
    """The source tree a CMake build dir was configured from, when it is not `source` (None when it is, or new)."""
    cache = build / "CMakeCache.txt"
    if not cache.is_file():
        return None
    m = re.search(r"^CMAKE_HOME_DIRECTORY:INTERNAL=(.*)$", cache.read_text(errors="replace"), re.M)
    home = m.group(1) if m else "?"
    return None if m and Path(home).resolve() == source.resolve() else home


def project_version(cmakelists: Path = REPO / "CMakeLists.txt") -> str:
    m = re.search(r"project\(executorch VERSION ([0-9][0-9.]*)", cmakelists.read_text())
    if not m:
        raise SystemExit(f"error: no project(executorch VERSION ...) in {cmakelists}")
    return m.group(1)


def built_components(manifest: dict) -> dict[str, dict]:
    return {name: c for name, c in manifest["components"].items() if c["status"] == "built"}


def wheel_components(manifest: dict, wheel: str = "executorch") -> list[str]:
    """CMake install components of the built components shipped in `wheel` (pyproject's install.components)."""
    return [c["cmake_component"] for c in built_components(manifest).values() if c["wheel"] == wheel]


def layout(fmt: str, py_ver: str = "") -> dict[str, str]:
    if fmt == "wheel":
        return {"prefix": "executorch", "site": ""}
    if fmt == "conda":
        return {"prefix": "", "site": f"lib/python{py_ver}/site-packages"}
    raise ValueError(fmt)


def expand(pattern: str, fmt: str, py_ver: str = "") -> str:
    """A manifest glob in one package format's layout (placeholders filled, empty segments dropped)."""
    text = pattern.format(**layout(fmt, py_ver))
    return "/".join(part for part in text.split("/") if part)


def glob_regex(pattern: str) -> re.Pattern[str]:
    out = ""
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out += "(?:.*/)?"
            i += 3
        elif pattern.startswith("**", i):
            out += ".*"
            i += 2
        elif pattern[i] == "*":
            out += "[^/]*"
            i += 1
        elif pattern[i] == "?":
            out += "[^/]"
            i += 1
        else:
            out += re.escape(pattern[i])
            i += 1
    return re.compile(out + r"\Z")


@dataclass
class Classified:
    owner: dict[str, str] = field(default_factory=dict)  # file -> component
    unmatched: list[str] = field(default_factory=list)  # files no component claims
    ambiguous: dict[str, list[str]] = field(default_factory=dict)  # files several components claim
    empty_globs: list[str] = field(default_factory=list)  # "component: glob" that matched nothing

    def problems(self) -> list[str]:
        return (
            [f"{f}: matches no component's files in components.toml" for f in self.unmatched]
            + [f"{f}: claimed by several components {c}" for f, c in self.ambiguous.items()]
            + [f"{g}: matches no file" for g in self.empty_globs]
        )


def classify(
    files: list[str],
    manifest: dict,
    fmt: str,
    components: list[str],
    *,
    py_ver: str = "",
    with_devlinks: bool = False,
) -> Classified:
    """Assigns every file to the component whose globs match it; `components` are the ones expected to be there."""
    globs: dict[str, list[tuple[str, re.Pattern[str]]]] = {}
    for name, comp in manifest["components"].items():
        pats = list(comp["files"])
        if fmt == "wheel":
            pats += comp.get("wheel_files", [])
        if with_devlinks and comp.get("devlink"):
            pats.append(comp["devlink"])
        globs[name] = [(expand(p, fmt, py_ver), glob_regex(expand(p, fmt, py_ver))) for p in pats]
    out = Classified()
    hit: set[tuple[str, str]] = set()
    for f in files:
        owners = []
        for name, pats in globs.items():
            for text, rx in pats:
                if rx.match(f):
                    owners.append(name)
                    hit.add((name, text))
                    break
        if not owners:
            out.unmatched.append(f)
        elif len(owners) > 1:
            out.ambiguous[f] = owners
        else:
            out.owner[f] = owners[0]
    for name in components:
        out.empty_globs += [f"{name}: {text}" for text, _ in globs[name] if (name, text) not in hit]
    for f, name in out.owner.items():
        if name not in components:
            out.unmatched.append(f"{f} (component {name} is not expected here)")
    return out


# ------------------------------------------------------------------------------------------------------ recipe
#
# recipe/recipe.yaml is built here as data (dicts and lists, in the order they are written) and written by PyYAML
# (render_recipe). rattler-build's conditional items (`if:` / `then:` / `else:`) are ordinary mappings and its
# `${{ ... }}` expressions ordinary strings; PyYAML quotes a string exactly where YAML needs it, so both reach
# rattler-build unchanged (tests/test_conda.py reads the file back and compares it with the data).

ONLINE = 'offline == "0"'  # rattler-build condition: a conda-forge style build (EXECUTORCH_CONDA_OFFLINE unset)
CXX_TOOLS = ['${{ compiler("cxx") }}', '${{ stdlib("c") }}', "cmake >=3.24", "ninja"]  # online builds and tests
CMAKE_CONFIG = "{prefix}/lib/cmake/executorch/executorch-config.cmake"  # find_package(executorch) reads this
# The headers recipe/test_consumer.sh compiles against: they ship with the component that owns CMAKE_CONFIG.
CONSUMER_HEADERS = ["executorch/runtime/platform/runtime.h", "executorch/runtime/version.h"]


def claim_text(comp: dict) -> str:
    """The device-code claim of a CUDA component, in words (the conda package's about.description)."""
    arch = comp["cuda_architectures"]
    return (
        f"CUDA {arch['cuda_version']} device code: SASS sm_{', sm_'.join(map(str, arch['sass']))}; "
        f"PTX compute_{', compute_'.join(map(str, arch['ptx']))} (share/executorch/cuda-architectures.json)"
    )


def _pin(name: str, **kw: str) -> str:
    args = ", ".join([f'"{name}"'] + [f"{k}={v}" for k, v in kw.items()])
    return f"${{{{ pin_subpackage({args}) }}}}"


def _env(var: str, default: str) -> str:
    return f'${{{{ env.get("{var}", default="{default}") }}}}'


def _online(*items: object, otherwise: list | None = None) -> dict:
    """A conditional list item: `items` in an online build only (`otherwise` offline)."""
    return {"if": ONLINE, "then": list(items)} | ({"else": otherwise} if otherwise is not None else {})


def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))


def soversion(version: str) -> str:
    """The SONAME suffix of every component library (CMakeLists.txt's EXECUTORCH_SOVERSION: major.minor)."""
    return ".".join(version.split(".")[:2])


def config_owner(manifest: dict) -> str:
    """The built component whose package holds the CMake config file (every CMake consumer needs it)."""
    owners = [name for name, c in built_components(manifest).items() if CMAKE_CONFIG in c["files"]]
    if len(owners) != 1:
        raise SystemExit(f"error: components.toml: {CMAKE_CONFIG} must be in one built component's files: {owners}")
    return owners[0]


def _closure(comps: dict[str, dict], name: str) -> set[str]:
    out: set[str] = set()
    todo = list(comps[name]["depends"])
    while todo:
        dep = todo.pop()
        if dep not in out:
            out.add(dep)
            todo += comps[dep]["depends"]
    return out


class _Quoted(str):
    """A string always written in double quotes (a version such as 1.0 must not read back as a number)."""

    __slots__ = ()


class _RecipeDumper(yaml.SafeDumper):
    """Block style, sequences indented under their key, a blank line between top-level sections and between the
    items of a top-level list (the outputs), never an alias or anchor."""

    def ignore_aliases(self, data: object) -> bool:
        return True

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        super().increase_indent(flow, False)

    def _blank_line(self) -> None:
        if self.column:
            self.write_line_break()
        self.write_line_break()

    def expect_block_mapping_key(self, first: bool = False) -> None:
        if not first and not isinstance(self.event, yaml.MappingEndEvent) and len(self.indents) == 1:
            self._blank_line()
        super().expect_block_mapping_key(first)

    def expect_block_sequence_item(self, first: bool = False) -> None:
        if not first and not isinstance(self.event, yaml.SequenceEndEvent) and len(self.indents) == 2:
            self._blank_line()
        super().expect_block_sequence_item(first)


def _represent_str(dumper: yaml.SafeDumper, data: str) -> yaml.ScalarNode:
    # Scripts (several lines) as literal blocks; PyYAML falls back to quotes where a block cannot hold the text.
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style="|" if "\n" in data else None)


_RecipeDumper.add_representer(str, _represent_str)
_RecipeDumper.add_representer(
    _Quoted, lambda dumper, data: dumper.represent_scalar("tag:yaml.org,2002:str", str(data), style='"')
)


@dataclass
class OutputTests:
    """The `tests` of one output, and what of them runs in the offline build."""

    tests: list  # the recipe's `tests:` list
    offline: list[str]  # kinds that run in the offline build: "package_contents", "script"
    online: list[str]  # kinds that run only in an online build: "python", "script"
    not_offline: str = ""  # why a test kind is missing offline ("" when everything runs)


def _contents_test(globs: list[str], **sections: list[str]) -> dict:
    """`package_contents` in strict mode: every glob must match a file, and every file a glob (components.toml's
    rule for a component's `files`, checked while the package is built)."""
    test: dict = {k: v for k, v in sections.items() if v}
    if globs:
        test["files"] = _unique(globs)
    return {"package_contents": test | {"strict": True}}


def _consumer_test(comps: dict[str, dict], name: str, owner: str, version: str) -> dict:
    """The script test recipe/test_consumer.sh: a CMake project finds the installed package, links its target and
    the runtime's, runs, and checks that it records the library's SONAME (DT_NEEDED) and that the loaded runtime,
    the headers and the package have one version."""
    comp = comps[name]
    requirements: dict = {"build": [_online(*CXX_TOOLS)]}  # offline: the system's (on PATH)
    if name != owner and owner not in _closure(comps, name):
        requirements["run"] = [_pin(comps[owner]["conda"], exact="true")]  # the CMake config file
    env = {
        "ET_COMPONENT": comp["cmake_target"].split("::", 1)[1],
        "ET_TARGETS": " ".join(_unique([comp["cmake_target"], comps[owner]["cmake_target"]])),
        "ET_SONAME": Path(expand(comp["devlink"], "conda")).name + "." + soversion(version),
        "ET_VERSION": _Quoted(soversion(version)),
    }
    return {"script": {"file": "test_consumer.sh", "env": env}, "requirements": requirements}


def output_tests(manifest: dict, version: str) -> dict[str, OutputTests]:
    """The tests of every output (conda package name -> OutputTests), meta-package included.

    Offline (channels=[]) a test environment can only hold this recipe's own outputs, so:
    - every output gets a strict `package_contents` test (no environment needed; it runs while packaging);
    - a library output gets a CMake consumer (script test: the system cmake, ninja and C++ compiler offline,
      conda-forge's online) when its test environment needs nothing from outside the recipe;
    - an output that needs outside packages (python, numpy, cuda-cudart, ...) gets its environment tests online
      only, and an output that needs a virtual package (__cuda: a GPU driver on the machine that runs the tests)
      none at all; `not_offline` says why, and the recipe's header repeats it.
    """
    comps = built_components(manifest)
    owner = config_owner(manifest)
    out: dict[str, OutputTests] = {}
    for name, comp in comps.items():
        external = list(comp.get("conda_run", []))
        virtual = [d.split()[0] for d in external if d.startswith("__")]
        globs = [expand(g, "conda", "*") for g in comp["files"]]
        if "python_package" in comp:
            package = comp["python_package"].rstrip("/").rsplit("/", 1)[-1]
            contents = _contents_test(globs, site_packages=[package])
            imports = {"python": {"imports": [package, f"{package}._C"], "pip_check": False}}
            out[comp["conda"]] = OutputTests(
                tests=[contents, _online(imports)],
                offline=["package_contents"],
                online=["python"],
                not_offline=(
                    f"no python import test offline: its environment needs python, {', '.join(external)}, which "
                    "no channel of the offline build has (channels=[]); tests/test_conda.py imports it from a "
                    "prefix with test-only stubs instead (tests/conda/stubs)"
                ),
            )
            continue
        library = expand(comp["devlink"], "conda") + "." + soversion(version)
        files = [library, expand(comp["devlink"], "conda")]
        files += [expand(comp["cmake_targets_file"], "conda")] if "cmake_targets_file" in comp else []
        headers = CONSUMER_HEADERS if name == owner else []
        contents = _contents_test([*files, *globs], include=headers)
        if virtual:
            out[comp["conda"]] = OutputTests(
                tests=[contents],
                offline=["package_contents"],
                online=[],
                not_offline=(
                    f"no CMake consumer: installing it needs {', '.join(virtual)} (a GPU driver on the machine "
                    f"that runs the tests) and {', '.join(d for d in external if not d.startswith('__'))}, which no "
                    "channel of the offline build has; tests/test_cuda_packaging.py installs it with test-only stubs"
                ),
            )
        elif external:
            out[comp["conda"]] = OutputTests(
                tests=[contents, _online(_consumer_test(comps, name, owner, version))],
                offline=["package_contents"],
                online=["script"],
                not_offline=f"no CMake consumer offline: its environment needs {', '.join(external)}",
            )
        else:
            out[comp["conda"]] = OutputTests(
                tests=[contents, _consumer_test(comps, name, owner, version)],
                offline=["package_contents", "script"],
                online=[],
            )
    meta = manifest["package"]["conda_meta"]
    members = [c["conda"] for c in comps.values() if not c.get("optional")]
    needs = [o for o in members if out[o].not_offline]
    out[meta] = OutputTests(
        tests=[_contents_test([])],  # strict, no globs: the meta-package holds no file
        offline=["package_contents"],
        online=[],
        not_offline=f"no environment test: it installs {', '.join(needs)} (see there)" if needs else "",
    )
    return out


def _header(tests: dict[str, OutputTests]) -> list[str]:
    lines = [
        "GENERATED by scripts/build_conda.py from components.toml: do not edit; run",
        "  .venv/bin/python scripts/build_conda.py --write-recipe",
        "Offline (this repository's CI, scripts/build_conda.py): EXECUTORCH_CONDA_OFFLINE=1, the system toolchain,",
        "no remote channel. Online (a conda-forge style build): leave it unset; compilers, cmake, python and pybind11",
        "then come from the channel. See docs/packaging.md.",
        "",
        "context: optional components (CUDA) are built unless EXECUTORCH_CONDA_CUDA=0; EXECUTORCH_CUDA_BUILD_DIR names",
        "a CMake tree that already built the cuda target (offline: build/cuda-wheel, the executorch-cuda wheel's).",
        "The staging output is one CMake build of every component; each package output installs its own CMake",
        "install component. binary_relocation is off: CMake already gives every file its $ORIGIN-relative RUNPATH.",
        "",
        "Tests (rattler-build runs them while it builds; scripts/build_conda.py sets test_strategy=native):",
        "package_contents checks the package's files against components.toml (strict); a script test runs in a new",
        "environment made of this recipe's outputs. Per output, offline [online only]:",
    ]
    width = max(map(len, tests))
    for output, t in tests.items():
        kinds = ", ".join(t.offline) + (f" [{', '.join(t.online)}]" if t.online else "")
        lines.append(f"  {output:{width}}  {kinds}")
        if t.not_offline:
            lines += [
                f"  {'':{width}}    {part}"
                for part in textwrap.wrap(t.not_offline, 112 - width, break_on_hyphens=False)
            ]
    return [f"# {line}".rstrip() for line in lines]


def recipe_data(manifest: dict, version: str) -> dict:
    """recipe/recipe.yaml as data, in the order it is written."""
    comps = built_components(manifest)
    bound = manifest["package"]["run_exports_upper_bound"]
    tests = output_tests(manifest, version)
    env = {
        "ET_SOURCE_DIR": "${{ source_dir }}",
        "ET_BUILD_DIR": "${{ build_dir }}",
        "ET_PYTHON": "${{ et_python }}",
        "ET_PY_VER": "${{ py_ver }}",
        "ET_OFFLINE": "${{ offline }}",
    }
    staging = {
        "staging": {"name": "executorch-build"},
        "requirements": {
            "build": [
                _online(
                    '${{ compiler("c") }}',
                    '${{ compiler("cxx") }}',
                    '${{ stdlib("c") }}',
                    "cmake >=3.24",
                    "ninja",
                    "flatbuffers",
                )
            ],
            # Online the staging build is the C++ components only: python here would give every library output the
            # python variant. executorch-python builds _C per python itself (install_python.sh, EXECUTORCH_PYTHON_ONLY).
            "host": [_online("flatbuffers")],
        },
        "build": {"script": {"file": "build.sh", "env": env}},
    }
    outputs: list[dict] = [staging]
    for comp in comps.values():
        deps = [_pin(comps[d]["conda"], exact="true") for d in comp["depends"]]
        extra_run = list(comp.get("conda_run", []))
        run_export = [_pin(comp["conda"], upper_bound=repr(bound))]
        requirements: dict = {}
        build: dict = {}
        if "cuda_architectures" in comp:
            # Offline the library comes prebuilt (cuda_build_dir); online install_cuda.sh compiles it here.
            cuda_version = comp["cuda_architectures"]["cuda_version"]
            requirements["build"] = [_online('${{ compiler("cxx") }}', '${{ compiler("cuda") }}', *CXX_TOOLS[1:])]
            requirements["host"] = [
                *deps,
                _online(f"cuda-version {cuda_version}.*", "cuda-cudart-dev", "libcublas-dev"),
            ]
            requirements["run"] = deps + extra_run
            requirements["run_exports"] = run_export
            build["string"] = f"{comp['conda_build_string']}_h${{{{ hash }}}}_${{{{ build_number }}}}"
            build["skip"] = ['cuda == "0"', "not linux"]  # CUDA 13 packages exist for Linux only
            args = f"{comp['cmake_component']} {expand(comp['devlink'], 'conda')}"
            script = {"content": f'bash "$RECIPE_DIR/install_cuda.sh" {args}'}
            script["env"] = env | {"ET_CUDA_BUILD_DIR": "${{ cuda_build_dir }}"}
        elif "python_package" in comp:
            requirements["build"] = [
                _online(
                    '${{ compiler("c") }}', '${{ compiler("cxx") }}', '${{ stdlib("c") }}', "cmake >=3.24", "ninja",
                    "flatbuffers",
                )
            ]  # fmt: skip
            requirements["host"] = [*deps, _online("python", "pybind11 >=2.12")]
            requirements["run"] = [*deps, _online("python", otherwise=["python ${{ py_ver }}.*"]), *extra_run]
            script = {
                "content": 'bash "$RECIPE_DIR/install_python.sh"',
                "env": env
                | {
                    "ET_PYTHON_BUILD_DIR": "${{ python_build_dir }}",
                    "ET_PYTHON_CMAKE_ARGS": "${{ python_cmake_args }}",
                },
            }
        else:
            if deps:
                requirements["host"] = deps
                requirements["run"] = deps
            requirements["run_exports"] = run_export
            args = f"{comp['cmake_component']} {expand(comp.get('devlink', ''), 'conda')}".rstrip()
            script = {"content": f'bash "$RECIPE_DIR/install_component.sh" {args}', "env": env}
        build["script"] = script
        build["dynamic_linking"] = {"binary_relocation": False}
        about = {"summary": comp["description"]}
        if "cuda_architectures" in comp:
            about["description"] = claim_text(comp)
        outputs.append(
            {
                "package": {"name": comp["conda"]},
                "inherit": "executorch-build",
                "requirements": requirements,
                "build": build,
                "tests": tests[comp["conda"]].tests,
                "about": about,
            }
        )
    meta = manifest["package"]["conda_meta"]
    outputs.append(
        {
            "package": {"name": meta},
            # Per platform, not noarch: it pins the exact builds of its platform's outputs, whose hashes differ.
            "requirements": {"run": [_pin(c["conda"], exact="true") for c in comps.values() if not c.get("optional")]},
            "tests": tests[meta].tests,
            "about": {"summary": "ExecuTorch runtime, thread pool, CPU kernels and Python bindings"},
        }
    )
    return {
        "schema_version": 1,
        "context": {
            "version": _Quoted(version),
            "offline": _env("EXECUTORCH_CONDA_OFFLINE", "0"),
            "et_python": _env("EXECUTORCH_CONDA_PYTHON", ""),
            "py_ver": _env("EXECUTORCH_CONDA_PY_VER", ""),
            "build_dir": _env("EXECUTORCH_CMAKE_BUILD_DIR", ""),
            "source_dir": _env("EXECUTORCH_CMAKE_SOURCE_DIR", ""),
            "python_build_dir": _env("EXECUTORCH_PYTHON_BUILD_DIR", ""),
            "python_cmake_args": _env("EXECUTORCH_PYTHON_CMAKE_ARGS", ""),
            "cuda": _env("EXECUTORCH_CONDA_CUDA", "1"),
            "cuda_build_dir": _env("EXECUTORCH_CUDA_BUILD_DIR", ""),
        },
        "recipe": {"name": "executorch-split", "version": "${{ version }}"},
        "source": {"path": "..", "use_gitignore": True},
        "build": {"number": 0},
        "about": {
            "license": "BSD-3-Clause",
            "summary": "Runtime for ExecuTorch .pte programs (independent C++ implementation), split into components",
        },
        "outputs": outputs,
    }


def render_recipe(manifest: dict, version: str) -> str:
    """recipe/recipe.yaml: a comment header, then recipe_data written by PyYAML."""
    header = _header(output_tests(manifest, version))
    body = yaml.dump(
        recipe_data(manifest, version),
        Dumper=_RecipeDumper,
        sort_keys=False,
        default_flow_style=False,
        width=4096,  # one line per scalar: PyYAML would fold long plain strings
        allow_unicode=True,
    )
    return "\n".join(header) + "\n" + body


# -------------------------------------------------------------------------------------------- package checks


@dataclass
class PackageInfo:
    path: Path
    name: str
    version: str
    build: str
    depends: list[str]
    run_exports: dict
    files: list[str]  # payload paths (info/paths.json)
    problems: list[str]


def read_package(conda: Path, dest: Path, forbidden: list[str]) -> PackageInfo:
    """Extracts `conda` into `dest` and checks it; problems are listed, not raised."""
    from rattler.package_streaming import extract

    extract(conda, dest)
    index = json.loads((dest / "info" / "index.json").read_text())
    paths = json.loads((dest / "info" / "paths.json").read_text())["paths"]
    rex = dest / "info" / "run_exports.json"
    run_exports = json.loads(rex.read_text()) if rex.is_file() else {}
    problems: list[str] = []
    listed = set()
    for entry in paths:
        rel = entry["_path"]
        listed.add(rel)
        p = dest / rel
        if entry.get("path_type") == "softlink":
            if not p.is_symlink():
                problems.append(f"{rel}: listed as a link but is not one")
            elif Path(os.readlink(p)).is_absolute():
                problems.append(f"{rel}: absolute link target {os.readlink(p)}")
            continue
        if not p.is_file():
            problems.append(f"{rel}: listed in info/paths.json but missing")
            continue
        data = p.read_bytes()
        if hashlib.sha256(data).hexdigest() != entry.get("sha256"):
            problems.append(f"{rel}: sha256 differs from info/paths.json")
        if entry.get("size_in_bytes") is not None and entry["size_in_bytes"] != len(data):
            problems.append(f"{rel}: size differs from info/paths.json")
        if entry.get("prefix_placeholder"):
            problems.append(f"{rel}: holds the build prefix ({entry.get('file_mode')}); the SDK must be relocatable")
    for p in sorted(dest.rglob("*")):
        rel = p.relative_to(dest).as_posix()
        if (p.is_file() or p.is_symlink()) and not rel.startswith("info/") and rel not in listed:
            problems.append(f"{rel}: in the archive but not in info/paths.json")
    # Build-machine paths in payload files (info/ legitimately records the recipe and channels).
    report = check_artifacts.Report()
    check_artifacts.check_paths(dest, forbidden, report)
    problems += [p for p in report.checks["no-build-paths"] if not p.startswith("info/")]
    # RUNPATHs and SONAMEs of the payload (check_artifacts' rules; extensions carry no SONAME).
    report = check_artifacts.Report()
    payload = [Path(r) for r in listed]
    if any(check_artifacts.is_elf(dest / r) for r in payload if (dest / r).is_file() and not (dest / r).is_symlink()):
        check_artifacts.check_elf(dest, report)
        for check, items in report.checks.items():
            problems += [p for p in items if not (check == "soname" and "site-packages/" in p)]
    return PackageInfo(
        path=conda,
        name=index["name"],
        version=index["version"],
        build=index["build"],
        depends=list(index.get("depends", [])),
        run_exports=run_exports,
        files=sorted(listed),
        problems=problems,
    )


def _zstd() -> object:
    try:
        from compression import zstd  # Python 3.14+
    except ImportError:
        from backports import zstd  # type: ignore[no-redef]
    return zstd


def _normalize_tar(data: bytes, epoch: int) -> bytes:
    """A tar with the same members, sorted by name, mtime = epoch, owner root:root, and a fixed index timestamp."""
    out = io.BytesIO()
    with (
        tarfile.open(fileobj=io.BytesIO(data)) as src,
        tarfile.open(fileobj=out, mode="w", format=tarfile.GNU_FORMAT) as dst,
    ):
        for info in sorted(src.getmembers(), key=lambda m: m.name):
            content = src.extractfile(info).read() if info.isfile() else None  # type: ignore[union-attr]
            if info.name == "info/index.json" and content is not None:
                # rattler-build stamps the wall clock time, and lists run_exports-derived dependencies in hash
                # order (it differs between runs); the order of `depends` has no meaning.
                index = json.loads(content)
                index["timestamp"] = epoch * 1000
                for key in ("depends", "constrains"):
                    if key in index:
                        index[key] = sorted(index[key])
                content = json.dumps(index, indent=2).encode()
                info.size = len(content)
            info.mtime = epoch
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            info.pax_headers = {}
            dst.addfile(info, io.BytesIO(content) if content is not None else None)
    return out.getvalue()


def normalize_conda(path: Path, epoch: int) -> None:
    """Rewrites a .conda file deterministically (see the module docstring); the payload bytes do not change."""
    zstd = _zstd()
    with zipfile.ZipFile(path) as z:
        members = [(i.filename, z.read(i)) for i in z.infolist()]
    stamp = time.gmtime(max(epoch, 315532800))[:6]
    tmp = path.with_suffix(".tmp")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_STORED) as z:
        for name, data in members:
            if name.endswith(".tar.zst"):
                tar = _normalize_tar(zstd.decompress(data), epoch)  # type: ignore[attr-defined]
                data = zstd.compress(tar, level=19)  # type: ignore[attr-defined]
            info = zipfile.ZipInfo(name, date_time=stamp)
            info.external_attr = 0o644 << 16
            info.create_system = 3
            z.writestr(info, data)
    os.replace(tmp, path)


def index_channel(channel: Path) -> None:
    from rattler.index import index_fs

    for sub in (*SUBDIRS.values(), "noarch"):
        (channel / sub).mkdir(parents=True, exist_ok=True)
    asyncio.run(index_fs(channel, force=True))


# ------------------------------------------------------------------------------------------------------- build


class _Log:
    """rattler-build progress callback: the log goes to a file (and errors to stderr); downloads must not happen."""

    def __init__(self, log: Path, verbose: bool) -> None:
        self.f = log.open("w")
        self.verbose = verbose

    def on_log(self, e: object) -> None:
        line = f"[{e.level}] {e.message}"  # type: ignore[attr-defined]
        self.f.write(line + "\n")
        self.f.flush()
        if self.verbose or e.level in ("error", "ERROR"):  # type: ignore[attr-defined]
            print(line, file=sys.stderr, flush=True)
        elif re.match(r"\[\d+/\d+\] ", e.message):  # type: ignore[attr-defined]  # ninja's progress
            print(e.message, flush=True)  # type: ignore[attr-defined]

    def on_download_start(self, e: object) -> None:
        raise RuntimeError(f"offline build tried to download {e.url}")  # type: ignore[attr-defined]

    def on_download_progress(self, e: object) -> None:
        pass

    def on_download_complete(self, e: object) -> None:
        pass

    def on_build_step(self, e: object) -> None:
        pass


def cuda_toolchain_missing() -> str | None:
    """Why scripts/build_sdk.sh would not build the CUDA delegate here (None: it builds it). Same rule as there:
    nvcc ($CUDACXX, else /usr/local/cuda/bin/nvcc) and the NVIDIA wheels' cu13 headers/libraries in the Python
    that runs this script (the CUDA build uses that Python's site-packages too), else in the checkout's .venv."""
    nvcc = Path(os.environ.get("CUDACXX") or "/usr/local/cuda/bin/nvcc")
    if not os.access(nvcc, os.X_OK):
        return f"no nvcc ({nvcc})"
    roots = [Path(sysconfig.get_paths()["purelib"]) / "nvidia" / "cu13"]
    roots += sorted((REPO / ".venv" / "lib").glob("python3*/site-packages/nvidia/cu13"))
    if not any((r / "include" / "cublas_v2.h").is_file() and (r / "lib" / "libcudart.so.13").is_file() for r in roots):
        return f"the NVIDIA wheels (nvidia-cuda-runtime, nvidia-cublas) are not in {sys.executable}'s site-packages"
    return None


CUDA_WHEEL_TREE = REPO / "build" / "cuda-wheel"  # packaging/cuda/pyproject.toml's build-dir


def cuda_library(cuda_build: Path) -> Path | None:
    """The CUDA delegate built in `cuda_build` (build/cuda-wheel: the executorch-cuda wheel's tree), if it is there."""
    libs = sorted((cuda_build / "lib").glob("libexecutorch_cuda.so.*")) if cuda_build.is_dir() else []
    return libs[0] if libs else None


# The architectures the builder makes artifacts for: the CMake tree that holds the C++ build of each
# (scripts/build_sdk.sh; wheels and conda packages are staged from it: build once, package many), its GNU triple (the
# extension suffix, .cpython-3XX-<triple>.so), its conda subdir, and for a cross target its toolchain file.
# scripts/build_wheels.py uses the same table.
ARCHES: dict[str, dict[str, str]] = {
    "x86_64": {"build_dir": "build/release", "triple": "x86_64-linux-gnu", "conda_subdir": "linux-64"},
    "aarch64": {
        "build_dir": "build/aarch64",
        "triple": "aarch64-linux-gnu",
        "conda_subdir": "linux-aarch64",
        "toolchain": "cmake/toolchains/aarch64-linux-gnu.cmake",
    },
}
SUBDIRS = {arch: spec["conda_subdir"] for arch, spec in ARCHES.items()}


def build(
    channel: Path,
    work: Path,
    *,
    arch: str = "x86_64",
    tree: Path | None = None,
    clean: bool,
    verbose: bool,
    cuda_build: Path | None = None,
    refresh_cuda: bool = False,
) -> int:
    """Packages `tree` (the C++ build of `arch`; default ARCHES[arch]["build_dir"]) into `channel`/SUBDIRS[arch]: each
    library output installs its CMake component from it, executorch-python compiles only the extension (in
    `work`/python-<arch>), executorch-cuda takes the CUDA tree's library (x86_64 only)."""
    from rattler_build import Stage0Recipe, ToolConfiguration
    from rattler_build.cli_api import build_recipes

    import build_wheels

    problems = check_inputs()
    for p in problems:
        print(f"error: {p}", file=sys.stderr)
    if problems:
        return 2
    host = os.uname().machine
    if arch not in SUBDIRS or host not in SUBDIRS:
        print(f"error: no conda build for {arch} on {host} (SUBDIRS: {sorted(SUBDIRS)})", file=sys.stderr)
        return 2
    tree = (tree or REPO / ARCHES[arch]["build_dir"]).resolve()
    if not (tree / "CMakeCache.txt").is_file():
        hint = "scripts/build_sdk.sh" if arch == host else "scripts/build_aarch64.sh"
        print(f"error: {tree} is not a configured CMake tree: build it with {hint} first", file=sys.stderr)
        return 2
    if clean:
        shutil.rmtree(work, ignore_errors=True)
    python_tree = work / f"python-{arch}"
    for t in (tree, python_tree):
        home = foreign_build_dir(t)
        if home:
            print(f"error: {t} was configured from another source tree ({home}): remove it", file=sys.stderr)
            return 2
    # The packages are staged from the tree as it is after an incremental build (no work when it is up to date).
    proc = subprocess.run(["cmake", "--build", str(tree)], capture_output=True, text=True)
    if proc.returncode != 0:
        print(f"error: cmake --build {tree} failed:\n{(proc.stdout + proc.stderr)[-3000:]}", file=sys.stderr)
        return 1
    out = work / "out"  # rattler-build's output dir (with its bld/, src_cache/, ...); only checked packages move on
    shutil.rmtree(out, ignore_errors=True)
    for d in (work / "tmp", work / "rattler-cache", out):
        d.mkdir(parents=True, exist_ok=True)
    py_ver = f"{sys.version_info[0]}.{sys.version_info[1]}"
    try:
        import pybind11  # noqa: F401
    except ImportError:
        print(f"error: pybind11 is missing in {sys.executable}: run scripts/setup.sh", file=sys.stderr)
        return 2
    python_cmake_args = ""
    if arch != host:
        # The extension cross-compiled as for the aarch64 wheels (scripts/build_wheels.py): the toolchain file, this
        # CPython's headers with the target's pyconfig.h, the target's extension suffix.
        defines = build_wheels.cross_extension_defines(py_ver, arch)
        python_cmake_args = " ".join(f"-D{k}={v}" for k, v in defines.items())
        cuda_build = None
    # executorch-cuda installs the library the executorch-cuda wheel build made (CUDA code is compiled once for
    # both; scripts/build_sdk.sh passes --cuda-build-dir right after building the wheel). Run on its own, this
    # script brings that tree up to date the same way (incremental), so the package is the same bytes as the
    # builder's (tests/test_reproducible.py).
    cuda_lib = cuda_library(cuda_build) if cuda_build else None
    if refresh_cuda and cuda_build == CUDA_WHEEL_TREE and not cuda_toolchain_missing():
        print(f"building the CUDA delegate in {cuda_build} (packaging/cuda, as the executorch-cuda wheel)", flush=True)
        proc = subprocess.run(
            [sys.executable, "-m", "pip", "wheel", str(REPO / "packaging" / "cuda"), "-w", str(work / "tmp" / "cuda"),
             "--no-deps", "--no-build-isolation", "--disable-pip-version-check", "-q", "-C", "wheel.reproducible=true"],
            capture_output=True, text=True, stdin=subprocess.DEVNULL,
            env=dict(os.environ, SOURCE_DATE_EPOCH=str(source_date_epoch())),
        )  # fmt: skip
        if proc.returncode != 0:
            print(f"error: the CUDA build failed:\n{(proc.stdout + proc.stderr)[-3000:]}", file=sys.stderr)
            return 1
        shutil.rmtree(work / "tmp" / "cuda", ignore_errors=True)
        cuda_lib = cuda_library(cuda_build)
    if not cuda_build:
        print("note: executorch-cuda is left out" + (" (--no-cuda)" if arch == host else f" (not built for {arch})"))
    if cuda_build and cuda_lib:
        home = foreign_build_dir(cuda_build)
        if home:
            print(f"error: {cuda_build} was configured from another source tree ({home}): remove it", file=sys.stderr)
            return 2
    elif cuda_build:
        print(f"note: no CUDA build in {cuda_build}: executorch-cuda is left out (scripts/build_sdk.sh builds it)")
    os.environ.update(
        EXECUTORCH_CONDA_CUDA="1" if cuda_lib else "0",
        EXECUTORCH_CUDA_BUILD_DIR=str(cuda_build) if cuda_lib else "",
        EXECUTORCH_CONDA_OFFLINE="1",
        EXECUTORCH_CONDA_PYTHON=sys.executable,
        EXECUTORCH_CONDA_PY_VER=py_ver,
        EXECUTORCH_CMAKE_BUILD_DIR=str(tree),
        EXECUTORCH_CMAKE_SOURCE_DIR=str(REPO),
        EXECUTORCH_PYTHON_BUILD_DIR=str(python_tree),
        EXECUTORCH_PYTHON_CMAKE_ARGS=python_cmake_args,
        RATTLER_CACHE_DIR=str(work / "rattler-cache"),
        TMPDIR=str(work / "tmp"),
    )
    subdir = SUBDIRS[arch]
    log = work / f"rattler-build-{subdir}.log"
    start = time.monotonic()
    try:
        if arch == host:
            results = Stage0Recipe.from_file(str(RECIPE)).run_build(
                output_dir=str(out),
                channels=[],  # [] = no remote channel (None would mean conda-forge); the output dir is always one
                # "native": each output's `tests` run as soon as it and its run dependencies are built (the recipe's
                # package_contents tests run while packaging whatever the strategy); a failed test fails the build.
                tool_config=ToolConfiguration(error_prefix_in_binary=True, test_strategy="native"),
                progress_callback=_Log(log, verbose),
                no_include_recipe=True,  # info/recipe would record build paths (rendered context, directories)
            )
            built = [Path(p) for r in results for p in r.packages]
        else:
            # A cross build (linux-aarch64). run_build of py-rattler-build 0.73 solves the host environments for the
            # build platform whatever the render platform, so the CLI's entry point (which honours host_platform)
            # builds it. Its environment tests cannot run on this machine ("skip"; package_contents still runs):
            # tests/test_conda_aarch64.py installs the packages and runs them under QEMU.
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                build_recipes(
                    [str(RECIPE)], target_platform=subdir, host_platform=subdir, build_platform=SUBDIRS[host],
                    channel=[], test="skip", output_dir=str(out), no_include_recipe=True, error_prefix_in_binary=True,
                )  # fmt: skip
            built = sorted(out.glob("*/*.conda"))
            log.write_text(f"rattler-build (build_recipes, {subdir}): {[p.name for p in built]}\n")
    except Exception as e:  # rattler-build's errors are terse; the log has the script output
        print(f"error: rattler-build failed: {e}\n  log: {log}", file=sys.stderr)
        return 1
    forbidden = [str(REPO), str(work.resolve()), str(channel.resolve()), str(Path.home()), os.environ["TMPDIR"]]
    forbidden += [str(cuda_build.resolve())] if cuda_build else []
    forbidden += [str(tree), "/executorch-conda-placeholder"]
    failed = 0
    rows = []
    epoch = source_date_epoch()
    for pkg in built:
        normalize_conda(pkg, epoch)
    for sub in {pkg.parent.name for pkg in built} | {subdir, "noarch"}:
        (channel / sub).mkdir(parents=True, exist_ok=True)
        for stale in (channel / sub).glob("*.conda"):  # packages of an earlier build of this subdir go
            stale.unlink()
    with tempfile.TemporaryDirectory(dir=work / "tmp") as tmp:
        for i, pkg in enumerate(built):
            info = read_package(pkg, Path(tmp) / str(i), forbidden)
            target = channel / pkg.parent.name / pkg.name
            if info.problems:
                failed += 1
                print(f"FAILED {pkg.name}:", file=sys.stderr)
                for p in info.problems:
                    print(f"    {p}", file=sys.stderr)
                target.unlink(missing_ok=True)
                continue
            shutil.copyfile(pkg, target)
            strong = info.run_exports.get("weak", []) + info.run_exports.get("strong", [])
            label = f"{info.name}-{info.version}-{info.build}"
            rows.append((label, pkg.stat().st_size, len(info.files), info.depends, strong))
    index_channel(channel)
    print(f"{'package':52} {'bytes':>9} {'files':>5}  depends | run_exports")
    for name, size, nfiles, depends, rex in rows:
        print(f"{name:52} {size:>9} {nfiles:>5}  {', '.join(depends) or '-'} | {', '.join(rex) or '-'}")
    print(f"channel {channel} ({len(rows)} packages, {failed} failed) in {time.monotonic() - start:.0f} s; log {log}")
    return 1 if failed else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--channel", type=Path, default=REPO / "dist" / "conda-channel")
    ap.add_argument("--build-dir", type=Path, default=REPO / "build" / "conda", help="rattler-build's work dir")
    ap.add_argument("--arch", choices=sorted(SUBDIRS), default="x86_64", help="the packages' architecture")
    ap.add_argument("--tree", type=Path, help="the C++ tree to stage from (default: build/release, build/aarch64)")
    ap.add_argument("--clean", action="store_true", help="start from an empty build dir (no incremental build)")
    ap.add_argument(
        "--cuda-build-dir",
        type=Path,
        help="CMake tree with the built CUDA delegate (the executorch-cuda wheel's), used as it is; executorch-cuda "
        "is left out when it has none. Default: build/cuda-wheel, brought up to date first (when nvcc is there)",
    )
    ap.add_argument("--no-cuda", action="store_true", help="leave executorch-cuda out")
    ap.add_argument("--verbose", action="store_true", help="print rattler-build's log")
    ap.add_argument("--write-recipe", action="store_true")
    ap.add_argument("--check-recipe", action="store_true")
    ap.add_argument("--check", action="store_true", help="check components.toml, recipe/ and pyproject.toml only")
    args = ap.parse_args()
    if args.check:
        problems = check_inputs()
        for p in problems:
            print(f"error: {p}", file=sys.stderr)
        return 2 if problems else 0
    manifest = load_manifest()
    problems = manifest_problems(manifest)
    if problems:
        raise SystemExit("error: components.toml: " + "\n  ".join(problems))
    text = render_recipe(manifest, project_version())
    if args.write_recipe:
        RECIPE.write_text(text)
        print(f"wrote {RECIPE.relative_to(REPO)}")
        return 0
    if args.check_recipe:
        ok = RECIPE.is_file() and RECIPE.read_text() == text
        print("recipe/recipe.yaml is up to date" if ok else "recipe/recipe.yaml is out of date (--write-recipe)")
        return 0 if ok else 1
    rc = build(
        args.channel.resolve(),
        args.build_dir.resolve(),
        arch=args.arch,
        tree=args.tree,
        clean=args.clean,
        verbose=args.verbose,
        cuda_build=None if args.no_cuda else (args.cuda_build_dir or CUDA_WHEEL_TREE).resolve(),
        refresh_cuda=args.cuda_build_dir is None,
    )
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(rc)  # py-rattler can crash at interpreter exit (see docs/packaging.md)


if __name__ == "__main__":
    sys.exit(main())
