"""The Dead Center heuristic: legal, reproducible, and the documented choices on stacked deals."""

import gymnasium as gym
import numpy as np
import pytest
from helpers import act, legal

from tabletop_gym.agents.dead_center import DeadCenterHeuristic, Judge, QuickJudge, Table, Tables
from tabletop_gym.envs.core.cards import card_code, parse_card
from tabletop_gym.envs.dead_center import rules

ENV_ID = "Tabletop/DeadCenter-v0"
FACE_CARDS = [card_code(c) for c in rules.ZOMBIE_CARDS]
NUMBER_CARDS = [card_code(c) for c in rules.NUMBER_CARDS]


def deal(cabin, zombies, draw, jokers=2):
    """A stacked deck: the 9 cabin codes, the zombies ({slot: code}, the other slots filled with the other face
    cards in card-id order), the draw pile's top cards, then every other number card and the jokers left."""
    taken = set(zombies.values())
    spare = [c for c in FACE_CARDS if c not in taken]
    slots = [zombies.get(name) or spare.pop(0) for name in rules.SLOT_NAMES]
    used = {parse_card(c) for c in [*cabin, *draw] if c != "JK"}
    jokers_left = jokers - [*cabin, *draw].count("JK")
    rest = [c for c in NUMBER_CARDS if parse_card(c) not in used]
    return [*cabin, *slots, *draw, *rest, *["JK"] * jokers_left]


def start(deck):
    env = gym.make(ENV_ID, skip_forced=False, illegal_action="raise").unwrapped
    env.reset(options={"deck": deck})
    return env


def choice(env, agent=None):
    agent = agent or DeadCenterHeuristic()
    return env.action_names[agent.act(rules.observe(env.state), env.action_masks())]


def play_out(env, agent, seed):
    obs, info = env.reset(seed=seed)
    actions = []
    while True:
        action = agent.act(obs, info["action_mask"])
        assert info["action_mask"][action], (seed, action)
        actions.append(action)
        obs, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            return actions, info


# ------------------------------------------------------------------ legal and reproducible

@pytest.mark.parametrize("skip_forced, jokers, seeds", [(True, 2, 40), (False, 2, 20), (True, 1, 10), (True, 0, 10)])
def test_only_legal_actions(skip_forced, jokers, seeds):
    # illegal_action="raise": an illegal choice would raise instead of quietly ending the game.
    env = gym.make(ENV_ID, skip_forced=skip_forced, jokers=jokers, illegal_action="raise")
    agent = DeadCenterHeuristic(seed=0)
    results = [play_out(env, agent, seed)[1]["result"] for seed in range(seeds)]
    assert "forfeited" not in results


def test_reproducible_from_its_seed():
    env = gym.make(ENV_ID)
    first = [play_out(env, DeadCenterHeuristic(seed=3), seed)[0] for seed in (5, 6)]
    again = DeadCenterHeuristic(seed=99)
    again.reset(seed=3)
    assert [play_out(env, again, seed)[0] for seed in (5, 6)] == first


def test_it_reads_the_table_back_from_the_observation():
    env = start(deal(["7H", "4S", "AS", "6C", "2D", "TC", "JK", "8H", "4C"], {"T2": "KC"}, ["3D"]))
    act(env, "reveal_T2")
    t = Table(rules.observe(env.state))
    assert [card_code(c) for c in t.tops] == ["7H", "4S", "AS", "6C", "2D", "TC", "JK", "8H", "4C"]
    assert card_code(t.drawn) == "3D"
    assert [card_code(rules.ZOMBIE_CARDS[c]) if c < 12 else c for c in t.codes] == [12, 12, "KC"] + [12] * 9
    # The draw pile: 31 number cards and the other joker; the face-down zombies: the other eleven.
    assert len(t.numbers) == 31 and t.jokers == 1
    assert sorted(card_code(rules.ZOMBIE_CARDS[z]) for z in t.hidden) == sorted(set(FACE_CARDS) - {"KC"})


# ------------------------------------------------------------------ the documented choices

# Every support pair sums to less than 10 except 6♥ + 4♥ behind pile 3 (A♣): the line of L1, which kills any
# jack, a red queen or the K♥.
STRONG_L1 = ["2S", "3C", "5S", "AC", "6H", "4H", "2C", "3S", "5C"]


def test_reveals_the_zombie_whose_supports_are_already_strong():
    env = start(deal(STRONG_L1, {"L1": "KH"}, ["2D"]))
    assert len(legal(env)) == 12
    assert choice(env) == "reveal_L1"


def test_plays_a_spare_low_card_where_it_kills():
    # 2♦ fits 2♠, A♣ (attack pile of L1), 6♥ and 4♥ (the supports) and 2♣; only A♣ kills the K♥.
    env = start(deal(STRONG_L1, {"L1": "KH"}, ["2D"]))
    act(env, "reveal_L1")
    assert legal(env) == {"play_0", "play_3", "play_4", "play_5", "play_6"}
    assert choice(env) == "play_3"
    act(env, "play_3")
    assert legal(env) == {"kill_L1"}


def test_keeps_a_ready_zombies_supports_standing():
    # 4♠ cannot kill: it fits 5♠, 5♣, or the 4♥ that holds the K♥ ready (4♠ is no heart).
    env = start(deal(STRONG_L1, {"L1": "KH"}, ["4S"]))
    act(env, "reveal_L1")
    assert legal(env) == {"play_2", "play_5", "play_8"}
    assert choice(env) in {"play_2", "play_8"}


