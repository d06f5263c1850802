"""Play many episodes of an agent on a game and report its win rate with a Wilson 95% interval.

Episode ``i`` is dealt with seed ``seed + i`` and the agent is reset with the same seed, so a
result depends only on (game, agent, episodes, seed), never on how many workers ran it.

A game of several players is played through its single-agent view against ``opponent`` (the view's default when
not given) with ``num_players`` seats, and the agent's seat rotates: episode ``i`` seats it at ``i % n``.

A record (``evaluate(record=FILE)``, ``eval --record FILE``) is written as the episodes finish, so that a run
interrupted or faulted keeps what it played. Until the run ends it is ``FILE.partial``: a first line naming the run
(``{"partial": {"seed": ..., "episodes": ...}, "game": ..., "agent": ...}``), then one JSON line an episode in the
order the chunks finish, flushed as each does. At the end ``FILE`` is written whole, in seed order and without that
first line, and the partial file removed. A record whose first line has a ``"partial"`` key is therefore an
unfinished run's: ``load_record`` says so, ``compare`` and ``report`` read it and print that it is partial, and
``evaluate(resume=True)`` (``eval --resume``) plays only the seeds it lacks. The same kind of partial file carries a
ceiling's verdicts (``benchmarks/ceiling/verdicts.py``): ``PartialFile`` writes both.
"""

from __future__ import annotations

import gzip
import json
import math
import multiprocessing
import os
import signal
import sys
import threading
import time
import zlib
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from contextlib import nullcontext
from dataclasses import asdict, dataclass, field
from functools import partial

import gymnasium as gym
import numpy as np
from tqdm import tqdm  # text bars everywhere: tqdm.auto wants ipywidgets in a notebook, and warns without

from ...agents import make_agent
from ... import envs
from ...envs import GAMES, BadFileError
from ..outputs import check_output

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
# What a line must hold, and what each of its values must be: a string "false" is no loss, nor a NaN a score.
RECORD_KINDS = {"seed": "a whole number", "seat": "a whole number from 0", "won": "true or false",
                "score": "a finite number", "length": "a whole number from 0", "game": "a string",
                "agent": "a string", "opponent": "a string", "players": "a whole number from 0"}


def is_kind(value, kind: str) -> bool:
    """Whether ``value`` (read from JSON) is of ``kind``, one of the ``RECORD_KINDS`` values."""
    if kind == "true or false":
        return isinstance(value, bool)
    if kind == "a string":
        return isinstance(value, str)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    if kind == "a finite number":
        return math.isfinite(value)
    return isinstance(value, int) and (kind == "a whole number" or value >= 0)


def partial_path(path) -> str:
    """Where ``path`` is written until its work is done (``PartialFile``)."""
    return f"{path}.partial"


def check_written_as_it_goes(path, resume: bool, argument: str, flag: str, what: str) -> None:
    """Before any work: ``path`` and its partial file can be written, and a partial file of ``what`` left by a run
    that did not finish is resumed, not thrown away unasked; ``resume`` needs a ``path``."""
    if path is None:
        if resume:
            raise ValueError(f"resume (--resume) goes with {argument} ({flag}): the file whose run to finish")
        return
    check_output(path)
    check_output(partial_path(path))
    if not resume and os.path.exists(partial_path(path)):
        raise ValueError(f"{partial_path(path)} holds the {what} of a run that did not finish: resume it "
                         f"(--resume), or remove it to start again")


def read_text(path, what: str) -> str:
    """The text of ``path`` (gunzipped when its name ends in .gz); a ``BadFileError`` saying why not: no such file,
    a folder, a gzip file cut short or corrupt, not UTF-8 text."""
    opener = gzip.open if str(path).endswith(".gz") else open
    try:
        with opener(path, "rt", encoding="utf-8") as file:
            return file.read()
    except (gzip.BadGzipFile, EOFError, zlib.error) as error:  # BadGzipFile is also an OSError: first
        raise BadFileError(path, f"not a whole gzip file, so not {what} ({error})") from None
    except OSError as error:
        raise BadFileError(path, f"cannot read it as {what} ({error.strerror or error})") from None
    except UnicodeDecodeError:
        raise BadFileError(path, f"not UTF-8 text, so not {what}") from None


