"""The native vector envs play exactly the single env's games: same seeds, same actions, same everything.

Every game with a vector entry point is played side by side with N single envs: observations, rewards, ends,
masks, the outcome at each end and the full state of every game (hidden deck order included) must agree after
every step, through autoresets, with and without forced moves played, in both reward modes.
"""

import copy
import pickle
import subprocess
import sys

import gymnasium as gym
import numba
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode
from helpers import AUTORESET_MODES, SideBySide, random_actions, same_info

from tabletop_gym.agents.base import RandomAgent
from tabletop_gym.envs import GAMES, EpisodeOverError, IllegalActionError
from tabletop_gym.envs.core.vector import TabletopVectorEnv

VECTOR_GAMES = [name for name, game in GAMES.items() if game.vector_env]


def env_id(game):
    return GAMES[game].id


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
    assert vector.metadata["autoreset_mode"] == vector.autoreset_mode == AutoresetMode.NEXT_STEP
    observations, infos = vector.reset(seed=0)
    assert observations in vector.observation_space
    assert infos["action_mask"].shape == (3, single.action_space.n)
    assert np.array_equal(vector.action_masks(), infos["action_mask"].astype(bool))


@pytest.mark.parametrize("game", VECTOR_GAMES)
@pytest.mark.parametrize("seed", [0, 1000])
@pytest.mark.parametrize("autoreset_mode", AUTORESET_MODES)
def test_vector_env_plays_the_single_envs_games(game, seed, autoreset_mode):
    assert play_side_by_side(game, num_envs=24, steps=150, seed=seed, autoreset_mode=autoreset_mode) > 24


@pytest.mark.parametrize("game", VECTOR_GAMES)
@pytest.mark.parametrize("autoreset_mode", AUTORESET_MODES)
def test_vector_env_plays_the_single_envs_games_move_by_move_and_for_score(game, autoreset_mode):
    assert play_side_by_side(game, num_envs=12, steps=150, seed=7, skip_forced=False, reward="score",
                             autoreset_mode=autoreset_mode) > 0


@pytest.mark.parametrize("game", VECTOR_GAMES)
@pytest.mark.parametrize("autoreset_mode", AUTORESET_MODES)
def test_illegal_and_non_integer_actions_lose_their_own_games_in_every_mode(game, autoreset_mode):
    """One action that names no action (a float that is not whole, a string, out of range) forfeits its own game
    only: the other games take their actions as the single envs do."""
    both = SideBySide(env_id(game), 6, 11, autoreset_mode=autoreset_mode)
    rng = np.random.default_rng(3)
    forfeits = 0
    for step in range(60):
        actions = random_actions(rng, both.masks)
        singles = actions.astype(object)
        if step % 5 == 2:
            singles[step % 6] = ["x", None, -1, 10**6, True, "3"][step % 6] if step % 10 == 2 else 2.5
            # An array of objects, or of floats (no float is an action, a whole one included, in either env).
            actions = singles if step % 10 == 2 else singles.astype(np.float64)
        ended = both.step(actions)
        forfeits += sum(info["illegal_action"] for _, info in ended)
    assert forfeits >= 8


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
    assert infos["action_mask"][2].all()  # a finished game's row takes any action: it is ignored


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

    from tabletop_gym.clients.sb3 import SB3VectorEnv

    envs = SB3VectorEnv(gym.make_vec(env_id(game), num_envs=8))
    model = MaskablePPO("MlpPolicy", envs, n_steps=32, batch_size=64, seed=0, device="cpu").learn(512)
    observations = envs.reset()
    actions, _ = model.predict(observations, action_masks=envs.action_masks())
    assert envs.action_masks()[np.arange(8), actions].all()


