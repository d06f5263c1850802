"""The invariant soak under the heuristic agents: a few hundred of their steps per game, the invariants of
tests/test_<game>_play.py checked after every one.

Random play almost never reaches some branches (a One Card Dungeon level-up, a Dead Center win, the truncations);
the heuristics reach them in a few hundred steps, and each test checks that they did.
"""

from collections import Counter

import gymnasium as gym
import pytest
import test_dead_center_play
import test_dungeon_solitaire_play
import test_one_card_dungeon_play
import test_royal_assassin_play
import test_splendor_play

from tabletop_gym.agents import make_agent
from tabletop_gym.envs import splendor_v0
from tabletop_gym.envs.one_card_dungeon import rules as one_card_dungeon_rules

STEPS = 400


def soak(env, agent, check, steps=STEPS, reset_options=lambda episode: None) -> Counter:
    """Play ``steps`` heuristic steps on the single env ``env`` (unwrapped), episode after episode (episode k
    dealt from seed k), calling ``check(env, info, terminated, truncated)`` after every reset and step. Counts
    each episode's result, and ``episodes``."""
    counts = Counter()
    episode = 0
    _, info = env.reset(seed=episode, options=reset_options(episode))
    check(env, info, False, False)
    if hasattr(agent, "attach"):
        agent.attach(env)
    for _ in range(steps):
        observation = env.rules.observe(env.state)
        action = agent.act(observation, info["action_mask"])
        assert info["action_mask"][action]
        _, _, terminated, truncated, info = env.step(action)
        check(env, info, terminated, truncated)
        if terminated or truncated:
            counts[env.RESULT_NAMES[info["result"]]] += 1
            counts["episodes"] += 1
            episode += 1
            _, info = env.reset(seed=episode, options=reset_options(episode))
            check(env, info, False, False)
    return counts


def test_dungeon_solitaire_under_its_heuristic_keeps_the_invariants():
    env = gym.make("Tabletop/DungeonSolitaire-v0").unwrapped
    counts = soak(env, make_agent("heuristic", "dungeon_solitaire", seed=0),
                  lambda env, info, terminated, _: test_dungeon_solitaire_play.check_invariants(
                      env.state, info, terminated))
    assert counts["escaped"] and counts["killed"] + counts["lost_in_the_dark"] and counts["episodes"] >= 20


def test_royal_assassin_under_its_heuristic_keeps_the_invariants():
    env = gym.make("Tabletop/RoyalAssassin-v0").unwrapped
    counts = soak(env, make_agent("heuristic", "royal_assassin", seed=0),
                  lambda env, info, terminated, truncated: (
                      test_royal_assassin_play.check_invariants(env.state, info, terminated), not truncated))
    assert counts["won"] and counts["lost"]


def test_dead_center_under_its_heuristic_wins_and_keeps_the_invariants():
    env = gym.make("Tabletop/DeadCenter-v0").unwrapped
    agent = make_agent("heuristic", "dead_center", seed=0)
    agent.lookahead = False  # the quick judge: the same branches, a fraction of the time

    def check(env, info, terminated, truncated):
        assert not truncated
        test_dead_center_play.check_invariants(env.state, info, terminated)

    counts = soak(env, agent, check)
    assert counts["won"] >= 2 and counts["unplayable"] + counts["deck_empty"]


def test_one_card_dungeon_under_its_heuristic_levels_up_truncates_and_keeps_the_invariants():
    # Few turns, so that the turn limit is reached too; every third game from a later level.
    env = gym.make("Tabletop/OneCardDungeon-v0", max_turns=40).unwrapped
    level_ups = Counter()

    def check(env, info, terminated, truncated):
        test_one_card_dungeon_play.check_invariants(env, info, terminated, truncated)
        if env.state.phase == one_card_dungeon_rules.LEVEL_UP:
            level_ups[int(env.state.level)] += 1

    counts = soak(env, make_agent("heuristic", "one_card_dungeon", seed=0), check,
                  reset_options=lambda episode: {"level": 1 + 4 * (episode % 3)})
    assert sum(level_ups.values()) >= 3 and counts["truncated"] and counts["lost"]


@pytest.mark.parametrize("num_players", [2, 4])
def test_splendor_under_the_greedy_players_keeps_the_invariants(num_players):
    """The learner's seat played by the heuristic (greedy) against greedy opponents; half the steps in games cut
    short at four rounds, so that the truncation is reached too."""
    counts = Counter()
    for max_rounds in (100, 4):
        env = gym.make("Tabletop/Splendor-v0", num_players=num_players, opponent="greedy",
                       max_rounds=max_rounds).unwrapped
        counts += soak(env, make_agent("heuristic", "splendor", seed=0),
                       lambda env, info, terminated, truncated: test_splendor_play.check_invariants(env.state),
                       steps=STEPS // 2)
    assert counts["finished"] and counts["truncated"]


def test_splendor_through_the_aec_env_under_the_greedy_players_keeps_the_invariants():
    agent = make_agent("heuristic", "splendor", seed=0)
    results = Counter()
    steps = 0
    for seed, max_rounds in enumerate([100, 100, 5, 100, 5]):
        env = splendor_v0.env(num_players=3, max_rounds=max_rounds)
        env.reset(seed=seed)
        for name in env.agent_iter():
            observation, _, terminated, truncated, info = env.last()
            test_splendor_play.check_invariants(env.unwrapped.state_)
            if terminated or truncated:
                results[env.unwrapped.RESULT_NAMES[info["result"]]] += 1
                env.step(None)
                continue
            env.step(agent.act(observation["observation"], observation["action_mask"]))
            steps += 1
    assert results["finished"] and results["truncated"] and steps >= 200
