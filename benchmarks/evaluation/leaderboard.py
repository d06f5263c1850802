"""Every agent on every game: a markdown table and a chart, reproducible from the seed.

The solitaires play the same deals for every agent (episode ``i`` is dealt with ``seed + i``).
A multi-player game is a seat-rotated round robin: each agent plays ``episodes`` 2-player games against each
scripted opponent its agent module lists (``LEADERBOARD_OPPONENTS``), taking seat 0 and seat 1 in turn.

The defaults are sized to finish in a few minutes on two cores: 100 episodes a row, and the search agent,
which takes seconds a game, on the first few deals only (each game's ``LEADERBOARD_SEARCH_EPISODES``). A row that
cannot be played (a ``ppo`` row without a model) stands in the table as skipped, with the reason.

Each card solitaire has a ``ceiling`` row: the share of its deals that can be won at all, by an exact search with
the whole deck known (``benchmarks/ceiling/verdicts.py``), read from the verdicts that ship for these seeds; and every
agent's row says what share of the winnable deals it won and how many of them it lost.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from tqdm import tqdm

from ...agents import (agent_module, committed_model, games_with, make_agent, named_heuristics, saved_policy,
                      search_agent, value_games)
from ...agents.policy import SCRATCH
from ... import envs
from ...envs import GAMES
from ..ceiling import verdicts as ceiling
from .evaluate import EvalResult, evaluate
from ..outputs import check_output, provenance, python_call
from ..ceiling.solver import UNKNOWN, WON, proves

# The default rows: the scripted players, then the learned ones, each named as what it is: PPO alone from random
# weights (``ppo-scratch``), the shipped policy (``ppo``: cloned from a player first, then PPO), the search agent on it
# (``search-ppo``, on as few deals as ``search``), the heuristic with a learned judge (``value``), and tree search with
# a learned prior and value (``az``, on as few deals as ``search``).
AGENT_ORDER = ("random", "heuristic", "search", "ppo-scratch", "ppo", "search-ppo", "value", "az")
SEARCHING = ("search", "search-ppo", "search-value", "az")  # the agents that play --search-episodes
LEARNED = ("ppo", "search-ppo")  # the rows that play a learned policy: the game's shipped one, or --ppo's
LEADERBOARD_EPISODES = 100


def only_on() -> dict:
    """The agents of some games only, with those games: their rows are left out of the others' tables."""
    return {"value": value_games(), "az": tuple(games_with("PLANNING")), **named_heuristics()}


def __getattr__(name: str):
    """``LEADERBOARD_SEARCH_EPISODES``: the search agent's episodes per row by default, for each game whose agent
    module says how many (a search game takes seconds), read from the games listed when it is looked up."""
    if name == "LEADERBOARD_SEARCH_EPISODES":
        return games_with("LEADERBOARD_SEARCH_EPISODES")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@dataclass
class Skipped:
    """A row of the table that was not played, and why."""

    game: str
    agent: str
    reason: str
    opponent: str | None = None


@dataclass
class CeilingRow:
    """A solitaire's ceiling on the leaderboard's deals: ``won`` proven winnable of ``episodes``, ``unknown`` left
    undecided at the search's budget, and the interval that counts the unknowns both ways; ``reason`` instead when
    no shipped verdicts cover the deals."""

    game: str
    episodes: int
    won: int = 0
    unknown: int = 0
    low: float = 0.0
    high: float = 1.0
    winnable: frozenset = frozenset()
    reason: str | None = None


def ceiling_row(game: str, seed: int, episodes: int) -> CeilingRow:
    game = envs.game(game).name  # the row, as the skipped ones, holds the game's short name
    found = ceiling.shipped(game, seed, episodes)
    if found is None:
        return CeilingRow(game, 0, reason=f"no verdicts ship for deals {seed}-{seed + episodes - 1} (tabletop-gym "
                                          f"ceiling {game} --seed {seed} --deals {episodes})")
    low, high = found.bounds
    return CeilingRow(game, episodes, found.counts[WON], found.counts[UNKNOWN], low, high,
                      frozenset(found.winnable()))


def against_ceiling(result: EvalResult, row: CeilingRow, seed: int) -> tuple[float, int]:
    """An agent's wins as a share of the winnable deals among those it played, and the winnable ones it lost."""
    winnable = {deal for deal in row.winnable if deal < seed + result.episodes}
    lost = len(winnable - set(result.won_seeds))
    return (len(winnable) - lost) / len(winnable) if winnable else 0.0, lost


