"""Random-play throughput of the games, measured in the same run as well-known reference environments.

Absolute steps per second depend on the machine and its load, so the table reports each
environment as a ratio to PettingZoo's ``connect_four_v3.env()`` timed in the same run.
Every loop is the same: pick a uniformly random legal action, step, reset when the episode ends (a vector env's
rows pick theirs with one compiled call, ``kernel.random_legal_actions``).

A game of several players adds its PettingZoo AEC env (agent actions per second of its ``env()`` and
``raw_env()``, 2 players) beside PettingZoo's ``texas_holdem_v4``, and its single-agent view
against random opponents (learner steps per second, the opponents' moves played inside each step).
Its own row and its vector rows are the view with its default opponent.

A game with a native vector env adds it at N = 1, 64, 1024 and 4096 games (env-steps per second: N per
call) beside Gymnasium's ``SyncVectorEnv`` of its single env, and a second table gives each native
vector env's speed as a multiple of the SyncVectorEnv's. A game whose rules step every game in one compiled call
(``rules.step_rows``) adds N=1024 on ``THREADS`` threads (``make_vec(..., num_threads=2)``) and its ceiling:
``<id> compiled loop N=1024``, that call alone (``kernel.py``: random legal play chosen in compiled code too, no
Python between steps), and the vector table gives the native N=1024 row's share of it. Where torch is installed
(the ``rl`` extra), each game with a native vector env adds the training speed of the project's masked PPO
(``benchmarks/training/ppo.py``, its default settings: 64 games, rollouts, updates and all) in env-steps per
second: ``masked PPO training on <id>``.
"""

from __future__ import annotations

import importlib.util
import statistics
import time
from dataclasses import dataclass

import gymnasium as gym
import numpy as np
from tqdm import tqdm

from ...envs import GAMES
from ..outputs import provenance, python_call

REFERENCE = "connect_four_v3.env()"
VECTOR_SIZES = (1, 64, 1024, 4096)
COMPARED_SIZE = 1024  # the native vector env's size in the comparisons: against Sync, the loop, threads
THREADS = 2
SYNC_SIZE = 64


@dataclass
class Row:
    name: str
    steps_per_second: float
    spread: float  # (max - min) / median over the repeats


def _rate(advance, duration: float) -> float:
    """Steps per second of ``advance()`` (which plays some steps and says how many), run until ``duration``."""
    steps = 0
    start = time.perf_counter()
    while True:
        steps += advance()
        now = time.perf_counter()
        if now >= start + duration:
            return steps / (now - start)


def _time_gym(env: gym.Env, duration: float, seed: int, masked: bool) -> float:
    rng = np.random.default_rng(seed)
    info = env.reset(seed=seed)[1]

    def advance() -> int:
        nonlocal info
        for _ in range(100):
            if masked:
                legal = np.flatnonzero(info["action_mask"])
                action = legal[rng.integers(legal.size)]
            else:
                action = rng.integers(env.action_space.n)
            _, _, terminated, truncated, info = env.step(action)
            if terminated or truncated:
                info = env.reset()[1]
        return 100

    return _rate(advance, duration)


def _time_vector(envs, duration: float, seed: int) -> float:
    """Env-steps per second of a vector env under random legal play (a finished game's row starts over). The
    random player is compiled (``kernel.random_legal_actions``, the compiled loop's own: about 45 µs for 1,024 games
    of Dead Center where drawing with numpy took about 130), so that the rows time the env more than the player."""
    from .kernel import random_legal_actions

    rng = np.random.default_rng(seed)
    infos = envs.reset(seed=seed)[1]
    actions = np.zeros(envs.num_envs, dtype=np.int64)

    def advance() -> int:
        nonlocal infos
        random_legal_actions(infos["action_mask"], rng, actions)
        infos = envs.step(actions)[4]
        return envs.num_envs

    return _rate(advance, duration)


def vector_name(env_id: str, num_envs: int) -> str:
    return f"{env_id} vector N={num_envs}"


def sync_name(env_id: str) -> str:
    return f"{env_id} SyncVectorEnv N={SYNC_SIZE}"


