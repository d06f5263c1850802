"""Royal Assassin's native vector env plays exactly the single env's games.

The vector env and N single envs are stepped side by side with the same random actions (legal ones, and in one
test some illegal ones): observations, rewards, ends, masks, outcomes and the full state of every game must agree
after every step. Every transition the single envs make is also sorted into the rules' branches (kills, the
joker's column kill, defence, wipes, continuations, locks, buried attacks, the ends), so that the tests can
insist each rare branch was actually played.
"""

from collections import Counter

import numpy as np
import pytest
from helpers import PLAIN_PYTHON, SideBySide, check_row_loops, passes_as_plain_python, random_actions

from tabletop_gym.envs import IllegalActionError
from tabletop_gym.envs.core.cards import card_code
from tabletop_gym.envs.core.vector import Batch
from tabletop_gym.envs.royal_assassin import RoyalAssassinEnv, rules
from tabletop_gym.envs.royal_assassin.vector import Games, RoyalAssassinVectorEnv

RARE_BRANCHES = (
    "kill", "joker placed", "joker kills its column", "joker kills 3 face cards", "kill uncovers a buried attack",
    "defence", "wipe", "wipe of an uncovered attack", "continuation offered", "continuation attack",
    "continuation stopped", "continuation on an empty deck", "lock keeps a suit on its column",
    "column locked to another suit", "face card buries an attack", "several face cards turned", "won",
    "won by the joker", "won with cards left", "lost", "lost on a face card turned last",
)


def branches(s, action, t) -> list:
    """The rules' branches the transition s --action--> t went through (read off the two states)."""
    found = []
    kills = rules.kills(t) - rules.kills(s)
    faces = s.num_faces.tolist()
    if action == rules.A_PASS:
        found.append("continuation stopped" if s.decision == rules.CONTINUE else "pass")
    else:
        column = action % 4
        found.append("continuation attack" if s.decision == rules.CONTINUE else "attack")
        if action >= rules.A_ASSASSIN:
            found.append("joker placed")
        joker_there = s.joker == column or action >= rules.A_ASSASSIN
        if kills:
            found.append("kill")
            if joker_there and t.joker < 0:
                found.append("joker kills its column")
                if kills == 3:
                    found.append("joker kills 3 face cards")
            elif faces[column] >= 2 and s.num_attack[column, faces[column] - 2]:
                found.append("kill uncovers a buried attack")
    if np.any((s.place == rules.RESERVE) & (t.place == rules.DEFENSE)):
        found.append("defence")
    for column in range(4):
        for level in range(faces[column]):
            if s.num_attack[column, level]:
                face, first = s.faces[column, level], s.attack[column, level, 0]
                if t.place[face] == rules.COLUMN and t.place[first] == rules.DISCARD:
                    found.append("wipe of an uncovered attack" if kills else "wipe")
    if t.decision == rules.CONTINUE:
        found.append("continuation offered")
        if t.top == rules.NUM_CARDS:
            found.append("continuation on an empty deck")
    if s.decision == rules.DRAW:
        suit = rules._SUIT[s.in_play]
        held = [c for c in rules.TARGETS[suit] if s.lock[c] == suit]
        if held and any(faces[c] and s.lock[c] == rules.NO_CARD for c in rules.TARGETS[suit]):
            found.append("lock keeps a suit on its column")
        if any(faces[c] and s.lock[c] not in (rules.NO_CARD, suit) for c in rules.TARGETS[suit]):
            found.append("column locked to another suit")
    if not kills and any(t.num_faces[c] > faces[c] and faces[c] and s.num_attack[c, faces[c] - 1]
                         for c in range(4)):
        found.append("face card buries an attack")
    if np.count_nonzero(rules.IS_FACE[t.deck[s.top:t.top]]) >= 2:
        found.append("several face cards turned")
    if t.result == rules.WON:
        found.append("won")
        if t.joker < 0 and kills >= 2:
            found.append("won by the joker")
        if t.top < rules.NUM_CARDS:
            found.append("won with cards left")
    if t.result == rules.LOST:
        found.append("lost")
        if rules.IS_FACE[int(t.deck[-1])]:
            found.append("lost on a face card turned last")
    return found


@pytest.fixture
def counted(monkeypatch):
    """Count the branches of every scalar ``rules.apply``, and the forfeits (the single envs call both through the
    module). The env's compiled step (``rules.play``: an action and the forced moves after it) is taken here one
    ``apply`` at a time, so that every move is counted."""
    counts = Counter()
    apply, forfeit = rules.apply, rules.forfeit

    def counting_apply(s, action, rng=None):
        t = apply(s, action, rng)
        counts.update(branches(s, action, t))
        return t

    def counting_play(s, action, rng, skip_forced):
        t = counting_apply(s, action, rng)
        mask = rules.legal_mask(t)
        while skip_forced and np.count_nonzero(mask) == 1:
            t = counting_apply(t, int(mask.argmax()), rng)
            mask = rules.legal_mask(t)
        return t, mask

    def counting_forfeit(s):
        counts["forfeited"] += 1
        return forfeit(s)

    monkeypatch.setattr(rules, "apply", counting_apply)
    monkeypatch.setattr(rules, "play", counting_play)
    monkeypatch.setattr(rules, "forfeit", counting_forfeit)
    return counts