@dataclass
class Row:
    """A row to play: a game, an agent (by name), a multi-player game's opponent, and how many episodes."""

    game: str
    agent: str
    opponent: str | None
    episodes: int

    def label(self) -> str:
        against = f" vs {self.opponent}" if self.opponent else ""
        return f"{self.agent}{against} on {GAMES[self.game].label}"


def progress_text(done: int, rows: int, row: Row, episodes: int) -> str:
    """The progress line's words: the rows done of all, and the row being played with its episodes finished."""
    return f"leaderboard: {done} of {rows} rows done; {row.label()}: {episodes} of {row.episodes} episodes"


def _agent(name: str, game: str, ppo_models: dict):
    if name in LEARNED and game in ppo_models:
        learned = saved_policy(str(ppo_models[game]), game=game)
        return learned if name == "ppo" else search_agent(game, learned=learned)
    return name if name == "random" else make_agent(name, game)


def by_game_name(ppo_models: dict | None) -> dict:
    """``ppo_models`` keyed by the games' short names, whichever names they were given by."""
    return {envs.game(game).name: model for game, model in (ppo_models or {}).items()}


def _ships_policy(game: str, from_scratch: bool = False) -> bool:
    try:
        committed_model(game, from_scratch)
    except ValueError:
        return False
    return True


def plan(episodes: int = LEADERBOARD_EPISODES, games=None, agents=AGENT_ORDER, ppo_models: dict | None = None,
         search_episodes: int | None = None) -> list:
    """The rows in order: a ``Row`` for each (game, agent, opponent) to play, a ``Skipped`` for the others."""
    if episodes < 1:
        raise ValueError(f"episodes must be at least 1, got {episodes}")
    if search_episodes is not None and search_episodes < 1:
        raise ValueError(f"search_episodes must be at least 1, got {search_episodes}")
    games = [envs.game(game).name for game in (games or GAMES)]
    ppo_models = by_game_name(ppo_models)
    limited = only_on()
    for name in agents:
        if name not in AGENT_ORDER + LEARNED + tuple(limited):
            make_agent(name, games[0])  # raises the usual error, naming the agents there are
    rows = []
    for game in games:
        for name in agents:
            opponents = getattr(agent_module(game), "LEADERBOARD_OPPONENTS", (None,))
            if name in LEARNED and game not in ppo_models and not _ships_policy(game):
                rows += [Skipped(game, name, f"no policy ships for it (--ppo {game}=policy.npz)", o)
                         for o in opponents]
                continue
            if name == "ppo-scratch" and not _ships_policy(game, from_scratch=True):
                rows += [Skipped(game, name, "no policy learned from scratch ships for it", o) for o in opponents]
                continue
            if game not in limited.get(name, (game,)):
                continue
            count = episodes
            if name in SEARCHING:
                count = search_episodes or getattr(agent_module(game), "LEADERBOARD_SEARCH_EPISODES", episodes)
            rows += [Row(game, name, opponent, count) for opponent in opponents]
    return rows


def run(episodes: int = LEADERBOARD_EPISODES, seed: int = 0, workers: int | None = None, games=None,
        agents=AGENT_ORDER, ppo_models: dict | None = None, progress: bool = True,
        search_episodes: int | None = None, backend: str = "local", address: str | None = None) -> list:
    """Evaluate each agent on each game; ``ppo_models`` maps games to saved models to include as "ppo".

    The search agent, far slower than the others, plays ``search_episodes`` (default
    ``LEADERBOARD_SEARCH_EPISODES``): the first deals of the same sequence. Returns an ``EvalResult`` per row
    played and a ``Skipped`` per row that could not be. ``backend`` and ``address``: as ``evaluate`` takes them.
    """
    ppo_models = by_game_name(ppo_models)
    rows = plan(episodes, games, agents, ppo_models, search_episodes)
    played = [row for row in rows if isinstance(row, Row)]
    # One line for the whole run: the rows done, the row being played with its episodes, and the time elapsed. No
    # time left: an episode costs from milliseconds to a minute by agent and game, so any guess swings by hours.
    bar = tqdm(total=len(played), disable=not progress, bar_format="{desc} [{elapsed} elapsed]")
    results = []
    for row in rows:
        if isinstance(row, Skipped):
            results.append(row)
            continue
        episodes = [0]  # finished so far in this row

        def finished(k, done=played.index(row), row=row):
            episodes[0] += k
            bar.set_description_str(progress_text(done, len(played), row, episodes[0]))
            bar.refresh()

        finished(0)
        result = evaluate(row.game, _agent(row.agent, row.game, ppo_models), episodes=row.episodes, seed=seed,
                          workers=workers, progress=False, opponent=row.opponent, on_episodes=finished,
                          backend=backend, address=address)
        result.agent = row.agent
        results.append(result)
        bar.update(1)
    bar.set_description_str(f"leaderboard: {len(played)} of {len(played)} rows done")
    bar.close()
    return with_ceilings(results, seed)


