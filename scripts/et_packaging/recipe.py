"""The conda recipe: recipe/recipe.yaml rendered from components.toml, and the check of the build inputs.

recipe/recipe.yaml is built here as data (dicts and lists, in the order they are written: recipe_data) and written by
PyYAML (render_recipe) under a generated comment header that lists every output's tests (output_tests). rattler-build's
conditional items (`if:` / `then:` / `else:`) are ordinary mappings and its `${{ ... }}` expressions ordinary strings;
PyYAML quotes a string exactly where YAML needs it, so both reach rattler-build unchanged (tests/test_conda.py reads
the file back and compares it with the data). check_inputs: components.toml, recipe/ and pyproject.toml's
install.components agree (scripts/build_conda.py --check).
"""

from __future__ import annotations

import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import tomllib

try:
    import yaml
except ImportError:  # requirements-dev.txt (pyyaml), installed by scripts/setup.sh
    raise SystemExit(f"error: PyYAML is missing in {sys.executable}: run scripts/setup.sh") from None

from et_packaging.model import (
    REPO,
    built_components,
    claim_text,
    expand,
    load_manifest,
    manifest_problems,
    project_version,
    soversion,
    wheel_components,
)

RECIPE = REPO / "recipe" / "recipe.yaml"

ONLINE = 'offline == "0"'  # rattler-build condition: a conda-forge style build (EXECUTORCH_CONDA_OFFLINE unset)
CXX_TOOLS = ['${{ compiler("cxx") }}', '${{ stdlib("c") }}', "cmake >=3.24", "ninja"]  # online builds and tests
CMAKE_CONFIG = "{prefix}/lib/cmake/executorch/executorch-config.cmake"  # find_package(executorch) reads this
# The headers recipe/test_consumer.sh compiles against: they ship with the component that owns CMAKE_CONFIG.
CONSUMER_HEADERS = ["executorch/runtime/platform/runtime.h", "executorch/runtime/version.h"]


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
            "host": [_online("flatbuffers", *(d for c in comps.values() for d in c.get("conda_host_online", [])))],
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
            host_online = comp.get("conda_host_online", [])
            if deps or host_online:
                requirements["host"] = deps + ([_online(*host_online)] if host_online else [])
            if deps:
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
