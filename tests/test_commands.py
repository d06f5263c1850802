"""The command line as a new user meets it: help with defaults, the version, a missing extra in one line,
bad input refused before any work, training that finishes with two workers and trains the budget it was given."""

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from importlib import import_module
from tabletop_gym.agents.policy import MODELS
from tabletop_gym.benchmarks import cli
from tabletop_gym.envs import GAMES
from tabletop_gym.benchmarks.evaluation import leaderboard
from tabletop_gym.benchmarks.human import replay
from tabletop_gym.benchmarks.training.sb3 import minibatch_size, rollout_length

evaluate_module = import_module("tabletop_gym.benchmarks.evaluation.evaluate")  # the package exports the function by the same name


def test_version_and_help_show_defaults_and_games(capsys):
    with pytest.raises(SystemExit) as ended:
        cli.main(["--version"])
    assert ended.value.code == 0 and capsys.readouterr().out.startswith("tabletop-gym ")
    for command in ("eval", "train", "leaderboard", "replay", "bench", "play"):
        with pytest.raises(SystemExit):
            cli.main([command, "--help"])
        text = " ".join(capsys.readouterr().out.split())
        assert "dungeon_solitaire, royal_assassin, dead_center, one_card_dungeon, splendor" in text, command
        if command in ("eval", "train", "leaderboard"):
            assert "(default: 0)" in text, command  # the seed's default is said
    with pytest.raises(SystemExit):
        cli.main(["train", "--help"])
    assert "(default: 100000)" in capsys.readouterr().out


def test_an_unknown_agent_is_refused_before_anything_is_played(capsys, monkeypatch):
    played = []
    monkeypatch.setattr(evaluate_module, "_play_chunk", lambda *args: played.append(args))
    assert cli.main(["eval", "dead_center", "--agent", "foo", "--episodes", "5"]) == 2
    err = capsys.readouterr().err
    assert "unknown agent 'foo'" in err and "0/5" not in err and played == []


def _without(monkeypatch, *modules):
    """As if ``modules`` were not installed."""
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name in modules else real(name, *a))


@pytest.mark.parametrize("argv, module, extra", [
    (["bench", "--games", "dead_center"], "pygame", "bench"),
    (["train", "dead_center", "--timesteps", "64"], "torch", "rl"),
    (["train", "dead_center", "--algo", "sb3", "--timesteps", "64"], "sb3_contrib", "rl"),
    (["replay", "dead_center", "--out", "x.gif"], "PIL", "render"),
    (["leaderboard", "--games", "dead_center", "--ppo", "dead_center=m.zip"], "sb3_contrib", "rl"),
    (["eval", "dead_center", "--agent", "ppo:m.zip"], "sb3_contrib", "rl"),
])
def test_a_missing_extra_is_one_line_naming_it(capsys, monkeypatch, tmp_path, argv, module, extra):
    monkeypatch.chdir(tmp_path)
    _without(monkeypatch, module)
    assert cli.main(argv) == 3
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and f"pip install 'tabletop-gym[{extra}]'" in lines[0] and module in lines[0]
    assert "Traceback" not in captured.err and list(tmp_path.iterdir()) == []


WITHOUT_FEATURES = [entry.name for entry in GAMES.values() if not entry.module("features", required=False)]


@pytest.mark.parametrize("name", WITHOUT_FEATURES + ["splendor"])  # splendor: features of its actions alone
def test_an_observation_a_game_lacks_is_one_line_naming_the_games_that_take_it(capsys, monkeypatch, tmp_path, name):
    monkeypatch.chdir(tmp_path)
    takers = [entry.name for entry in GAMES.values() if "features" in cli.observation_choices(entry)]
    assert cli.main(["train", name, "--observation", "features", "--timesteps", "64"]) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].endswith(f"the games that take it: {', '.join(takers)}") and name in lines[0]
    assert "Traceback" not in captured.err and list(tmp_path.iterdir()) == []