def with_ceilings(results: list, seed: int) -> list:
    """``results`` with a ``CeilingRow`` after each card solitaire's rows (the longest row's deals)."""
    names = [envs.game(r.game).name for r in results]  # a played row holds its game's id, a skipped one its name
    out = []
    for i, (r, game) in enumerate(zip(results, names)):
        out.append(r)
        last = i + 1 == len(results) or names[i + 1] != game
        if last and proves(game):
            played = [x.episodes for x, name in zip(results, names) if isinstance(x, EvalResult) and name == game]
            if played:
                out.append(ceiling_row(game, seed, max(played)))
    return out


def trained_how(record: dict) -> str:
    """How a learned policy was trained, in a phrase, from the record saved with it."""
    start = f"cloned from the {record['start']} agent's play, then " if record.get("start") else "from scratch, "
    options = ", ".join(f"{key}={value}" for key, value in record.get("env_kwargs", {}).items())
    how = " by self-play on the AEC env" if record.get("self_play") else ""
    return (f"{start}{record.get('timesteps', 0):,} steps of masked PPO{how}, seed {record.get('seed')}"
            + (f", with {options}" if options else ""))


def learned_notes(results: list, ppo_models: dict | None = None) -> list:
    """A line for each game with learned rows: which policy (or value) they played, and how it was trained."""
    ppo_models = by_game_name(ppo_models)

    def games_of(agents) -> list:
        return list(dict.fromkeys(envs.game(r.game).name for r in results
                                  if isinstance(r, EvalResult) and r.agent in agents))

    lines = []
    for game in games_of(("ppo-scratch",)):
        path = committed_model(game, from_scratch=True)
        lines.append(f"- {GAMES[game].label}, ppo-scratch: `agents/models/{SCRATCH}/{path.name}`, "
                     f"{trained_how(saved_policy(str(path)).record)}.")
    for game in games_of(LEARNED):
        path = ppo_models.get(game) or committed_model(game)
        record = getattr(saved_policy(str(path)), "record", None)
        how = trained_how(record) if record else "a MaskablePPO or torch model"
        shown = f"agents/models/{Path(path).name}" if game not in ppo_models else str(path)
        lines.append(f"- {GAMES[game].label}: `{shown}`, {how}.")
    for game in games_of(("value",)):
        record = make_agent("value", game).record
        judged, rows = agent_module(game).VALUE_JUDGES
        lines.append(f"- {GAMES[game].label}, value: `agents/models/value/{game}.npz`, a judge of "
                     f"{judged} learned from {record['decisions']:,} {rows} of {2 * record['settings']['games']:,} "
                     f"games (the heuristic's, then its own), seed {record['seed']}.")
    for game in games_of(("az",)):
        agent = make_agent("az", game)
        record = agent.network.value.record
        deals = "one resampled deal" if agent.worlds == 1 else f"{agent.worlds} resampled deals"
        tables = "".join(f", `{game}_value_{n}p.npz` at {n} players" for n in sorted(agent.network.tables))
        lines.append(f"- {GAMES[game].label}, az: {agent.simulations} simulations a move on {deals}, with the "
                     f"policy `agents/models/az/{game}.npz` and the value `agents/models/az/{game}_value.npz` "
                     f"(round {record['round']} of its expert iteration, fitted to {record['positions']:,} positions, "
                     f"seed {record['seed']}){tables}.")
    return lines


