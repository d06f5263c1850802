"""How many deals can be won at all: a solitaire's clairvoyant ceiling, deal by deal.

    tabletop-gym ceiling <game> --deals 2000 --budget 10 --json <game>.json

For each deal (the env's own deal of seed ``seed + i``, as ``reset(seed=seed + i)`` gives it) the exact search of
``benchmarks/ceiling/solver.py`` decides, with the whole deck known, whether some sequence of the player's decisions wins
it: ``won`` (with the winning line, the action names to play on the env from ``reset``), ``lost`` (proven: no
sequence wins), or ``unknown`` (the budget ran out first). Over fixed seeds the share of winnable deals bounds
every policy from above: no player, however good, wins a deal that cannot be won. The unknowns are counted both
ways, so the ceiling is given as an interval from the Wilson lower bound with every unknown lost to the Wilson
upper bound with every unknown won. A game whose hooks bound its score also has the best score reachable on each
deal (the whole tree searched for it).

A game with dice deals its dice from the env's generator, the same whatever the player does, so a player who knew
them all faces a fixed game too; the search is then told every die. Where a game runs too long for any exhaustive
search to reach its end, the command runs beam searches only and reports the best game they find, its score (and
``won`` when that wins, else ``unknown``): a lower bound on what the deal allows, never an upper one. A game has a
ceiling when its folder holds the search's hooks (``solve.py``, see ``benchmarks/ceiling/solver.py``); a game played
against opponents has none of this kind.

The verdicts of the README's run ship in ``benchmarks/ceiling/shipped/`` (one file per game and seed range), and the
leaderboard reads them to put a ``ceiling`` row beside each solitaire's agents, with each agent's share of it and
the winnable deals it lost.

``ceiling --json FILE`` writes the verdicts as the deals are solved, so that a run interrupted or faulted keeps them:
until the end they are in ``FILE.partial`` (plain text, whatever FILE's name), a first line naming the run
(``{"partial": {"seed": ..., "deals": ...}, "game": ..., "budget": ...}``) then one JSON line a verdict in the order
the chunks finish. At the end FILE is written whole, as ``Ceiling.save`` writes it, and the partial file removed;
``ceiling(resume=True)`` (``ceiling --resume``) solves only the deals a partial file (or FILE) lacks. A resumed run's
summary gives no speed: its time was spent in several runs.
"""

from __future__ import annotations

import copy
import json
import os
import statistics
import time
from contextlib import nullcontext
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import gymnasium as gym
import numpy as np
from tqdm import tqdm

from ... import envs
from ...envs import GAMES, BadFileError
from ..evaluation.evaluate import (PartialFile, check_header, check_written_as_it_goes, in_workers, is_kind,
                                   partial_path, read_lines, read_text, wilson_interval, write_whole)
from ..outputs import check_output
from .solver import LOST, UNKNOWN, WON, Solver, rules_of, solve_hooks

SHIPPED = Path(__file__).parent / "shipped"
DEFAULT_BUDGET = 10.0


def check_game(game: str) -> str:
    """The game's short name, if it has a ceiling; else a ValueError saying why not."""
    name = envs.game(game).name
    if solve_hooks(name) is not None:
        return name
    players = GAMES[name].players
    if min(players) > 1:
        raise ValueError(f"no ceiling for {name}: a game of {min(players)} to {max(players)} players is "
                         f"played against opponents, whose choices no search over the player's own decisions can "
                         f"fix in advance: a clairvoyant ceiling is a solitaire's")
    raise ValueError(f"no ceiling for {name}: its folder holds no hooks for the exact search (solve.py, see "
                     f"benchmarks/ceiling/solver.py)")


_SOLVERS: dict = {}  # per worker process: a solver compiles once, then takes every deal it is given


def _solver(game: str, objective: str) -> Solver:
    if (game, objective) not in _SOLVERS:
        _SOLVERS[game, objective] = Solver(game, objective)
    return _SOLVERS[game, objective]


