"""A sixth game, added as CONTRIBUTING's "Adding a game" says and nothing more: its folder (``tests/high_or_low/``:
a throwaway solitaire of four rules, with its agent module) and its one line in the list of games. Listed, it works
in ``gym.make`` and ``gym.make_vec``, passes the contract and the other tests every listed game passes, and plays
in ``eval``, the leaderboard, ``play`` and ``replay``, with no other file touched."""

import io
import itertools
from inspect import signature

import gymnasium as gym
import numpy as np
import pytest
import test_agents
import test_contract
import test_pictures
from high_or_low import rules
from high_or_low.line import GAME

from tabletop_gym import envs
from tabletop_gym.agents import AGENTS, make_agent
from tabletop_gym.benchmarks import cli

# The id as a fresh process makes it: Gymnasium imports the module before the colon, which lists the game.
LISTED_ID = f"high_or_low.listed:{GAME.id}"


@pytest.fixture(autouse=True)
def listed(monkeypatch):
    """High or Low in the one list of games and registered, as ``envs/__init__.py`` lists and registers its games;
    gone again after the test."""
    monkeypatch.setitem(envs.GAMES, GAME.name, GAME)
    envs.register(GAME)
    yield
    gym.registry.pop(GAME.id, None)


def over_every_game(module, parameter: str, values: list, ours) -> list:
    """The tests of ``module`` parametrized over every listed game (``parameter`` takes ``values``: the games'
    names or ids), each with its arguments for High or Low (``ours`` for ``parameter``) and every combination of
    its other parameters' values: what a listed game is put through with nothing written for it."""
    found = []
    for name, test in vars(module).items():
        marks = [mark for mark in getattr(test, "pytestmark", []) if mark.name == "parametrize"]
        if not name.startswith("test_") or not any(m.args[0] == parameter and list(m.args[1]) == values for m in marks):
            continue
        others = [m for m in marks if m.args[0] != parameter]
        for combination in itertools.product(*(m.args[1] for m in others)):
            found.append((test, {parameter: ours, **{m.args[0]: value for m, value in zip(others, combination)}}))
    return found


def label(check) -> str:
    test, arguments = check
    return ".".join([test.__module__, test.__name__, *(str(value) for value in list(arguments.values())[1:])])


IDS = [game.id for game in envs.GAMES.values()]
NAMES = list(envs.GAMES)
# The contract by the id a fresh process makes it with (seeding in a fresh process is among the checks).
CONTRACT = over_every_game(test_contract, "env_id", IDS, LISTED_ID)
OTHERS = (over_every_game(test_agents, "game", NAMES, GAME.name)
          + over_every_game(test_pictures, "name", NAMES, GAME.name)
          + over_every_game(test_pictures, "env_id", IDS, GAME.id))


def test_the_checks_over_every_game_are_found():
    assert len(CONTRACT) >= 15 and {test.__module__ for test, _ in OTHERS} == {"test_agents", "test_pictures"}
    assert (test_contract.test_same_seed_same_trajectory_also_in_a_fresh_process, {"env_id": LISTED_ID}) in CONTRACT


@pytest.mark.parametrize("test, arguments", CONTRACT + OTHERS, ids=map(label, CONTRACT + OTHERS))
def test_what_every_listed_game_passes(test, arguments, request):
    if test.__module__ == "test_pictures":
        pytest.importorskip("PIL", reason="pictures need the render extra's Pillow")
    fixtures = {name: request.getfixturevalue(name) for name in signature(test).parameters if name not in arguments}
    test(**arguments, **fixtures)


def test_every_picture_has_its_size():
    pytest.importorskip("PIL")
    test_pictures.test_every_picture_has_the_games_shape_and_shows_something(GAME.name, {})


def test_gym_make_by_its_id_with_or_without_the_listing_module():
    assert gym.make(GAME.id).unwrapped.action_names == rules.ACTION_NAMES
    assert gym.make(LISTED_ID).spec.id == GAME.id
    assert envs.game("HighOrLow-v0") is envs.game("high-or-low") is GAME


