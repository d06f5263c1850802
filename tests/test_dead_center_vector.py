"""Dead Center's native vector env plays exactly the single env's games (the rules' compiled loops over a row per
game, against the same functions on one game).

The vector env is played side by side with N single envs (``helpers.SideBySide``), as ``tests/test_vector.py`` does
for every game: observations, rewards, ends, masks, outcomes and the full state of every game must agree after
every step. On top of that: the ``jokers`` option,
stacked decks (a win, a deck run dry, a card that fits nowhere), illegal actions mixed into play, and a heuristic
player that wins games; each run counts the rare branches it went through, and the tests demand that they occurred.
"""

from collections import Counter

import gymnasium as gym
import numpy as np
import pytest
from helpers import SideBySide, check_row_loops, random_actions

import tabletop_gym.envs  # noqa: F401  (registers the single env)
from tabletop_gym.agents.dead_center import DeadCenterHeuristic
from tabletop_gym.envs import IllegalActionError
from tabletop_gym.envs.core.cards import card_code, parse_card
from tabletop_gym.envs.core.vector import Batch
from tabletop_gym.envs.dead_center import rules
from tabletop_gym.envs.dead_center.vector import DeadCenterVectorEnv, Games

ENV_ID = "Tabletop/DeadCenter-v0"
FACE_CARDS = [card_code(c) for c in rules.ZOMBIE_CARDS]
NUMBER_CARDS = [card_code(c) for c in rules.NUMBER_CARDS]


def with_illegal_actions(rng, actions, masks, rate):
    """Replace a share ``rate`` of the actions by illegal ones: an action the mask forbids, or a number that names
    no action at all."""
    actions = actions.copy()
    for i in np.flatnonzero(rng.random(len(actions)) < rate):
        forbidden = np.flatnonzero(~masks[i].astype(bool))
        actions[i] = rng.choice([*forbidden, rules.NUM_ACTIONS, -1])
    return actions


def count_branches(stats, before, after, action, mask):
    """Tally the rare branches one step of the single env went through, from its state ``before`` and ``after``
    (forced moves played on the way count too)."""
    kills = np.flatnonzero(mask[rules.A_KILL:])
    if len(kills) >= 2:
        stats["corner choice"] += 1
    if before.phase == rules.KILL and len(kills) == 1:
        stats["single kill offered"] += 1
    if before.phase == rules.REVEAL and mask[:rules.A_PLAY].sum() == 1:
        stats["last reveal offered"] += 1
    if not 0 <= action < rules.NUM_ACTIONS or not mask[action]:
        stats["illegal action"] += 1
        return
    if before.phase == rules.PLAY:
        if before.drawn >= 52:
            stats["joker played"] += 1
        if before.pile_top[action - rules.A_PLAY] >= 52:
            stats["played on a joker"] += 1
        if before.face_down == 0:
            stats["play without a reveal (turn 13 on)"] += 1
    for slot in np.flatnonzero((before.slot_state != rules.DEAD) & (after.slot_state == rules.DEAD)):
        stats["kill"] += 1
        if (after.pile_top[rules.SUPPORT_PILES[slot]] >= 52).any():
            stats["kill with a joker support"] += 1
    left_up = (before.slot_state == rules.UP) & (after.slot_state == rules.UP)
    if len(kills) >= 2 and left_up[kills].any():
        stats["corner: the other zombie left standing"] += 1


def play_side_by_side(num_envs, steps, seed, reset_options=None, illegal_rate=0.0, agent=None, **options):
    """Step the vector env and num_envs single envs with the same actions (random legal ones, some made illegal at
    ``illegal_rate``, or the ``agent``'s); they must agree (``SideBySide``). Returns a Counter of results
    (``first <result>`` for each game's first episode) and rare branches."""
    both = SideBySide(ENV_ID, num_envs, seed, reset_options, **options)
    rng = np.random.default_rng(seed)
    ended_before = np.zeros(num_envs, dtype=bool)
    stats = Counter()
    for _ in range(steps):
        masks = both.masks
        if agent is None:
            actions = random_actions(rng, masks)
        else:
            actions = np.array([agent.act(both.observations[i], masks[i]) if masks[i].any() else 0
                                for i in range(num_envs)])
        if illegal_rate:
            actions = with_illegal_actions(rng, actions, masks, illegal_rate)
        before = {}
        ended = both.step(actions, before=lambda i, single, action: before.__setitem__(i, single.state))
        for i, state in before.items():
            count_branches(stats, state, both.singles[i].state, int(actions[i]), masks[i])
        for i, info in ended:
            stats["games"] += 1
            stats[rules.RESULT_NAMES[info["result"]]] += 1
            if not ended_before[i]:
                stats["first " + rules.RESULT_NAMES[info["result"]]] += 1
            ended_before[i] = True
            if rules.RESULT_NAMES[info["result"]] == "unplayable" and info["turn"] == 1:
                stats["unplayable on turn 1"] += 1
    return stats


# ------------------------------------------------------------------ random play: every option, many seeds