def test_the_throughput_benchmark_times_the_vector_envs_beside_sync(tmp_path):
    from tabletop_gym.benchmarks.evaluation import throughput

    table = throughput.main(duration=0.05, repeats=1, games=["dungeon_solitaire"], out=str(tmp_path / "t.md"),
                            png=str(tmp_path / "t.png"))
    for n in throughput.VECTOR_SIZES:
        assert f"| Tabletop/DungeonSolitaire-v0 vector N={n} |" in table
    assert "| Tabletop/DungeonSolitaire-v0 SyncVectorEnv N=64 |" in table
    assert "| masked PPO training on Tabletop/DungeonSolitaire-v0 |" in table  # torch is there: the test extras
    assert "vs Sync |" in table and (tmp_path / "t.md").read_text().strip() == table.strip()
    assert "| Tabletop/DungeonSolitaire-v0 compiled loop N=1024 |" in table and "of the loop |" in table
    assert "| Tabletop/DungeonSolitaire-v0 vector N=1024, 2 threads |" in table and "N=1024, 2 threads |" in table
    assert (tmp_path / "t.png").read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize("game", [name for name, entry in GAMES.items()
                                  if hasattr(entry.module("rules"), "step_rows")])
def test_the_compiled_loop_of_the_bench_plays_and_deals_again(game):
    """The bench's ceiling: the game's compiled step alone plays random legal moves and deals every finished game
    again, so after any number of steps every game is running with a legal move or waits, all ones, for its deal;
    and the games have been dealt again (their generators drawn from)."""
    from tabletop_gym.benchmarks.evaluation.kernel import CompiledLoop

    vector = gym.make_vec(env_id(game), num_envs=64).unwrapped
    loop = CompiledLoop(vector, seed=1)
    dealt_at_reset = [rng.bit_generator.state for rng in loop.rngs]
    assert sum(loop.play(steps) for steps in (1, 2, 297)) == 64 * 300  # calls carry on from one another
    rules = vector.batch.rules
    playing = loop.data[:, rules.AT_RESULT] == rules.PLAYING
    assert playing.sum() > 48 and loop.masks[playing].any(axis=1).all() and loop.masks[~playing].all()
    assert np.isfinite(loop.observations).all() and loop.observations[playing].any(axis=1).all()
    dealt = sum(rng.bit_generator.state != state for rng, state in zip(loop.rngs, dealt_at_reset))
    assert dealt >= 60


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


class FirstLegal:
    """A batch player that takes each game's first legal action."""

    def act_batch(self, observations, masks):
        return np.asarray(masks, dtype=bool).argmax(axis=1)


@pytest.mark.parametrize("game", [name for name in VECTOR_GAMES if name != "splendor"])
def test_unfinished_names_the_games_play_out_cut_short_as_a_player_sees_them(game):
    single = gym.make(env_id(game)).unwrapped
    cls = type(gym.make_vec(env_id(game), num_envs=1, vectorization_mode="vector_entry_point").unwrapped)
    vector = cls.like(single, 8)
    with pytest.raises(gym.error.ResetNeeded, match="load"):
        vector.unfinished()
    states, rngs = [], []
    for seed in range(8):
        single.reset(seed=seed)
        states.append(single.state)
        rngs.append(copy.deepcopy(single.np_random))
    vector.load(states, rngs)
    first = vector.action_masks().argmax(axis=1)
    ends = {}
    for steps in (0, 3, 10_000):  # cut at once, a few choices in, and (every game) at the end
        vector.load(states, [copy.deepcopy(rng) for rng in rngs])
        vector.play_out(first, FirstLegal(), steps)
        rows, observations, masks = vector.unfinished()
        ends[steps] = set(rows.tolist())
        for row, observation, mask in zip(rows, observations, masks):
            state = vector.take(int(row))
            np.testing.assert_array_equal(observation, single.rules.observe(state))
            np.testing.assert_array_equal(mask, single.rules.legal_mask(state))
    assert ends[0] >= ends[3] and ends[0] and not ends[10_000]


def test_splendors_view_cannot_be_loaded_from_single_states():
    single = gym.make(env_id("splendor")).unwrapped
    cls = type(gym.make_vec(env_id("splendor"), num_envs=1, vectorization_mode="vector_entry_point").unwrapped)
    with pytest.raises(NotImplementedError, match="seats and opponents"):
        cls.like(single, 2)


