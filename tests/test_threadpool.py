"""The thread pool under load and under CPU limits (tests/cpp/threadpool_load_test.cpp, release build)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from et_common import BUILD_SDK, built_program


@pytest.fixture(scope="module")
def load_test(sdk: Path, release_build: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The test program next to a copy of the installed SDK's libraries (its RUNPATH is $ORIGIN/../lib), so it runs
    on the shipped libexecutorch_threadpool, away from the source and build trees."""
    built = built_program(release_build, "threadpool_load_test", BUILD_SDK)
    root = tmp_path_factory.mktemp("threadpool")
    (root / "bin").mkdir()
    shutil.copytree(sdk / "lib", root / "lib", symlinks=True)
    exe = root / "bin" / built.name
    shutil.copy2(built, exe)
    return exe


def run(cmd: list[str], threads: str | None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env.pop("EXECUTORCH_NUM_THREADS", None)
    if threads is not None:
        env["EXECUTORCH_NUM_THREADS"] = threads
    # A hang guard, not a timing assertion: a pool that waited for its starved workers would take minutes.
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)


@pytest.mark.parametrize("threads", ["2", "3"])
def test_caller_takes_over_from_starved_workers(load_test: Path, threads: str) -> None:
    """Workers pinned to a core that a busy process holds, and niced below it: every run still completes with
    the right values, the caller runs most of the units, and it only ever waits for a unit a worker holds."""
    proc = run([str(load_test), "3000"], threads)
    assert proc.returncode == 0 and re.search(r"^\d+ passed, 0 failed$", proc.stdout, re.M), proc.stdout + proc.stderr
    print(proc.stdout)


def test_worker_moves_off_the_callers_cpu(load_test: Path) -> None:
    """A worker put on the caller's CPU, while a busy process holds the other, moves itself to another CPU (it
    would otherwise only run while the caller does not, and spin on the caller's time)."""
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("needs 2 or more CPUs")
    proc = run([str(load_test), "--colocated"], "2")
    assert proc.returncode == 0 and re.search(r"^\d+ passed, 0 failed$", proc.stdout, re.M), proc.stdout + proc.stderr
    print(proc.stdout)


def test_pool_size_follows_the_affinity_mask(load_test: Path) -> None:
    """A process limited to one CPU (taskset) gets a one-thread pool, whatever the machine has."""
    if shutil.which("taskset") is None:
        pytest.skip("taskset (util-linux) is not installed")
    proc = run(["taskset", "-c", "0", str(load_test), "--threads"], None)
    assert proc.returncode == 0 and proc.stdout.strip() == "threads 1", proc.stdout + proc.stderr
    proc = run([str(load_test), "--threads"], None)
    assert proc.stdout.strip() == f"threads {len(os.sched_getaffinity(0))}", proc.stdout + proc.stderr


def make_cpu_limited_cgroup(name: str) -> tuple[Path, Path] | None:
    """A cgroup limited to one CPU's worth of time: (directory, the file a pid is written to), or None."""
    v2 = Path("/sys/fs/cgroup")
    if (v2 / "cgroup.controllers").exists() and "cpu" in (v2 / "cgroup.subtree_control").read_text().split():
        limits = {"cpu.max": "100000 100000"}
        group = v2 / name
    elif (Path("/sys/fs/cgroup/cpu") / "cpu.cfs_quota_us").exists():
        limits = {"cpu.cfs_period_us": "100000", "cpu.cfs_quota_us": "100000"}
        group = Path("/sys/fs/cgroup/cpu") / name
    else:
        return None
    try:
        group.mkdir()
        for key, value in limits.items():
            (group / key).write_text(value)
    except OSError:
        if group.exists():
            group.rmdir()
        return None
    return group, group / "cgroup.procs"


def test_pool_size_follows_the_cgroup_cpu_quota(load_test: Path) -> None:
    """A process whose cgroup allows one CPU of time (docker --cpus=1, systemd CPUQuota=100%) gets one thread."""
    made = make_cpu_limited_cgroup(f"executorch-test-{os.getpid()}")
    if made is None:
        pytest.skip("cannot create a CPU-limited cgroup here (needs root and a writable cpu controller)")
    group, procs = made
    try:
        proc = subprocess.run(
            ["sh", "-c", f'echo $$ > "{procs}" && exec "{load_test}" --threads'],
            capture_output=True,
            text=True,
            timeout=60,
            env={k: v for k, v in os.environ.items() if k != "EXECUTORCH_NUM_THREADS"},
        )
    finally:
        group.rmdir()
    assert proc.returncode == 0 and proc.stdout.strip() == "threads 1", proc.stdout + proc.stderr