@pytest.mark.parametrize("jokers", [2, 1, 0])
@pytest.mark.parametrize("seed", [0, 5000])
def test_random_play_matches_the_single_envs(jokers, seed):
    stats = play_side_by_side(64, 300, seed, jokers=jokers)
    print(jokers, seed, dict(stats))
    assert stats["games"] > 300 and stats["unplayable"] and stats["corner: the other zombie left standing"]
    assert stats["play without a reveal (turn 13 on)"]
    if jokers:
        assert stats["joker played"] and stats["played on a joker"] and stats["kill with a joker support"]


@pytest.mark.parametrize("jokers", [2, 1, 0])
def test_move_by_move_for_score_with_illegal_actions(jokers):
    stats = play_side_by_side(64, 300, 11 + jokers, illegal_rate=0.02, jokers=jokers, skip_forced=False,
                              reward="score")
    print(jokers, dict(stats))
    assert stats["forfeited"] and stats["illegal action"] == stats["forfeited"]
    assert stats["single kill offered"] and stats["last reveal offered"] and stats["corner choice"]


@pytest.mark.parametrize("skip_forced, jokers", [(True, 2), (False, 1), (True, 0)])
def test_a_heuristic_player_wins_the_same_games(skip_forced, jokers):
    # Random play almost never wins; the heuristic player wins some, so the win and its score are checked too.
    stats = play_side_by_side(16, 250 if skip_forced else 400, 21, agent=DeadCenterHeuristic(), reward="score",
                              skip_forced=skip_forced, jokers=jokers)
    print(skip_forced, jokers, dict(stats))
    assert stats["won"] and stats["corner choice"]


# ------------------------------------------------------------------ stacked decks

def deal(cabin, zombies=None, draw=(), jokers=2):
    """A full stacked deck: the 9 cabin codes, the zombies ({slot: code}, the other slots filled with the other
    face cards in card-id order), the draw pile's top cards, then every other number card and the jokers left."""
    zombies = dict(zombies or {})
    spare = [c for c in FACE_CARDS if c not in set(zombies.values())]
    slots = [zombies.get(name) or spare.pop(0) for name in rules.SLOT_NAMES]
    used = {parse_card(c) for c in [*cabin, *draw] if c != "JK"}
    jokers_left = jokers - [*cabin, *draw].count("JK")
    rest = [c for c in NUMBER_CARDS if parse_card(c) not in used]
    return [*cabin, *slots, *draw, *rest, *["JK"] * jokers_left]