# ------------------------------------------------------------------ autoreset modes, infos, finished rows

@pytest.mark.parametrize("game", VECTOR_GAMES)
def test_same_step_autoreset_gives_the_final_observation_and_info_as_gymnasiums_sync_vector_env(game):
    """Gymnasium's own SyncVectorEnv over single envs, in SAME_STEP mode, beside the native env in that mode: the
    same observations, rewards, ends, masks, and final_obs / final_info (the result by name there, by code here),
    added to the infos as Gymnasium adds them: only in a step where a game ended, with the same masks and dtypes."""
    options = {"max_rounds": 3, "opponent": "random"} if game == "splendor" else {}
    native = gym.make_vec(env_id(game), num_envs=4, autoreset_mode="SameStep", **options)
    sync = gym.vector.SyncVectorEnv([lambda: gym.make(env_id(game), **options) for _ in range(4)],
                                    autoreset_mode=AutoresetMode.SAME_STEP)
    assert native.autoreset_mode == native.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    ours, infos = native.reset(seed=2)
    theirs, sync_infos = sync.reset(seed=2)
    rng = np.random.default_rng(0)
    endings = 0
    final_keys = {"final_obs", "_final_obs", "final_info", "_final_info"}
    assert not final_keys & set(infos) and not final_keys & set(sync_infos)
    for _ in range(300):
        assert np.array_equal(ours, theirs)
        assert np.array_equal(infos["action_mask"], sync_infos["action_mask"])
        actions = random_actions(rng, infos["action_mask"])
        ours, rewards, terminated, truncated, infos = native.step(actions)
        theirs, sync_rewards, sync_terminated, sync_truncated, sync_infos = sync.step(actions)
        assert np.array_equal(rewards, sync_rewards)
        assert np.array_equal(terminated, sync_terminated) and np.array_equal(truncated, sync_truncated)
        ended = terminated | truncated
        assert final_keys & set(infos) == final_keys & set(sync_infos) == (final_keys if ended.any() else set())
        if not ended.any():
            continue
        endings += ended.sum()
        for key in ("_final_obs", "_final_info"):
            assert infos[key].dtype == sync_infos[key].dtype == bool and np.array_equal(infos[key], sync_infos[key])
        assert np.array_equal(infos["_final_obs"], ended)
        assert infos["final_obs"].dtype == sync_infos["final_obs"].dtype == object
        assert all(infos["final_obs"][i] is None is sync_infos["final_obs"][i] for i in np.flatnonzero(~ended))
        final, sync_final = infos["final_info"], sync_infos["final_info"]
        assert final["action_mask"].dtype == sync_final["action_mask"].dtype
        assert np.array_equal(final["action_mask"], sync_final["action_mask"])  # ones where a game ended, else zeros
        # Every key, the same; the masks too, but for ``_illegal_action``: the native env's says which games an
        # illegal action ended, where Gymnasium's says which infos have the key (every single env's has it).
        assert set(final) == set(sync_final)
        for key in (key for key in sync_final if key.startswith("_") and key != "_illegal_action"):
            assert np.array_equal(final[key], sync_final[key]), key
        assert np.array_equal(final["_illegal_action"], final["illegal_action"] & ended)
        for i in np.flatnonzero(ended):
            assert np.array_equal(infos["final_obs"][i], sync_infos["final_obs"][i])
            single = {key: values[i] for key, values in sync_final.items()
                      if not key.startswith("_") and sync_final["_" + key][i]}
            assert same_info(native.info_of(final, i), single)
    assert endings >= 4


