"""The Dungeon Solitaire heuristic: legal, reproducible, and the documented choices."""

import gymnasium as gym
import pytest
from helpers import legal, stacked

from tabletop_gym.agents.dungeon_solitaire import DungeonSolitaireHeuristic
from tabletop_gym.envs.dungeon_solitaire import rules

ENV_ID = "Tabletop/DungeonSolitaire-v0"


def choice(env, agent):
    obs = rules.observe(env.unwrapped.state)
    return env.unwrapped.action_names[agent.act(obs, env.unwrapped.action_masks())]


@pytest.mark.parametrize("skip_forced", [True, False])
def test_only_legal_actions(skip_forced):
    env = gym.make(ENV_ID, skip_forced=skip_forced, illegal_action="raise")
    agent = DungeonSolitaireHeuristic()
    for seed in range(300):
        obs, info = env.reset(seed=seed)
        while True:
            action = agent.act(obs, info["action_mask"])
            assert info["action_mask"][action]
            obs, _, terminated, truncated, info = env.step(action)
            if terminated or truncated:
                break


def test_deterministic_for_a_deal():
    env = gym.make(ENV_ID)
    runs = []
    for _ in range(2):
        agent, trace = DungeonSolitaireHeuristic(seed=1), []
        obs, info = env.reset(seed=7)
        while True:
            action = agent.act(obs, info["action_mask"])
            trace.append(action)
            obs, _, terminated, _, info = env.step(action)
            if terminated:
                break
        runs.append(trace)
    assert runs[0] == runs[1]


def start(prefix):
    env = gym.make(ENV_ID, skip_forced=False, illegal_action="raise").unwrapped
    env.reset(options={"deck": stacked(prefix, rules.DECK_CARDS)})
    return env


def test_berserks_a_big_monster_and_draws_against_a_small_one():
    env = start(["JS", "8S"])
    env.step(env.action_names.index("draw"))
    assert choice(env, DungeonSolitaireHeuristic()) == "berserk"
    env = start(["JS", "3S"])
    env.step(env.action_names.index("draw"))
    assert legal(env) == {"draw", "berserk"} and choice(env, DungeonSolitaireHeuristic()) == "draw"


def test_dodges_a_big_blow_and_takes_a_small_one():
    env = start(["JH", "5S", "9C", "TS", "2C"])  # J♥ in hand, then a 10♠ hits for 8
    for name in ("draw", "draw", "delve", "draw"):
        env.step(env.action_names.index(name))
    assert choice(env, DungeonSolitaireHeuristic()) == "dodge"
    env = start(["JH", "5S", "9C", "TS", "9S"])  # a 9♠ against the 10♠ hits for 1
    for name in ("draw", "draw", "delve", "draw"):
        env.step(env.action_names.index(name))
    assert env.describe()["pending_damage"] == 1 and choice(env, DungeonSolitaireHeuristic()) == "take_damage"


def test_picks_the_lock_after_a_failed_door():
    env = start(["JC", "5S", "9C", "6C", "2S"])
    for name in ("draw", "draw", "delve", "draw"):
        env.step(env.action_names.index(name))
    assert legal(env) == {"discard", "pick_lock"} and choice(env, DungeonSolitaireHeuristic()) == "pick_lock"


def test_retreats_with_four_kings_and_delves_on_without():
    env = start(["KS", "KH", "KD", "KC", "5D", "9C", "2S", "3S"])
    for name in ("draw", "draw", "delve", "draw"):  # four kings and the 5♦ collected, then a second turn
        env.step(env.action_names.index(name))
    assert sorted(env.describe()["hand"]) == ["5D", "KC", "KD", "KH", "KS"]
    assert choice(env, DungeonSolitaireHeuristic()) == "retreat"
    env = start(["KS", "5D", "9C", "2S", "3S"])
    for name in ("draw", "draw", "delve", "draw"):
        env.step(env.action_names.index(name))
    assert choice(env, DungeonSolitaireHeuristic()) == "delve"


def test_beats_random_play_clearly():
    env = gym.make(ENV_ID)
    agent = DungeonSolitaireHeuristic()
    wins = 0
    for seed in range(600):
        obs, info = env.reset(seed=seed)
        while True:
            obs, _, terminated, _, info = env.step(agent.act(obs, info["action_mask"]))
            if terminated:
                wins += info["won"]
                break
    # Random legal play wins about 0.3% of deals (tabletop-gym eval); the heuristic about 8%.
    assert wins >= 20
