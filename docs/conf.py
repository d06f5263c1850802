"""Sphinx configuration of the tabletop-gym site: ``sphinx-build -W --keep-going -b html docs docs/_build/html``.

The pages are Markdown (MyST); the notebooks are read by myst-nb; a page per game is written at each build from the
game's env docstring and its RULES.md (``_ext/games.py``), and the API reference is autodoc's.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "_ext"))

project = "tabletop-gym"
author = "the tabletop-gym authors"
copyright = "the tabletop-gym authors"

extensions = [
    "myst_nb",  # reads .md (as myst_parser does) and .ipynb
    "sphinx.ext.autodoc",
    "sphinx.ext.viewcode",
    "games",
]

source_suffix = {".md": "myst-nb", ".ipynb": "myst-nb"}
exclude_patterns = ["_build", "throughput.md", "games/search_settings.md", "**/.ipynb_checkpoints"]

myst_enable_extensions = ["colon_fence"]
myst_heading_anchors = 3

# The notebooks are committed with their outputs, and the tests execute them (nbmake): the site shows those
# outputs instead of running the notebooks again, which would take minutes.
nb_execution_mode = "off"

autodoc_member_order = "bysource"
autodoc_typehints = "signature"
# The glue for other RL libraries (tabletop_gym.clients) imports them; the site is built without them.
autodoc_mock_imports = ["torchrl", "tensordict", "tianshou", "agilerl", "pufferlib", "ray"]



def literal_examples(app, what, name, obj, options, lines):
    """The project's docstrings are plain text, where a block indented under a paragraph is an example (a command,
    some code): show it as written, as reST's ``::`` would."""
    for i in range(len(lines) - 1, 0, -1):
        opens_block = lines[i].startswith("    ") and not lines[i - 1].strip()
        above = next((line for line in reversed(lines[:i - 1]) if line.strip()), "")
        if opens_block and above and not above.startswith(" ") and not above.rstrip().endswith("::"):
            lines[i:i] = ["::", ""]


def setup(app):
    app.connect("autodoc-process-docstring", literal_examples)


html_theme = "furo"
html_title = "tabletop-gym"
html_static_path = []
