#!/usr/bin/env python3
"""Builds the conda channel dist/conda-channel from recipe/recipe.yaml (generated from components.toml).

Usage:
  build_conda.py [--channel DIR] [--build-dir DIR] [--clean]   build, verify and index the channel
  build_conda.py --write-recipe                                  regenerate recipe/recipe.yaml from components.toml
  build_conda.py --check-recipe                                  exit 1 when recipe/recipe.yaml is out of date

The build is offline: py-rattler-build with no remote channel (channels=[]) and the system toolchain
(EXECUTORCH_CONDA_OFFLINE=1 drops the recipe's compiler()/stdlib() lines). The CMake build tree is kept in
build/conda/cmake, so rebuilds are incremental. Every package is checked before it enters the channel: file
hashes against info/paths.json, no build-machine path in any payload file (scripts/check_artifacts.py), no file
that needs prefix rewriting, $ORIGIN-only RUNPATHs and lib<name>.so.<major>.<minor> SONAMEs. A package that fails
is left out of the channel and the script exits 1. The functions are also used by tests/test_conda.py.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import re
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import tomllib

REPO = Path(__file__).resolve().parent.parent
MANIFEST = REPO / "components.toml"
RECIPE = REPO / "recipe" / "recipe.yaml"
sys.path.insert(0, str(Path(__file__).resolve().parent))
import check_artifacts  # noqa: E402

# ---------------------------------------------------------------------------------------------------- manifest


def load_manifest(path: Path = MANIFEST) -> dict:
    return tomllib.loads(path.read_text())


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


def _pin(name: str, **kw: str) -> str:
    args = ", ".join([f'"{name}"'] + [f"{k}={v}" for k, v in kw.items()])
    return f"${{{{ pin_subpackage({args}) }}}}"


def render_recipe(manifest: dict, version: str) -> str:
    comps = built_components(manifest)
    bound = manifest["package"]["run_exports_upper_bound"]
    env = """\
        env:
          ET_SOURCE_DIR: ${{ source_dir }}
          ET_BUILD_DIR: ${{ build_dir }}
          ET_PYTHON: ${{ et_python }}
          ET_PY_VER: ${{ py_ver }}"""
    lines = [
        "# GENERATED by scripts/build_conda.py from components.toml: do not edit; run",
        "#   .venv/bin/python scripts/build_conda.py --write-recipe",
        "# Offline (this repository's CI, scripts/build_conda.py): EXECUTORCH_CONDA_OFFLINE=1, the system",
        "# toolchain, no remote channel. Online (a conda-forge style build): leave it unset; compilers, cmake, python",
        "# and pybind11 then come from the channel. See docs/packaging.md.",
        "schema_version: 1",
        "",
        "context:",
        f'  version: "{version}"',
        '  offline: ${{ env.get("EXECUTORCH_CONDA_OFFLINE", default="0") }}',
        '  et_python: ${{ env.get("EXECUTORCH_CONDA_PYTHON", default="") }}',
        '  py_ver: ${{ env.get("EXECUTORCH_CONDA_PY_VER", default="") }}',
        '  build_dir: ${{ env.get("EXECUTORCH_CMAKE_BUILD_DIR", default="") }}',
        '  source_dir: ${{ env.get("EXECUTORCH_CMAKE_SOURCE_DIR", default="") }}',
        "",
        "recipe:",
        "  name: executorch-split",
        "  version: ${{ version }}",
        "",
        "source:",
        "  path: ..",
        "  use_gitignore: true",
        "",
        "build:",
        "  number: 0",
        "",
        "about:",
        "  license: BSD-3-Clause",
        "  summary: Runtime for ExecuTorch .pte programs (independent C++ implementation), split into components",
        "",
        "outputs:",
        "  # One CMake build of every component; each package below installs its own CMake install component.",
        "  - staging:",
        "      name: executorch-build",
        "    requirements:",
        "      build:",
        '        - if: offline == "0"',
        "          then:",
        '            - ${{ compiler("c") }}',
        '            - ${{ compiler("cxx") }}',
        '            - ${{ stdlib("c") }}',
        "            - cmake >=3.24",
        "            - ninja",
        "            - flatbuffers",
        "      host:",
        '        - if: offline == "0"',
        "          then:",
        "            - python",
        "            - pybind11 >=2.12",
        "            - flatbuffers",
        "    build:",
        "      script:",
        "        file: build.sh",
        env,
    ]
    for comp in comps.values():
        deps = [comps[d]["conda"] for d in comp["depends"]]
        is_python = "python_package" in comp
        lines += ["", "  - package:", f"      name: {comp['conda']}", "    inherit: executorch-build"]
        lines += ["    requirements:"]
        host = [_pin(d, exact="true") for d in deps]
        run = [_pin(d, exact="true") for d in deps]
        if is_python:
            lines += ["      host:"] + [f"        - {h}" for h in host]
            lines += ['        - if: offline == "0"', "          then:"]
            lines += ["            - python", "            - pybind11 >=2.12"]
            lines += ["      run:"] + [f"        - {r}" for r in run]
            lines += [
                '        - if: offline == "1"',
                "          then:",
                "            - python ${{ py_ver }}.*",
                "          else:",
                "            - python",
                "        - numpy >=1.22",
            ]
        else:
            if host:
                lines += ["      host:"] + [f"        - {h}" for h in host]
                lines += ["      run:"] + [f"        - {r}" for r in run]
            lines += ["      run_exports:", f"        - {_pin(comp['conda'], upper_bound=repr(bound))}"]
        lines += ["    build:", "      script:"]
        if is_python:
            lines += ['        content: bash "$RECIPE_DIR/install_python.sh"']
        else:
            devlink = expand(comp.get("devlink", ""), "conda")
            script = f'bash "$RECIPE_DIR/install_component.sh" {comp["cmake_component"]} {devlink}'.rstrip()
            lines += [f"        content: {script}"]
        lines += [env]
        lines += [
            "      dynamic_linking:",
            "        # CMake already gives every file its $ORIGIN-relative RUNPATH (see docs/packaging.md); keep it.",
            "        binary_relocation: false",
            "    about:",
            f"      summary: {json.dumps(comp['description'])}",
        ]
    meta = manifest["package"]["conda_meta"]
    lines += [
        "",
        "  - package:",
        f"      name: {meta}",
        "    build:",
        "      noarch: generic",
        "    requirements:",
        "      run:",
    ]
    lines += [f"        - {_pin(c['conda'], exact='true')}" for c in comps.values()]
    lines += ["    about:", "      summary: ExecuTorch runtime, thread pool, CPU kernels and Python bindings"]
    return "\n".join(lines) + "\n"


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


def index_channel(channel: Path) -> None:
    from rattler.index import index_fs

    for sub in ("linux-64", "noarch"):
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

    def on_download_start(self, e: object) -> None:
        raise RuntimeError(f"offline build tried to download {e.url}")  # type: ignore[attr-defined]

    def on_download_progress(self, e: object) -> None:
        pass

    def on_download_complete(self, e: object) -> None:
        pass

    def on_build_step(self, e: object) -> None:
        pass


def build(channel: Path, work: Path, *, clean: bool, verbose: bool) -> int:
    from rattler_build import Stage0Recipe, ToolConfiguration

    manifest = load_manifest()
    expected = render_recipe(manifest, project_version())
    if RECIPE.read_text() != expected:
        print("error: recipe/recipe.yaml is out of date: run scripts/build_conda.py --write-recipe", file=sys.stderr)
        return 1
    if clean:
        shutil.rmtree(work, ignore_errors=True)
    out = work / "out"  # rattler-build's output dir (with its bld/, src_cache/, ...); only checked packages move on
    shutil.rmtree(out, ignore_errors=True)
    for d in (work / "tmp", work / "rattler-cache", out):
        d.mkdir(parents=True, exist_ok=True)
    cmake_build = work / "cmake"
    py_ver = f"{sys.version_info[0]}.{sys.version_info[1]}"
    try:
        import pybind11  # noqa: F401
    except ImportError:
        print(f"error: pybind11 is missing in {sys.executable}: run scripts/setup.sh", file=sys.stderr)
        return 2
    os.environ.update(
        EXECUTORCH_CONDA_OFFLINE="1",
        EXECUTORCH_CONDA_PYTHON=sys.executable,
        EXECUTORCH_CONDA_PY_VER=py_ver,
        EXECUTORCH_CMAKE_BUILD_DIR=str(cmake_build),
        EXECUTORCH_CMAKE_SOURCE_DIR=str(REPO),
        RATTLER_CACHE_DIR=str(work / "rattler-cache"),
        TMPDIR=str(work / "tmp"),
    )
    log = work / "rattler-build.log"
    start = time.monotonic()
    try:
        results = Stage0Recipe.from_file(str(RECIPE)).run_build(
            output_dir=str(out),
            channels=[],  # [] = no remote channel (None would mean conda-forge); the output dir is always one
            tool_config=ToolConfiguration(error_prefix_in_binary=True, test_strategy="skip"),
            progress_callback=_Log(log, verbose),
        )
    except Exception as e:  # rattler-build's errors are terse; the log has the script output
        print(f"error: rattler-build failed: {e}\n  log: {log}", file=sys.stderr)
        return 1
    built = [Path(p) for r in results for p in r.packages]
    forbidden = [str(REPO), str(work.resolve()), str(channel.resolve()), str(Path.home()), os.environ["TMPDIR"]]
    forbidden += ["/executorch-conda-placeholder"]
    failed = 0
    rows = []
    for sub in ("linux-64", "noarch"):
        (channel / sub).mkdir(parents=True, exist_ok=True)
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
    ap.add_argument("--build-dir", type=Path, default=REPO / "build" / "conda")
    ap.add_argument("--clean", action="store_true", help="start from an empty build dir (no incremental build)")
    ap.add_argument("--verbose", action="store_true", help="print rattler-build's log")
    ap.add_argument("--write-recipe", action="store_true")
    ap.add_argument("--check-recipe", action="store_true")
    args = ap.parse_args()
    text = render_recipe(load_manifest(), project_version())
    if args.write_recipe:
        RECIPE.write_text(text)
        print(f"wrote {RECIPE.relative_to(REPO)}")
        return 0
    if args.check_recipe:
        ok = RECIPE.is_file() and RECIPE.read_text() == text
        print("recipe/recipe.yaml is up to date" if ok else "recipe/recipe.yaml is out of date (--write-recipe)")
        return 0 if ok else 1
    rc = build(args.channel.resolve(), args.build_dir.resolve(), clean=args.clean, verbose=args.verbose)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(rc)  # py-rattler can crash at interpreter exit (see docs/packaging.md)


if __name__ == "__main__":
    sys.exit(main())
