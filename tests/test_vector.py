"""The native vector envs play exactly the single env's games: same seeds, same actions, same everything.

Every game with a vector entry point is played side by side with N single envs: observations, rewards, ends,
masks, the outcome at each end and the full state of every game (hidden deck order included) must agree after
every step, through autoresets, with and without forced moves played, in both reward modes.
"""

import copy

import gymnasium as gym
import numpy as np
import pytest
from helpers import SideBySide, random_actions

from tabletop_gym.envs import GAMES, VECTOR_ENTRY_POINTS, IllegalActionError
from tabletop_gym.envs.core.vector import TabletopVectorEnv

VECTOR_GAMES = list(VECTOR_ENTRY_POINTS)


def env_id(game):
    return GAMES[game][0]


def play_side_by_side(game, num_envs, steps, seed, **options):
    """Step a vector env and num_envs single envs with the same random legal actions; the number of games ended."""
    both = SideBySide(env_id(game), num_envs, seed, **options)
    rng = np.random.default_rng(seed)
    return sum(len(both.step(random_actions(rng, both.masks))) for _ in range(steps))


@pytest.mark.parametrize("game", VECTOR_GAMES)
def test_make_vec_returns_the_native_vector_env(game):
    vector = gym.make_vec(env_id(game), num_envs=3)
    assert isinstance(vector, TabletopVectorEnv)
    single = gym.make(env_id(game))
    assert vector.single_observation_space == single.observation_space
    assert vector.single_action_space == single.action_space
    assert vector.observation_space.shape == (3, *single.observation_space.shape)
    assert vector.metadata["autoreset_mode"] == gym.vector.AutoresetMode.NEXT_STEP
    observations, infos = vector.reset(seed=0)
    assert observations in vector.observation_space
    assert infos["action_mask"].shape == (3, single.action_space.n)
    assert np.array_equal(vector.action_masks(), infos["action_mask"].astype(bool))


@pytest.mark.parametrize("game", VECTOR_GAMES)
@pytest.mark.parametrize("seed", [0, 1000])
def test_vector_env_plays_the_single_envs_games(game, seed):
    assert play_side_by_side(game, num_envs=24, steps=150, seed=seed) > 24


@pytest.mark.parametrize("game", VECTOR_GAMES)
def test_vector_env_plays_the_single_envs_games_move_by_move_and_for_score(game):
    assert play_side_by_side(game, num_envs=12, steps=150, seed=7, skip_forced=False, reward="score") > 0


@pytest.mark.parametrize("game", VECTOR_GAMES)
def test_illegal_actions_raise_and_change_nothing_or_lose_that_game(game):
    vector = gym.make_vec(env_id(game), num_envs=4, illegal_action="raise")
    observations, infos = vector.reset(seed=3)
    before = [vector.take(i) for i in range(4)]
    actions = random_actions(np.random.default_rng(0), infos["action_mask"])
    bad = int(np.flatnonzero(~infos["action_mask"][2].astype(bool))[0])
    actions[2] = bad
    with pytest.raises(IllegalActionError, match="in game 2"):
        vector.step(actions)
    assert all(vector.take(i).equals(before[i]) for i in range(4))

    vector = gym.make_vec(env_id(game), num_envs=4)
    vector.reset(seed=3)
    observations, rewards, terminated, truncated, infos = vector.step(actions)
    assert terminated[2] and infos["illegal_action"][2] and infos["_illegal_action"].tolist() == [0, 0, 1, 0]
    single = gym.make(env_id(game)).unwrapped
    single.reset(seed=3 + 2)
    loss = single.step(bad)[1]  # 0 in the solitaires, -1 in Splendor (PettingZoo's convention)
    assert rewards[2] == loss and not infos["won"][2]
    assert not infos["action_mask"][2].any()


@pytest.mark.parametrize("game", VECTOR_GAMES)
def test_reset_mask_deals_new_games_only_where_asked(game):
    vector = gym.make_vec(env_id(game), num_envs=3)
    observations, infos = vector.reset(seed=5)
    vector.step(random_actions(np.random.default_rng(0), infos["action_mask"]))
    kept = [vector.take(i) for i in range(3)]
    fresh, _ = vector.reset(seed=50, options={"reset_mask": np.array([False, True, False])})
    assert vector.take(0).equals(kept[0]) and vector.take(2).equals(kept[2])
    single = gym.make(env_id(game)).unwrapped
    assert np.array_equal(fresh[1], single.reset(seed=51)[0]) and vector.take(1).equals(single.state)


@pytest.mark.parametrize("game", VECTOR_GAMES)
def test_bad_vector_options_are_clear_errors(game):
    with pytest.raises(ValueError, match="num_envs"):
        gym.make_vec(env_id(game), num_envs=0)
    with pytest.raises(ValueError, match="reward"):
        gym.make_vec(env_id(game), num_envs=2, reward="points")
    vector = gym.make_vec(env_id(game), num_envs=2)
    with pytest.raises(ValueError, match="unknown reset option"):
        vector.reset(options={"shuffle": True})
    with pytest.raises(gym.error.ResetNeeded):
        vector.step(np.zeros(2, dtype=int))
    vector.reset(seed=0)
    with pytest.raises(ValueError, match="2 actions"):
        vector.step(np.zeros(3, dtype=int))


def test_a_stacked_deck_is_dealt_to_every_game():
    deck = ("5D 3S QC JS 9C AD 3C 2D 4D 8D TS 9S KS AH 5S JH 3D KD 4S JK 6D 5C KC QS 7S 2S 8S JD AC AS "
            "8C QD 6S TD KH 6C 9D 2C 7C 4C TC JC 7D QH").split()
    vector = gym.make_vec(env_id("dungeon_solitaire"), num_envs=3)
    observations, _ = vector.reset(options={"deck": deck})
    single = gym.make(env_id("dungeon_solitaire")).unwrapped
    single_obs, _ = single.reset(options={"deck": deck})
    assert all(np.array_equal(observations[i], single_obs) and vector.take(i).equals(single.state) for i in range(3))


