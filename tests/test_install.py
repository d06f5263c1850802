"""Where numba's cache of the compiled rules cannot be written or read, the games still play: without the cache,
with one warning that says how to keep it.

Each test runs a fresh Python on a read-only copy of the package, with a home folder it cannot write either (the
common container setup). Root ignores permissions, so a subprocess started as root first drops that override
(``setpriv``), as an ordinary user would run."""

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

import tabletop_gym.envs

PARTS = ("envs", "agents", "benchmarks", "clients")
HINT = "NUMBA_CACHE_DIR"
DAMAGED = "cannot be read"
# The cheapest game to compile: make it, deal, and play its first legal action.
PLAY = ("import gymnasium as gym, numpy as np, tabletop_gym.envs\n"
        "env = gym.make('Tabletop/DungeonSolitaire-v0')\n"
        "env.reset(seed=0)\n"
        "env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))\n"
        "print('played')\n")
AS_ROOT = os.geteuid() == 0
WITHOUT_OVERRIDE = ["setpriv", "--bounding-set", "-dac_override,-dac_read_search"]

pytestmark = pytest.mark.skipif(AS_ROOT and shutil.which("setpriv") is None,
                                reason="as root, only setpriv makes a folder read-only to this test's Python")


def make_writable(path: Path, writable: bool) -> None:
    """Every folder and file under ``path`` writable by its owner, or by no one."""
    for folder, _, files in os.walk(path):
        for name in [folder, *(os.path.join(folder, file) for file in files)]:
            mode = os.stat(name).st_mode
            os.chmod(name, mode | stat.S_IWUSR if writable else mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))


@pytest.fixture(scope="module")
def install(tmp_path_factory):
    """A read-only copy of the package (``install / "tabletop_gym"``) and a read-only home folder beside it."""
    root = tmp_path_factory.mktemp("install")
    source = Path(tabletop_gym.envs.__file__).resolve().parents[1]
    for part in PARTS:
        shutil.copytree(source / part, root / "tabletop_gym" / part, ignore=shutil.ignore_patterns("__pycache__"))
    (root / "home").mkdir()
    make_writable(root, False)
    yield root
    make_writable(root, True)


def run(install: Path, arguments: list[str], cache: Path | None = None) -> subprocess.CompletedProcess:
    """``python arguments`` on the read-only copy, with the unwritable home, and numba's cache in ``cache`` (when
    given; otherwise where numba finds a place)."""
    env = {key: value for key, value in os.environ.items()
           if key not in ("NUMBA_CACHE_DIR", "XDG_CACHE_HOME", "NUMBA_DISABLE_JIT")}
    env.update(PYTHONPATH=str(install), HOME=str(install / "home"), PYTHONDONTWRITEBYTECODE="1")
    if cache is not None:
        env["NUMBA_CACHE_DIR"] = str(cache)
    command = [sys.executable, *arguments]
    return subprocess.run(WITHOUT_OVERRIDE + command if AS_ROOT else command, env=env, capture_output=True,
                          text=True, cwd=install, timeout=600)


def warnings_of(done: subprocess.CompletedProcess) -> list[str]:
    """The lines of the project's warnings in a run's stderr (each is followed by the line of source that raised it)."""
    return [line for line in done.stderr.splitlines() if "Warning: tabletop-gym:" in line]


def test_read_only_install_lists_the_games_with_one_warning(install):
    done = run(install, ["-m", "tabletop_gym.benchmarks.cli", "list"])
    assert done.returncode == 0, done.stderr
    assert "Tabletop/DungeonSolitaire-v0" in done.stdout
    assert [HINT in line for line in warnings_of(done)] == [True], done.stderr


def test_read_only_install_plays_uncached_with_one_warning(install):
    done = run(install, ["-c", PLAY])
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["played"]
    assert [HINT in line for line in warnings_of(done)] == [True], done.stderr


def test_a_writable_cache_folder_is_used_without_warning(install, tmp_path):
    done = run(install, ["-c", PLAY], cache=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert list(tmp_path.rglob("*.nbc"))


@pytest.mark.parametrize("suffix", ["nbc", "nbi"])
def test_a_damaged_cache_file_is_compiled_again_with_a_warning(install, tmp_path, suffix):
    assert run(install, ["-c", PLAY], cache=tmp_path).returncode == 0
    damaged = sorted(tmp_path.rglob(f"*.{suffix}"))
    for path in damaged:
        path.write_bytes(path.read_bytes()[:path.stat().st_size // 2])

    done = run(install, ["-c", PLAY], cache=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["played"]
    # One warning per function, naming its files (rules.deal-54.py311.*: its index .nbi and data files .1.nbc...)
    functions = {path.name.rsplit(".", 2 if suffix == "nbc" else 1)[0] for path in damaged}
    warned = warnings_of(done)
    assert len(warned) == len(functions), done.stderr
    assert all(DAMAGED in line for line in warned), done.stderr
    assert all(any(f"{function}.*" in line for line in warned) for function in functions), done.stderr

    again = run(install, ["-c", PLAY], cache=tmp_path)  # the damaged entries were written anew
    assert (again.returncode, again.stderr) == (0, ""), again.stderr