def read_lines(path, what: str) -> tuple[dict | None, list[tuple[int, object]]]:
    """A file of JSON lines: the first line naming an unfinished run when it is one (a ``PartialFile``; else None),
    and each other line's number and value. A line that is not JSON is a ``BadFileError``, but for an unfinished
    run's last line when no newline ends it: it was being written when the run stopped, and is left out (its
    episodes or deals are played again on resume)."""
    lines = read_text(path, what).split("\n")
    header, items = None, []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as error:
            if header is not None and number == len(lines):
                break
            raise BadFileError(path, f"line {number}: not JSON ({error.msg})") from None
        if number == 1 and isinstance(item, dict) and "partial" in item:
            header = item
        else:
            items.append((number, item))
    return header, items


def write_whole(path, text: str) -> None:
    """``text`` written to ``path`` (gzipped when its name ends in .gz) under a temporary name renamed at the end, so
    that ``path`` is never half written."""
    data = text.encode("utf-8")
    if str(path).endswith(".gz"):
        data = gzip.compress(data)
    temporary = f"{path}.writing"
    with open(temporary, "wb") as out:
        out.write(data)
    os.replace(temporary, path)


class PartialFile:
    """``path`` written as the work finishes, a context manager. Until ``finish``, ``path.partial`` holds a first
    line naming the run (``header``, with a ``"partial"`` key), then a JSON line an item (an episode, a deal's
    verdict): ``items`` of an earlier run it resumes, then each chunk's as ``add`` is given them, flushed at once,
    so that a run interrupted or faulted keeps every chunk it finished. An older ``path`` is removed at the start: it
    is not left looking like this run's. ``finish(write)`` has ``write(path)`` write the whole file, then removes
    the partial one."""

    def __init__(self, path, header: dict, items: list, kind: str):
        self.path = str(path)
        self.kind = kind  # what the items are, in a word: "episodes"
        self.partial = partial_path(path)
        # Whole, under a temporary name: the partial file an earlier run left is not lost if this start is cut short.
        write_whole(self.partial, "".join(json.dumps(item) + "\n" for item in [header, *items]))
        if os.path.exists(self.path):
            os.remove(self.path)
        self.file = open(self.partial, "a", encoding="utf-8")
        self.count = len(items)

    def add(self, items: list) -> None:
        self.file.write("".join(json.dumps(item) + "\n" for item in items))
        self.file.flush()
        self.count += len(items)

    def finish(self, write) -> None:
        self.file.close()
        write(self.path)
        os.remove(self.partial)

    def __enter__(self) -> "PartialFile":
        return self

    def __exit__(self, kind, error, traceback) -> None:
        self.file.close()
        if error is not None:
            print(f"{self.count} {self.kind} kept in {self.partial}: resuming (--resume) plays only the rest",
                  file=sys.stderr)


def check_header(path, header: dict, plan: dict, table: dict) -> None:
    """A ``BadFileError`` unless ``header`` (a partial file's first line) names its run as it should: under
    ``"partial"`` each key of ``plan``, beside it each key of ``table``, with a value of its kind."""
    said = header["partial"] if isinstance(header["partial"], dict) else {}
    for key, value, kind in [*((key, said.get(key), kind) for key, kind in plan.items()),
                             *((key, header.get(key), kind) for key, kind in table.items())]:
        if not is_kind(value, kind):
            raise BadFileError(path, f"line 1: the unfinished run's {key} is {value!r}, not {kind}")


@dataclass
class Record:
    """The episodes of a record file, one dict each in seed order, and for an unfinished run's (a ``PartialFile``)
    its first line, which names the run (else None)."""

    path: str
    rows: list
    header: dict | None = None

    @property
    def partial(self) -> bool:
        return self.header is not None

    def note(self) -> str:
        return (f"{self.path} is partial: {len(self.rows)} of {self.header['partial']['episodes']} episodes, from a "
                f"run that did not finish (eval --resume finishes it)")


