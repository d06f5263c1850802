"""Evaluation on Ray (the ``ray`` extra): ``evaluate(..., backend="ray")`` and ``--backend ray`` give exactly the
local backend's results for the same seeds, an exception raised in a task reaches the caller, and the options are
checked before any work. One Ray session for the module, on two CPUs (what CI's machine has). Skipped where Ray is
not installed; ``.ci/run`` runs these in a venv with ``.[ray,test]`` (``pytest -m ray``)."""

import json
import sys

import numpy as np
import pytest

ray = pytest.importorskip("ray")

from tabletop_gym.agents import RandomAgent  # noqa: E402
from tabletop_gym.benchmarks import cli  # noqa: E402
from tabletop_gym.benchmarks.evaluate import evaluate  # noqa: E402
from tabletop_gym.envs import GAMES  # noqa: E402

pytestmark = pytest.mark.ray


@pytest.fixture(scope="module", autouse=True)
def session():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    # The workers cannot import this test module: what it defines (FailingAgent) travels by value.
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    yield
    ray.shutdown()


@pytest.mark.parametrize("game", GAMES)
def test_ray_tasks_give_the_local_result_for_the_same_seeds(game, tmp_path):
    local, remote = tmp_path / "local.jsonl", tmp_path / "ray.jsonl"
    ours = evaluate(game, "heuristic", episodes=24, seed=7, workers=1, progress=False, record=str(local))
    theirs = evaluate(game, "heuristic", episodes=24, seed=7, workers=6, progress=False, record=str(remote),
                      backend="ray")
    assert theirs == ours
    assert remote.read_text() == local.read_text()  # every episode, deal by deal
    assert len(local.read_text().splitlines()) == 24


def test_an_agent_object_is_shipped_to_the_tasks_and_splendor_seats_rotate():
    ours = evaluate("splendor", RandomAgent(3), episodes=9, seed=0, workers=1, progress=False, num_players=3,
                    opponent="greedy")
    theirs = evaluate("splendor", RandomAgent(3), episodes=9, seed=0, workers=3, progress=False, num_players=3,
                      opponent="greedy", backend="ray")
    assert theirs == ours and theirs.players == 3 and len(theirs.seat_win_rates) == 3


class FailingAgent:
    """Raises at its first move: an error inside a task."""

    name = "failing"

    def act(self, observation, action_mask):
        raise RuntimeError("the agent failed on purpose")


def test_an_exception_in_a_task_reaches_the_caller():
    with pytest.raises(RuntimeError, match="the agent failed on purpose"):
        evaluate("dead_center", FailingAgent(), episodes=4, workers=2, progress=False, backend="ray")


def test_progress_is_reported_as_tasks_finish():
    seen = []
    evaluate("dungeon_solitaire", "random", episodes=40, workers=2, progress=False, backend="ray",
             on_episodes=seen.append)
    assert sum(seen) == 40 and len(seen) > 1  # chunk by chunk, not at the end only


def test_bad_backend_options_are_refused_before_any_work():
    with pytest.raises(ValueError, match="backend must be one of local, ray"):
        evaluate("dead_center", episodes=1, backend="dask")
    with pytest.raises(ValueError, match="address is the Ray cluster's"):
        evaluate("dead_center", episodes=1, address="auto")
    with pytest.raises(ValueError, match="already connected"):
        evaluate("dead_center", episodes=1, backend="ray", address="10.0.0.1:6379")


def test_the_command_line_evaluates_and_ranks_on_ray(tmp_path, capsys):
    record = tmp_path / "episodes.jsonl"
    assert cli.main(["eval", "royal_assassin", "--agent", "heuristic", "--episodes", "6", "--seed", "5",
                     "--backend", "ray", "--quiet", "--record", str(record)]) == 0
    assert "heuristic on Tabletop/RoyalAssassin-v0" in capsys.readouterr().out
    lines = [json.loads(line) for line in record.read_text().splitlines()]
    local = evaluate("royal_assassin", "heuristic", episodes=6, seed=5, workers=1, progress=False)
    assert [line["seed"] for line in lines] == list(range(5, 11))
    assert np.mean([line["won"] for line in lines]) == local.win_rate
    out = tmp_path / "board.md"
    assert cli.main(["leaderboard", "--games", "dead_center", "--agents", "random,heuristic", "--episodes", "8",
                     "--backend", "ray", "--quiet", "--out", str(out), "--png", ""]) == 0
    assert "heuristic" in out.read_text()
    assert cli.main(["eval", "dead_center", "--episodes", "1", "--address", "auto"]) == 2
    assert "--address is a Ray cluster's" in capsys.readouterr().err