def solve_deals(game: str, seeds: list, budget: float) -> list[dict]:
    """The verdict on each deal of ``seeds`` of ``game`` (by short name; a dict per deal, as the verdict files hold
    it)."""
    env = gym.make(GAMES[game].id)
    names = env.unwrapped.action_names
    hooks = solve_hooks(game)
    verdicts = []
    for seed in seeds:
        env.reset(seed=seed)
        state = env.unwrapped.state
        if hasattr(hooks, "fix_dice"):
            # every die the env will roll, drawn from a copy of its generator: the env's own, turn by turn
            state = hooks.fix_dice(state, copy.deepcopy(env.unwrapped.np_random))
        found = _solver(game, "win").solve(state, budget)
        verdict = {"deal": seed, "verdict": found.outcome, "nodes": found.nodes,
                   "seconds": round(found.seconds, 4), "line": [names[a] for a in found.line]}
        if hooks.BEAMS_ONLY:
            verdict[hooks.SCORE_NAME] = found.value  # the line's score: at least what the deal allows
        if hasattr(hooks, "score_bound"):
            best = _solver(game, "score").solve(env.unwrapped.state, budget)
            verdict["best_score"] = best.value if best.outcome != UNKNOWN else None
            verdict["nodes"] += best.nodes
            verdict["seconds"] = round(found.seconds + best.seconds, 4)
        verdicts.append(verdict)
    env.close()
    return verdicts


