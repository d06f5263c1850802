"""Play many episodes of an agent on a game and report its win rate with a Wilson 95% interval.

Episode ``i`` is dealt with seed ``seed + i`` and the agent is reset with the same seed, so a
result depends only on (game, agent, episodes, seed), never on how many workers ran it.

A game of several players is played through its single-agent view against ``opponent`` (the view's default when
not given) with ``num_players`` seats, and the agent's seat rotates: episode ``i`` seats it at ``i % n``.
"""

from __future__ import annotations

import json
import math
import multiprocessing
import os
import signal
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict, dataclass, field
from functools import partial

import gymnasium as gym
import numpy as np
from tqdm import tqdm  # text bars everywhere: tqdm.auto wants ipywidgets in a notebook, and warns without

from ...agents import make_agent
from ... import envs
from ...envs import GAMES

# Games played against opponents (the agent takes one seat): their env ids.

Z_95 = 1.959963984540054


def wilson_interval(wins: int, episodes: int, z: float = Z_95) -> tuple[float, float]:
    """The Wilson score interval for a binomial proportion (95% by default)."""
    if episodes <= 0:
        return 0.0, 1.0
    p = wins / episodes
    denominator = 1 + z * z / episodes
    centre = (p + z * z / (2 * episodes)) / denominator
    half = z * math.sqrt(p * (1 - p) / episodes + z * z / (4 * episodes * episodes)) / denominator
    # At 0 or all wins the bound is exactly 0 or 1; the formula leaves rounding noise there.
    low = 0.0 if wins == 0 else max(0.0, centre - half)
    high = 1.0 if wins == episodes else min(1.0, centre + half)
    return low, high


@dataclass
class EvalResult:
    """What ``evaluate`` measured: the wins, the win rate with its Wilson 95% interval (``win_low``, ``win_high``),
    the mean score and the mean length (the agent's decisions) of an episode."""

    game: str
    agent: str
    episodes: int
    wins: int
    win_rate: float
    win_low: float
    win_high: float
    mean_score: float
    mean_length: float
    # Multi-player games only: the opponent, the player count, and the win rate in each seat.
    opponent: str | None = None
    players: int | None = None
    seat_win_rates: list | None = None
    # The seeds of the episodes won, so that a row can be set against a ceiling deal by deal (not in as_dict).
    won_seeds: list = field(default_factory=list, repr=False)

    def as_dict(self) -> dict:
        fields = asdict(self)
        del fields["won_seeds"]
        for extra in ("opponent", "players", "seat_win_rates"):
            if fields[extra] is None:
                del fields[extra]
        return fields

    def __str__(self) -> str:
        who = self.agent
        if self.opponent is not None:
            seats = ", ".join(f"{100 * r:.1f}%" for r in self.seat_win_rates)
            who = (f"{self.agent} against {self.opponent} ({self.players} players, seats rotated; "
                   f"win rate by seat {seats})")
        return (f"{who} on {self.game}: win rate {100 * self.win_rate:.2f}% "
                f"(95% CI {100 * self.win_low:.2f}-{100 * self.win_high:.2f}%) over {self.episodes} episodes, "
                f"mean score {self.mean_score:.2f}, mean length {self.mean_length:.1f} steps")


def play_episode(env: gym.Env, agent, seed: int, actions: list | None = None) -> tuple[bool, float, int]:
    """One episode from ``reset(seed=seed)``; returns (won, score, steps taken by the agent). ``actions``, when
    given, receives every action the agent took."""
    if hasattr(agent, "attach"):
        agent.attach(env)
    if hasattr(agent, "reset"):
        agent.reset(seed=seed)
    observation, info = env.reset(seed=seed)
    steps = 0
    while True:
        action = agent.act(observation, info["action_mask"])
        if actions is not None:
            actions.append(int(action))
        observation, _, terminated, truncated, info = env.step(action)
        steps += 1
        if terminated or truncated:
            return bool(info.get("won", False)), float(info.get("score", 0.0)), steps