@pytest.mark.parametrize("game", VECTOR_GAMES)
def test_disabled_autoreset_waits_for_a_reset_mask_and_refuses_to_step_a_finished_game(game):
    vector = gym.make_vec(env_id(game), num_envs=3, autoreset_mode=AutoresetMode.DISABLED)
    _, infos = vector.reset(seed=4)
    actions = random_actions(np.random.default_rng(0), infos["action_mask"])
    actions[1] = int(np.flatnonzero(~infos["action_mask"][1].astype(bool))[0])  # game 1 forfeits
    _, _, terminated, _, infos = vector.step(actions)
    assert terminated[1] and infos["action_mask"][1].all() and vector.action_masks()[1].all()
    before = [vector.take(i) for i in range(3)]
    with pytest.raises(EpisodeOverError, match=r"\[1\].*reset_mask"):
        vector.step(random_actions(np.random.default_rng(1), infos["action_mask"]))
    assert all(vector.take(i).equals(before[i]) for i in range(3))
    _, infos = vector.reset(options={"reset_mask": np.array([False, True, False])})
    single = gym.make(env_id(game)).unwrapped
    single.reset(seed=5)
    single.reset()  # game 1's second deal, from its own generator
    assert vector.take(1).equals(single.state) and np.array_equal(infos["action_mask"][1], single.action_masks())
    vector.step(random_actions(np.random.default_rng(1), infos["action_mask"]))


@pytest.mark.parametrize("game", VECTOR_GAMES)
def test_autoreset_mode_is_an_option_with_a_clear_error(game):
    for mode in ("SameStep", "SAME_STEP", AutoresetMode.SAME_STEP):
        assert gym.make_vec(env_id(game), num_envs=2, autoreset_mode=mode).autoreset_mode == AutoresetMode.SAME_STEP
    assert gym.make_vec(env_id(game), num_envs=2).metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    with pytest.raises(ValueError, match="autoreset_mode must be one of 'NextStep', 'SameStep', 'Disabled'"):
        gym.make_vec(env_id(game), num_envs=2, autoreset_mode="sometimes")
    # One env's mode is not every env's: the metadata is its own.
    assert type(gym.make_vec(env_id(game), num_envs=2).unwrapped).metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP


@pytest.mark.parametrize("game", VECTOR_GAMES)
@pytest.mark.parametrize("autoreset_mode", AUTORESET_MODES)
def test_infos_are_numeric_with_one_set_of_keys_and_the_result_a_published_code(game, autoreset_mode):
    options = {"max_rounds": 2} if game == "splendor" else {}
    vector = gym.make_vec(env_id(game), num_envs=8, autoreset_mode=autoreset_mode, **options)
    _, infos = vector.reset(seed=0)
    keys = set(infos)
    assert {"action_mask", "won", "score", "result", "illegal_action"} <= keys
    assert all(key.startswith("_") or "_" + key in keys for key in keys)
    rng = np.random.default_rng(0)
    results = set()
    for _ in range(80):
        _, _, terminated, truncated, infos = vector.step(random_actions(rng, infos["action_mask"]))
        at_once = autoreset_mode == AutoresetMode.SAME_STEP and (terminated | truncated).any()
        # Same-step autoreset adds the end's keys in a step where a game ended, as Gymnasium's vector envs do.
        assert set(infos) == keys | ({"final_obs", "_final_obs", "final_info", "_final_info"} if at_once else set())
        if autoreset_mode == AutoresetMode.SAME_STEP and not at_once:
            continue
        ends = infos["final_info"] if at_once else infos
        for key, values in ends.items():
            assert values.dtype != object and values.shape[0] == 8, key
        assert np.array_equal(ends["_result"], terminated | truncated)
        results |= {vector.RESULT_NAMES[code] for code in ends["result"][ends["_result"]]}
        if autoreset_mode == AutoresetMode.DISABLED and (terminated | truncated).any():
            _, infos = vector.reset(options={"reset_mask": terminated | truncated})
            assert set(infos) == keys
    assert results and results <= set(vector.RESULT_NAMES) and "playing" not in results


@pytest.mark.parametrize("game", VECTOR_GAMES)
def test_a_random_agent_plays_every_row_through_autoresets(game):
    """A finished game's row carries an all-ones mask (its action is ignored), so a masked sampler never meets a
    row with nothing to choose (the random agent refuses such a row)."""
    vector = gym.make_vec(env_id(game), num_envs=6)
    observations, infos = vector.reset(seed=1)
    agent = RandomAgent(seed=0)
    finished = 0
    for _ in range(150):
        masks = infos["action_mask"].astype(bool)
        assert masks.any(axis=1).all()
        observations, _, terminated, truncated, infos = vector.step(agent.act_batch(observations, masks))
        finished += (terminated | truncated).sum()
        assert infos["action_mask"][terminated | truncated].all()
    assert finished >= 3


