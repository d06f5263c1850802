"""Splendor's single-agent view (Tabletop/Splendor-v0), its scripted players, the greedy agent, and the
command line and evaluation for Splendor."""

import io
import pickle
import re
import warnings

import gymnasium as gym
import numpy as np
import pytest
from helpers import random_legal, same

from tabletop_gym.agents import make_agent
from tabletop_gym.agents.search import SearchAgent
from tabletop_gym.agents.splendor import GreedyAgent
from tabletop_gym.benchmarks.cli import build_parser, cmd_play, main
from tabletop_gym.benchmarks.evaluation.evaluate import evaluate
from tabletop_gym.envs import splendor_v0
from tabletop_gym.envs.core.errors import IllegalActionError
from tabletop_gym.envs.splendor import SplendorEnv, players, rules
from tabletop_gym.envs.splendor.single import STAND_IN

ENV_ID = "Tabletop/Splendor-v0"
FIELDS = [name for name, _ in rules.OBSERVATION_FIELDS]


class Recorder:
    """An agent that plays random legal actions and records what it was shown."""

    def __init__(self):
        self.seen = []
        self.seeds = []
        self.rng = np.random.default_rng(0)

    def reset(self, seed=None):
        self.seeds.append(seed)
        self.rng = np.random.default_rng(seed)

    def act(self, observation, action_mask):
        action = random_legal(self.rng, action_mask)
        self.seen.append((observation.copy(), action_mask.copy(), action))
        return action


def make(**kwargs):
    return gym.make(ENV_ID, **kwargs).unwrapped


def test_the_learner_sits_at_its_seat_and_the_seats_before_it_play_first():
    env = make(num_players=3, seat=2, opponent="random")
    obs, info = env.reset(seed=0)
    d = env.describe()
    assert d["current"] == 2 and env.seat == 2 and d["round"] == 1
    assert [seat for seat, _ in env.opponent_moves()] == [0, 1]
    view = dict(zip(FIELDS, obs))
    assert view["my_seat_2"] == 1 and view["to_play_seat0"] == 1 and view["players_3"] == 1
    assert np.array_equal(obs, rules.observe(env.state, 2))
    _, _, _, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert [seat for seat, _ in env.opponent_moves()][:2] == [0, 1] and env.state.current == 2


def test_a_random_seat_is_drawn_per_episode_from_the_seed():
    env = make(num_players=4, seat="random", opponent="random")
    seats = []
    for seed in range(40):
        env.reset(seed=seed)
        seats.append(env.seat)
        assert env.state.current == env.seat
    assert set(seats) == {0, 1, 2, 3}
    again = make(num_players=4, seat="random", opponent="random")
    for seed, seat in enumerate(seats):
        again.reset(seed=seed)
        assert again.seat == seat


def test_opponent_agents_see_their_own_seat_and_are_reseeded_from_the_env():
    first, second = Recorder(), Recorder()
    env = make(num_players=3, seat=1, opponent=[first, second])
    _, info = env.reset(seed=4)
    rng = np.random.default_rng(0)
    for _ in range(20):
        _, _, terminated, truncated, info = env.step(random_legal(rng, info["action_mask"]))
        if terminated or truncated:
            break
    for recorder, seat in ((first, 0), (second, 2)):
        assert recorder.seen and len(recorder.seeds) == 1 and recorder.seeds[0] is not None
        for observation, mask, _ in recorder.seen:
            assert dict(zip(FIELDS, observation))[f"my_seat_{seat}"] == 1
            assert mask.dtype == np.int8 and mask.sum() > 1  # single-action decisions are not asked
    # The same seed gives the same opponents' play.
    again_first, again_second = Recorder(), Recorder()
    env = make(num_players=3, seat=1, opponent=[again_first, again_second])
    env.reset(seed=4)
    assert again_first.seeds == first.seeds and again_second.seeds == second.seeds


def test_an_opponent_agent_playing_an_illegal_action_is_an_error():
    class Cheat:
        def act(self, observation, action_mask):
            return int(np.flatnonzero(action_mask == 0)[0])

    env = make(seat=1, opponent=Cheat())
    with pytest.raises(IllegalActionError, match="by the opponent at seat 0"):
        env.reset(seed=0)


