"""An agent's games against the ceiling: which winnable deals it lost, and one of them beside a winning line.

    tabletop-gym eval <game> --agent heuristic --episodes 1000 --record heuristic.jsonl
    tabletop-gym report <game> heuristic.jsonl

The record is ``eval --record``'s (one JSON line a deal: ``seed``, ``won``...); the verdicts are a ``ceiling
--json`` file, or the ones that ship in ``benchmarks/ceiling/shipped/`` when they cover the record's deals. A winnable
deal the agent lost is where it has room to improve; the report replays the agent on one of them (the agent the
record names, or ``--agent``) and sets its moves beside the winning line, marking the first decision where they part.
A record of another game than the one named is refused. A record of a run that did not finish (``FILE.partial``,
whose first line names the run: ``benchmarks/evaluation/evaluate.py``) is reported as far as it goes, and said to be
partial.
"""

from __future__ import annotations

import gymnasium as gym

from ...agents import make_agent
from ...envs import GAMES
from ..ceiling.verdicts import Ceiling, check_game, load, shipped
from .evaluate import load_record, play_episode
from ..ceiling.solver import UNKNOWN


def agent_of(game: str, rows: list[dict], record: str) -> str | None:
    """The agent a record of ``game`` names (None where its lines name none, or several); a record of another game
    is refused, as ``compare`` refuses two records of different games: its deals are not this game's."""
    others = sorted({row["game"] for row in rows if row.get("game") not in (None, GAMES[game].id)})
    if others:
        raise ValueError(f"{record} holds episodes of {' and '.join(others)}, not {GAMES[game].id}")
    agents = {row.get("agent") for row in rows}
    return agents.pop() if len(agents) == 1 else None


def verdicts_for(game: str, rows: list[dict], path: str | None) -> Ceiling:
    seeds = [row["seed"] for row in rows]
    first, count = min(seeds), max(seeds) - min(seeds) + 1
    if path is None:
        found = shipped(game, first, count)
        if found is None:
            raise ValueError(f"no shipped verdicts cover deals {first}-{first + count - 1} of {game}: solve them "
                             f"with tabletop-gym ceiling {game} --seed {first} --deals {count} --json FILE, "
                             f"then pass --verdicts FILE")
        return found
    ceiling = load(path)
    if ceiling.game != game:
        raise ValueError(f"{path} holds verdicts on {ceiling.game}, not {game}")
    missing = sorted(set(seeds) - {v["deal"] for v in ceiling.verdicts})
    if missing:
        raise ValueError(f"{path} has no verdict on deal {missing[0]} (and {len(missing) - 1} more) of the record")
    return ceiling


def agent_moves(game: str, agent_name: str, deal: int) -> tuple[list, bool]:
    """The action names the agent plays on ``deal`` of ``game`` (its short name, as ``eval`` plays it), and whether it
    won."""
    env = gym.make(GAMES[game].id)
    actions = []
    won, _, _ = play_episode(env, make_agent(agent_name, game), deal, actions)
    names = env.unwrapped.action_names
    env.close()
    return [names[a] for a in actions], won


def side_by_side(moves: list, line: list) -> list[str]:
    """The two games as a table, a row per decision, the first one where they part marked."""
    parted = next((i for i, (a, b) in enumerate(zip(moves, line)) if a != b), min(len(moves), len(line)))
    rows = ["| decision | agent | winning line |", "| ---: | --- | --- |"]
    for i in range(max(len(moves), len(line))):
        mark = " (they part here)" if i == parted else ""
        rows.append(f"| {i + 1} | {moves[i] if i < len(moves) else ''} | "
                    f"{line[i] if i < len(line) else ''}{mark} |")
    return rows


def report(game: str, record: str, verdicts: str | None = None, agent: str | None = None,
           deal: int | None = None) -> str:
    game = check_game(game)
    loaded = load_record(record)
    rows = loaded.rows
    recorded = agent_of(game, rows, record)
    agent = agent if agent is not None else recorded
    ceiling = verdicts_for(game, rows, verdicts)
    by_deal = {v["deal"]: v for v in ceiling.verdicts}
    won = {row["seed"] for row in rows if row["won"]}
    seeds = [row["seed"] for row in rows]
    winnable = [s for s in seeds if by_deal[s]["verdict"] == "won"]
    unknown = [s for s in seeds if by_deal[s]["verdict"] == UNKNOWN]
    lost = [s for s in winnable if s not in won]
    share = len(won) / len(winnable) if winnable else 0.0
    lines = [f"{record}: {len(rows)} deals of {GAMES[game].id} ({min(seeds)}-{max(seeds)})",
             *([loaded.note()] if loaded.partial else []),
             f"won {len(won)}; winnable {len(winnable)} (and {len(unknown)} unknown); the agent's wins are "
             f"{100 * share:.1f}% of the winnable deals",
             f"winnable deals it lost ({len(lost)}): {', '.join(map(str, lost[:50]))}"
             + (" ..." if len(lost) > 50 else "")]
    if agent is not None:
        deal = lost[0] if deal is None and lost else deal
        if deal is None:
            lines.append("no winnable deal lost: nothing to replay")
        elif deal not in by_deal or by_deal[deal]["verdict"] != "won":
            raise ValueError(f"deal {deal} is not a winnable deal of the verdicts: no winning line to show")
        else:
            moves, agent_won = agent_moves(game, agent, deal)
            lines += ["", f"deal {deal}: {agent} ({'won' if agent_won else 'lost'}) beside a winning line", ""]
            lines += side_by_side(moves, by_deal[deal]["line"])
    return "\n".join(lines)


def main(game: str, record: str, verdicts: str | None = None, agent: str | None = None,
         deal: int | None = None) -> str:
    text = report(game, record, verdicts, agent, deal)
    print(text)
    return text