# Twelve turns, twelve kills (tests/test_dead_center_rules.py): each drawn card goes on its zombie's attack pile.
WIN_CABIN = ["9H", "7S", "6C", "2S", "TD", "5D", "5S", "7H", "7D"]
WIN_ZOMBIES = dict(zip(rules.SLOT_NAMES, ["KH", "JS", "KD", "JD", "JH", "QC", "JC", "QD", "KS", "QS", "QH", "KC"]))
WIN_DRAWS = ["5C", "JK", "JK", "6H", "9C", "8S", "8C", "TH", "TC", "TS", "8D", "3S"]
# The whole draw pile goes on the centre pile, which attacks nothing (tests/test_dead_center_rules.py): aces on
# 10H, then each value red first onto the black card below it, equal values on each other, the jokers last.
CENTRE_CABIN = ["TS", "TD", "TC", "9S", "TH", "9H", "9D", "9C", "8S"]
CENTRE_DRAWS = [f"{v}{s}" for v in "A234567" for s in "HSDC"] + ["8H", "8D", "8C"]
# Nine black cards above the ace: a red ace fits nowhere.
BLACK_CABIN = ["2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "TS"]


class ScriptedWinner:
    """Reveals the slots in the won deck's plan order and plays each card on its zombie's attack pile."""

    PLAN = ["B0", "T1", "L1", "T2", "B1", "R1", "R2", "L2", "T0", "R0", "B2", "L0"]

    def act(self, observation, mask):
        revealed = 12 - int(observation[rules._COUNTERS_AT + 2])  # 12 - face-down zombies
        if observation[rules._PHASE_AT + rules.REVEAL]:
            wanted = rules.A_REVEAL + rules.SLOT_NAMES.index(self.PLAN[revealed])
        elif observation[rules._PHASE_AT + rules.PLAY]:
            wanted = rules.A_PLAY + int(rules.ATTACK_PILE[rules.SLOT_NAMES.index(self.PLAN[revealed - 1])])
        else:
            wanted = int(np.flatnonzero(mask)[0])
        # The plan is for the stacked deal; the random games after it are played by the first legal action.
        return wanted if mask[wanted] else int(np.flatnonzero(mask)[0])


class CentrePlayer:
    """Reveals the first face-down slot and plays every card on the centre pile (which never kills)."""

    def act(self, observation, mask):
        return rules.A_PLAY + 4 if mask[rules.A_PLAY + 4] else int(np.flatnonzero(mask)[0])


@pytest.mark.parametrize("deck, jokers, agent, result", [
    (deal(WIN_CABIN, WIN_ZOMBIES, WIN_DRAWS), 2, ScriptedWinner(), "won"),
    (deal(CENTRE_CABIN, draw=CENTRE_DRAWS, jokers=2), 2, CentrePlayer(), "deck_empty"),
    (deal(CENTRE_CABIN, draw=CENTRE_DRAWS, jokers=1), 1, CentrePlayer(), "deck_empty"),
    (deal(BLACK_CABIN, draw=["AH"], jokers=0), 0, CentrePlayer(), "unplayable"),
])
@pytest.mark.parametrize("skip_forced", [True, False])
def test_stacked_decks_play_out_the_same(deck, jokers, agent, result, skip_forced):
    # Every game of the batch gets the stacked deck at the reset; the games after it are random ones.
    stats = play_side_by_side(8, 100, 3, reset_options={"deck": deck}, agent=agent, jokers=jokers,
                              skip_forced=skip_forced, reward="score")
    print(result, skip_forced, dict(stats))
    assert stats["first " + result] == 8


# ------------------------------------------------------------------ the vector env's own API on this game

@pytest.mark.parametrize("jokers", [2, 1, 0])
def test_the_batched_deal_is_rules_new_game(jokers):
    # Games.deal shuffles with each row's generator exactly as rules.new_game does; the rows it is not given keep
    # what they hold, and a stacked deck (already in place) is left alone.
    template = rules.new_game(np.random.default_rng(99), jokers=jokers)
    b = Batch(template, 40)
    b.put_same(np.arange(40), template)
    rows = np.arange(0, 40, 2)
    Games.deal(b, rows, [np.random.default_rng(1000 + i) for i in range(40)], {})
    for i in range(40):
        expected = rules.new_game(np.random.default_rng(1000 + i), jokers=jokers) if i % 2 == 0 else template
        assert b.take(i).equals(expected)
    Games.deal(b, np.arange(1, 40, 2), [np.random.default_rng(i) for i in range(40)], {"deck": ["stacked"]})
    assert all(b.take(i).equals(template) for i in range(1, 40, 2))


def test_the_jokers_option_is_checked_and_reaches_every_game():
    with pytest.raises(ValueError, match="jokers"):
        DeadCenterVectorEnv(num_envs=2, jokers=3)
    vector = DeadCenterVectorEnv(num_envs=3, jokers=1)
    observations, _ = vector.reset(seed=0)
    assert (observations[:, rules._COUNTERS_AT] == 32).all() and (observations[:, rules._COUNTERS_AT + 3] == 1).all()


def test_illegal_actions_raise_and_change_nothing_or_lose_that_game():
    vector = DeadCenterVectorEnv(num_envs=4, illegal_action="raise")
    _, infos = vector.reset(seed=3)
    before = [vector.take(i) for i in range(4)]
    actions = random_actions(np.random.default_rng(0), infos["action_mask"])
    actions[2] = rules.A_KILL  # no kill at the reveal step
    with pytest.raises(IllegalActionError, match="in game 2"):
        vector.step(actions)
    assert all(vector.take(i).equals(before[i]) for i in range(4))

    vector = DeadCenterVectorEnv(num_envs=4)
    vector.reset(seed=3)
    _, rewards, terminated, _, infos = vector.step(actions)
    assert terminated.tolist() == [False, False, True, False]
    assert vector.RESULT_NAMES[infos["result"][2]] == "forfeited"
    assert vector.info_of(infos, 2)["result"] == infos["result"][2]
    assert rewards[2] == 0 and infos["action_mask"][2].all()  # a finished game's row: any action, ignored


def test_reset_mask_deals_new_games_only_where_asked():
    vector = DeadCenterVectorEnv(num_envs=3, jokers=0)
    _, infos = vector.reset(seed=5)
    vector.step(random_actions(np.random.default_rng(0), infos["action_mask"]))
    kept = [vector.take(i) for i in range(3)]
    fresh, _ = vector.reset(seed=50, options={"reset_mask": np.array([False, True, False])})
    assert vector.take(0).equals(kept[0]) and vector.take(2).equals(kept[2])
    single = gym.make(ENV_ID, jokers=0).unwrapped
    assert np.array_equal(fresh[1], single.reset(seed=51)[0]) and vector.take(1).equals(single.state)


@pytest.mark.parametrize("lookahead", [True, False])
def test_the_heuristic_chooses_for_every_row_through_autoresets(lookahead):
    """A finished game's row offers every action (all ignored at the autoreset step): the heuristic's act_batch
    and act take it, on the game-over observation, without judging the table."""
    agent = DeadCenterHeuristic(lookahead=lookahead)
    vector = DeadCenterVectorEnv(num_envs=4)
    observations, infos = vector.reset(seed=2)
    finished = 0
    for _ in range(120 if lookahead else 300):
        masks = infos["action_mask"].astype(bool)
        actions = agent.act_batch(observations, masks)
        assert masks[np.arange(4), actions].all()
        observations, _, terminated, truncated, infos = vector.step(actions)
        for i in np.flatnonzero(terminated):
            assert agent.act(observations[i], infos["action_mask"][i]) == 0
        finished += terminated.sum()
    assert finished >= 2


def test_the_vector_loops_are_the_single_game_functions():
    check_row_loops(rules, [{"jokers": 2}, {"jokers": 1}, {"jokers": 0}])