def markdown(results: list, seed: int, notes: list | None = None) -> str:
    about_ceilings = ("" if not any(isinstance(r, CeilingRow) for r in results) else
                      " A card solitaire's `ceiling` row is the share of those deals that can be won at all (an exact "
                      "search with the whole deck known; its interval counts the deals the search left undecided "
                      "both ways); `of ceiling` is an agent's wins as a share of the winnable deals it played, and "
                      "`winnable lost` how many of them it lost.")
    lines = [
        f"Win rate with its Wilson 95% interval, mean score and mean episode length (agent decisions); episode i "
        f"of every row is dealt from seed {seed} + i.{about_ceilings}",
        "",
        "| game | agent | opponent | episodes | win rate | 95% interval | mean score | mean length | of ceiling "
        "| winnable lost |",
        "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    ceilings = {r.game: r for r in results if isinstance(r, CeilingRow) and r.reason is None}
    for r in results:
        entry = envs.game(r.game)
        game = entry.label
        if isinstance(r, Skipped):
            lines.append(f"| {game} | {r.agent} | {r.opponent or '-'} | 0 | skipped: {r.reason} | | | | | |")
            continue
        if isinstance(r, CeilingRow):
            if r.reason is not None:
                lines.append(f"| {game} | ceiling | - | 0 | skipped: {r.reason} | | | | | |")
            else:
                undecided = f" ({r.unknown} undecided)" if r.unknown else ""
                lines.append(f"| {game} | ceiling | - | {r.episodes} | {100 * r.won / r.episodes:.1f}%{undecided} "
                             f"| {100 * r.low:.1f}–{100 * r.high:.1f}% | | | | |")
            continue
        share, lost = "-", "-"
        if entry.name in ceilings:
            fraction, count = against_ceiling(r, ceilings[entry.name], seed)
            share, lost = f"{100 * fraction:.1f}%", str(count)
        lines.append(f"| {game} | {r.agent} | {r.opponent or '-'} | {r.episodes} "
                     f"| {100 * r.win_rate:.1f}% | {100 * r.win_low:.1f}–{100 * r.win_high:.1f}% "
                     f"| {r.mean_score:.2f} | {r.mean_length:.1f} | {share} | {lost} |")
    if notes:
        lines += ["", "The learned rows (ppo-scratch: PPO alone, from random weights; ppo: the shipped policy; "
                      "search-ppo: the search agent on that policy, its prior and playout policy or the namer of the "
                      "actions worth searching; value: the heuristic with a learned judge where it had a rule of "
                      "thumb; az: tree search with that policy's prior and a value learned from self-play):", "",
                      *notes]
    return "\n".join(lines) + "\n"


def chart(results: list, path: Path) -> None:
    # The object API draws without pyplot, so a caller's backend (a notebook's inline one) stays as it was.
    from matplotlib.figure import Figure

    results = [r for r in results if isinstance(r, EvalResult)]
    labels = [f"{envs.game(r.game).label.removesuffix('-v0')}\n{r.agent}" + (f" vs {r.opponent}" if r.opponent else "")
              for r in results]
    rates = [100 * r.win_rate for r in results]
    errors = [[100 * max(0.0, r.win_rate - r.win_low) for r in results],
              [100 * max(0.0, r.win_high - r.win_rate) for r in results]]
    colours = {"random": "#9e9e9e", "heuristic": "#1f77b4", "search": "#d62728", "ppo-scratch": "#bcbd22",
               "ppo": "#2ca02c", "search-ppo": "#9467bd", "value": "#17becf", "az": "#8c564b"}
    fig = Figure(figsize=(max(8, 0.6 * len(results)), 5))
    ax = fig.subplots()
    ax.bar(range(len(results)), rates, yerr=errors, capsize=3,
           color=[colours.get(r.agent, "#7f7f7f") for r in results])
    ax.set_xticks(range(len(results)), labels, rotation=60, ha="right", fontsize=8)
    ax.set_ylabel("win rate (%) with 95% interval")
    ax.set_title("tabletop-gym leaderboard")
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def main(episodes: int = LEADERBOARD_EPISODES, seed: int = 0, workers: int | None = None, games=None,
         agents=AGENT_ORDER, out: str = "leaderboard.md", png: str | None = "leaderboard.png",
         ppo_models: dict | None = None, progress: bool = True, search_episodes: int | None = None,
         backend: str = "local", address: str | None = None, command: str | None = None) -> str:
    """Play the leaderboard, print its page, write it to ``out`` and its chart to ``png``; say what was written.
    The page begins with ``command`` (the command line that asked for it; by default this call)."""
    command = command or python_call(main, locals())
    for path in (out, png):
        if path:
            check_output(path)
    started = time.perf_counter()
    results = run(episodes, seed, workers, games, agents, ppo_models, progress, search_episodes, backend, address)
    page = provenance(command) + "\n\n" + markdown(results, seed, learned_notes(results, ppo_models))
    print(page)
    Path(out).write_text(page, encoding="utf-8")
    written = [str(out)]
    if png:
        try:
            chart(results, Path(png))
            written.append(str(png))
        except ImportError:
            print("no chart: matplotlib is not installed (pip install 'tabletop-gym[rl]')")
    print(f"wrote {' and '.join(written)} ({len(results)} rows in {time.perf_counter() - started:.0f} s)")
    return page
