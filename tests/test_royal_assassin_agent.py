"""The Royal Assassin heuristic: legal play only, reproducible, clear choices (the game it pictures from the
observation is tested with the rules: ``fill_seen_game``)."""

import gymnasium as gym
import numpy as np
import pytest
from helpers import legal, stacked

from tabletop_gym.agents import RandomAgent
from tabletop_gym.agents.royal_assassin import RoyalAssassinHeuristic
from tabletop_gym.envs.royal_assassin import rules

ENV_ID = "Tabletop/RoyalAssassin-v0"


def play(agent, seed, skip_forced=True):
    """One episode with illegal actions raising; returns the actions taken and the final info."""
    env = gym.make(ENV_ID, skip_forced=skip_forced, illegal_action="raise")
    agent.reset(seed=seed)
    obs, info = env.reset(seed=seed)
    actions = []
    while True:
        mask = info["action_mask"]
        action = agent.act(obs, mask)
        assert isinstance(action, int) and mask[action], (seed, action, mask)
        actions.append(action)
        obs, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            assert rules.RESULT_NAMES[info["result"]] in ("won", "lost")
            return actions, info


def decisions(agent, seeds):
    """Every choice of ``agent`` over whole games on the rules: the state before, the action, the state after."""
    for seed in seeds:
        s = rules.new_game(np.random.default_rng(seed))
        while not rules.is_over(s):
            action = agent.act(rules.observe(s), rules.legal_mask(s))
            after = rules.apply(s, action)
            yield s, action, after
            s = after


@pytest.mark.parametrize("skip_forced", [True, False])
def test_only_legal_actions_with_the_look_ahead(skip_forced):
    agent = RoyalAssassinHeuristic()
    results = [play(agent, seed, skip_forced)[1]["won"] for seed in range(60)]
    assert any(results) and not all(results)


@pytest.mark.parametrize("skip_forced", [True, False])
def test_only_legal_actions_without_the_look_ahead(skip_forced):
    agent = RoyalAssassinHeuristic(lookahead=False)
    for seed in range(1000, 1300):
        play(agent, seed, skip_forced)


def test_reproducible_from_its_seed():
    first = [play(RoyalAssassinHeuristic(seed=7), seed)[0] for seed in range(10)]
    again = RoyalAssassinHeuristic(seed=7)
    assert [play(again, seed)[0] for seed in range(10)] == first
    assert [play(again, seed)[0] for seed in range(10)] == first  # after reset(seed=...) too


def test_the_choice_depends_only_on_what_the_player_sees():
    agent = RoyalAssassinHeuristic()
    env = gym.make(ENV_ID).unwrapped
    for seed in range(20):
        obs, info = env.reset(seed=seed)
        shuffled = rules.determinize(env.state, np.random.default_rng(seed))
        assert not np.array_equal(shuffled.deck, env.state.deck)
        same_view = rules.observe(shuffled)
        assert np.array_equal(same_view, obs)
        assert agent.act(same_view, rules.legal_mask(shuffled)) == agent.act(obs, info["action_mask"])


# ------------------------------------------------------------------ clear positions

def start(prefix):
    env = gym.make(ENV_ID, skip_forced=False, illegal_action="raise").unwrapped
    obs, info = env.reset(options={"deck": stacked(prefix, range(52))})
    return env, obs, info


@pytest.mark.parametrize("lookahead", [True, False])
def test_the_joker_comes_with_the_killing_card_and_takes_the_column(lookahead):
    # A♠ on the reserve; J♥ Q♥ K♣ out; 3♠ in play. 3♠ on Q♥ does not kill: the joker stays free.
    # The A♠ continuation does (3 + 11 >= 12): it brings the joker, and J♥ dies with Q♥.
    env, obs, info = start(["AS", "JH", "QH", "KC", "3S"])
    agent = RoyalAssassinHeuristic(lookahead=lookahead)
    assert legal(env) == {"attack_H", "assassin_H", "pass"}
    obs, *_, info = env.step(agent.act(obs, info["action_mask"]))
    d = env.describe()
    assert d["attack"]["H"] == ["3S"] and d["joker"] == "free" and d["decision"] == "continue"
    obs, *_, info = env.step(agent.act(obs, info["action_mask"]))
    d = env.describe()
    assert d["columns"]["H"] == [] and d["joker"] == "free" and d["kills"] == 2
    assert d["discard"] == ["QH", "3S", "AS", "JH"]


