"""Every agent on every game: a markdown table and a chart, reproducible from the seed.

The solitaires play the same deals for every agent (episode ``i`` is dealt with ``seed + i``).
Splendor is a seat-rotated round robin: each agent plays ``episodes`` 2-player games against each
scripted opponent (random and greedy), taking seat 0 and seat 1 in turn.
"""

from __future__ import annotations

from pathlib import Path

from ..agents import make_agent
from ..envs import GAMES
from .evaluate import EvalResult, evaluate

AGENT_ORDER = ("random", "heuristic", "search")
SPLENDOR_OPPONENTS = ("random", "greedy")


def _agent(name: str, game: str, ppo_models: dict):
    if name == "ppo":
        return make_agent("ppo:" + str(ppo_models[game]), game)
    return name if name == "random" else make_agent(name, game)


def run(episodes: int = 100, seed: int = 0, workers: int | None = None, games=None, agents=AGENT_ORDER,
        ppo_models: dict | None = None, progress: bool = True, search_episodes: int | None = None
        ) -> list[EvalResult]:
    """Evaluate each agent on each game; ``ppo_models`` maps games to saved models to include as "ppo".

    The search agent, far slower than the others, plays ``search_episodes`` (default ``episodes``): the
    first deals of the same sequence.
    """
    ppo_models = dict(ppo_models or {})
    results = []
    for game in games or GAMES:
        # "ppo" rows exist for the games that have a model.
        names = [name for name in agents if name != "ppo"] + (["ppo"] if game in ppo_models else [])
        for name in names:
            agent = _agent(name, game, ppo_models)
            opponents = SPLENDOR_OPPONENTS if game == "splendor" else (None,)
            for opponent in opponents:
                count = search_episodes if name == "search" and search_episodes else episodes
                result = evaluate(game, agent, episodes=count, seed=seed, workers=workers, progress=progress,
                                  opponent=opponent)
                result.agent = name
                results.append(result)
    return results


def markdown(results: list[EvalResult], seed: int) -> str:
    lines = [
        f"Win rate with its Wilson 95% interval, mean score and mean episode length (agent decisions); episode i "
        f"of every row is dealt from seed {seed} + i.",
        "",
        "| game | agent | opponent | episodes | win rate | 95% interval | mean score | mean length |",
        "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in results:
        lines.append(f"| {r.game.split('/')[-1]} | {r.agent} | {r.opponent or '-'} | {r.episodes} "
                     f"| {100 * r.win_rate:.1f}% | {100 * r.win_low:.1f}–{100 * r.win_high:.1f}% "
                     f"| {r.mean_score:.2f} | {r.mean_length:.1f} |")
    return "\n".join(lines) + "\n"


def chart(results: list[EvalResult], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = [f"{r.game.split('/')[-1].removesuffix('-v0')}\n{r.agent}" + (f" vs {r.opponent}" if r.opponent else "")
              for r in results]
    rates = [100 * r.win_rate for r in results]
    errors = [[100 * max(0.0, r.win_rate - r.win_low) for r in results],
              [100 * max(0.0, r.win_high - r.win_rate) for r in results]]
    colours = {"random": "#9e9e9e", "heuristic": "#1f77b4", "search": "#d62728", "ppo": "#2ca02c"}
    fig, ax = plt.subplots(figsize=(max(8, 0.6 * len(results)), 5))
    ax.bar(range(len(results)), rates, yerr=errors, capsize=3,
           color=[colours.get(r.agent, "#7f7f7f") for r in results])
    ax.set_xticks(range(len(results)), labels, rotation=60, ha="right", fontsize=8)
    ax.set_ylabel("win rate (%) with 95% interval")
    ax.set_title("tabletop-gym leaderboard")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(episodes: int = 100, seed: int = 0, workers: int | None = None, games=None, agents=AGENT_ORDER,
         out: str = "leaderboard.md", png: str | None = "leaderboard.png", ppo_models: dict | None = None,
         progress: bool = True, search_episodes: int | None = 5) -> str:
    results = run(episodes, seed, workers, games, agents, ppo_models, progress, search_episodes)
    table = markdown(results, seed)
    print(table)
    Path(out).write_text(table, encoding="utf-8")
    if png:
        try:
            chart(results, Path(png))
        except ImportError:
            print("no chart: matplotlib is not installed (pip install 'tabletop-gym[rl]')")
    return table
