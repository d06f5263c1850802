"""The leaderboard and MaskablePPO training, on tiny budgets: well-formed outputs, agents that play."""

import json
from dataclasses import replace

import gymnasium as gym
import numpy as np
import pytest

from tabletop_gym import envs
from tabletop_gym.agents import make_agent
from tabletop_gym.benchmarks import cli
from tabletop_gym.benchmarks.evaluation import leaderboard
from tabletop_gym.benchmarks.training import curves, ppo, sb3
from tabletop_gym.benchmarks.training.sb3 import learning_curve

from helpers import play_steps


def test_leaderboard_writes_a_table_and_a_chart(tmp_path):
    out, png = tmp_path / "board.md", tmp_path / "board.png"
    table = leaderboard.main(episodes=3, seed=0, workers=1, games=["dungeon_solitaire", "splendor"],
                             agents=("random", "heuristic"), out=str(out), png=str(png), progress=False)
    rows = [line for line in out.read_text().splitlines() if line.startswith("| ") and "---" not in line][1:]
    # two solitaire rows and the solitaire's ceiling, and each Splendor agent against each scripted opponent
    assert len(rows) == 2 + 1 + 2 * 2 and table == out.read_text()
    assert all(len(row.split("|")) == 12 for row in rows)
    assert "| DungeonSolitaire-v0 | ceiling | - | 3 |" in table
    assert "| DungeonSolitaire-v0 | heuristic | - | 3 |" in table and "| Splendor-v0 | heuristic | greedy | 3 |" in table
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_leaderboard_is_reproducible_and_plays_fewer_search_episodes():
    agents = ("random", "heuristic", "search")
    first = leaderboard.run(episodes=4, seed=1, workers=1, games=["royal_assassin"], agents=agents, progress=False,
                            search_episodes=2)
    second = leaderboard.run(episodes=4, seed=1, workers=2, games=["royal_assassin"], agents=agents,
                             progress=False, search_episodes=2)
    played = [[r.as_dict() for r in rows if isinstance(r, leaderboard.EvalResult)] for rows in (first, second)]
    assert played[0] == played[1]
    assert [(r["agent"], r["episodes"]) for r in played[0]] == [("random", 4), ("heuristic", 4), ("search", 2)]
    assert isinstance(first[-1], leaderboard.CeilingRow) and first[-1].episodes == 4


def test_the_value_rows_play_on_the_value_games_only_and_say_what_their_value_judges(tmp_path):
    table = leaderboard.main(episodes=2, seed=0, workers=1, games=["one_card_dungeon", "royal_assassin", "dead_center"],
                             agents=("value",), out=str(tmp_path / "board.md"), png=None, progress=False)
    assert "| OneCardDungeon-v0 | value | - | 2 |" in table and "| RoyalAssassin-v0 | value | - | 2 |" in table
    assert "DeadCenter-v0 | value" not in table
    assert "OneCardDungeon-v0, value: `agents/models/value/one_card_dungeon.npz`, a judge of the level-ups" in table
    assert "RoyalAssassin-v0, value: `agents/models/value/royal_assassin.npz`, a judge of the tables" in table


def test_learning_curve_windows():
    episodes = [(10 * i, i % 2 == 0, 0.0) for i in range(1, 101)]
    curve = learning_curve(episodes, points=10)
    assert len(curve) == 10 and curve[-1][0] == 1000 and all(rate == 0.5 for _, rate in curve)


@pytest.mark.parametrize("algo, model", [("ppo", "model.pt"), ("sb3", "model.zip")])
def test_train_saves_a_model_a_curve_and_an_evaluation(tmp_path, algo, model):
    trainer = {"ppo": ppo, "sb3": sb3}[algo]
    result = trainer.train("dungeon_solitaire", timesteps=512, n_envs=2, out=str(tmp_path), eval_episodes=10,
                           workers=1, progress=False)
    assert (tmp_path / model).exists() and (tmp_path / "learning_curve.png").exists()
    record = json.loads((tmp_path / "result.json").read_text())
    assert record["evaluation"]["episodes"] == 10 and record["timesteps"] == 512
    assert record["hyperparameters"]["algo"] == algo and record["seed"] == 0 and record["seconds"] > 0
    agent = make_agent(f"ppo:{tmp_path / model}", "dungeon_solitaire")
    env = gym.make("Tabletop/DungeonSolitaire-v0", illegal_action="raise")
    play_steps(env, agent, 30, seed=0)
    assert np.isfinite(result.evaluation["mean_score"])
    run = curves.read_run(tmp_path)  # every trainer's run is one that curves reads
    assert run["step"][-1] == 512 and ((0 <= run["win_rate"]) & (run["win_rate"] <= 1)).all()
    assert "| DungeonSolitaire-v0 | 0 | 512 |" in curves.markdown([run])