@pytest.mark.parametrize("game", VECTOR_GAMES)
def test_a_vector_env_refused_by_its_constructor_closes_cleanly(game):
    """Gymnasium's VectorEnv.__del__ (1.1) closes the env: one whose constructor refused its options has no dealer."""
    cls = type(gym.make_vec(env_id(game), num_envs=1).unwrapped)
    vector = cls.__new__(cls)
    with pytest.raises(ValueError, match="reward"):
        vector.__init__(2, reward="points")
    vector.close()
    assert vector.closed


@pytest.mark.parametrize("game", VECTOR_GAMES)
def test_the_vector_env_pickles_mid_game(game):
    vector = gym.make_vec(env_id(game), num_envs=3, autoreset_mode="SameStep")
    _, infos = vector.reset(seed=8)
    vector.step(random_actions(np.random.default_rng(0), infos["action_mask"]))
    other = pickle.loads(pickle.dumps(vector))
    actions = random_actions(np.random.default_rng(1), vector.action_masks())
    mine, theirs = vector.step(actions), other.step(actions)
    assert all(np.array_equal(a, b) for a, b in zip(mine[:4], theirs[:4]))
    assert all(vector.take(i).equals(other.take(i)) for i in range(3))


@pytest.mark.parametrize("game", VECTOR_GAMES)
def test_the_stable_baselines3_adapter_plays_the_same_games_in_every_autoreset_mode(game):
    """Its infos at an end are the single env's (the result as its code), with the terminal observation, whichever
    mode the env resets in: the games and their ends agree step by step."""
    from tabletop_gym.clients.sb3 import SB3VectorEnv

    adapters = [SB3VectorEnv(gym.make_vec(env_id(game), num_envs=4, autoreset_mode=mode)) for mode in AUTORESET_MODES]
    for adapter in adapters:
        adapter.seed(6)
    observations = [adapter.reset() for adapter in adapters]
    assert all(np.array_equal(obs, observations[0]) for obs in observations[1:])
    rng = np.random.default_rng(0)
    ends = 0
    for _ in range(60):
        actions = random_actions(rng, adapters[0].action_masks())
        results = [adapter.step(actions) for adapter in adapters]
        first, *others = results
        for other in others:
            assert np.array_equal(first[0], other[0]) and np.array_equal(first[1], other[1])
            assert np.array_equal(first[2], other[2])
            for mine, theirs in zip(first[3], other[3]):
                assert mine.keys() == theirs.keys()
                assert all(np.array_equal(mine[k], theirs[k]) for k in mine)
        for done, record in zip(first[2], first[3]):
            assert done == ("terminal_observation" in record)
            if done:
                assert isinstance(record["result"], np.int64) and {"won", "score"} <= set(record)
                ends += 1
        assert all(np.array_equal(adapters[0].action_masks(), adapter.action_masks()) for adapter in adapters)
    assert ends >= 2


# ---------------------------------------------------------------- threads and the step's own arrays

ONE_CALL_GAMES = [name for name in VECTOR_GAMES
                  if gym.make_vec(env_id(name), num_envs=1).unwrapped.batch.steps_in_one_call()]


def same_steps(one, other) -> bool:
    """Two step (or reset) results agree: observations, rewards, ends, infos (final_obs and final_info too)."""
    def agree(a, b) -> bool:
        if isinstance(a, dict):
            return a.keys() == b.keys() and all(agree(a[key], b[key]) for key in a)
        a, b = np.asarray(a), np.asarray(b)
        if a.dtype == object:
            return a.shape == b.shape and all(agree(x, y) if x is not None else y is None for x, y in zip(a, b))
        return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)
    return len(one) == len(other) and all(agree(a, b) for a, b in zip(one, other))