@pytest.mark.parametrize("kwargs, message", [
    ({"seat": 2}, "seat must be 'random' or a seat 0-1, got 2"),
    ({"seat": "first"}, "seat must be 'random' or a seat 0-1, got 'first'"),
    ({"opponent": "smart"}, "opponent must be 'random', 'greedy' or an agent object"),
    ({"opponent": object()}, "opponent must be 'random', 'greedy' or an agent object"),
    ({"opponent": ["random", "greedy"]}, "opponent as a list needs one entry per other seat (1), got 2"),
    ({"opponent": ["random", "bad"], "num_players": 3}, "opponent[1] must be 'random', 'greedy'"),
])
def test_bad_view_options_are_rejected(kwargs, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        gym.make(ENV_ID, **kwargs)


def play_out(env, info, rng):
    while True:
        obs, reward, terminated, truncated, info = env.step(random_legal(rng, info["action_mask"]))
        if terminated or truncated:
            return reward, terminated, truncated, info


def test_the_reward_is_plus_one_for_a_win_minus_one_for_a_loss_and_zero_on_truncation():
    rng = np.random.default_rng(0)
    seen = set()
    for seed in range(60):
        env = make(opponent="random", max_rounds=48)
        _, info = env.reset(seed=seed)
        reward, terminated, truncated, info = play_out(env, info, rng)
        assert info["score"] == int(env.state.points[env.seat])
        if truncated:
            assert reward == 0.0 and env.RESULT_NAMES[info["result"]] == "truncated" and not info["won"]
        else:
            assert reward == (1.0 if info["winners"][env.seat] else -1.0) and reward == (1.0 if info["won"] else -1.0)
        seen.add(reward)
    assert seen == {1.0, -1.0, 0.0}


def test_reward_score_gives_the_learners_points():
    env = make(opponent="random", reward="score")
    _, info = env.reset(seed=1)
    reward, terminated, truncated, info = play_out(env, info, np.random.default_rng(1))
    assert terminated and reward == float(info["score"]) == float(env.state.points[0])


def test_an_illegal_action_by_the_learner_ends_the_game_with_minus_one():
    env = make(seat=1)
    _, info = env.reset(seed=0)
    _, reward, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"] == 0)[0]))
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert info["illegal_action"] and env.RESULT_NAMES[info["result"]] == "forfeited" and not info["won"]
    assert env.state.forfeited_by == 1


def test_describe_is_the_public_table_and_render_is_the_learners_view():
    env = make(opponent="random", render_mode="ansi")
    env.reset(seed=0, options={"deck": {"tier3": [70, 71, 72, 73, 88]}})
    env.step(rules.ACTION_NAMES.index("reserve_t3_deck"))
    assert env.describe()["players"][0]["reserved"] == ["hidden_t3"]
    assert env.describe(seat=0)["players"][0]["reserved"] == [88]
    assert "#88" in env.render() and "hidden_t3" not in env.render().split("player_0")[1].split("player_1")[0]


def test_the_view_plays_the_same_game_as_the_aec_env():
    """The learner's and the opponent's actions replayed in splendor_v0 give the same game."""
    recorder = Recorder()
    env = make(num_players=2, seat=1, opponent=recorder, skip_forced=False)
    _, info = env.reset(seed=9)
    rng = np.random.default_rng(2)
    learner = []
    terminated = truncated = False
    while not (terminated or truncated):
        learner.append(random_legal(rng, info["action_mask"]))
        _, _, terminated, truncated, info = env.step(learner[-1])
    # The same seed deals the same game (a fixed seat draws nothing before the deal).
    aec = splendor_v0.raw_env(num_players=2, skip_forced=False)
    aec.reset(seed=9)
    opponent, mine = iter(recorder.seen), iter(learner)
    while not (aec.terminations[aec.agent_selection] or aec.truncations[aec.agent_selection]):
        agent = aec.agent_selection
        obs = aec.observe(agent)
        if agent == "player_1":
            assert np.array_equal(obs["observation"], rules.observe(aec.state_, 1))
            aec.step(next(mine))
        elif obs["action_mask"].sum() == 1:
            aec.step(int(obs["action_mask"].argmax()))  # played for the opponent without asking it
        else:
            seen, mask, action = next(opponent)
            assert np.array_equal(seen, obs["observation"]) and np.array_equal(mask, obs["action_mask"])
            aec.step(action)
    assert next(mine, None) is None and next(opponent, None) is None
    assert aec.describe() == env.describe()


# ------------------------------------------------------------------ the players


def test_random_action_is_uniform_over_the_legal_ones():
    mask = np.zeros(72, dtype=bool)
    mask[[3, 40, 71]] = True
    rng = np.random.default_rng(0)
    counts = np.bincount([players.random_action(mask, rng) for _ in range(3000)], minlength=72)
    assert set(np.flatnonzero(counts)) == {3, 40, 71} and counts[[3, 40, 71]].min() > 900


def test_greedy_buys_the_card_with_the_most_points_it_can_afford():
    env = splendor_v0.raw_env(skip_forced=False, illegal_action="raise")
    env.reset(seed=0, options={"deck": {"tier1": [0, 7, 2, 3], "tier2": [42, 41, 40, 43], "nobles": [3, 4, 9]}})
    saved = env.get_state()
    saved["game"].bank[[1, 3, 5]] -= [3, 4, 1]
    saved["game"].tokens[0, [1, 3, 5]] += [3, 4, 1]  # U3 R4 Y1: card 0 (U3, 0 points) and 42 (R5, 2 points)
    env.set_state(saved)
    obs = env.observe("player_0")
    assert {"buy_t1_0", "buy_t2_0"} <= set(env.legal_action_names())
    assert rules.ACTION_NAMES[GreedyAgent().act(obs)] == "buy_t2_0"


def test_greedy_takes_gems_toward_its_target_and_returns_what_it_needs_least():
    env = splendor_v0.raw_env(skip_forced=False, illegal_action="raise")
    env.reset(seed=0)
    agent = GreedyAgent()
    first = rules.ACTION_NAMES[agent.act(env.observe("player_0"))]
    assert first.startswith("take_")
    saved = env.get_state()
    s = saved["game"]
    s.bank[:5] -= [4, 3, 0, 0, 3]
    s.tokens[0, :5] += [4, 3, 0, 0, 3]  # 10 tokens
    env.set_state(saved)
    env.step(rules.ACTION_NAMES.index("take_GRK"))  # 13: three to return
    choice = rules.ACTION_NAMES[agent.act(env.observe("player_0"))]
    assert choice.startswith("return_") and choice != "return_Y"


def test_greedy_agent_takes_an_aec_observation_dict_and_refuses_an_empty_mask():
    env = splendor_v0.raw_env()
    env.reset(seed=3)
    obs = env.observe("player_0")
    assert GreedyAgent().act(obs) == GreedyAgent().act(obs["observation"], obs["action_mask"])
    with pytest.raises(ValueError, match="no legal action"):
        GreedyAgent().act(obs["observation"], np.zeros(72, dtype=np.int8))


def test_make_agent_greedy_is_splendors_and_refused_for_other_games():
    assert isinstance(make_agent("greedy", "splendor"), GreedyAgent)
    assert isinstance(make_agent("greedy", "Tabletop/Splendor-v0"), GreedyAgent)
    with pytest.raises(ValueError, match="the greedy agent plays splendor only; dungeon_solitaire has the 'heuristic' agent"):
        make_agent("greedy", "dungeon_solitaire")
    with pytest.raises(ValueError, match="the greedy agent depends on the game"):
        make_agent("greedy")


def test_greedy_wins_at_least_90_percent_of_two_player_games_against_random():
    result = evaluate("splendor", "greedy", episodes=200, opponent="random", workers=1, progress=False)
    assert result.win_rate >= 0.9 and min(result.seat_win_rates) >= 0.85, result


def test_greedy_plays_every_seat_of_a_four_player_game_to_the_end():
    env = make(num_players=4, opponent="greedy", seat="random")
    agent = GreedyAgent()
    for seed in range(10):
        obs, info = env.reset(seed=seed)
        while True:
            obs, reward, terminated, truncated, info = env.step(agent.act(obs, info["action_mask"]))
            if terminated or truncated:
                break
        assert terminated and env.unwrapped.RESULT_NAMES[info["result"]] == "finished"


def test_the_view_pickles_with_its_opponents():
    env = make(opponent=GreedyAgent(), seat="random")
    env.reset(seed=5)
    copy = pickle.loads(pickle.dumps(env))
    assert copy.seat == env.seat and copy.describe() == env.describe()


# ------------------------------------------------------------------ command line and evaluation


def test_eval_reports_an_agent_against_an_opponent_with_seats_rotated(capsys):
    assert main(["eval", "splendor", "--agent", "random", "--opponent", "random", "--episodes", "12",
                 "--workers", "1", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("random against random (2 players, seats rotated; win rate by seat ")
    assert "on Tabletop/Splendor-v0: win rate" in out and "over 12 episodes" in out


def test_eval_rotates_every_seat_and_counts_players():
    result = evaluate("splendor", "greedy", episodes=9, opponent="greedy", num_players=3, workers=1, progress=False)
    assert result.players == 3 and len(result.seat_win_rates) == 3 and result.opponent == "greedy"
    assert result.as_dict()["players"] == 3


def test_eval_refuses_an_opponent_for_a_solitaire():
    assert main(["eval", "dungeon_solitaire", "--opponent", "random", "--episodes", "2", "--quiet"]) == 2
    with pytest.raises(ValueError, match="is a solitaire"):
        evaluate("dungeon_solitaire", episodes=2, num_players=3, progress=False)


def test_play_splendor_in_the_terminal_against_agents(capsys):
    args = build_parser().parse_args(["play", "splendor", "--opponent", "greedy,random", "--players", "3",
                                      "--seat", "1", "--seed", "3"])
    cmd_play(args, stdin=io.StringIO("take_WUG\n0\nq\n"))
    out = capsys.readouterr().out
    assert "player_0 plays " in out and "player_2 plays " in out and " >player_1" in out
    assert "your move" in out


def test_play_refuses_splendor_options_for_a_solitaire(capsys):
    assert main(["play", "dungeon_solitaire", "--players", "3"]) == 2
    assert "--players" in capsys.readouterr().err


def test_list_shows_the_greedy_agent(capsys):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        main(["list"])
    out = capsys.readouterr().out
    assert "splendor" in out and "greedy" in out


def test_the_view_class_is_exported():
    assert gym.spec(ENV_ID).entry_point == "tabletop_gym.envs.splendor:SplendorEnv"
    assert isinstance(gym.make(ENV_ID).unwrapped, SplendorEnv)


def test_the_throughput_benchmark_has_splendors_aec_rows_beside_texas_holdem():
    from tabletop_gym.benchmarks.evaluation.throughput import markdown_table, measure

    rows = measure(duration=0.05, repeats=1, games=["splendor"])
    names = [row.name for row in rows]
    assert {"texas_holdem_v4.env()", "texas_holdem_v4.raw_env()", "splendor_v0.env()", "splendor_v0.raw_env()",
            "Tabletop/Splendor-v0 (random opponent)"} <= set(names)
    assert all(row.steps_per_second > 0 for row in rows) and "| splendor_v0.env() |" in markdown_table(rows)


# ------------------------------------------------------------------ refused calls change nothing


def snapshot(env):
    return env.get_state(), env.describe(), env.seat, env.np_random.bit_generator.state, env.action_masks()


def unchanged(env, before) -> bool:
    state, table, seat, generator, mask = before
    return (same(env.get_state(), state) and env.describe() == table and env.seat == seat
            and env.np_random.bit_generator.state == generator and np.array_equal(env.action_masks(), mask))


def test_set_state_refuses_a_bad_seat_or_another_player_count_and_changes_nothing():
    env = make(num_players=2, opponent="random")
    env.reset(seed=0)
    good = env.get_state()
    three = make(num_players=3, opponent="random")
    three.reset(seed=0)
    at_seat_1 = make(num_players=2, seat=1, opponent="random")
    at_seat_1.reset(seed=0)
    before = snapshot(env)
    for saved, message in [
        ({**good, "seat": 9}, "the saved 'seat' must be a seat 0-1, got 9"),
        ({**good, "seat": "x"}, "the saved 'seat' must be a seat 0-1, got 'x'"),
        ({**good, "seat": -1}, "the saved 'seat' must be a seat 0-1, got -1"),
        ({**good, "seat": True}, "the saved 'seat' must be a seat 0-1, got True"),
        ({"game": good["game"], "rng": good["rng"]}, "the saved state has no 'seat'"),
        (three.get_state(), "the saved game has num_players=3, but this env was made with num_players=2"),
        ({**at_seat_1.get_state(), "seat": 0}, "the saved game is at seat 1's decision, not the learner's (seat 0)"),
    ]:
        with pytest.raises(ValueError, match=re.escape(message)):
            env.set_state(saved)
        assert unchanged(env, before), message
    env.reset(seed=1)  # and the env plays on
    env.set_state(at_seat_1.get_state())  # a good seat is taken with the game
    assert env.seat == 1 and env.describe() == at_seat_1.describe()
    env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert env.state.current == 1 and env.opponent_moves()


def test_a_refused_reset_keeps_the_learners_random_seat_and_everything_else():
    """The issue: with seat="random", reset(seed=0) seats the learner, a reset refused for a bad deck then moved it
    (5 tries in 6)."""
    env = make(num_players=4, seat="random", opponent="random")
    seats = set()
    for seed in range(6):
        env.reset(seed=seed)
        twin = env.clone()
        before = snapshot(env)
        seats.add(env.seat)
        for kwargs in ({"options": {"deck": {"tier1": [99]}}}, {"seed": 5, "options": {"deck": {"tier1": [99]}}}):
            with pytest.raises(ValueError, match="card 99 is not a tier-1 card"):
                env.reset(**kwargs)
            assert unchanged(env, before), kwargs
        action = int(np.flatnonzero(env.action_masks())[0])
        env.step(action), twin.step(action)
        assert env.opponent_moves() == twin.opponent_moves()
        assert env.describe() == twin.describe()
    assert len(seats) > 1


class Refuser:
    """An opponent that plays random legal moves, and an illegal one at its ``bad``-th decision."""

    def __init__(self, bad):
        self.bad, self.calls = bad, 0
        self.rng = np.random.default_rng(0)

    def act(self, observation, action_mask):
        self.calls += 1
        if self.calls == self.bad:
            return int(np.flatnonzero(action_mask == 0)[0])
        return random_legal(self.rng, action_mask)


def test_a_step_an_opponent_refuses_to_finish_changes_nothing():
    """Seat 1 (random, from the env's generator) has moved when seat 2 plays an illegal move: the step raises, and
    the game, the generator and the mask are as they were."""
    refuser = Refuser(bad=2)
    env = make(num_players=3, seat=0, opponent=["random", refuser])
    _, info = env.reset(seed=2)
    env.step(int(np.flatnonzero(info["action_mask"])[0]))
    before = snapshot(env)
    with pytest.raises(IllegalActionError, match="by the opponent at seat 2"):
        env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert unchanged(env, before) and refuser.calls == 2


# ------------------------------------------------------------------ opponents in the live game


class Probe:
    """An opponent attached to the env it plays in that checks, at every decision, that the env shows the very
    table it is asked to move in, from its own seat; it plays the first legal action."""

    def __init__(self):
        self.env = None
        self.checked = []

    def attach(self, env):
        self.env = env.unwrapped

    def act(self, observation, action_mask):
        env = self.env
        seat = int(np.flatnonzero(observation[rules.OBS_CONTEXT + 10:rules.OBS_CONTEXT + 14])[0])
        assert env.state is not None and env.state.current == seat and env.seat == seat
        assert np.array_equal(rules.observe(env.state, seat), observation)
        assert np.array_equal(env.action_masks(), action_mask.astype(bool))
        assert env.describe() == rules.describe(env.state) and env.describe()["current"] == seat
        assert env.clone().state.equals(env.state)
        world = env.determinize(np.random.default_rng(len(self.checked)))
        assert world.seat == seat and np.array_equal(rules.observe(world.state, seat), observation)
        assert np.array_equal(world.action_masks(), action_mask.astype(bool))
        self.checked.append((env.state.round, seat))
        return int(np.flatnonzero(action_mask)[0])


def test_an_opponent_sees_the_table_it_is_asked_to_move_in_during_reset_and_steps():
    probe = Probe()
    env = make(num_players=3, seat=2, opponent=[probe, probe])
    assert probe.env is None
    _, info = env.reset(seed=1)  # seats 0 and 1 play before the learner: during reset
    assert probe.env is env and [seat for _, seat in probe.checked] == [0, 1]
    assert env.seat == 2 and env.state.current == 2  # the learner's view again
    rng = np.random.default_rng(0)
    for _ in range(6):
        _, _, terminated, truncated, info = env.step(random_legal(rng, info["action_mask"]))
        assert env.seat == 2 and np.array_equal(env.action_masks(), info["action_mask"].astype(bool))
    assert len(probe.checked) >= 12 and {seat for _, seat in probe.checked} == {0, 1}


def test_in_the_futures_a_planner_simulates_the_others_are_played_without_asking_it():
    """A world made while an opponent decides is that opponent's: its seat to learn, the learner's seat and any
    planning opponent played by the greedy player; the env's own learner view and opponents stay as they were."""
    probe = Probe()
    env = make(num_players=3, seat=0, opponent=[probe, "random"])
    worlds = []
    original = probe.act

    def act(observation, action_mask):
        worlds.append(env.determinize(np.random.default_rng(0)))
        return original(observation, action_mask)

    probe.act = act
    env.reset(seed=3)
    env.step(int(np.flatnonzero(env.action_masks())[0]))
    world = worlds[0]
    assert world.seat == 1 and world._players == [STAND_IN, None, "random"]
    assert env.seat == 0 and env._players == [None, probe, "random"] and env.opponents == [probe, "random"]
    assert env.clone().opponents == [STAND_IN, "random"]
    world.step(int(np.flatnonzero(world.action_masks())[0]))
    assert world.state.current == 1 and [seat for seat, _ in world.opponent_moves()] == [2, 0]


def test_the_search_agent_plays_as_an_opponent_also_against_search():
    opponent = make_agent("search", "splendor", seed=1)
    opponent.simulations, opponent.max_rollout_steps = 2, 12  # small: this is about who plans on what
    env = gym.make(ENV_ID, num_players=2, seat=1, opponent=opponent)
    opponent.attach(env)  # as a user would; the env attaches its planning opponents at reset too
    learner = SearchAgent(simulations=2, rollout=GreedyAgent(), seed=2, max_rollout_steps=12)
    learner.attach(env)
    obs, info = env.reset(seed=0)
    assert env.unwrapped.opponent_moves() and opponent.env is env.unwrapped
    for _ in range(2):
        obs, _, terminated, truncated, info = env.step(learner.act(obs, info["action_mask"]))
        assert [seat for seat, _ in env.unwrapped.opponent_moves()][:1] == [0] and not (terminated or truncated)
    assert env.unwrapped.seat == 1


# ------------------------------------------------------------------ the reward modes


def test_the_reward_modes_pay_the_same_games_as_their_conventions_say():
    """The same games (same seeds, same actions) in the three modes: "win" +1 for a win and -1 otherwise,
    "win_only" 1 for a win and 0 otherwise, "score" the learner's points; 0 on truncation in all."""
    seen = set()
    for seed in range(40):
        rewards = {}
        for mode in ("win", "win_only", "score"):
            env = make(opponent="random", reward=mode, max_rounds=40)
            _, info = env.reset(seed=seed)
            rng = np.random.default_rng(seed)
            forfeit = seed % 10 == 0  # now and then the learner's illegal move ends the game
            if forfeit:
                _, reward, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"] == 0)[0]))
            else:
                reward, terminated, truncated, info = play_out(env, info, rng)
            rewards[mode] = reward
        won = info["won"]
        if truncated:
            assert rewards == {"win": 0.0, "win_only": 0.0, "score": 0.0}
        else:
            assert rewards["win"] == (1.0 if won else -1.0) and rewards["win_only"] == (1.0 if won else 0.0)
            assert rewards["score"] == float(info["score"])
        seen.add((truncated, forfeit, won))
    assert {(True, False, False), (False, False, True), (False, False, False), (False, True, False)} <= seen


def test_a_bad_reward_mode_lists_the_three():
    with pytest.raises(ValueError, match=re.escape("reward must be one of 'win', 'win_only', 'score', got 'lose'")):
        gym.make(ENV_ID, reward="lose")
