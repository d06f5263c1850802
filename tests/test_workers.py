"""The worker pool of evaluate, the ceiling's verdicts and the trainers: it stops when asked, ends with its parent,
and survives a worker that dies once."""

import os
import signal
import subprocess
import sys
import textwrap
import time
from functools import partial

import pytest

from tabletop_gym.benchmarks import cli
from tabletop_gym.benchmarks.evaluation import evaluate
from tabletop_gym.benchmarks.evaluation.evaluate import WorkerDied, in_workers

pytestmark = pytest.mark.skipif(not hasattr(os, "fork") or not hasattr(signal, "SIGKILL"),
                                reason="needs processes that fork and signals")

# Generous: a liveness bound on a busy machine of two cores, far below the work queued (40 chunks of 2 s each on two
# workers: 40 s), not a measure of speed.
LIVENESS = 15

SLOW_POOL = textwrap.dedent("""
    import os, sys, time
    if sys.argv[2] == "forkserver":
        import torch  # the workers then start from a fork server
    from tabletop_gym.benchmarks.evaluation.evaluate import in_workers

    def slow(pids, chunk):
        with open(pids, "a") as file:
            file.write(f"{os.getpid()}\\n")
        time.sleep(2)
        return chunk

    if __name__ == "__main__":
        from functools import partial
        try:
            in_workers(partial(slow, sys.argv[1]), list(range(40)), 2)
        except KeyboardInterrupt:
            print("interrupted", file=sys.stderr)  # as the command line does
            sys.exit(130)
""")


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting for its parent to collect it has ended)."""
    try:
        with open(f"/proc/{pid}/stat") as file:
            return file.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False
    except OSError:
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def started_pool(tmp_path, start):
    """A process playing slow chunks on two workers, once both work, the workers started as ``start`` says; and the
    file where the workers write their process ids."""
    if start == "forkserver":
        pytest.importorskip("torch")
    script, pids = tmp_path / "pool.py", tmp_path / "pids"
    script.write_text(SLOW_POOL)
    process = subprocess.Popen([sys.executable, str(script), str(pids), start], start_new_session=True,
                               stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while len(worker_pids(pids)) < 2:
        assert time.monotonic() < deadline and process.poll() is None, "the workers never started"
        time.sleep(0.1)
    return process, pids


def worker_pids(pids) -> set:
    return {int(line) for line in pids.read_text().split()} if pids.exists() else set()


def wait_gone(pids: set, seconds: float) -> set:
    """The processes of ``pids`` still running after up to ``seconds``."""
    deadline = time.monotonic() + seconds
    while {pid for pid in pids if alive(pid)} and time.monotonic() < deadline:
        time.sleep(0.1)
    return {pid for pid in pids if alive(pid)}


def end_all(process, pids) -> None:
    """Whatever a failed test left running."""
    for pid in {process.pid} | worker_pids(pids):
        if alive(pid):
            os.kill(pid, signal.SIGKILL)


@pytest.mark.parametrize("start", ["fork", "forkserver"])
def test_ctrl_c_stops_the_pool_at_once_and_ends_its_workers(tmp_path, start):
    process, pids = started_pool(tmp_path, start)
    try:
        os.killpg(process.pid, signal.SIGINT)  # a terminal's Ctrl-C goes to the whole group, workers included
        try:
            _, err = process.communicate(timeout=LIVENESS)
        except subprocess.TimeoutExpired:
            pytest.fail(f"still running {LIVENESS} s after Ctrl-C")
        assert process.returncode == 130
        assert err.strip() == "interrupted"  # the one line, and no worker's traceback
        assert not wait_gone(worker_pids(pids), LIVENESS)
    finally:
        end_all(process, pids)


@pytest.mark.parametrize("start", ["fork", "forkserver"])
def test_workers_end_with_their_parent(tmp_path, start):
    process, pids = started_pool(tmp_path, start)
    try:
        process.send_signal(signal.SIGTERM)  # to the parent alone: its workers are left to notice
        process.wait(timeout=LIVENESS)
        assert not wait_gone(worker_pids(pids), LIVENESS)
    finally:
        end_all(process, pids)


def die(marks, times: int, chunk: int) -> int:
    """``chunk`` squared, but the worker given chunk 3 is killed outright (as by the system out of memory) on the
    first ``times`` tries."""
    tries = len(list(marks.iterdir()))
    if chunk == 3 and tries < times:
        (marks / f"try{tries}").touch()
        os.kill(os.getpid(), signal.SIGKILL)
    return chunk * chunk


def test_a_worker_killed_once_loses_nothing(tmp_path, capsys):
    chunks = list(range(8))
    seen = []
    got = in_workers(partial(die, tmp_path, 1), chunks, 2, lambda chunk, result: seen.append(chunk))
    assert got == [chunk * chunk for chunk in chunks]  # as undisturbed: every chunk, in order
    assert sorted(seen) == chunks  # each reported once
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("a worker died (perhaps out of memory); retrying its ")


def test_a_worker_killed_again_is_one_clear_error(tmp_path, capsys):
    with pytest.raises(WorkerDied, match="a worker died again"):
        in_workers(partial(die, tmp_path, 2), list(range(8)), 2)


def test_the_command_line_says_a_worker_died_in_one_line(monkeypatch, capsys):
    def dies(*args, **kwargs):
        raise WorkerDied("a worker died again (perhaps out of memory): 2 of 8 chunks left unfinished")

    monkeypatch.setattr(evaluate, "evaluate", dies)
    assert cli.main(["eval", "dungeon_solitaire", "--workers", "2", "--quiet"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["tabletop-gym eval: a worker died again (perhaps out of memory): 2 of 8 chunks left unfinished"]