@dataclass
class Ceiling:
    """The verdicts on ``deals`` deals of ``game`` (its short name) from ``seed``, and what they add up to."""

    game: str
    seed: int
    budget: float
    verdicts: list
    seconds: float = 0.0
    workers: int = 1
    counts: dict = field(init=False)

    def __post_init__(self):
        self.counts = {kind: sum(v["verdict"] == kind for v in self.verdicts) for kind in (WON, LOST, UNKNOWN)}

    @property
    def deals(self) -> int:
        return len(self.verdicts)

    @property
    def bounds(self) -> tuple[float, float]:
        """The ceiling's 95% interval with the unknowns counted both ways: the Wilson lower bound of the deals
        proven winnable, the Wilson upper bound of those not proven lost."""
        won, unknown = self.counts[WON], self.counts[UNKNOWN]
        return wilson_interval(won, self.deals)[0], wilson_interval(won + unknown, self.deals)[1]

    def winnable(self) -> set:
        return {v["deal"] for v in self.verdicts if v["verdict"] == WON}

    def covers(self, seed: int, episodes: int) -> bool:
        return self.seed <= seed and seed + episodes <= self.seed + self.deals

    def part(self, seed: int, episodes: int) -> "Ceiling":
        """The verdicts on deals ``seed`` to ``seed + episodes - 1`` only."""
        chosen = [v for v in self.verdicts if seed <= v["deal"] < seed + episodes]
        return Ceiling(self.game, seed, self.budget, chosen)

    def stats(self) -> dict:
        nodes = [v["nodes"] for v in self.verdicts]
        low, high = self.bounds
        stats = {"deals": self.deals, **self.counts, "ceiling_low": low, "ceiling_high": high,
                 "proven_won": self.counts[WON] / self.deals, "unknown_share": self.counts[UNKNOWN] / self.deals,
                 "nodes_median": statistics.median(nodes), "nodes_p99": float(np.percentile(nodes, 99)),
                 "seconds_median": statistics.median(v["seconds"] for v in self.verdicts)}
        if self.seconds:
            stats.update(seconds=round(self.seconds, 1), workers=self.workers,
                         deals_per_second=round(self.deals / self.seconds, 2))
        hooks = solve_hooks(self.game)
        if hooks.BEAMS_ONLY:
            stats[f"{hooks.SCORE_NAME}_mean"] = float(np.mean([v[hooks.SCORE_NAME] for v in self.verdicts]))
        scores = [v["best_score"] for v in self.verdicts if v.get("best_score") is not None]
        if "best_score" in self.verdicts[0] and scores:
            stats["best_score_mean"] = float(np.mean(scores))
            stats["best_score_solved"] = len(scores)
        return stats

    def summary(self) -> str:
        s = self.stats()
        hooks = solve_hooks(self.game)
        if hooks.BEAMS_ONLY:
            return self._lower_bound_summary(s, hooks)
        lines = [f"{GAMES[self.game].id}: deals {self.seed}-{self.seed + self.deals - 1}, budget {self.budget:g} s "
                 f"a deal",
                 f"  won {s['won']}, lost {s['lost']}, unknown {s['unknown']}: at least {100 * s['proven_won']:.2f}% "
                 f"of the deals can be won; ceiling {100 * s['ceiling_low']:.1f}-{100 * s['ceiling_high']:.1f}% "
                 f"(95%, unknowns counted both ways)",
                 f"  nodes a deal: median {s['nodes_median']:,.0f}, p99 {s['nodes_p99']:,.0f}"]
        if "deals_per_second" in s:
            lines.append(f"  {s['deals_per_second']:g} deals/s ({s['seconds']:g} s on {s['workers']} workers)")
        if "best_score_mean" in s:
            lines.append(f"  best score reachable: mean {s['best_score_mean']:.2f} over {s['best_score_solved']} "
                         f"deals solved")
        return "\n".join(lines)

    def _lower_bound_summary(self, s: dict, hooks) -> str:
        low = wilson_interval(s["won"], self.deals)[0]
        lines = [f"{GAMES[self.game].id}: deals {self.seed}-{self.seed + self.deals - 1}, budget {self.budget:g} s "
                 f"a deal, {hooks.DEAL_KNOWN}; beam searches only, so these are lower bounds",
                 f"  {hooks.SCORE_MEANS}: {s[hooks.SCORE_NAME + '_mean']:.2f} on average (the deals allow at "
                 f"least that)",
                 f"  won {s['won']} ({100 * s['proven_won']:.1f}%): at least {100 * low:.1f}% of the deals can be won "
                 f"(95%); the other {s['unknown']} undecided",
                 f"  nodes a deal: median {s['nodes_median']:,.0f}, p99 {s['nodes_p99']:,.0f}"]
        if "deals_per_second" in s:
            lines.append(f"  {s['deals_per_second']:g} deals/s ({s['seconds']:g} s on {s['workers']} workers)")
        return "\n".join(lines)

    def as_dict(self) -> dict:
        return {"game": self.game, "env_id": GAMES[self.game].id, "seed": self.seed, "deals": self.deals,
                "budget": self.budget, "summary": self.stats(), "verdicts": self.verdicts}

    def save(self, path) -> None:
        """The verdicts as JSON (gzipped when ``path`` ends in .gz), written whole under a temporary name first."""
        write_whole(path, json.dumps(self.as_dict(), indent=None, separators=(",", ":")))


# What a verdict holds, and of what kind each value is (``is_kind``'s kinds; the line's moves are strings).
VERDICT_KINDS = {"deal": "a whole number", "verdict": "a string", "nodes": "a whole number from 0",
                 "seconds": "a finite number", "line": "a list of moves"}


def check_verdict(path, where: str, verdict, game: str) -> dict:
    """``verdict`` if it is one of ``game``'s deals' verdict (``solve_deals``), else a ``BadFileError`` naming
    ``where`` it is and what is wrong."""
    if not isinstance(verdict, dict):
        raise BadFileError(path, f"{where}: not a verdict (a JSON object a deal)")
    kinds = dict(VERDICT_KINDS)
    hooks = solve_hooks(game)
    if hooks.BEAMS_ONLY:
        kinds[hooks.SCORE_NAME] = "a finite number"
    missing = [key for key in kinds if key not in verdict]
    if missing:
        raise BadFileError(path, f"{where}: not a verdict (no {', '.join(missing)})")
    for key, kind in kinds.items():
        value = verdict[key]
        if kind == "a list of moves":
            fits = isinstance(value, list) and all(isinstance(move, str) for move in value)
        else:
            fits = is_kind(value, kind)
        if not fits:
            raise BadFileError(path, f"{where}: {key} is {value!r}, not {kind}")
    if verdict["verdict"] not in (WON, LOST, UNKNOWN):
        raise BadFileError(path, f"{where}: verdict is {verdict['verdict']!r}, not {WON}, {LOST} or {UNKNOWN}")
    best = verdict.get("best_score")
    if best is not None and not is_kind(best, "a finite number"):
        raise BadFileError(path, f"{where}: best_score is {best!r}, not a finite number or null")
    return verdict