@pytest.mark.parametrize("lookahead", [True, False])
def test_a_continuation_that_wins_at_once_is_taken(lookahead):
    # 9♠ then A♠ on the reserve; J♥ Q♥ out; 2♠ in play. 2♠ + A♠ kills Q♥, and with the joker J♥ too: won.
    env, obs, info = start(["9S", "AS", "JH", "QH", "2S"])
    agent = RoyalAssassinHeuristic(lookahead=lookahead)
    names = []
    while env.describe()["result"] == "playing":
        action = agent.act(obs, info["action_mask"])
        names.append(env.action_names[action])
        obs, *_, info = env.step(action)
    assert names == ["attack_H", "assassin_H"]
    assert info["won"] and info["score"] == 47


@pytest.mark.parametrize("lookahead", [True, False])
def test_the_kill_possible_now_goes_first(lookahead):
    # 8♠ on the reserve; J♥ Q♦ Q♣ out; 3♠ in play may go on J♥ or Q♦. With the 8♠ behind it,
    # 3 + 8 = 11 kills J♥ now but leaves Q♦ (12) standing: the player goes for J♥.
    env, obs, info = start(["8S", "JH", "QD", "QC", "3S"])
    agent = RoyalAssassinHeuristic(lookahead=lookahead)
    assert legal(env) == {"attack_H", "attack_D", "pass"}
    obs, *_, info = env.step(agent.act(obs, info["action_mask"]))
    assert env.describe()["attack"]["H"] == ["3S"] and env.describe()["decision"] == "continue"
    obs, *_, info = env.step(agent.act(obs, info["action_mask"]))
    d = env.describe()
    assert d["columns"]["H"] == [] and d["columns"]["D"] == ["QD"] and d["kills"] == 1


def test_the_joker_is_never_laid_without_a_kill():
    """Over whole games the joker is only placed by a card that kills on its column (it is free after)."""
    agent = RoyalAssassinHeuristic(lookahead=False)
    laid = 0
    for _, action, s in decisions(agent, range(200)):
        if rules.A_ASSASSIN <= action < rules.A_PASS:
            laid += 1
            assert s.joker == rules.NO_CARD
    assert laid > 50


def test_the_scores_judge_the_legal_actions_and_act_takes_the_first_best():
    # The winning continuation of the position above scores +inf; the illegal actions score -inf.
    env, obs, info = start(["9S", "AS", "JH", "QH", "2S"])
    agent = RoyalAssassinHeuristic()
    obs, *_, info = env.step(env.action_names.index("attack_H"))
    scores = agent.action_scores(obs, info["action_mask"])
    mask = info["action_mask"].astype(bool)
    assert np.all(scores[~mask] == -np.inf) and np.all(np.isfinite(scores[mask]) | (scores[mask] == np.inf))
    assert scores[env.action_names.index("assassin_H")] == np.inf
    assert agent.act(obs, info["action_mask"]) == env.action_names.index("assassin_H")
    ties = 0
    for before, action, _ in decisions(agent, range(40)):
        mask = rules.legal_mask(before)
        scores = agent.action_scores(rules.observe(before), mask)
        best = np.flatnonzero(scores == scores[mask.astype(bool)].max())
        ties += len(best) > 1
        assert mask[action] and action == best[0]
    assert ties > 0  # the first best in index order settles real ties


@pytest.mark.parametrize("lookahead", [True, False])
def test_act_batch_chooses_as_act_does(lookahead):
    agent = RoyalAssassinHeuristic(lookahead=lookahead)
    positions = [(rules.observe(s), rules.legal_mask(s)) for s, _, _ in decisions(RandomAgent(0), range(30))]
    observations, masks = (np.array(column) for column in zip(*positions))
    assert len(positions) > 300
    assert agent.act_batch(observations, masks).tolist() == [agent.act(o, m) for o, m in positions]