def _time_aec(env, duration: float, seed: int) -> float:
    """Agent actions per second of a PettingZoo AEC env (``step(None)`` for finished agents not counted)."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)

    def advance() -> int:
        """One whole game."""
        actions = 0
        for _ in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = np.flatnonzero(observation["action_mask"])
            env.step(int(legal[rng.integers(legal.size)]))
            actions += 1
        env.reset()
        return actions

    return _rate(advance, duration)


def _subjects(games):
    from pettingzoo.classic import connect_four_v3

    subjects = {
        REFERENCE: lambda d, s: _time_aec(connect_four_v3.env(), d, s),
        "connect_four_v3.raw_env()": lambda d, s: _time_aec(connect_four_v3.raw_env(), d, s),
        "gym Blackjack-v1": lambda d, s: _time_gym(gym.make("Blackjack-v1"), d, s, masked=False),
    }
    for name in games:
        entry = GAMES[name]
        env_id = entry.id
        if entry.multiplayer:
            subjects.update(_multiplayer_subjects(entry))
        # (A game of several players: its view with its default opponent, the one its vector rows play.)
        subjects[env_id] = lambda d, s, i=env_id: _time_gym(gym.make(i), d, s, masked=True)
        if not entry.multiplayer:
            subjects[env_id + " (unwrapped)"] = lambda d, s, i=env_id: _time_gym(gym.make(i).unwrapped, d, s,
                                                                                 masked=True)
        if entry.vector_env:
            subjects.update(_vector_subjects(entry))
    subjects.update(_training_subjects(games))
    return subjects


def _vector_subjects(entry) -> dict:
    env_id = entry.id
    subjects = {sync_name(env_id): lambda d, s: _time_vector(
        gym.make_vec(env_id, num_envs=SYNC_SIZE, vectorization_mode="sync"), d, s)}
    for n in VECTOR_SIZES:
        subjects[vector_name(env_id, n)] = lambda d, s, n=n: _time_vector(
            gym.make_vec(env_id, num_envs=n, vectorization_mode="vector_entry_point"), d, s)
    if hasattr(entry.module("rules"), "step_rows"):
        subjects[threads_name(env_id)] = lambda d, s: _time_vector(
            gym.make_vec(env_id, num_envs=COMPARED_SIZE, vectorization_mode="vector_entry_point",
                         num_threads=THREADS), d, s)
        subjects[loop_name(env_id)] = lambda d, s: _time_loop(env_id, d, s)
    return subjects


def threads_name(env_id: str) -> str:
    return f"{vector_name(env_id, COMPARED_SIZE)}, {THREADS} threads"


def loop_name(env_id: str) -> str:
    return f"{env_id} compiled loop N={COMPARED_SIZE}"


def _time_loop(env_id: str, duration: float, seed: int) -> float:
    """Env-steps per second of the game's compiled step alone (``kernel.CompiledLoop``), compiled first."""
    from .kernel import CompiledLoop

    vector = gym.make_vec(env_id, num_envs=COMPARED_SIZE, vectorization_mode="vector_entry_point")
    loop = CompiledLoop(vector.unwrapped, seed)
    loop.play(1)
    return _rate(lambda: loop.play(10), duration)


TRAINING_ROLLOUT = 64  # steps per game in a measured PPO update; three updates a measurement


def training_name(env_id: str) -> str:
    return f"masked PPO training on {env_id}"


def _time_training(env_id: str, duration: float, seed: int) -> float:
    """Env-steps per second of ``benchmarks.ppo.learn`` (rollouts and updates) on the game's native vector env."""
    import tempfile

    from ..training.ppo import Settings, learn

    settings = Settings(num_steps=TRAINING_ROLLOUT)
    envs = gym.make_vec(env_id, num_envs=settings.num_envs, vectorization_mode="vector_entry_point")
    updates = max(1, round(duration))
    with tempfile.TemporaryDirectory() as out:
        run = learn(envs, updates * settings.num_envs * TRAINING_ROLLOUT, settings, seed=seed, out=out,
                    progress=False)
    return run["timesteps"] / run["seconds"]


def _training_subjects(games) -> dict:
    if importlib.util.find_spec("torch") is None:  # training needs the rl extra
        return {}
    return {training_name(GAMES[name].id): lambda d, s, i=GAMES[name].id: _time_training(i, d, s)
            for name in games if GAMES[name].vector_env}


def _multiplayer_subjects(entry) -> dict:
    """A game of several players: its AEC env beside PettingZoo's Texas Hold'em, and its view against the random
    opponent, single and vector."""
    from pettingzoo.classic import texas_holdem_v4

    aec, env_id = entry.aec_module(), entry.id
    view = env_id + " (random opponent)"
    return {
        "texas_holdem_v4.env()": lambda d, s: _time_aec(texas_holdem_v4.env(), d, s),
        "texas_holdem_v4.raw_env()": lambda d, s: _time_aec(texas_holdem_v4.raw_env(), d, s),
        f"{entry.aec}.env()": lambda d, s: _time_aec(aec.env(), d, s),
        f"{entry.aec}.raw_env()": lambda d, s: _time_aec(aec.raw_env(), d, s),
        view: lambda d, s: _time_gym(gym.make(env_id, opponent="random"), d, s, masked=True),
        view + " (unwrapped)": lambda d, s: _time_gym(gym.make(env_id, opponent="random").unwrapped, d, s,
                                                      masked=True),
        vector_name(view, COMPARED_SIZE): lambda d, s: _time_vector(
            gym.make_vec(env_id, num_envs=COMPARED_SIZE, vectorization_mode="vector_entry_point",
                         opponent="random"), d, s),
    }