def test_make_vec_plays_the_single_envs_games():
    """No native vector env: Gymnasium's own steps the games, game i being the single env's of seed s + i (and
    starting over on the step after its end)."""
    vector = gym.make_vec(GAME.id, num_envs=3)
    singles = [gym.make(GAME.id) for _ in range(3)]
    observations, infos = vector.reset(seed=7)
    expected = [single.reset(seed=7 + i) for i, single in enumerate(singles)]
    ended = [False] * 3
    for _ in range(12):
        assert all(np.array_equal(observations[i], expected[i][0]) for i in range(3))
        actions = [int(np.flatnonzero(mask)[0]) if mask.any() else 0 for mask in infos["action_mask"]]
        observations, rewards, terminated, truncated, infos = vector.step(np.array(actions))
        for i, single in enumerate(singles):
            expected[i] = single.reset() if ended[i] else single.step(actions[i])
            ended[i] = not ended[i] and expected[i][2]
            assert ended[i] == terminated[i] and (ended[i] or rewards[i] == 0)
    assert observations.shape == (3, rules.OBSERVATION_SIZE)


def test_the_agents_know_its_heuristic_and_search():
    assert "heuristic" in AGENTS
    assert type(make_agent("heuristic", GAME.id)).__name__ == "HighOrLowHeuristic"
    assert make_agent("search", GAME.name, seed=0).simulations == 16


def test_list_and_eval(capsys):
    assert cli.main(["list"]) == 0
    assert f"high_or_low          {GAME.id}" in capsys.readouterr().out
    said = {}
    for agent in ("random", "heuristic"):
        assert cli.main(["eval", "high-or-low", "--agent", agent, "--episodes", "40", "--workers", "1",
                         "--quiet"]) == 0
        said[agent] = capsys.readouterr().out
        assert said[agent].startswith(f"{agent} on {GAME.id}: win rate ") and "over 40 episodes" in said[agent]
    random_rate, heuristic_rate = (float(said[a].split("win rate ")[1].split("%")[0]) for a in ("random", "heuristic"))
    assert heuristic_rate > random_rate


def test_the_leaderboard(tmp_path, capsys):
    out, png = tmp_path / "board.md", tmp_path / "board.png"
    assert cli.main(["leaderboard", "--games", "high_or_low", "--agents", "random,heuristic,search,ppo,value",
                     "--episodes", "4", "--workers", "1", "--out", str(out), "--png", str(png), "--quiet"]) == 0
    table = out.read_text()
    assert "| HighOrLow-v0 | random | - | 4 |" in table and "| HighOrLow-v0 | heuristic | - | 4 |" in table
    # Its agent module's LEADERBOARD_SEARCH_EPISODES; no policy ships; no value agent; no ceiling.
    assert "| HighOrLow-v0 | search | - | 3 |" in table
    assert "| HighOrLow-v0 | ppo | - | 0 | skipped: no policy ships for it" in table
    rows = [line for line in table.splitlines() if line.startswith("| HighOrLow-v0")]
    assert len(rows) == 4 and not any(row.startswith(("| HighOrLow-v0 | value", "| HighOrLow-v0 | ceiling"))
                                      for row in rows)
    if png.exists():  # the chart needs matplotlib
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_play_in_the_terminal(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO("?\nsideways\nhigher\nlower\n1\n"))
    assert cli.main(["play", "high_or_low", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("High or Low, deal 1.") and "High or Low: the rules in short" in out
    assert "higher           the next card is higher than the face-up card" in out and "RULES.md" in out
    assert "'sideways' is not one of the legal moves above" in out and "[0] higher" in out
    # The turn after each guess is the only move: played at once, and told.
    assert "forced turn: turned J♠; right" in out and "forced turn: turned 10♠; wrong" in out
    assert out.endswith("game over: you lost. A wrong guess. Score 2: the right guesses.\n")


@pytest.mark.parametrize("suffix", [".gif", ".html"])
def test_replay(tmp_path, capsys, suffix):
    pytest.importorskip("PIL", reason="replays are pictures: the render extra's Pillow")
    out = tmp_path / f"high_or_low{suffix}"
    assert cli.main(["replay", "high_or_low", "--agent", "heuristic", "--seed", "2", "--out", str(out)]) == 0
    assert out.stat().st_size > 0 and f"heuristic on {GAME.id} (seed 2)" in capsys.readouterr().out
    if suffix == ".gif":
        from PIL import Image

        with Image.open(out) as gif:
            assert gif.size == (test_pictures.shape(GAME.name)[1], test_pictures.shape(GAME.name)[0])
    else:
        assert "step 1: higher" in out.read_text() or "step 1: lower" in out.read_text()
