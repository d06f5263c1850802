"""Evaluation on Ray (the ``ray`` extra): ``evaluate(..., backend="ray")`` and ``--backend ray`` give exactly the
local backend's results for the same seeds, an exception raised in a task reaches the caller, and the options are
checked before any work. One Ray session for the module, on two CPUs (what CI's machine has). Skipped where Ray is
not installed; ``.ci/run`` runs these in a venv with ``.[ray,test]`` (``pytest -n 0 -m ray``: in one process, which
holds that session)."""

import json
import os
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

ray = pytest.importorskip("ray")

from tabletop_gym.agents import RandomAgent  # noqa: E402
from tabletop_gym.benchmarks import cli  # noqa: E402
from tabletop_gym.benchmarks.evaluation.evaluate import evaluate  # noqa: E402
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


# ------------------------------------------------------------------ training with RLlib

@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """One RLlib PPO iteration of a few hundred steps on Dead Center's native vector env, sampled by 2 remote env
    runners, every action through the mask (``illegal_action="raise"`` fails loudly on a mask bug)."""
    from tabletop_gym.benchmarks.training.rllib import train

    out = tmp_path_factory.mktemp("rllib")
    where = os.getcwd()
    os.chdir(out.parent)  # --out as the command's default is: relative (RLlib takes only absolute paths)
    try:
        result = train("dead_center", timesteps=300, seed=0, n_envs=4, out=out.name, eval_episodes=12, workers=1,
                       progress=False, env_kwargs={"illegal_action": "raise"}, runners=2)
    finally:
        os.chdir(where)
    return out, result


def test_rllib_trains_on_remote_runners_and_writes_the_run(trained):
    out, result = trained
    assert result.timesteps >= 300 and result.hyperparameters["algo"] == "rllib"
    assert result.hyperparameters["runners"] == 2 and result.env_kwargs == {"illegal_action": "raise"}
    assert (out / "checkpoint" / "learner_group").is_dir() and (out / "learning_curve.png").stat().st_size > 0
    from tabletop_gym.benchmarks.training.curves import read_run

    assert read_run(out)["step"].size >= 1  # tabletop-gym curves reads an RLlib run as any other
    record = json.loads((out / "result.json").read_text())
    assert record["evaluation"]["episodes"] == 12 and record["model_path"] == str(Path(out.name) / "checkpoint")


def test_an_rllib_checkpoint_plays_through_the_agent_protocol(trained, capsys):
    out, result = trained
    again = evaluate("dead_center", f"rllib:{out / 'checkpoint'}", episodes=12, seed=10_000_000, workers=1,
                     progress=False)
    assert {**again.as_dict(), "agent": "rllib"} == result.evaluation  # the same games: the same policy
    from tabletop_gym.agents import make_agent

    agent = make_agent(f"rllib:{out / 'checkpoint'}")
    masks = np.zeros((3, 33), dtype=bool)
    masks[[0, 1, 2], [5, 0, 32]] = True  # one legal action each: the policy must take it
    size = gym.make("Tabletop/DeadCenter-v0").observation_space.shape[0]
    assert agent.act_batch(np.zeros((3, size), dtype=np.float32), masks).tolist() == [5, 0, 32]
    assert cli.main(["eval", "dead_center", "--agent", f"rllib:{out / 'checkpoint'}", "--episodes", "2",
                     "--workers", "1", "--quiet"]) == 0
    assert f"rllib:{out / 'checkpoint'} on Tabletop/DeadCenter-v0" in capsys.readouterr().out
    board = out / "board.md"
    assert cli.main(["leaderboard", "--games", "dead_center", "--agents", f"random,rllib:{out / 'checkpoint'}",
                     "--episodes", "4", "--workers", "1", "--quiet", "--out", str(board), "--png", ""]) == 0
    assert f"rllib:{out / 'checkpoint'}" in board.read_text()
    replay = out / "game.html"
    assert cli.main(["replay", "dead_center", "--agent", f"rllib:{out / 'checkpoint'}", "--seed", "1",
                     "--out", str(replay)]) == 0
    assert replay.stat().st_size > 0
    with pytest.raises(ValueError, match="no RLlib checkpoint"):
        make_agent(f"rllib:{out}")