def load_record(path, empty: bool = False) -> Record:
    """The record ``evaluate(record=...)`` writes (``eval --record``), finished or not; a ``BadFileError`` naming
    the line and what is wrong with a file that is not one (a value of the wrong kind, a key missing, a deal twice),
    or that holds no episode (unless ``empty``)."""
    partial = partial_path(path)
    if not os.path.exists(path) and os.path.isfile(partial):
        raise BadFileError(path, f"no such file; {partial} holds the episodes of a run that did not finish (read "
                                 f"that, or finish it with eval --resume)")
    header, items = read_lines(path, "a record")
    if header is not None:
        check_header(path, header, {"seed": "a whole number", "episodes": "a whole number from 0"},
                     {"game": "a string", "agent": "a string"})
    rows, seen = [], set()
    for number, row in items:
        if not isinstance(row, dict) or "partial" in row:
            raise BadFileError(path, f"line {number}: not an eval --record line (a JSON object an episode)")
        missing = [name for name in RECORD_FIELDS if name not in row]
        if missing:
            raise BadFileError(path, f"line {number}: not an eval --record line (no {', '.join(missing)})")
        for key, value in row.items():
            if key in RECORD_KINDS and not is_kind(value, RECORD_KINDS[key]):
                raise BadFileError(path, f"line {number}: {key} is {value!r}, not {RECORD_KINDS[key]}")
        if (row["seed"], row["seat"]) in seen:
            raise BadFileError(path, f"line {number}: deal {row['seed']} (seat {row['seat']}) again")
        seen.add((row["seed"], row["seat"]))
        rows.append(row)
    if not rows and not empty:
        raise BadFileError(path, "holds no episodes" + (", from a run that stopped before it finished one"
                                                        if header is not None else ""))
    rows.sort(key=lambda row: (row["seed"], row["seat"]))  # an unfinished run's are in the order they finished
    return Record(str(path), rows, header)


def read_record(path) -> list[dict]:
    """The episodes of a record (``load_record``), one dict each in seed order."""
    return load_record(path).rows


def record_line(table: dict, result: tuple) -> dict:
    """An episode's line: ``table`` (game, agent, and in a game of several players the opponent and the number of
    players), then the ``RECORD_FIELDS`` of ``result``."""
    return {**table, **dict(zip(RECORD_FIELDS, result))}


def played_before(record: str, table: dict, runs: list) -> list[tuple]:
    """The results of the ``runs`` (seed, seat) that an earlier run at ``table`` left in ``record``'s partial file,
    or in ``record`` when it has none (the run may be longer now); none when there is neither. A record of another
    table, or of deals this run does not play, is refused."""
    source = next((path for path in (partial_path(record), record) if os.path.exists(path)), None)
    if source is None:
        return []
    earlier = load_record(source, empty=True)
    for line in filter(None, [earlier.header, *earlier.rows]):
        said = {key: line.get(key) for key in table}
        if said != table:
            raise BadFileError(source, f"records {_table_said(said)}, not {_table_said(table)}: a run resumes only "
                                       f"its own record")
    seats = dict(runs)
    results = []
    for row in earlier.rows:
        if row["seed"] not in seats:
            raise BadFileError(source, f"records deal {row['seed']}, outside this run's seeds ({runs[0][0]}-"
                                       f"{runs[-1][0]}): a run resumes only its own record (the same seed)")
        if row["seat"] != (seats[row["seed"]] or 0):
            raise BadFileError(source, f"records deal {row['seed']} in seat {row['seat']}, where this run seats the "
                                       f"agent at {seats[row['seed']]}: a run resumes only its own record")
        results.append((row["seed"], row["seat"], row["won"], float(row["score"]), row["length"]))
    return results


def _table_said(table: dict) -> str:
    said = f"{table.get('agent')} on {table.get('game')}"
    if table.get("opponent") is not None or table.get("players") is not None:
        said += f" against {table.get('opponent')} ({table.get('players')} players)"
    return said


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
        # The workers are ended first, then the pool is waited for: its manager thread, finding them gone, closes
        # its pipes and ends at once. Left running, it could close them while the interpreter's exit writes to
        # them (Python 3.11 prints a "Bad file descriptor" traceback then).
        end_processes(set(multiprocessing.active_children()) - before)
        pool.shutdown(wait=True, cancel_futures=True)
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
# Episodes a chunk at most: what a run interrupted or faulted can lose a worker, the rest being kept in its record.
LARGEST_CHUNK = 1000