def check_game_of(path, game) -> str:
    """``game`` if it names a game with a ceiling, else a ``BadFileError``."""
    if not isinstance(game, str) or game not in GAMES or solve_hooks(game) is None:
        raise BadFileError(path, f"game is {game!r}, not a game with a ceiling")
    return game


def load(path) -> Ceiling:
    """A verdict file ``save`` wrote (plain or gzipped JSON); a ``BadFileError`` naming what is wrong with a file
    that is not one (unreadable, cut short, not JSON, a key missing, a value of the wrong kind, deals out of turn),
    or that is a run's unfinished ``FILE.partial``."""
    text = read_text(path, "verdicts")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        if text.startswith('{"partial"'):
            raise BadFileError(path, "the verdicts of a ceiling run that did not finish: finish it with ceiling "
                                     "--resume") from None
        raise BadFileError(path, f"not JSON ({error.msg}), so not verdicts") from None
    if not isinstance(data, dict):
        raise BadFileError(path, "not verdicts (a JSON object with game, seed, budget and verdicts)")
    missing = [key for key in ("game", "seed", "budget", "verdicts") if key not in data]
    if missing:
        raise BadFileError(path, f"not verdicts (no {', '.join(missing)})")
    game = check_game_of(path, data["game"])
    if not is_kind(data["seed"], "a whole number"):
        raise BadFileError(path, f"seed is {data['seed']!r}, not a whole number")
    if not is_kind(data["budget"], "a finite number") or data["budget"] <= 0:
        raise BadFileError(path, f"budget is {data['budget']!r}, not a positive number of seconds")
    if not isinstance(data["verdicts"], list) or not data["verdicts"]:
        raise BadFileError(path, "verdicts is not a list of at least one verdict")
    for i, verdict in enumerate(data["verdicts"]):
        check_verdict(path, f"verdict {i}", verdict, game)
        if verdict["deal"] != data["seed"] + i:  # a file covers its deals from seed on, one verdict each in turn
            raise BadFileError(path, f"verdict {i}: deal {verdict['deal']}, not {data['seed'] + i}")
    if data.get("deals", len(data["verdicts"])) != len(data["verdicts"]):
        raise BadFileError(path, f"says {data['deals']} deals but holds {len(data['verdicts'])} verdicts")
    return Ceiling(game, data["seed"], data["budget"], data["verdicts"])


def solved_before(path, game: str, budget: float, seeds: list) -> list[dict]:
    """The verdicts on ``seeds`` that an earlier run on ``game`` with ``budget`` left in ``path``'s partial file, or
    in ``path`` when it has none (the run may be longer now); none when there is neither. Verdicts of another game,
    budget or deals are refused."""
    partial = partial_path(path)
    if os.path.exists(partial):
        header, items = read_lines(partial, "verdicts")
        if header is None:
            raise BadFileError(partial, "line 1: not the first line of a ceiling run's partial verdicts")
        check_header(partial, header, {"seed": "a whole number", "deals": "a whole number from 0"},
                     {"budget": "a finite number"})
        source, said = partial, (check_game_of(partial, header.get("game")), header["budget"])
        verdicts = [check_verdict(partial, f"line {number}", item, said[0]) for number, item in items]
    elif os.path.exists(path):
        earlier = load(path)
        source, said, verdicts = path, (earlier.game, earlier.budget), earlier.verdicts
    else:
        return []
    if said != (game, budget):
        raise BadFileError(source, f"holds verdicts on {said[0]} at a budget of {said[1]:g} s, not on {game} at "
                                   f"{budget:g} s: a run resumes only its own verdicts")
    seen = set()
    for verdict in verdicts:
        if verdict["deal"] in seen:
            raise BadFileError(source, f"holds deal {verdict['deal']} twice")
        if not seeds[0] <= verdict["deal"] <= seeds[-1]:
            raise BadFileError(source, f"holds deal {verdict['deal']}, outside this run's deals ({seeds[0]}-"
                                       f"{seeds[-1]}): a run resumes only its own verdicts (the same seed)")
        seen.add(verdict["deal"])
    return verdicts


