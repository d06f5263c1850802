"""Write the README's two tables from their sources, so that neither is kept by hand:

- the games: each game's name, picture and id from the one list of games (``tabletop_gym.envs.GAMES``), and what it
  is from the first line of its env's docstring (the line its page of the site shows too);
- the results: one row per game, read from the leaderboard page that ``tabletop-gym leaderboard`` writes
  (``docs/leaderboard.md``): the heuristic, the best learned agent, the best search agent and the ceiling.

    python docs/readme_tables.py           # rewrite the tables in README.md
    python docs/readme_tables.py --check   # exit 1 when README.md's tables are not what the sources give

Each table sits between ``<!-- NAME: ... -->`` and ``<!-- /NAME -->`` in README.md; the test suite runs the check.
"""

from __future__ import annotations

import argparse
import inspect
import re
import sys
from pathlib import Path

from tabletop_gym.envs import GAMES

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
LEADERBOARD = ROOT / "docs" / "leaderboard.md"

# The leaderboard's agents by kind; a row's best is the highest win rate among its kind's rows.
LEARNED = ("ppo-scratch", "ppo", "value")
SEARCHING = ("search", "search-ppo", "search-value", "az")
# Where each column's number is explained.
PAGES = {"heuristic": "docs/leaderboard.md", "learned": "docs/learned_agents.md", "search": "docs/leaderboard.md",
         "ceiling": "docs/ceiling.md"}


def summary(entry) -> str:
    """The first line of the game's env docstring: what the game is, in one sentence."""
    return inspect.getdoc(entry.env_class).splitlines()[0].strip()


def players(entry) -> str:
    fewest, most = min(entry.players), max(entry.players)
    return "1 player" if most == 1 else f"{fewest}–{most} players"


def games_table() -> str:
    lines = ["| | game | id |", "| --- | --- | --- |"]
    for entry in GAMES.values():
        name = entry.module("narrate").TITLE
        picture = f'<img src="docs/images/{entry.name}.png" width="220" alt="{name}">'
        lines.append(f"| {picture} | **{name}** ({players(entry)}): {summary(entry)} "
                     f"[Rules](envs/{entry.name}/RULES.md) | `{entry.id}` |")
    return "\n".join(lines)


def leaderboard_rows(text: str) -> list[dict]:
    """The rows of the leaderboard page's table, as dicts of its header's names."""
    table = [line for line in text.splitlines() if line.startswith("| ")]
    header = [cell.strip() for cell in table[0].strip("|").split("|")]
    return [dict(zip(header, (cell.strip() for cell in line.strip("|").split("|")))) for line in table[2:]]


def win_rate(row: dict) -> float:
    return float(re.match(r"[\d.]+", row["win rate"]).group())


def best(rows: list[dict], agents: tuple, deals: str) -> str:
    """The best row of ``agents``: its win rate, its agent where the kind has several, and its deals where they
    are not the game's ``deals``; a dash when the game has none of them."""
    kind = [row for row in rows if row["agent"] in agents]
    if not kind:
        return "–"
    top = max(kind, key=win_rate)
    notes = [top["agent"]] if len(agents) > 1 else []
    notes += [f"first {top['episodes']} deals"] if top["episodes"] != deals else []
    return f"{top['win rate']} ({', '.join(notes)})" if notes else top["win rate"]


def link(text: str, page: str) -> str:
    return text if text == "–" else f"[{text}]({page})"


def results_table(text: str) -> str:
    rows = leaderboard_rows(text)
    lines = ["| game | deals | heuristic | best learned | best search | ceiling |",
             "| --- | ---: | ---: | ---: | ---: | ---: |"]
    for entry in GAMES.values():
        mine = [row for row in rows if row["game"] == entry.label]
        game = entry.label
        if entry.multiplayer:  # against the toughest built-in opponent: the one the heuristic does worst against
            toughest = min((r for r in mine if r["agent"] == "heuristic"), key=win_rate)["opponent"]
            mine = [row for row in mine if row["opponent"] == toughest]
            game += f", against {toughest}"
        deals = next(row["episodes"] for row in mine if row["agent"] == "heuristic")
        cells = [link(best(mine, agents, deals), PAGES[kind]) for kind, agents in
                 (("heuristic", ("heuristic",)), ("learned", LEARNED), ("search", SEARCHING), ("ceiling", ("ceiling",)))]
        lines.append(f"| {game} | {deals} | {' | '.join(cells)} |")
    return "\n".join(lines)


def tables() -> dict:
    return {"games": games_table(), "results": results_table(LEADERBOARD.read_text(encoding="utf-8"))}


def written(readme: str, name: str, table: str) -> str:
    """``readme`` with the text between the ``name`` markers replaced by ``table``."""
    pattern = re.compile(rf"(<!-- {name}: [^>]*-->)\n.*?(<!-- /{name} -->)", flags=re.S)
    if not pattern.search(readme):
        raise ValueError(f"README.md has no <!-- {name}: ... --> ... <!-- /{name} --> markers")
    return pattern.sub(lambda match: f"{match.group(1)}\n{table}\n{match.group(2)}", readme)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only say whether README.md's tables are current")
    args = parser.parse_args(argv)
    readme = README.read_text(encoding="utf-8")
    new = readme
    for name, table in tables().items():
        new = written(new, name, table)
    if args.check:
        if new != readme:
            print("README.md's tables are not what their sources give: run python docs/readme_tables.py")
            return 1
        return 0
    README.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