def play_side_by_side(num_envs, steps, seed, reset_options=None, illegal_rate=0.0, **options):
    """Step the vector env and num_envs single envs with the same random actions (with ``illegal_rate``, that
    share of them illegal: an unmasked action or a number naming none); the number of games ended."""
    both = SideBySide("Tabletop/RoyalAssassin-v0", num_envs, seed, reset_options, **options)
    rng = np.random.default_rng(seed)
    endings = 0
    for _ in range(steps):
        actions = random_actions(rng, both.masks)
        if illegal_rate:
            bad = rng.random(num_envs) < illegal_rate
            actions[bad] = rng.choice([-1, 0, 4, 8, 9], size=bad.sum())
        endings += len(both.step(actions))
    return endings


def test_every_rare_branch_is_played_and_agrees(counted):
    endings = sum(play_side_by_side(64, 300, seed) for seed in (0, 1000, 2000, 3000))
    assert endings > 1000
    missing = [name for name in RARE_BRANCHES if not counted[name]]
    assert not missing, f"never played: {missing}; played: {dict(counted)}"


@pytest.mark.parametrize("seed", [11, 12])
def test_move_by_move_and_for_score(counted, seed):
    assert play_side_by_side(32, 300, seed, skip_forced=False, reward="score") > 100
    assert counted["won with cards left"] and counted["continuation stopped"]


def test_illegal_actions_forfeit_the_same_games(counted):
    assert play_side_by_side(32, 200, 5, illegal_rate=0.05) > 200
    assert counted["forfeited"] > 100


def _stacked_deck(seed):
    """A shuffled deck whose setup ends (checked by dealing it), with a face card last (turning it loses at once)."""
    order = np.random.default_rng(seed).permutation(rules.NUM_CARDS)
    face = int(np.flatnonzero(rules.IS_FACE[order])[-1])
    order[[face, -1]] = order[[-1, face]]
    assert rules.set_up(rules.State(order).data)  # setup ends
    return [card_code(int(c)) for c in order]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_stacked_deck_is_dealt_to_every_game(counted, seed):
    """Every game of the reset gets the same deck (the random actions still differ); the games after them are
    dealt at random, as a single env's reset() without options deals them."""
    deck = _stacked_deck(seed)
    assert play_side_by_side(48, 200, seed, reset_options={"deck": deck}) > 100
    assert counted["lost on a face card turned last"]
    vector = RoyalAssassinVectorEnv(num_envs=3)
    vector.reset(seed=seed, options={"deck": deck})
    single = RoyalAssassinEnv()
    single.reset(options={"deck": deck})
    assert all(vector.take(i).equals(single.state) for i in range(3))


def test_the_batched_deal_is_the_single_envs_deal():
    vector = RoyalAssassinVectorEnv(num_envs=500)
    vector.reset(seed=77)
    single = RoyalAssassinEnv()
    for i in range(500):
        single.reset(seed=77 + i)
        assert vector.take(i).equals(single.state)


class FirstShuffleNeverEndsSetup:
    """A generator whose first shuffle puts every face card last (so setup never ends), then a real one."""

    def __init__(self, seed):
        self.rng, self.shuffles = np.random.default_rng(seed), 0

    def shuffle(self, deck):
        self.shuffles += 1
        if self.shuffles == 1:
            deck[:] = sorted(deck, key=lambda c: rules.IS_FACE[c])
        else:
            self.rng.shuffle(deck)


@pytest.mark.skipif(not PLAIN_PYTHON, reason="its stand-in generator runs in the deal's plain Python: the next test")
def test_a_deal_that_never_ends_setup_is_shuffled_again_as_the_scalar_rules_do():
    """The one-in-two-million redeal, forced: games 1 and 3 redeal, games 0 and 2 do not."""
    make = [np.random.default_rng, FirstShuffleNeverEndsSetup] * 2
    b = Batch(rules.new_game(np.random.default_rng(0)), 4)
    Games.deal(b, np.arange(4), [make[i](i) for i in range(4)], {})
    for i in range(4):
        expected = rules.new_game(make[i](i))
        assert b.take(i).equals(expected)
    assert rules.new_game(probe := FirstShuffleNeverEndsSetup(1)) and probe.shuffles == 2


def test_the_redeal_in_the_deals_plain_python():
    """The compiled deal takes numpy's generators only (its shuffle draws what theirs does); the redeal, forced by a
    stand-in generator, is checked on the same functions run as plain Python."""
    passes_as_plain_python(f"{__file__}::test_a_deal_that_never_ends_setup_is_shuffled_again_as_the_scalar_rules_do")


def test_a_stacked_deck_that_never_ends_setup_is_refused():
    # Face cards last: no face card is out while the number cards are turned, so none can end setup.
    deck = [card_code(c) for c in rules.NUMBER_CARDS] + [card_code(c) for c in rules.FACE_CARDS]
    vector = RoyalAssassinVectorEnv(num_envs=2)
    with pytest.raises(ValueError, match="never ends setup"):
        vector.reset(options={"deck": deck})


def test_illegal_action_raise_changes_nothing():
    vector = RoyalAssassinVectorEnv(num_envs=4, illegal_action="raise")
    observations, infos = vector.reset(seed=3)
    before = [vector.take(i) for i in range(4)]
    actions = random_actions(np.random.default_rng(0), infos["action_mask"])
    actions[1] = int(np.flatnonzero(~infos["action_mask"][1].astype(bool))[0])
    with pytest.raises(IllegalActionError, match="in game 1"):
        vector.step(actions)
    assert all(vector.take(i).equals(before[i]) for i in range(4))


def test_the_vector_loops_are_the_single_game_functions():
    check_row_loops(rules, [{}])