def shipped(game: str, seed: int, episodes: int) -> Ceiling | None:
    """The shipped verdicts on ``game``'s deals ``seed`` to ``seed + episodes - 1``, or None if none cover them."""
    for path in sorted(SHIPPED.glob(f"{envs.game(game).name}_*.json.gz")):
        ceiling = load(path)
        if ceiling.covers(seed, episodes):
            return ceiling.part(seed, episodes)
    return None


def ceiling(game: str, deals: int = 100, seed: int = 0, budget: float = DEFAULT_BUDGET, workers: int | None = None,
            progress: bool = True, json_path=None, resume: bool = False) -> Ceiling:
    """Solve deals ``seed`` to ``seed + deals - 1`` of ``game`` with ``workers`` processes (default: one per CPU).

    ``json_path``: the file to write the verdicts to (``save``; gzipped if it ends in .gz), checked before any work
    and written as the deals are solved (the module's docstring). ``resume``: keep the verdicts its partial file (or
    the file, when there is none) already holds, of the same game and budget, and solve only the other deals;
    without it a partial file is refused, so that an unfinished run is not thrown away unasked."""
    game = check_game(game)
    if deals < 1:
        raise ValueError(f"deals must be at least 1, got {deals}")
    if not budget > 0:
        raise ValueError(f"budget must be a positive number of seconds, got {budget}")
    if workers is not None and workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    check_written_as_it_goes(json_path, resume, "json_path", "--json", "verdicts")
    workers = min(workers or os.cpu_count() or 1, deals)
    seeds = list(range(seed, seed + deals))
    verdicts = solved_before(json_path, game, budget, seeds) if resume else []
    solved = {v["deal"] for v in verdicts}
    left = [s for s in seeds if s not in solved]
    # Small chunks: a few deals take the whole budget, and should not hold up the rest.
    size = max(1, min(50, len(left) // (workers * 20)))
    chunks = [left[i:i + size] for i in range(0, len(left), size)]
    started = time.perf_counter()
    bar = tqdm(total=deals, initial=len(verdicts), desc=f"ceiling of {GAMES[game].id}", unit="deal",
               disable=not progress)
    out = None
    if json_path is not None:
        out = PartialFile(json_path, {"partial": {"seed": seed, "deals": deals}, "game": game, "budget": budget},
                          verdicts, "verdicts")

    def done(chunk, found):
        verdicts.extend(found)
        if out is not None:
            out.add(found)
        bar.update(len(found))
        bar.set_postfix(won=sum(v["verdict"] == WON for v in verdicts))

    with out if out is not None else nullcontext():
        if chunks:
            in_workers(partial(solve_deals, game, budget=budget), chunks, workers, done)
        bar.close()
        verdicts.sort(key=lambda v: v["deal"])
        # A resumed run's time was spent in several runs: it gives no speed.
        result = Ceiling(game, seed, budget, verdicts, 0.0 if solved else time.perf_counter() - started, workers)
        if out is not None:
            out.finish(result.save)
    return result


def main(game: str, deals: int = 100, seed: int = 0, budget: float = DEFAULT_BUDGET, workers: int | None = None,
         json_path: str | None = None, progress: bool = True, resume: bool = False) -> Ceiling:
    """The command: solve, write the verdicts to ``json_path`` (gzipped if it ends in .gz), print the summary."""
    if json_path:
        check_output(json_path)  # before the solvers are even built
    result = ceiling(game, deals, seed, budget, workers, progress, json_path, resume)
    print(result.summary())
    if json_path:
        print(f"wrote {json_path}")
    return result
