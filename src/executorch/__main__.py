"""``python -m executorch``: where the SDK is, for build systems.

python -m executorch --cmake-dir     prefix for CMAKE_PREFIX_PATH (find_package(executorch))
python -m executorch --include-dir   include directory
python -m executorch --lib-dir       library directory
python -m executorch --version       package version
"""

from __future__ import annotations

import argparse
import os
import sys

import executorch


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m executorch", description="Locations of the executorch C++ SDK.")
    group = ap.add_mutually_exclusive_group(required=True)
    group.add_argument("--cmake-dir", action="store_true", help="prefix to put on CMAKE_PREFIX_PATH")
    group.add_argument("--include-dir", action="store_true", help="include directory")
    group.add_argument("--lib-dir", action="store_true", help="library directory")
    group.add_argument("--version", action="store_true", help="package version")
    args = ap.parse_args(argv)
    if args.cmake_dir:
        print(executorch.cmake_prefix_path)
    elif args.include_dir:
        print(executorch.get_include())
    elif args.lib_dir:
        print(executorch.get_lib_dir())
    else:
        print(executorch.__version__)
    return 0


def run_tool() -> None:
    """Entry point of ``executorch-run``: the C++ runner shipped in the package (see ``--help``)."""
    tool = os.path.join(executorch.cmake_prefix_path, "bin", "executorch_runner")
    os.execv(tool, [tool, *sys.argv[1:]])


if __name__ == "__main__":
    sys.exit(main())