def test_kills_the_king_when_a_corner_offers_a_king_and_a_jack():
    # T0 (K♠) stands on 6♠ + 4♠, L0 (J♥) on 7♣ + 3♥; pile 0 attacks both.
    cabin = ["5D", "7C", "3H", "6S", "2D", "2H", "4S", "AD", "AH"]
    env = start(deal(cabin, {"T0": "KS", "L0": "JH"}, ["2C", "9C"]))
    for name in ("reveal_T0", "play_8", "reveal_L0", "play_0"):
        act(env, name)
    assert legal(env) == {"kill_T0", "kill_L0"}
    assert choice(env) == "kill_T0"
    # The mirror image: the J♥ at T0, the K♠ at L0; still the king.
    cabin = ["5D", "6S", "4S", "7C", "2D", "2H", "3H", "AD", "AH"]
    env = start(deal(cabin, {"T0": "JH", "L0": "KS"}, ["2C", "9C"]))
    for name in ("reveal_T0", "play_8", "reveal_L0", "play_0"):
        act(env, name)
    assert legal(env) == {"kill_T0", "kill_L0"}
    assert choice(env) == "kill_L0"


def leaves_a_dead_draw(s, pile):
    """After the drawn card goes on ``pile``, could the draw pile give a card that fits no pile?"""
    tops = s.pile_top.copy()
    tops[pile] = s.drawn
    return not rules.ACCEPTS[s.deck[s.top:s.end]][:, tops].any(axis=1).all()


def test_keeps_every_card_of_the_draw_pile_playable_when_it_can():
    # Over whole games: whenever some legal play leaves every card still to come a pile to go on, the chosen
    # play does too (the draw pile's contents are public; the test reads them from the state).
    env = gym.make(ENV_ID, illegal_action="raise").unwrapped
    agent, checked = DeadCenterHeuristic(), 0
    for seed in range(6):
        obs, info = env.reset(seed=seed)
        terminated = False
        while not terminated:
            action = agent.act(obs, info["action_mask"])
            s = env.state
            piles = np.flatnonzero(info["action_mask"]) - rules.A_PLAY
            if s.phase == rules.PLAY and len(piles) > 1 and not all(leaves_a_dead_draw(s, p) for p in piles):
                assert not leaves_a_dead_draw(s, action - rules.A_PLAY)
                checked += 1
            obs, _, terminated, _, info = env.step(action)
    assert checked > 50


# ------------------------------------------------------------------ without the look-ahead, many games at once

def positions(seeds, agent=None):
    """Every decision's observation and mask in the games the full heuristic plays from these seeds."""
    env = gym.make(ENV_ID, skip_forced=False)
    agent = agent or DeadCenterHeuristic()
    observations, masks = [], []
    for seed in seeds:
        obs, info = env.reset(seed=seed)
        while True:
            observations.append(obs)
            masks.append(info["action_mask"].astype(bool))
            obs, _, terminated, truncated, info = env.step(agent.act(obs, info["action_mask"]))
            if terminated or truncated:
                break
    return np.array(observations), np.array(masks)


def test_the_quick_judge_values_every_table_as_the_judge_does():
    """Bit counts over each game's own draw pile against the judge's share tables, decision by decision."""
    observations, _ = positions(range(12))
    agent = DeadCenterHeuristic()
    tables = Tables(observations)
    values, worth = QuickJudge(agent, tables).table_values(np.arange(len(observations)), tables.tops, tables.codes)
    for i, o in enumerate(observations):
        table = Table(o)
        judge = Judge(agent, table)
        slots = judge.values(table.tops[None], table.codes[None])[0]
        np.testing.assert_allclose(values[i], slots, rtol=1e-12, atol=1e-12)
        assert worth[i] == pytest.approx(slots.sum() - agent.dead * judge.dead_share(table.tops[None])[0], abs=1e-9)
        assert np.array_equal(tables.tops[i], table.tops) and np.array_equal(tables.codes[i], table.codes)
    assert len(observations) > 400


@pytest.mark.parametrize("lookahead", [True, False])
def test_choosing_for_many_games_at_once_is_choosing_for_each(lookahead):
    observations, masks = positions(range(6))
    agent = DeadCenterHeuristic(lookahead=lookahead)
    together = agent.act_batch(observations, masks)
    assert masks[np.arange(len(masks)), together].all()
    assert together.tolist() == [agent.act(o, m) for o, m in zip(observations, masks)]
    with pytest.raises(ValueError, match="row 1"):
        agent.act_batch(observations[:2], np.array([masks[0], np.zeros_like(masks[0])]))


def test_without_the_look_ahead_it_makes_the_plain_choices_too():
    """The documented choices above that need no look at the next draw: the strong line's reveal, the low card
    played where it kills, a ready zombie's supports left standing."""
    quick = DeadCenterHeuristic(lookahead=False)
    env = start(deal(STRONG_L1, {"L1": "KH"}, ["2D"]))
    assert choice(env, quick) == "reveal_L1"
    act(env, "reveal_L1")
    assert choice(env, quick) == "play_3"
    env = start(deal(STRONG_L1, {"L1": "KH"}, ["4S"]))
    act(env, "reveal_L1")
    assert choice(env, quick) in {"play_2", "play_8"}


def test_without_the_look_ahead_it_wins_deals_too():
    env = gym.make(ENV_ID, illegal_action="raise")
    results = [play_out(env, DeadCenterHeuristic(lookahead=False), seed)[1] for seed in range(30)]
    assert "forfeited" not in {rules.RESULT_NAMES[info["result"]] for info in results}
    assert any(info["won"] for info in results)
