"""A page per game, written at every build from the game itself: the list of games (``tabletop_gym.envs.GAMES``),
the title its terminal help shows, its picture, its env class's docstring (Markdown, with Gymnasium's sections),
for a game of several players its PettingZoo env's docstring, and its RULES.md, included where it lies.

The pages go to ``docs/games/`` (ignored by git); nothing in them is written by hand.
"""

from __future__ import annotations

import inspect
import os
import re
from pathlib import Path

from tabletop_gym.agents import search_settings_table
from tabletop_gym.envs import GAMES

PAGES = "games"
SEARCH_SETTINGS = "search_settings"  # not a page: a table the agents page includes
FENCE = re.compile(r"^\s*(```|~~~)")


def deeper(markdown: str, levels: int) -> str:
    """``markdown`` with every heading ``levels`` deeper (code blocks left alone), to nest a docstring's sections
    under a heading of the page."""
    lines, in_code = [], False
    for line in markdown.splitlines():
        if FENCE.match(line):
            in_code = not in_code
        elif not in_code and line.startswith("#"):
            line = "#" * levels + line
        lines.append(line)
    return "\n".join(lines)


def docstring(cls, levels: int = 0) -> str:
    return deeper(inspect.getdoc(cls) or "", levels)


def game_page(entry, docs: Path) -> str:
    """The Markdown of one game's page. Paths are relative to the page, which lies in ``docs/games/``; a game
    without its picture in ``docs/images/`` fails the build (Sphinx warns of a missing image)."""
    title = entry.module("narrate").TITLE
    rules = Path(entry.module("rules").__file__).with_name("RULES.md").resolve()
    parts = [f"# {title}", "", f"Gymnasium id `{entry.id}`; players: {', '.join(map(str, entry.players))}.", "",
             f"![{title}](../images/{entry.name}.png)", ""]  # docs/make_images.py draws it
    if entry.multiplayer:
        aec = entry.aec_module()
        parts += [f"## The single-agent view: `{entry.id}`", "", docstring(entry.env_class, 1), "",
                  f"## The PettingZoo env: `{entry.aec}`", "", docstring(aec.raw_env, 1), ""]
    else:
        parts += [docstring(entry.env_class), ""]
    parts += ["```{include} " + Path(os.path.relpath(rules, docs / PAGES)).as_posix(), ":heading-offset: 1", "```", ""]
    return "\n".join(parts)


def index_page() -> str:
    """The list of games, a row each, and the toctree of their pages."""
    lines = ["# The games", "", "A page per game, written from its env's docstring and its rules.", "",
             "| game | Gymnasium id | players | PettingZoo |", "| --- | --- | --- | --- |"]
    for name, entry in GAMES.items():
        title = entry.module("narrate").TITLE
        players = "-".join(map(str, sorted({min(entry.players), max(entry.players)})))
        pettingzoo = f"`{entry.aec}`" if entry.aec else ""
        lines.append(f"| [{title}]({name}.md) | `{entry.id}` | {players} | {pettingzoo} |")
    lines += ["", "```{toctree}", ":hidden:", "", *GAMES, "```", ""]
    return "\n".join(lines)


def write_pages(app) -> None:
    """Write ``docs/games/``: an index and a page per game, and the search agents' settings the agents page
    includes. A page is rewritten only when its text changed, so that Sphinx rebuilds only what changed."""
    docs = Path(app.srcdir)
    folder = docs / PAGES
    folder.mkdir(exist_ok=True)
    pages = ({"index": index_page(), SEARCH_SETTINGS: search_settings_table()}
             | {name: game_page(entry, docs) for name, entry in GAMES.items()})
    for name, text in pages.items():
        path = folder / f"{name}.md"
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
    for stale in set(folder.glob("*.md")) - {folder / f"{name}.md" for name in pages}:
        stale.unlink()  # a game no longer listed


def setup(app):
    app.connect("builder-inited", write_pages)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