def test_every_solitaire_steps_in_one_compiled_call():
    assert set(ONE_CALL_GAMES) == {name for name in VECTOR_GAMES if not GAMES[name].multiplayer}


@pytest.mark.parametrize("game", ONE_CALL_GAMES)
@pytest.mark.parametrize("autoreset_mode", AUTORESET_MODES)
def test_two_threads_play_exactly_the_games_of_one(game, autoreset_mode):
    """Rows are shared among threads, each row's game its own: every step's results and every game's state (hidden
    deck included) are those of one thread, through autoresets and illegal moves."""
    one, two = (gym.make_vec(env_id(game), num_envs=67, autoreset_mode=autoreset_mode, num_threads=threads,
                             illegal_action="terminate") for threads in (1, 2))
    assert two.unwrapped.num_threads == 2
    first, second = one.reset(seed=5), two.reset(seed=5)
    assert same_steps(first, second)
    rng = np.random.default_rng(5)
    for step in range(300):
        actions = random_actions(rng, first[-1]["action_mask"])
        if step % 50 == 7:
            actions[3] = one.single_action_space.n - 1  # now and then an illegal move (or a legal last action)
        first, second = one.step(actions), two.step(actions)
        assert same_steps(first, second)
        if autoreset_mode == AutoresetMode.DISABLED and (first[2] | first[3]).any():
            done = first[2] | first[3]
            first, second = (env.reset(options={"reset_mask": done}) for env in (one, two))
            assert same_steps(first, second)
    assert all(one.unwrapped.take(i).equals(two.unwrapped.take(i)) for i in range(67))


@pytest.mark.parametrize("game", ONE_CALL_GAMES)
def test_without_copy_the_observations_are_the_envs_own_array_rewritten_each_step(game):
    copying, own = (gym.make_vec(env_id(game), num_envs=8, copy=copy) for copy in (True, False))
    copying.reset(seed=1), own.reset(seed=1)
    rng, kept = np.random.default_rng(1), []
    for _ in range(3):
        actions = random_actions(rng, copying.action_masks())
        mine, theirs = copying.step(actions), own.step(actions)
        assert same_steps(mine, theirs)
        kept.append((mine[0], theirs[0]))
    assert kept[0][1] is kept[2][1]  # one array, rewritten: a caller who keeps it copies it
    assert kept[0][0] is not kept[2][0] and not np.shares_memory(kept[0][0], kept[2][0])


@pytest.mark.parametrize("game", VECTOR_GAMES)
def test_bad_thread_and_copy_options_are_clear_errors(game):
    for bad in (0, -1, 1.5, "2", True):
        with pytest.raises(ValueError, match="num_threads must be a positive integer"):
            gym.make_vec(env_id(game), num_envs=2, num_threads=bad)
    with pytest.raises(ValueError, match="copy must be True or False"):
        gym.make_vec(env_id(game), num_envs=2, copy="yes")
    if game in ONE_CALL_GAMES:
        with pytest.raises(ValueError, match="NUMBA_NUM_THREADS"):
            gym.make_vec(env_id(game), num_envs=2, num_threads=numba.config.NUMBA_NUM_THREADS + 1)
    else:
        with pytest.raises(ValueError, match="steps on one thread only"):
            gym.make_vec(env_id(game), num_envs=2, num_threads=2)


def test_one_thread_never_starts_numbas_threads():
    """numba's threads start once per process and a child forked after they started cannot use them: a vector env
    that was not asked for threads must not start them."""
    script = ("import gymnasium as gym, numpy as np, numba.np.ufunc.parallel as parallel, tabletop_gym.envs\n"
              f"for game_id in {[env_id(name) for name in ONE_CALL_GAMES]!r}:\n"
              "    v = gym.make_vec(game_id, num_envs=4)\n"
              "    infos = v.reset(seed=0)[1]\n"
              "    for _ in range(50): infos = v.step(infos['action_mask'].argmax(axis=1))[4]\n"
              "print(parallel._is_initialized)\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"