def measure(duration: float = 2.0, repeats: int = 3, games=None, seed: int = 0, progress: bool = False
            ) -> list[Row]:
    """Median steps per second of every subject; repeats are interleaved so load affects all alike."""
    subjects = _subjects(list(games or GAMES))
    samples = {name: [] for name in subjects}
    bar = tqdm(total=repeats * len(subjects), disable=not progress, unit="measurement",
               bar_format="{desc} {n_fmt}/{total_fmt} [{elapsed} elapsed, {remaining} left]")
    for repeat in range(repeats):
        for name, run in subjects.items():
            bar.set_description_str(f"bench: repeat {repeat + 1} of {repeats}, {name}")
            samples[name].append(run(duration, seed + repeat))
            bar.update()
    bar.close()
    rows = []
    for name, values in samples.items():
        median = statistics.median(values)
        rows.append(Row(name, median, (max(values) - min(values)) / median))
    return rows


def markdown_table(rows: list[Row]) -> str:
    reference = next(r.steps_per_second for r in rows if r.name == REFERENCE)
    lines = [f"| environment | steps/s | spread | vs {REFERENCE} |", "| --- | ---: | ---: | ---: |"]
    for row in rows:
        lines.append(f"| {row.name} | {row.steps_per_second:,.0f} | {100 * row.spread:.0f}% "
                     f"| {row.steps_per_second / reference:.2f}× |")
    return "\n".join(lines)


def vector_table(rows: list[Row]) -> str:
    """Each native vector env against Gymnasium's SyncVectorEnv of the same game, measured in the same run."""
    rate = {row.name: row.steps_per_second for row in rows}
    games = [g.id for g in GAMES.values() if g.vector_env and sync_name(g.id) in rate]
    if not games:
        return ""
    header = " | ".join(f"N={n}" for n in VECTOR_SIZES)
    big = COMPARED_SIZE
    lines = [f"| game | single env | SyncVectorEnv N={SYNC_SIZE} | native {header} | native N={big} vs Sync "
             f"| N={big}, {THREADS} threads | compiled loop N={big} | native N={big} of the loop |",
             "| --- | ---: | ---: | " + " | ".join("---:" for _ in VECTOR_SIZES) + " | ---: | ---: | ---: | ---: |"]
    for env_id in games:
        native = " | ".join(f"{rate[vector_name(env_id, n)]:,.0f}" for n in VECTOR_SIZES)
        ratio = rate[vector_name(env_id, big)] / rate[sync_name(env_id)]
        threads = rate.get(threads_name(env_id))
        threads = "–" if threads is None else f"{threads:,.0f} ({threads / rate[vector_name(env_id, big)]:.2f}×)"
        loop = rate.get(loop_name(env_id))
        ceiling = "– | –" if loop is None else f"{loop:,.0f} | {100 * rate[vector_name(env_id, big)] / loop:.0f}%"
        lines.append(f"| {env_id} | {rate[env_id]:,.0f} | {rate[sync_name(env_id)]:,.0f} | {native} | {ratio:.1f}× "
                     f"| {threads} | {ceiling} |")
    return "\n".join(lines)


def chart(rows: list[Row], path) -> None:
    """Steps per second of every subject on a log scale, the reference marked."""
    # The object API draws without pyplot, so a caller's backend (a notebook's inline one) stays as it was.
    from matplotlib.figure import Figure

    fig = Figure(figsize=(9, 0.32 * len(rows) + 1.2))
    ax = fig.subplots()
    names = [row.name for row in rows][::-1]
    rates = [row.steps_per_second for row in rows][::-1]
    ours = tuple(f"{g.aec}." for g in GAMES.values() if g.aec)
    colours = ["#d62728" if " vector N=" in n else "#1f77b4" if n.startswith("Tabletop/") or n.startswith(ours)
               else "#9e9e9e" for n in names]
    ax.barh(names, rates, color=colours)
    ax.set_xscale("log")
    ax.axvline(next(row.steps_per_second for row in rows if row.name == REFERENCE), color="k", lw=0.8, ls="--")
    ax.set_xlabel("steps per second, random play (log scale); dashed: " + REFERENCE)
    ax.tick_params(axis="y", labelsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def main(duration: float = 2.0, repeats: int = 3, games=None, out: str | None = None, png: str | None = None,
         progress: bool = False, command: str | None = None) -> str:
    """Measure, print the page of tables, write it to ``out`` and the chart to ``png``. The page begins with
    ``command`` (the command line that asked for it; by default this call)."""
    command = command or python_call(main, locals())
    rows = measure(duration, repeats, games, progress=progress)
    table = provenance(command) + "\n\n" + markdown_table(rows)
    vectors = vector_table(rows)
    if vectors:
        table += "\n\n" + vectors
    print(table)
    if out:
        with open(out, "w", encoding="utf-8") as f:
            f.write(table + "\n")
        print(f"wrote {out}")
    if png:
        try:
            chart(rows, png)
            print(f"wrote {png}")
        except ImportError:
            print("no chart: matplotlib is not installed (pip install 'tabletop-gym[rl]')")
    return table
