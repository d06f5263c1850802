"""The README is a front door: short, the two commands first, its Python examples running as written, in order, as a
reader would paste them, and its tables what their sources give (``docs/readme_tables.py``)."""

import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
TEXT = README.read_text(encoding="utf-8")
BLOCKS = re.findall(r"```python\n(.*?)```", TEXT, flags=re.S)


def test_readme_examples_run_in_order():
    assert len(BLOCKS) >= 3
    namespace = {}
    for index, block in enumerate(BLOCKS):
        exec(compile(block, f"README python block {index}", "exec"), namespace)


def test_the_readme_is_short_and_starts_with_the_two_commands():
    assert len(TEXT.splitlines()) <= 150
    commands = re.findall(r"```bash\n(.*?)```", TEXT, flags=re.S)[:2]
    assert TEXT.index("```bash") < TEXT.index("```python")
    assert commands[0].strip().endswith("pip install . && tabletop-gym leaderboard")
    assert commands[1].strip().endswith('pip install ".[test]" && pytest')


def test_the_readme_tables_are_what_their_sources_give():
    spec = importlib.util.spec_from_file_location("readme_tables", ROOT / "docs" / "readme_tables.py")
    tables = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tables)
    assert tables.main(["--check"]) == 0, "run python docs/readme_tables.py"


def test_the_readme_links_and_pictures_resolve():
    for target in re.findall(r"\]\(([^)#]+)[^)]*\)|src=\"([^\"]+)\"", TEXT):
        path = next(t for t in target if t)
        if not re.match(r"[a-z]+://", path):
            assert (ROOT / path).exists(), path


def test_the_pettingzoo_example_runs_alone():
    """A reader who jumps to the several-players section pastes that block alone."""
    section = TEXT.split("## Several players (PettingZoo)", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```python\n(.*?)```", section, flags=re.S).group(1)
    exec(compile(block, "README PettingZoo block", "exec"), {})