def evaluate(game: str, agent="random", episodes: int = 100, seed: int = 0, workers: int | None = None,
             progress: bool = True, env_kwargs: dict | None = None, opponent=None,
             num_players: int | None = None, record: str | None = None, on_episodes=None,
             backend: str = "local", address: str | None = None, resume: bool = False) -> EvalResult:
    """Win rate, mean score and mean length of ``agent`` over ``episodes`` deals of ``game``.

    ``agent`` is a name known to ``make_agent`` or an agent object (picklable when ``workers`` > 1).
    ``workers`` defaults to the number of CPUs; 1 plays in this process.
    For a game of several players, ``opponent`` (a name or an agent object; the env's default when
    None) plays the other seats of ``num_players`` (the env's default when None), and the agent's seat
    rotates with the episode.
    ``record``: a file to write every episode's result to, one JSON line each in seed order (``game``, ``agent``,
    in a game of several players ``opponent`` and ``players``, then ``seed``, ``seat``, ``won``, ``score``, ``length``), so that two
    agents can be compared deal by deal (``benchmarks/evaluation/compare.py``). It is written as the episodes
    finish, to ``record + ".partial"`` until the end (the module's docstring), and checked for before any work.
    ``resume``: keep the episodes the record's partial file (or the record, when there is none: this run may be
    longer) already holds, of the same game, agent and table, and play only the others; without it a partial file
    is refused, so that an unfinished run is not thrown away unasked.
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
    check_written_as_it_goes(record, resume, "record", "--record", "episodes")
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
    table = {"game": env_id, "agent": _agent_name(agent)}
    if multiplayer:
        table.update(opponent=_agent_name(opponent), players=players)
    results = played_before(record, table, runs) if resume else []
    played = {result[0] for result in results}
    missing = [run for run in runs if run[0] not in played]
    size = max(1, min(LARGEST_CHUNK, len(missing) // (workers * 8)))
    chunks = [missing[i:i + size] for i in range(0, len(missing), size)]
    bar = tqdm(total=episodes, initial=len(results), desc=f"{_agent_name(agent)} on {env_id}",
               disable=not progress, unit="ep")
    out = None
    if record is not None:
        out = PartialFile(record, {"partial": {"seed": seed, "episodes": episodes}, **table},
                          [record_line(table, result) for result in results], "episodes")

    def done(found: list) -> None:
        results.extend(found)
        if out is not None:
            out.add([record_line(table, result) for result in found])
        bar.update(len(found))
        if on_episodes is not None:
            on_episodes(len(found))

    with out if out is not None else nullcontext():
        if backend == "ray" and chunks:
            tasks.play_chunks(_play_chunk, env_id, env_kwargs, agent, chunks, done, address)
        elif chunks:
            in_workers(partial(_play_chunk, env_id, env_kwargs, agent), chunks, workers, lambda _, found: done(found))
        bar.close()
        results.sort()  # by seed, so sums do not depend on which worker finished first
        if out is not None:
            out.finish(lambda path: write_whole(path, "".join(json.dumps(record_line(table, result)) + "\n"
                                                              for result in results)))
    _, seat, won, score, length = (np.array(column, dtype=float) for column in zip(*results))
    wins = int(won.sum())
    low, high = wilson_interval(wins, episodes)
    extras = {}
    if multiplayer:
        extras = {"opponent": table["opponent"], "players": players,
                  "seat_win_rates": [float(won[seat == k].mean()) if (seat == k).any() else 0.0
                                     for k in range(players)]}
    return EvalResult(game=env_id, agent=_agent_name(agent), episodes=episodes, wins=wins,
                      win_rate=wins / episodes, win_low=low, win_high=high,
                      mean_score=float(score.mean()), mean_length=float(length.mean()),
                      won_seeds=[int(r[0]) for r in results if r[2]], **extras)