def test_cli_train_and_leaderboard_commands(tmp_path, capsys):
    assert cli.main(["train", "royal_assassin", "--timesteps", "256", "--envs", "1", "--eval-episodes", "4",
                     "--workers", "1", "--quiet", "--out", str(tmp_path / "run")]) == 0
    assert "final evaluation: win rate" in capsys.readouterr().out
    assert cli.main(["leaderboard", "--episodes", "2", "--games", "royal_assassin", "--agents", "random,ppo",
                     "--ppo", f"royal_assassin={tmp_path / 'run' / 'model.pt'}", "--workers", "1", "--quiet",
                     "--out", str(tmp_path / "b.md"), "--png", str(tmp_path / "b.png")]) == 0
    assert "| RoyalAssassin-v0 | ppo | - |" in (tmp_path / "b.md").read_text()


def test_cli_train_passes_the_reward_choice_to_the_env(tmp_path):
    assert cli.main(["train", "one_card_dungeon", "--timesteps", "128", "--envs", "1", "--eval-episodes", "2",
                     "--workers", "1", "--quiet", "--reward", "score", "--out", str(tmp_path)]) == 0
    record = json.loads((tmp_path / "result.json").read_text())
    assert record["env_kwargs"] == {"reward": "score"} and record["evaluation"]["episodes"] == 2


def test_train_on_the_native_vector_env(tmp_path, monkeypatch):
    result = sb3.train("dungeon_solitaire", timesteps=512, n_envs=8, out=str(tmp_path), eval_episodes=4, workers=1,
                       progress=False)
    assert (tmp_path / "model.zip").exists() and result.curve and result.evaluation["episodes"] == 4
    # The fast configuration: short rollouts, large minibatches, 4 epochs (SB3's own defaults with vector=False).
    assert result.hyperparameters == {"algo": "sb3", "n_envs": 8, "n_steps": 64, "n_epochs": 4, "batch_size": 512}
    single = sb3.train("dungeon_solitaire", timesteps=512, out=str(tmp_path / "single"), eval_episodes=2, workers=1,
                       progress=False, vector=False)
    assert single.hyperparameters == {"algo": "sb3", "n_envs": 4, "n_steps": 128, "n_epochs": 10, "batch_size": 64}
    # Every game has a native vector env now; one added without it gets a clear error.
    monkeypatch.setitem(envs.GAMES, "royal_assassin", replace(envs.GAMES["royal_assassin"], vector_env=None))
    with pytest.raises(ValueError, match="RoyalAssassin-v0 has no native vector env"):
        sb3.train("royal_assassin", timesteps=64, n_envs=2, out=str(tmp_path / "s"), vector=True)
    with pytest.raises(ValueError, match="RoyalAssassin-v0 has no native vector env"):
        ppo.train("royal_assassin", timesteps=64, n_envs=2, out=str(tmp_path / "p"))


def test_the_learned_rows_say_how_each_policy_learned(tmp_path):
    table = leaderboard.main(episodes=2, seed=0, workers=1, games=["dungeon_solitaire", "splendor"],
                             agents=("ppo-scratch", "ppo"), out=str(tmp_path / "board.md"), png=None, progress=False)
    assert "| DungeonSolitaire-v0 | ppo-scratch | - | 2 |" in table and "| Splendor-v0 | ppo-scratch | greedy | 2 |" in table
    assert "DungeonSolitaire-v0, ppo-scratch: `agents/models/scratch/dungeon_solitaire.npz`, from scratch, " in table
    assert "Splendor-v0, ppo-scratch: `agents/models/scratch/splendor.npz`, from scratch, " in table
    assert "steps of masked PPO by self-play on the AEC env" in table
    assert "DungeonSolitaire-v0: `agents/models/dungeon_solitaire.npz`, cloned from the " in table


def test_the_default_rows_name_each_learned_agent_as_what_it_is():
    assert leaderboard.AGENT_ORDER == ("random", "heuristic", "search", "ppo-scratch", "ppo", "search-ppo", "value",
                                       "az")
    rows = leaderboard.plan(episodes=10, games=["royal_assassin"], search_episodes=3)
    assert [(row.agent, row.episodes) for row in rows] == [
        ("random", 10), ("heuristic", 10), ("search", 3), ("ppo-scratch", 10), ("ppo", 10), ("search-ppo", 3),
        ("value", 10)]  # no az: it plays splendor only
    rows = leaderboard.plan(episodes=10, games=["splendor"], search_episodes=3)
    assert [(row.agent, row.opponent, row.episodes) for row in rows if row.agent == "az"] == [
        ("az", "random", 3), ("az", "greedy", 3)]


def test_a_game_without_a_policy_learned_from_scratch_skips_its_row_and_says_why(monkeypatch, tmp_path):
    monkeypatch.setattr("tabletop_gym.agents.policy.MODELS", tmp_path)
    rows = leaderboard.plan(episodes=3, games=["royal_assassin"], agents=("random", "ppo-scratch"))
    assert isinstance(rows[1], leaderboard.Skipped) and rows[1].agent == "ppo-scratch"
    assert rows[1].reason == "no policy learned from scratch ships for it"


def test_the_progress_line_says_rows_done_and_time_elapsed_never_a_time_left(capsys):
    leaderboard.run(episodes=2, seed=0, workers=1, games=["royal_assassin"], agents=("random", "heuristic"))
    err = capsys.readouterr().err
    assert "leaderboard: 0 of 2 rows done" in err and "2 of 2 episodes" in err and "elapsed" in err
    assert " left" not in err
