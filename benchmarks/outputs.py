"""The files the commands write, checked before any work: a run of minutes or hours should not end in a traceback
because its output cannot be written. A page a command writes (the leaderboard, the throughput table, the table of
training runs) begins with its provenance: the command, the code it ran, the date."""

from __future__ import annotations

import datetime
import importlib.metadata
import inspect
import os
import subprocess
from pathlib import Path

# The checkout's root when the package is run from one: the folder above benchmarks/.
SOURCE_ROOT = Path(__file__).resolve().parents[1]


def check_output(path, formats: tuple | None = None) -> str:
    """The extension of ``path`` (lowercase); a ValueError that names the path when it cannot be written: its
    folder is missing, it is a folder, it or its folder is read-only, or (with ``formats``) its extension is not one
    of them."""
    path = Path(path)
    suffix = path.suffix.lower()
    if formats is not None and suffix not in formats:
        raise ValueError(f"out must end in {' or '.join(formats)}, got {str(path)!r}")
    folder = path.resolve().parent
    if not folder.is_dir():
        raise ValueError(f"cannot write {path}: there is no folder {folder}")
    if path.is_dir():
        raise ValueError(f"cannot write {path}: it is a folder, not a file")
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise ValueError(f"cannot write {path}: not a writable file")
    return suffix


def check_folder(path) -> None:
    """A ValueError that names ``path`` when it is a file where a folder is to be written (a missing folder is
    made)."""
    if path is not None and Path(path).exists() and not Path(path).is_dir():
        raise ValueError(f"cannot write into {path}: it is a file, not a folder")


def provenance(command: str) -> str:
    """One line for the top of a page a command wrote: the command line, the code that ran it (the commit, or the
    installed package's version) and the date."""
    return f"Written by `{command}` {code_that_ran()} on {datetime.date.today().isoformat()}."


def code_that_ran() -> str:
    """``at commit abc1234`` (``+ uncommitted changes`` when the checkout differs from it) when the package runs from
    a git checkout of its own; ``with tabletop-gym X installed`` otherwise."""
    if git("rev-parse", "--show-toplevel") == str(SOURCE_ROOT):  # not a repository that merely holds a venv
        changed = " + uncommitted changes" if git("status", "--porcelain") else ""
        return f"at commit {git('rev-parse', '--short', 'HEAD')}{changed}"
    return f"with tabletop-gym {package_version()} installed"


def git(*arguments: str) -> str | None:
    """What ``git`` says in the package's folder, stripped; None when git is missing or fails there."""
    try:
        done = subprocess.run(["git", "-C", str(SOURCE_ROOT), *arguments], capture_output=True, text=True)
    except OSError:
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def package_version() -> str:
    try:
        return importlib.metadata.version("tabletop-gym")
    except importlib.metadata.PackageNotFoundError:  # run from a source tree that is not installed
        return "unknown"


def python_call(function, arguments: dict) -> str:
    """A call from Python as its provenance says it: the function's full name and the arguments given that differ
    from its defaults (``arguments``: its locals() on entry)."""
    defaults = {name: p.default for name, p in inspect.signature(function).parameters.items()}
    given = [f"{name}={value!r}" for name, value in arguments.items()
             if name in defaults and name != "command" and value != defaults[name]]
    return f"{function.__module__}.{function.__qualname__}({', '.join(given)})"