def test_the_observation_help_names_every_game_that_takes_it(capsys):
    with pytest.raises(SystemExit):
        cli.main(["train", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    games = [entry.name for entry in GAMES.values() if cli.observation_choices(entry)]
    assert games and f"the env's observation ({', '.join(games)})" in text


def _list_raises(monkeypatch, error):
    """``tabletop-gym list`` made to raise ``error``."""
    def fails(args):
        raise error
    parser = cli.build_parser()
    parser._subparsers._group_actions[0].choices["list"].set_defaults(run=fails)
    monkeypatch.setattr(cli, "build_parser", lambda: parser)


def test_an_import_error_from_a_worker_names_its_extra_too(capsys, monkeypatch):
    _list_raises(monkeypatch, ModuleNotFoundError("No module named 'pygame'"))  # from another process: no name
    assert cli.main(["list"]) == 3
    assert "pip install 'tabletop-gym[bench]'" in capsys.readouterr().err


def test_an_import_error_no_extra_brings_is_not_hidden(monkeypatch):
    _list_raises(monkeypatch, ModuleNotFoundError("No module named 'nowhere'", name="nowhere"))
    with pytest.raises(ModuleNotFoundError):
        cli.main(["list"])


def test_replay_refuses_a_path_it_cannot_write_before_playing(tmp_path, monkeypatch):
    monkeypatch.setattr(replay, "record", lambda *a, **k: pytest.fail("the episode was played"))
    for out, why in [(tmp_path / "nodir" / "x.gif", "there is no folder"), (tmp_path / "x.png", "must end in"),
                     (tmp_path, "must end in")]:
        with pytest.raises(ValueError, match=why):
            replay.replay("dead_center", out=str(out))
    with pytest.raises(ValueError, match="fps must be positive"):
        replay.replay("dead_center", out=str(tmp_path / "x.gif"), fps=0)


def test_a_long_replay_plays_faster_unless_told():
    assert replay.frame_rate(40) == replay.DEFAULT_FPS
    assert replay.frame_rate(432) * replay.LONGEST_REPLAY_SECONDS == pytest.approx(432)
    assert replay.frame_rate(432, fps=1.5) == 1.5


@given(st.integers(1, 2_000_000), st.integers(1, 300))
def test_the_budget_is_trained_in_whole_rollouts_just_covering_it(timesteps, n_envs):
    n_steps, rollouts = rollout_length(timesteps, n_envs)
    trained = n_steps * n_envs * rollouts
    assert n_steps <= 2048 + 7 and n_steps % 8 == 0
    assert timesteps <= trained < timesteps + 8 * n_envs * rollouts
    assert trained % minibatch_size(n_steps * n_envs) == 0 and minibatch_size(n_steps * n_envs) >= 8


def test_the_issue_budgets_come_out_as_asked_or_just_above():
    assert rollout_length(3000, 4) == (752, 1)       # 3,008 steps, where SB3's defaults trained 8,192
    assert rollout_length(3000, 64) == (48, 1)       # 3,072 steps, where they collected 131,072
    assert rollout_length(512, 2) == (256, 1)
    assert minibatch_size(3008) == 64 and minibatch_size(72) == 36


def test_leaderboard_says_which_rows_it_skipped_and_what_it_wrote(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("tabletop_gym.agents.policy.MODELS", tmp_path)  # as if no policy shipped
    out = tmp_path / "board.md"
    table = leaderboard.main(episodes=2, games=["dead_center"], agents=("random", "ppo", "search-ppo"), out=str(out),
                             png=None, workers=1, progress=False)
    for agent in ("ppo", "search-ppo"):
        assert (f"| DeadCenter-v0 | {agent} | - | 0 | skipped: no policy ships for it "
                f"(--ppo dead_center=policy.npz) |") in table
    assert f"wrote {out}" in capsys.readouterr().out
    with pytest.raises(ValueError, match="no folder"):
        leaderboard.main(episodes=2, games=["dead_center"], out=str(tmp_path / "nodir" / "b.md"), png=None)


def test_the_leaderboard_defaults_are_the_documented_ones():
    rows = leaderboard.plan()
    played = [row for row in rows if isinstance(row, leaderboard.Row)]
    searches = [row for row in played if row.agent in leaderboard.SEARCHING]
    assert {row.episodes for row in played if row not in searches} == {leaderboard.LEADERBOARD_EPISODES}
    assert {(row.game, row.episodes) for row in searches} == set(leaderboard.LEADERBOARD_SEARCH_EPISODES.items())
    shipped = {path.stem for path in MODELS.glob("*.npz")}
    learned = {(row.game, row.agent) for row in rows if row.agent in leaderboard.LEARNED}
    skipped = {(row.game, row.agent) for row in rows if isinstance(row, leaderboard.Skipped)}
    assert skipped == {(game, agent) for game, agent in learned if game not in shipped}  # and only those


@pytest.mark.parametrize("algo, model", [("ppo", "model.pt"), ("sb3", "model.zip")])
def test_train_with_two_workers_finishes(tmp_path, algo, model):
    """Liveness: training, then the final evaluation on two worker processes, to the end (it once hung forever
    in workers forked after torch had run). The timeout is generous: this is not a speed test."""
    out = tmp_path / "run"
    command = [sys.executable, "-m", "tabletop_gym.benchmarks.cli", "train", "royal_assassin", "--timesteps", "256",
               "--envs", "2", "--eval-episodes", "8", "--workers", "2", "--quiet", "--out", str(out), "--algo", algo]
    done = subprocess.run(command, capture_output=True, text=True, timeout=900, env={**os.environ, "CI": "1"})
    assert done.returncode == 0, done.stderr
    record = json.loads((out / "result.json").read_text())
    assert record["evaluation"]["episodes"] == 8
    assert record["timesteps"] == record["timesteps_requested"] == 256
    assert "trained 256 steps" in done.stdout and str(out / model) in done.stdout


def test_the_worker_pool_never_forks_once_torch_is_loaded():
    code = ("import sys; from tabletop_gym.benchmarks.evaluation.evaluate import worker_context as w; a = w(); "
            "import torch; b = w(); print(a.get_start_method() if a else None, b.get_start_method())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["fork", "forkserver"]


def doc_pages() -> list:
    root = Path(__file__).resolve().parents[1]
    return [root / "README.md", root / "CONTRIBUTING.md", *root.glob("docs/*.md"), *root.glob("envs/*/RULES.md")]


def test_the_docs_name_no_path_outside_the_repository():
    for path in doc_pages():
        assert "../" not in path.read_text(encoding="utf-8"), path  # a clone has nothing beside it


def test_every_file_the_docs_link_or_show_is_in_the_repository():
    for page in doc_pages():
        for target in re.findall(r"\]\(([^)\s]+)\)", page.read_text(encoding="utf-8")):
            if "://" in target or target.startswith(("#", "mailto:")):
                continue
            assert (page.parent / target.split("#")[0]).exists(), (page.name, target)