def _play_chunk(env_id: str, env_kwargs: dict, agent, episodes: list) -> list[tuple[int, int, bool, float, int]]:
    """Play (seed, seat) episodes; ``seat`` is None for a solitaire. Returns (seed, seat, won, score, length)."""
    if isinstance(agent, str):
        agent = make_agent(agent, env_id)
    opponent = env_kwargs.get("opponent")
    if isinstance(opponent, str) and opponent not in envs.game(env_id).built_in_opponents:
        env_kwargs = {**env_kwargs, "opponent": make_agent(opponent, env_id)}
    by_seat = {}
    results = []
    for seed, seat in episodes:
        if seat not in by_seat:
            by_seat[seat] = gym.make(env_id, **env_kwargs) if seat is None else gym.make(env_id, seat=seat, **env_kwargs)
        results.append((seed, seat if seat is not None else 0, *play_episode(by_seat[seat], agent, seed)))
    for env in by_seat.values():
        env.close()
    return results


RECORD_FIELDS = ("seed", "seat", "won", "score", "length")
# What every line of a record also names, so that records of different games (or opponents) are not paired.
RECORD_TABLE = ("game", "opponent", "players")


def _write_record(path: str, results: list, table: dict) -> None:
    """One JSON line an episode: ``table`` (game, agent, and in a game of several players the opponent and the
    number of players), then the ``RECORD_FIELDS``."""
    with open(path, "w") as out:
        for result in results:
            out.write(json.dumps({**table, **dict(zip(RECORD_FIELDS, result))}) + "\n")


