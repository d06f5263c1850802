"""The files the commands write, checked before any work: a run of minutes or hours should not end in a traceback
because its output cannot be written."""

from __future__ import annotations

import os
from pathlib import Path


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
