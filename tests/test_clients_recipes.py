"""The recipes of the "Other RL libraries" page run as written: each Python block of docs/libraries.md, in a fresh
Python in an empty folder. A block whose library is not installed is skipped with its name (the clients job of
`.ci/run` installs them all; the main suite runs the blocks its extras allow)."""

import ast
import os
import re
import subprocess
import sys
from importlib.util import find_spec
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parent.parent / "docs" / "libraries.md"
BLOCK = re.compile(r"^## (?P<section>.+?)$|^```python\n(?P<code>.*?)^```$", re.MULTILINE | re.DOTALL)


def recipes() -> list[tuple[str, str]]:
    """(the section's title, the block's code), for each Python block of the page."""
    found, section = [], None
    for match in BLOCK.finditer(PAGE.read_text()):
        if match["section"]:
            section = match["section"]
        else:
            found.append((section, match["code"]))
    return found


def imported_libraries(code: str) -> set[str]:
    """The top-level packages a block imports."""
    names = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_the_page_has_a_recipe_per_library():
    assert {section for section, _ in recipes()} >= {"Gymnasium, as it is", "Stable-Baselines3 and sb3-contrib",
                                                     "TorchRL", "Tianshou", "AgileRL", "PufferLib"}


@pytest.mark.parametrize("section, code", recipes(), ids=[section for section, _ in recipes()])
def test_a_recipe_runs_as_written(section, code, tmp_path):
    missing = sorted(name for name in imported_libraries(code) if find_spec(name) is None)
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed (the clients job installs every library)")
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    ran = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=environment, capture_output=True,
                         text=True, timeout=600)
    assert ran.returncode == 0, ran.stderr[-3000:]