def read_record(path: str) -> list[dict]:
    """The episodes of an ``evaluate(record=...)`` file (``eval --record``), one dict each; a file that is not one
    is a ``ValueError`` that names the line."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.readlines()
    except (OSError, UnicodeDecodeError) as error:
        raise ValueError(f"{path}: cannot read it as a record ({getattr(error, 'strerror', None) or error})") from None
    rows = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as error:
            raise ValueError(f"{path}, line {number}: not JSON ({error.msg})") from None
        missing = [name for name in RECORD_FIELDS if not isinstance(row, dict) or name not in row]
        if missing:
            raise ValueError(f"{path}, line {number}: not an eval --record line (no {', '.join(missing)})")
        rows.append(row)
    if not rows:
        raise ValueError(f"{path} holds no episodes")
    return rows


def _agent_name(agent) -> str:
    return agent if isinstance(agent, str) else getattr(agent, "name", type(agent).__name__)


def worker_context():
    """The way worker processes start: forked (fast) unless torch is loaded here.

    A process forked after torch has run inherits its thread pools in whatever state they were and can hang
    in its first torch call (a trained model evaluated by workers, for one). Then the workers start from a
    fresh interpreter instead, so the agent must be picklable by reference (defined in a module, not in
    ``__main__`` or a notebook cell).
    """
    if "torch" in sys.modules:
        return multiprocessing.get_context("forkserver")
    return multiprocessing.get_context("fork") if "fork" in multiprocessing.get_all_start_methods() else None


def one_thread_each():
    """A worker's numerical libraries (numpy's BLAS, torch's OpenMP) on one thread; used as a context manager, until
    its end. The workers already share the cores; threads of their own on top fight over them: two workers playing
    one game's value agent, whose products are large enough for BLAS to split, ran ten times slower so. One
    worker in this process plays on one thread too: its games are a string of small products, and BLAS's threads
    spin between them (the value agent on 1,000 deals, beside another job: 12 CPU s on one thread, 69 on this
    machine's two)."""
    from threadpoolctl import threadpool_limits

    return threadpool_limits(1)


class WorkerDied(RuntimeError):
    """A worker process of ``in_workers`` died twice (killed, or out of memory) before its chunks were done."""


def in_workers(function, chunks: list, workers: int, on_result=None) -> list:
    """``function(chunk)`` for each of ``chunks`` on ``workers`` processes (in this one for a single worker or
    chunk); the results in the order of ``chunks``. ``on_result(chunk, result)`` is called as each comes in (a
    progress bar). ``function`` and the chunks go to the workers by pickle: a module's function, or a
    ``functools.partial`` of one.

    Ctrl-C (or any error) ends the workers at once and the unfinished work is dropped. A worker that dies (killed,
    or out of memory) takes the unfinished chunks with it: they are played again, once, on fresh workers, and the
    results are those of an undisturbed run; a second death raises ``WorkerDied``."""
    results = [None] * len(chunks)
    if workers == 1 or len(chunks) == 1:
        with one_thread_each():
            for i, chunk in enumerate(chunks):
                results[i] = function(chunk)
                if on_result is not None:
                    on_result(chunk, results[i])
        return results
    lost = in_pool(function, chunks, list(range(len(chunks))), workers, results, on_result)
    if lost:
        print(f"a worker died (perhaps out of memory); retrying its {len(lost)} unfinished chunks once",
              file=sys.stderr)
        lost = in_pool(function, chunks, lost, workers, results, on_result)
    if lost:
        raise WorkerDied(f"a worker died again (perhaps out of memory): {len(lost)} of {len(chunks)} chunks "
                         "left unfinished; try fewer workers")
    return results


def in_pool(function, chunks: list, indices: list, workers: int, results: list, on_result) -> list:
    """``results[i] = function(chunks[i])`` for each of ``indices`` on a pool of up to ``workers`` processes; the
    indices whose chunks were lost to a worker that died, in order."""
    before = set(multiprocessing.active_children())  # the pool's processes are the children started after
    pool = ProcessPoolExecutor(max_workers=min(workers, len(indices)), mp_context=worker_context(),
                               initializer=start_worker, initargs=(os.getpid(),))
    lost = []
    try:
        futures = {pool.submit(function, chunks[i]): i for i in indices}
        for future in as_completed(futures):
            i = futures[future]
            if isinstance(future.exception(), BrokenProcessPool):
                lost.append(i)
                continue
            results[i] = future.result()
            if on_result is not None:
                on_result(chunks[i], results[i])
    except BaseException:
        # Without this the pool's end would wait for every queued chunk to be played (minutes) before the error or
        # the Ctrl-C got through, only for their results to be thrown away.
        pool.shutdown(wait=False, cancel_futures=True)
        end_processes(set(multiprocessing.active_children()) - before)
        raise
    pool.shutdown()
    return sorted(lost)


def end_processes(processes) -> None:
    """Ends ``processes`` at once, mid-chunk (a pool has no public way to end its workers before Python 3.14)."""
    for process in processes:
        process.terminate()
    for process in processes:
        process.join(timeout=5)


def start_worker(main: int) -> None:
    """A worker's start: its numerical libraries on one thread; Ctrl-C left to the ``main`` process, which ends the
    workers (a worker interrupted itself would report the interruption as its chunk's result and go on to the next);
    and a watch that ends it with the main process, so that a main process killed leaves no worker behind."""
    one_thread_each()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if os.name == "posix":  # where os.kill(pid, 0) only asks (elsewhere it would end the process)
        threading.Thread(target=end_with, args=(main,), daemon=True).start()


def end_with(main: int) -> None:
    """Ends this process once the ``main`` process is gone. A worker forked from it is then adopted by another
    parent; one started by a fork server keeps that server as its parent, so the main process's id is looked for."""
    parent = os.getppid()
    while os.getppid() == parent and runs(main):
        time.sleep(0.5)
    os._exit(1)


def runs(pid: int) -> bool:
    try:
        os.kill(pid, 0)  # signal 0 only asks whether the process is there
    except ProcessLookupError:
        return False
    return True


BACKENDS = ("local", "ray")


def evaluate(game: str, agent="random", episodes: int = 100, seed: int = 0, workers: int | None = None,
             progress: bool = True, env_kwargs: dict | None = None, opponent=None,
             num_players: int | None = None, record: str | None = None, on_episodes=None,
             backend: str = "local", address: str | None = None) -> EvalResult:
    """Win rate, mean score and mean length of ``agent`` over ``episodes`` deals of ``game``.

    ``agent`` is a name known to ``make_agent`` or an agent object (picklable when ``workers`` > 1).
    ``workers`` defaults to the number of CPUs; 1 plays in this process.
    For a game of several players, ``opponent`` (a name or an agent object; the env's default when
    None) plays the other seats of ``num_players`` (the env's default when None), and the agent's seat
    rotates with the episode.
    ``record``: a file to write every episode's result to, one JSON line each in seed order (``game``, ``agent``,
    in a game of several players ``opponent`` and ``players``, then ``seed``, ``seat``, ``won``, ``score``, ``length``), so that two
    agents can be compared deal by deal (``benchmarks/evaluation/compare.py``).
    ``on_episodes(k)`` is called as episodes finish (k at a time), for a progress display of the caller's.
    ``backend="ray"`` plays the chunks of episodes as Ray tasks (``benchmarks/evaluation/ray_tasks.py``) on the
    cluster at ``address`` (or the Ray session of this process, or a new local one), ``workers`` then defaulting to the
    cluster's CPUs; the result is the local backend's for the same seeds.
    """
    entry = envs.game(game)
    env_id = entry.id
    env_kwargs = dict(env_kwargs or {})
    multiplayer = entry.multiplayer
    if not multiplayer and (opponent is not None or num_players is not None):
        raise ValueError(f"{env_id} is a solitaire: opponent and num_players apply to "
                         f"{', '.join(g.id for g in GAMES.values() if g.multiplayer)} only")
    if opponent is not None:
        env_kwargs["opponent"] = opponent
    if num_players is not None:
        env_kwargs["num_players"] = num_players
    if episodes < 1:
        raise ValueError(f"episodes must be at least 1, got {episodes}")
    if workers is not None and workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    if address is not None and backend != "ray":
        raise ValueError("address is the Ray cluster's: it goes with backend='ray'")
    if isinstance(agent, str):
        make_agent(agent, env_id)  # an unknown name is refused before anything is played
    players = None
    if multiplayer:
        if "seat" in env_kwargs:
            raise ValueError("evaluate rotates the agent's seat; do not fix it in env_kwargs")
        # Build the env once here: it checks the options, and gives the defaults for the report.
        probe_kwargs = dict(env_kwargs)
        if isinstance(opponent, str) and opponent not in entry.built_in_opponents:
            probe_kwargs["opponent"] = make_agent(opponent, env_id)
        probe = gym.make(env_id, **probe_kwargs).unwrapped
        players = probe.num_players
        opponent = opponent if opponent is not None else probe.opponents[0]
    if backend == "ray":
        from . import ray_tasks as tasks

        workers = workers or tasks.cluster_cpus(address)
    workers = workers or os.cpu_count() or 1
    runs = [(seed + i, i % players if multiplayer else None) for i in range(episodes)]
    size = max(1, episodes // (workers * 8))
    chunks = [runs[i:i + size] for i in range(0, episodes, size)]
    bar = tqdm(total=episodes, desc=f"{_agent_name(agent)} on {env_id}", disable=not progress, unit="ep")

    def done(count: int) -> None:
        bar.update(count)
        if on_episodes is not None:
            on_episodes(count)

    if backend == "ray":
        results = tasks.play_chunks(_play_chunk, env_id, env_kwargs, agent, chunks, done, address)
    else:
        parts = in_workers(partial(_play_chunk, env_id, env_kwargs, agent), chunks, workers,
                           lambda chunk, _: done(len(chunk)))
        results = [result for part in parts for result in part]
    bar.close()
    results.sort()  # by seed, so sums do not depend on which worker finished first
    _, seat, won, score, length = (np.array(column, dtype=float) for column in zip(*results))
    wins = int(won.sum())
    low, high = wilson_interval(wins, episodes)
    extras = {}
    if multiplayer:
        extras = {"opponent": _agent_name(opponent), "players": players,
                  "seat_win_rates": [float(won[seat == k].mean()) if (seat == k).any() else 0.0
                                     for k in range(players)]}
    if record is not None:
        _write_record(record, results, {"game": env_id, "agent": _agent_name(agent),
                                        **{k: extras[k] for k in ("opponent", "players") if k in extras}})
    return EvalResult(game=env_id, agent=_agent_name(agent), episodes=episodes, wins=wins,
                      win_rate=wins / episodes, win_low=low, win_high=high,
                      mean_score=float(score.mean()), mean_length=float(length.mean()),
                      won_seeds=[int(r[0]) for r in results if r[2]], **extras)