def test_an_rllib_checkpoint_loads_from_a_relative_path(trained, monkeypatch):
    out, _ = trained
    monkeypatch.chdir(out)
    from tabletop_gym.agents import make_agent

    agent = make_agent("rllib:checkpoint", "dead_center")
    monkeypatch.chdir(out.parent)  # the path was resolved when the agent was made, not when it loads
    masks = np.zeros((1, 33), dtype=bool)
    masks[0, 7] = True
    size = gym.make("Tabletop/DeadCenter-v0").observation_space.shape[0]
    assert agent.act_batch(np.zeros((1, size), dtype=np.float32), masks).tolist() == [7]


def test_rllib_options_are_refused_without_the_rllib_backend(capsys):
    assert cli.main(["train", "dead_center", "--runners", "2", "--timesteps", "10"]) == 2
    assert "--runners and --address are RLlib's" in capsys.readouterr().err
    assert cli.main(["train", "dead_center", "--backend", "rllib", "--algo", "sb3", "--timesteps", "10"]) == 2
    assert "leave --algo out" in capsys.readouterr().err


def test_splendor_self_play_trains_the_learner_against_its_snapshots(tmp_path):
    """One self-play iteration on Splendor's AEC env (as RLlib's PettingZooEnv), 3 seats, 2 remote env runners;
    the learner's checkpoint plays the single-agent view through the agent protocol."""
    from tabletop_gym.benchmarks.training.rllib import train

    result = train("splendor", timesteps=400, seed=0, out=str(tmp_path), eval_episodes=6, workers=1, progress=False,
                   runners=2, self_play=True, env_kwargs={"num_players": 3})
    assert result.timesteps >= 400 and result.hyperparameters["self_play"] is True
    assert result.evaluation["opponent"] == "greedy" and result.evaluation["players"] == 3
    assert set(result.other_evaluations) == {"random"}
    again = evaluate("splendor", f"rllib:{tmp_path / 'checkpoint'}", episodes=6, seed=10_000_000, workers=1,
                     progress=False, num_players=3, opponent="greedy")
    assert {**again.as_dict(), "agent": "rllib"} == result.evaluation


def test_the_snapshot_becomes_the_learner_everywhere():
    from tabletop_gym.benchmarks.training import rllib

    def snapshot_weights(runner):
        return {k: np.array(v) for k, v in runner.module[rllib.SNAPSHOT].get_state().items()}

    algo = rllib.self_play_config("splendor", 2, 0, 2, 200).build_algo()
    try:
        algo.train()
        learner = algo.learner_group.get_weights(module_ids=[rllib.LEARNER])[rllib.LEARNER]
        assert not all(np.array_equal(w[k], np.array(learner[k]))
                       for w in algo.env_runner_group.foreach_env_runner(snapshot_weights) for k in learner)
        rllib.copy_learner_to_snapshot(algo)
        copies = algo.env_runner_group.foreach_env_runner(snapshot_weights)  # the local runner and 2 remote ones
        assert len(copies) == 3
        assert all(np.array_equal(w[k], np.array(learner[k])) for w in copies for k in learner)
        trained = algo.learner_group.get_weights(module_ids=[rllib.SNAPSHOT])[rllib.SNAPSHOT]
        assert all(np.array_equal(np.array(trained[k]), np.array(learner[k])) for k in learner)
    finally:
        algo.stop()


def test_the_masked_aec_env_gives_rllib_its_keys():
    from tabletop_gym.clients.rllib import make_multi_agent_env

    env = make_multi_agent_env({"game": "splendor", "num_players": 2})
    observations, _ = env.reset(seed=0)
    (agent, seen), = observations.items()
    assert set(seen) == {"observations", "action_mask"} and seen["action_mask"].dtype == np.float32
    assert env.observation_space[agent]["observations"].contains(seen["observations"])
    assert seen["action_mask"].sum() > 0 and set(np.unique(seen["action_mask"])) <= {0.0, 1.0}


@pytest.mark.parametrize("game", [game for game in GAMES if game != "dead_center"])
def test_every_game_trains_on_rllib(game, tmp_path):
    """The other games, single-agent (Splendor's view against its greedy player, the seat drawn per game), a tiny
    budget each, every action through the mask."""
    from tabletop_gym.benchmarks.training.rllib import train

    result = train(game, timesteps=128, seed=1, n_envs=4, out=str(tmp_path), eval_episodes=2, workers=1,
                   progress=False, env_kwargs={"illegal_action": "raise"}, runners=1)
    assert result.timesteps >= 128 and (tmp_path / "checkpoint" / "observation_scale.npy").exists()
    assert result.evaluation["episodes"] == 2
