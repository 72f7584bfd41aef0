"""Source style: every tracked C++ / CUDA file is formatted as .clang-format says (clang-format-19)."""

from __future__ import annotations

import shutil
import subprocess

from et_common import REPO, missing_build


def test_cpp_sources_are_clang_formatted() -> None:
    exe = shutil.which("clang-format-19")
    if exe is None:
        missing_build("clang-format-19", "bash scripts/setup.sh")
    files = subprocess.run(
        ["git", "ls-files", "*.cpp", "*.h", "*.cu"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.split()
    assert files
    proc = subprocess.run([exe, "--dry-run", "--Werror", *files], cwd=REPO, capture_output=True, text=True)
    assert proc.returncode == 0, "run clang-format-19 -i on these files:\n" + "\n".join(
        sorted({line.split(":", 1)[0] for line in proc.stderr.splitlines() if ": error:" in line})
    )
