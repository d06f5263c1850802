"""The README's Python examples run as written, in order, as a reader would paste them
(the training example with a smaller budget)."""

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)


def test_readme_examples_run_in_order():
    assert len(BLOCKS) >= 3
    namespace = {}
    for index, block in enumerate(BLOCKS):
        code = block.replace(".learn(20_000)", ".learn(256)")
        exec(compile(code, f"README python block {index}", "exec"), namespace)