@pytest.mark.parametrize("game", VECTOR_GAMES)
def test_maskable_ppo_trains_on_the_vector_env(game):
    from sb3_contrib import MaskablePPO

    from tabletop_gym.agents.sb3_vector import SB3VectorEnv

    envs = SB3VectorEnv(gym.make_vec(env_id(game), num_envs=8))
    model = MaskablePPO("MlpPolicy", envs, n_steps=32, batch_size=64, seed=0, device="cpu").learn(512)
    observations = envs.reset()
    actions, _ = model.predict(observations, action_masks=envs.action_masks())
    assert envs.action_masks()[np.arange(8), actions].all()


def test_the_throughput_benchmark_times_the_vector_envs_beside_sync(tmp_path):
    from tabletop_gym.benchmarks import throughput

    table = throughput.main(duration=0.05, repeats=1, games=["dungeon_solitaire"], out=str(tmp_path / "t.md"),
                            png=str(tmp_path / "t.png"))
    for n in throughput.VECTOR_SIZES:
        assert f"| Tabletop/DungeonSolitaire-v0 vector N={n} |" in table
    assert "| Tabletop/DungeonSolitaire-v0 SyncVectorEnv N=64 |" in table
    assert "vs Sync |" in table and (tmp_path / "t.md").read_text().strip() == table.strip()
    assert (tmp_path / "t.png").read_bytes()[:4] == b"\x89PNG"


def test_games_started_by_autoreset_are_dealt_without_the_reset_options():
    """As with a single env (and SyncVectorEnv): reset options apply to the reset that was given them."""
    deck = ("5D 3S QC JS 9C AD 3C 2D 4D 8D TS 9S KS AH 5S JH 3D KD 4S JK 6D 5C KC QS 7S 2S 8S JD AC AS "
            "8C QD 6S TD KH 6C 9D 2C 7C 4C TC JC 7D QH").split()
    vector = gym.make_vec(env_id("dungeon_solitaire"), num_envs=2)
    single = gym.make(env_id("dungeon_solitaire")).unwrapped
    vector.reset(seed=4, options={"deck": deck})
    single.reset(seed=4, options={"deck": deck})
    vector.step(np.array([6, 6]))  # not legal: both games are lost, and the next step starts new ones
    vector.step(np.zeros(2, dtype=int))
    single.reset()
    assert vector.take(0).equals(single.state)


def test_a_bad_deck_is_refused_and_changes_nothing():
    vector = gym.make_vec(env_id("dungeon_solitaire"), num_envs=2)
    vector.reset(seed=1)
    before = [vector.take(i) for i in range(2)]
    with pytest.raises(ValueError, match="bad deck"):
        vector.reset(seed=9, options={"deck": ["AS", "AS"]})
    assert all(vector.take(i).equals(before[i]) for i in range(2))
    vector.step(np.array([6, 6]))  # both games lost: the next step deals from the generators of seeds 1 and 2
    vector.step(np.zeros(2, dtype=int))
    single = gym.make(env_id("dungeon_solitaire")).unwrapped
    single.reset(seed=1)
    single.reset()
    assert vector.take(0).equals(single.state)


@pytest.mark.parametrize("game", [name for name in VECTOR_GAMES if name != "splendor"])
def test_load_starts_each_game_from_a_single_envs_state_and_its_generator(game):
    """What a search does with its sampled worlds: games loaded mid-way go on as the single envs they came from."""
    rng = np.random.default_rng(0)
    singles = [gym.make(env_id(game)).unwrapped for _ in range(3)]
    for i, single in enumerate(singles):
        obs, info = single.reset(seed=i)
        for _ in range(3 + i):
            obs, _, terminated, truncated, info = single.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
            if terminated or truncated:
                obs, info = single.reset(seed=i + 10)
    cls = type(gym.make_vec(env_id(game), num_envs=1, vectorization_mode="vector_entry_point").unwrapped)
    vector = cls.like(singles[0], 3)
    with pytest.raises(ValueError, match="3 states"):
        vector.load([single.state for single in singles[:2]], [single.np_random for single in singles[:2]])
    obs, infos = vector.load([single.state for single in singles],
                             [copy.deepcopy(single.np_random) for single in singles])
    with pytest.raises(IllegalActionError, match="in game"):
        vector.play_out(np.full(3, -1), None)
    going = np.ones(3, dtype=bool)
    for _ in range(40):
        expected = [single.rules.observe(single.state) for single in singles]
        for i in np.flatnonzero(going):
            np.testing.assert_array_equal(obs[i], expected[i])
            assert np.array_equal(infos["action_mask"][i], singles[i].action_masks())
        actions = [int(rng.choice(np.flatnonzero(m))) if m.any() else 0 for m in infos["action_mask"]]
        obs, rewards, terminated, truncated, infos = vector.step(actions)
        for i in np.flatnonzero(going):
            _, reward, ended, cut, _ = singles[i].step(actions[i])
            assert (reward, ended, cut) == (rewards[i], terminated[i], truncated[i])
            going[i] = not (ended or cut)


def test_splendors_view_cannot_be_loaded_from_single_states():
    single = gym.make(env_id("splendor")).unwrapped
    cls = type(gym.make_vec(env_id("splendor"), num_envs=1, vectorization_mode="vector_entry_point").unwrapped)
    with pytest.raises(NotImplementedError, match="seats and opponents"):
        cls.like(single, 2)
