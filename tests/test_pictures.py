"""Pictures of the table (``render_mode="rgb_array"``): a fixed shape per game, never blank, they follow
the game, they show no more than the player sees, and the checkers accept them."""

import subprocess
import sys
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from helpers import random_legal

from tabletop_gym.envs import GAMES, game, splendor_v0
from tabletop_gym.envs.splendor import rules as splendor_rules

def shape(name: str) -> tuple:
    """The one shape the game's pictures have (its picture module's size), the same for every player count."""
    picture = game(name).module("picture")
    return picture.HEIGHT, picture.WIDTH, 3
SEEDS = range(20)
MAX_STEPS = 400
EVERY = {"splendor": 15}  # a picture every so many steps (7 by default): Splendor's games are long
SOLITAIRES = [name for name, entry in GAMES.items() if not entry.multiplayer]
# (game, env options): every solitaire, and Splendor's single-agent view at each player count.
VIEWS = [(name, {}) for name in SOLITAIRES] + [("splendor", {"num_players": n}) for n in (2, 3, 4)]


def colours(frame: np.ndarray) -> int:
    """How many distinct colours a picture has."""
    packed = (frame[..., 0].astype(np.int32) << 16) | (frame[..., 1].astype(np.int32) << 8) | frame[..., 2]
    return len(np.unique(packed))


def check_picture(frame, shape) -> None:
    assert isinstance(frame, np.ndarray) and frame.dtype == np.uint8 and frame.shape == shape


def episode_pictures(env, seed: int, every: int):
    """Pictures of a random legal episode: the first, every ``every``-th step's and the last."""
    rng = np.random.default_rng(seed)
    _, info = env.reset(seed=seed)
    yield env.render()
    for step in range(1, MAX_STEPS + 1):
        _, _, terminated, truncated, info = env.step(random_legal(rng, info["action_mask"]))
        if terminated or truncated:
            yield env.render()
            return
        if step % every == 0:
            yield env.render()


@pytest.mark.parametrize("name, options", VIEWS, ids=[f"{n}{o.get('num_players', '')}" for n, o in VIEWS])
def test_every_picture_has_the_games_shape_and_shows_something(name, options):
    env = gym.make(GAMES[name].id, render_mode="rgb_array", **options)
    for seed in SEEDS:
        frames = list(episode_pictures(env, seed, every=EVERY.get(name, 7)))
        for frame in frames:
            check_picture(frame, shape(name))
        assert colours(frames[0]) > 20 and colours(frames[-1]) > 20
        assert not np.array_equal(frames[0], frames[-1])


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_the_aec_env_pictures_have_one_shape_for_every_player_count(num_players):
    env = splendor_v0.env(num_players=num_players, render_mode="rgb_array")
    for seed in range(5):
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        first = env.render()
        check_picture(first, shape("splendor"))
        for step, agent in enumerate(env.agent_iter(600)):
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            env.step(random_legal(rng, obs["action_mask"]))
            if step % 25 == 0:
                check_picture(env.render(), shape("splendor"))
        last = env.render()
        check_picture(last, shape("splendor"))
        assert colours(last) > 20 and not np.array_equal(first, last)


@pytest.mark.parametrize("name", list(GAMES))
def test_a_step_changes_the_picture_and_the_same_state_draws_the_same(name):
    env = gym.make(GAMES[name].id, render_mode="rgb_array")
    _, info = env.reset(seed=3)
    before = env.render()
    assert np.array_equal(before, env.render())
    env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert not np.array_equal(before, env.render())


@pytest.mark.parametrize("name", list(GAMES))
def test_the_picture_shows_nothing_the_player_has_not_seen(name):
    """Resampling every unseen card (the deck's order, face-down cards, future dice, the others' blind
    reservations) leaves the picture as it was."""
    env = gym.make(GAMES[name].id, render_mode="rgb_array", skip_forced=False).unwrapped
    rng = np.random.default_rng(0)
    for seed in range(5):
        _, info = env.reset(seed=seed)
        for _ in range(12):
            picture = env.render()
            other = env.rules.determinize(env.state, rng)
            assert np.array_equal(env.draw_picture(other), picture)
            _, _, terminated, truncated, info = env.step(random_legal(rng, info["action_mask"]))
            if terminated or truncated:
                break


def test_splendor_shows_a_blind_reservation_to_its_owner_only():
    env = splendor_v0.raw_env(num_players=2, render_mode="rgb_array")
    env.reset(seed=0)
    env.step(splendor_rules.ACTION_NAMES.index("take_WUG"))
    env.step(splendor_rules.ACTION_NAMES.index("reserve_t3_deck"))  # player_1 reserves blind
    state = env.state_
    hidden = env.render()  # a spectator's view, as the text render
    swapped = splendor_rules.determinize(state, np.random.default_rng(1), seat=0)
    assert swapped.reserved[1, 0] != state.reserved[1, 0]
    assert np.array_equal(env.unwrapped.render(), hidden)
    from tabletop_gym.envs.splendor import picture

    assert np.array_equal(picture.draw(swapped, None), hidden)
    assert np.array_equal(picture.draw(swapped, 0), picture.draw(state, 0))
    assert not np.array_equal(picture.draw(state, 1), hidden)  # its owner sees the card


@pytest.mark.parametrize("env_id", [game.id for game in GAMES.values()])
def test_gymnasium_check_env_with_rgb_array(env_id):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(gym.make(env_id, render_mode="rgb_array").unwrapped)
    assert [str(w.message) for w in caught] == []


@pytest.mark.filterwarnings("ignore:The old environment creation API:DeprecationWarning")  # PettingZoo's own
def test_pettingzoo_render_test():
    from pettingzoo.test import render_test

    render_test(lambda render_mode=None: splendor_v0.env(num_players=3, render_mode=render_mode))


def test_clones_for_search_do_not_draw():
    env = gym.make(GAMES["dead_center"].id, render_mode="rgb_array").unwrapped
    env.reset(seed=0)
    assert env.determinize(np.random.default_rng(0)).render_mode is None
    aec = splendor_v0.raw_env(render_mode="rgb_array")
    aec.reset(seed=0)
    assert aec.determinize(np.random.default_rng(0)).render_mode is None


def test_without_pillow_an_rgb_array_env_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "PIL", None)  # what an installation without Pillow looks like
    monkeypatch.delitem(sys.modules, "tabletop_gym.envs.core.picture", raising=False)
    message = r'pip install "tabletop-gym\[render\]"'
    with pytest.raises(ImportError, match=message):
        gym.make(GAMES["dead_center"].id, render_mode="rgb_array")
    with pytest.raises(ImportError, match=message):
        splendor_v0.raw_env(render_mode="rgb_array")
    with pytest.raises(ImportError, match=message):
        gym.make(GAMES["splendor"].id, render_mode="rgb_array")
    env = gym.make(GAMES["dead_center"].id, render_mode="ansi")
    env.reset(seed=0)
    assert "Dead Center" in env.render()


def test_importing_and_playing_without_pictures_does_not_load_pillow():
    script = (
        "import sys, gymnasium as gym\n"
        "from tabletop_gym.envs import GAMES, splendor_v0\n"
        "for env_id in (game.id for game in GAMES.values()):\n"
        "    env = gym.make(env_id, render_mode='ansi'); env.reset(seed=0); env.render()\n"
        "splendor_v0.env(render_mode='ansi').reset(seed=0)\n"
        "print('PIL' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
