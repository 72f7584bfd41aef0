#!/usr/bin/env python3
"""Offline conda helpers for tests/test_conda.py, run as a subprocess (py-rattler can crash at interpreter exit).

rattler_tool.py build RECIPE OUT_DIR [CHANNEL ...]     build a v1 recipe with py-rattler-build, no remote channel
rattler_tool.py install PREFIX CACHE CHANNEL[,CHANNEL] SPEC ...
                                                      solve SPECs against local channels and install into PREFIX;
                                                      prints the installed records as JSON. The virtual packages
                                                      are this machine's, with conda's overrides applied
                                                      (CONDA_OVERRIDE_CUDA=13.0 gives __cuda 13.0 without a GPU);
                                                      the platform is $ET_CONDA_PLATFORM (default linux-64)
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path


class Log:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def on_log(self, e: object) -> None:
        self.lines.append(f"[{e.level}] {e.message}")  # type: ignore[attr-defined]

    def on_download_start(self, e: object) -> None:
        raise RuntimeError(f"offline build tried to download {e.url}")  # type: ignore[attr-defined]

    def on_download_progress(self, e: object) -> None:
        pass

    def on_download_complete(self, e: object) -> None:
        pass

    def on_build_step(self, e: object) -> None:
        pass


def build(recipe: str, out: str, channels: list[str]) -> int:
    from rattler_build import Stage0Recipe, ToolConfiguration

    log = Log()
    try:
        results = Stage0Recipe.from_file(recipe).run_build(
            output_dir=str(Path(out).resolve()),
            channels=[Path(c).resolve().as_uri() for c in channels],  # never None: that means conda-forge
            tool_config=ToolConfiguration(test_strategy="skip"),
            progress_callback=log,
        )
    except Exception as e:
        print("\n".join(log.lines[-200:]), file=sys.stderr)
        print(f"build failed: {e}", file=sys.stderr)
        return 1
    print(json.dumps([str(p) for r in results for p in r.packages]))
    return 0


async def install(prefix: str, cache: str, channels: list[str], specs: list[str]) -> int:
    from rattler import Channel, VirtualPackage, VirtualPackageOverrides, install, solve

    records = await solve(
        sources=[Channel(Path(c).resolve().as_uri()) for c in channels],
        specs=specs,
        platforms=[os.environ.get("ET_CONDA_PLATFORM", "linux-64"), "noarch"],
        virtual_packages=VirtualPackage.detect(VirtualPackageOverrides.from_env()),
    )
    await install(records, target_prefix=str(Path(prefix).resolve()), cache_dir=Path(cache), show_progress=False)
    print(json.dumps({r.name.normalized: f"{r.version}-{r.build}" for r in records}))
    return 0


def main() -> int:
    cmd, *args = sys.argv[1:]
    if cmd == "build":
        return build(args[0], args[1], args[2:])
    if cmd == "install":
        return asyncio.run(install(args[0], args[1], args[2].split(","), args[3:]))
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    rc = main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(rc)
