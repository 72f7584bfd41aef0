"""The model of the distribution: what the builder makes, from components.toml and CMakeLists.txt.

- the components (components.toml: load_manifest, manifest_problems, built_components, wheel_components), the project
  version and the SONAME suffix every component library carries (project_version, soversion);
- the file layout of each package format (layout, expand: a manifest glob in the wheel's or conda's layout) and the
  classification of an artifact's files by component (glob_regex, classify, Classified);
- the architectures the builder makes artifacts for (ARCHES, SUBDIRS) and the CPython matrix (PYTHONS, cp_tag,
  host_python);
- the device-code claim of a CUDA component in words (claim_text).

Pure data and functions: reading components.toml and CMakeLists.txt is all this module does (standard library only,
so every driver and test can import it).
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

import tomllib

REPO = Path(__file__).resolve().parent.parent.parent
MANIFEST_FILE = REPO / "components.toml"

# ---------------------------------------------------------------------------------------------------- manifest


def load_manifest(path: Path = MANIFEST_FILE) -> dict:
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


def project_version(cmakelists: Path = REPO / "CMakeLists.txt") -> str:
    m = re.search(r"project\(executorch VERSION ([0-9][0-9.]*)", cmakelists.read_text())
    if not m:
        raise SystemExit(f"error: no project(executorch VERSION ...) in {cmakelists}")
    return m.group(1)


def soversion(version: str) -> str:
    """The SONAME suffix of every component library (CMakeLists.txt's EXECUTORCH_SOVERSION: major.minor)."""
    return ".".join(version.split(".")[:2])


def built_components(manifest: dict) -> dict[str, dict]:
    return {name: c for name, c in manifest["components"].items() if c["status"] == "built"}


def wheel_components(manifest: dict, wheel: str = "executorch") -> list[str]:
    """CMake install components of the built components shipped in `wheel` (pyproject's install.components)."""
    return [c["cmake_component"] for c in built_components(manifest).values() if c["wheel"] == wheel]


def claim_text(comp: dict) -> str:
    """The device-code claim of a CUDA component, in words (the conda package's about.description)."""
    arch = comp["cuda_architectures"]
    return (
        f"CUDA {arch['cuda_version']} device code: SASS sm_{', sm_'.join(map(str, arch['sass']))}; "
        f"PTX compute_{', compute_'.join(map(str, arch['ptx']))} (share/executorch/cuda-architectures.json)"
    )


# ------------------------------------------------------------------------------------------- layout and files


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


# --------------------------------------------------------------------------------- architectures and CPythons

# The architectures the builder makes artifacts for: the CMake tree that holds the C++ build of each
# (scripts/build_sdk.sh; wheels and conda packages are staged from it: build once, package many), its GNU triple (the
# extension suffix, .cpython-3XX-<triple>.so), its conda subdir, and for a cross target its toolchain file.
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

# The CPython matrix (cibuildwheel's `build` in pyproject.toml lists the same versions; tests/test_wheel_matrix.py).
PYTHONS = ("3.10", "3.11", "3.12", "3.13")


def host_python() -> str:
    return f"{sys.version_info.major}.{sys.version_info.minor}"


def cp_tag(version: str) -> str:
    return "cp" + version.replace(".", "")
