"""Royal Assassin under random play: invariants after every step, and what the player may see."""

import gymnasium as gym
import numpy as np
from helpers import random_legal

from tabletop_gym.envs.royal_assassin import rules

ENV_ID = "Tabletop/RoyalAssassin-v0"
ALL_CARDS = list(range(52))
VALUE = rules.VALUE.tolist()
SUIT = rules.SUIT[:52].tolist()
IS_FACE = rules.IS_FACE.tolist()


def check_invariants(s: rules.State, info: dict, terminated: bool) -> None:
    """The table after a step, read from the piles themselves (plain Python: the arrays are tiny)."""
    place = s.place.tolist()
    faces, num_faces = s.faces.tolist(), s.num_faces.tolist()
    attack, num_attack, attack_total = s.attack.tolist(), s.num_attack.tolist(), s.attack_total.tolist()
    defense, num_defense, defense_total = s.defense.tolist(), s.num_defense.tolist(), s.defense_total.tolist()
    lock = s.lock.tolist()
    seen = []

    def pile(cards, where):
        assert all(place[c] == where for c in cards)
        seen.extend(cards)

    # Every one of the 52 cards is in exactly one place, and ``place`` agrees; the joker is free or on a column.
    pile(s.deck[s.top:].tolist(), rules.DECK)
    if s.in_play >= 0 and place[s.in_play] == rules.IN_PLAY:  # a drawn card (a continuation's is the reserve's)
        pile([s.in_play], rules.IN_PLAY)
    reserve = s.reserve.tolist()
    pile(reserve[:s.reserve_size], rules.RESERVE)
    assert all(c == -1 for c in reserve[s.reserve_size:])
    discard = s.discard.tolist()
    pile(discard[:s.discard_size], rules.DISCARD)
    assert all(c == -1 for c in discard[s.discard_size:])
    assert -1 <= s.joker < 4

    locks = []
    for t in range(4):
        n = num_faces[t]
        assert 0 <= n <= 3 and all(c == -1 for c in faces[t][n:])
        pile(faces[t][:n], rules.COLUMN)
        assert all(IS_FACE[c] and SUIT[c] == t for c in faces[t][:n])
        attack_suits = set()
        for level in range(3):
            on_attack = attack[t][level][:num_attack[t][level]]
            on_defense = defense[t][level][:num_defense[t][level]]
            assert all(c == -1 for c in attack[t][level][len(on_attack):])
            assert all(c == -1 for c in defense[t][level][len(on_defense):])
            assert attack_total[t][level] == sum(VALUE[c] for c in on_attack)
            assert defense_total[t][level] == sum(VALUE[c] for c in on_defense)
            if level >= n:
                assert not on_attack and not on_defense
                continue
            pile(on_attack, rules.ATTACK)
            pile(on_defense, rules.DEFENSE)
            attack_suits.update(SUIT[c] for c in on_attack)
            assert all(SUIT[c] == t for c in on_defense)
            if on_defense:
                assert on_attack  # defence only ever answers an attack
            if on_attack:
                # At rest an attacked face card is neither wiped nor dead.
                assert defense_total[t][level] < attack_total[t][level]
                assert attack_total[t][level] - defense_total[t][level] < VALUE[faces[t][level]]
        # One lock suit per column, of the other colour, and a suit locks one column at most.
        assert len(attack_suits) <= 1 and lock[t] == (attack_suits.pop() if attack_suits else -1)
        if lock[t] >= 0:
            assert rules.RED_SUIT[lock[t]] != rules.RED_SUIT[t]
            locks.append(lock[t])
        if s.joker == t:
            assert n >= 2  # it came with two or more, and leaves when the column dies
    assert len(set(locks)) == len(locks)
    assert sorted(seen) == ALL_CARDS
    n = num_faces

    faces = sum(n)
    if s.decision == rules.OVER:
        assert terminated and info["action_mask"].all()  # no action is legal; every one is offered
        if s.result == rules.WON:
            assert faces == 0 and info["won"] and info["score"] == rules.deck_size(s)
        else:
            assert s.result in (rules.LOST, rules.FORFEITED) and faces > 0 and not info["won"]
            assert info["score"] == 0
            if s.result == rules.LOST:
                assert rules.deck_size(s) == 0
        assert info["kills"] == 12 - faces - int(np.sum(rules.IS_FACE[s.deck[s.top:]]))
    else:
        assert not terminated and info["action_mask"].any() and info["action_mask"][rules.A_PASS]
        assert faces > 0 and s.result == rules.PLAYING
        if s.decision == rules.DRAW:
            assert s.place[s.in_play] == rules.IN_PLAY and s.target == -1
        else:
            t = s.target
            assert s.in_play == rules.reserve_top(s) and rules.SUIT[s.in_play] == s.lock[t]
            assert s.num_attack[t, n[t] - 1] > 0


def test_random_play_keeps_the_invariants():
    # 2000 deals, every other one with skip_forced=False so that single-action decisions are stepped too.
    envs = [gym.make(ENV_ID, skip_forced=skip).unwrapped for skip in (True, False)]
    rng = np.random.default_rng(0)
    results = set()
    decisions = set()
    for seed in range(2000):
        env = envs[seed % 2]
        obs, info = env.reset(seed=seed)
        check_invariants(env.state, info, False)
        terminated = False
        while not terminated:
            mask = env.action_masks()
            assert (mask == info["action_mask"].astype(bool)).all()
            assert env.observation_space.contains(obs)
            decisions.add((int(env.state.decision), int(mask.sum())))
            obs, _, terminated, truncated, info = env.step(random_legal(rng, mask))
            assert not truncated
            check_invariants(env.state, info, terminated)
        assert env.observation_space.contains(obs)
        results.add(rules.RESULT_NAMES[info["result"]])
    assert results == {"won", "lost"}
    assert {d for d, _ in decisions} == {rules.DRAW, rules.CONTINUE}
    assert (rules.DRAW, 1) in decisions and max(n for _, n in decisions) >= 4


def play_some(env, rng, most=30):
    _, info = env.reset(seed=int(rng.integers(1 << 30)))
    for _ in range(int(rng.integers(0, most))):
        _, _, terminated, _, info = env.step(random_legal(rng, info["action_mask"]))
        if terminated:
            break


def test_decks_that_differ_only_in_unseen_order_look_the_same():
    env = gym.make(ENV_ID).unwrapped
    rng = np.random.default_rng(3)
    for _ in range(300):
        play_some(env, rng)
        s = env.state
        other = s.copy()
        rng.shuffle(other.deck[other.top:])
        assert np.array_equal(rules.observe(other), rules.observe(s))
        assert rules.describe(other) == rules.describe(s)
        assert np.array_equal(rules.legal_mask(other), rules.legal_mask(s))
        assert env.render_text(other) == env.render_text(s)


def test_the_observation_does_not_show_the_deck_order():
    env = gym.make(ENV_ID).unwrapped
    env.reset(seed=0)
    s = env.state
    other = s.copy()
    other.deck[other.top:] = other.deck[other.top:][::-1]
    assert not np.array_equal(other.deck, s.deck)
    assert np.array_equal(rules.observe(other), rules.observe(s))


def test_the_observation_counts_unseen_cards_by_rank_and_suit():
    env = gym.make(ENV_ID).unwrapped
    rng = np.random.default_rng(4)
    fields = [name for name, _ in rules.OBSERVATION_FIELDS]
    ranks = [fields.index(f"unseen_rank_{r}") for r in range(1, 14)]
    suits = [fields.index(f"unseen_suit_{u}") for u in "SHDC"]
    for _ in range(100):
        play_some(env, rng)
        obs = rules.observe(env.state)
        unseen = env.state.deck[env.state.top:]
        assert obs[ranks].tolist() == np.bincount(rules.RANK[unseen] - 1, minlength=13).tolist()
        assert obs[suits].tolist() == np.bincount(rules.SUIT[unseen], minlength=4).tolist()
        assert obs[fields.index("deck_size")] == len(unseen) == env.describe()["deck_size"]


def test_determinize_resamples_only_what_is_unseen():
    env = gym.make(ENV_ID).unwrapped
    rng = np.random.default_rng(5)
    changed = 0
    for _ in range(100):
        play_some(env, rng, most=10)
        guess = env.determinize(rng)
        s, g = env.state, guess.state
        assert np.array_equal(rules.observe(g), rules.observe(s))
        assert rules.describe(g) == rules.describe(s)
        assert np.array_equal(g.deck[:g.top], s.deck[:s.top])
        assert sorted(g.deck[g.top:]) == sorted(s.deck[s.top:])
        changed += not np.array_equal(g.deck, s.deck)
    assert changed > 90


def test_random_play_wins_sometimes_and_loses_mostly():
    """The rules page's calibration: a uniformly random legal policy wins a few percent of deals."""
    env = gym.make(ENV_ID).unwrapped
    rng = np.random.default_rng(6)
    wins = 0
    for seed in range(1000):
        _, info = env.reset(seed=seed)
        terminated = False
        while not terminated:
            _, _, terminated, _, info = env.step(random_legal(rng, info["action_mask"]))
        wins += info["won"]
    assert 30 <= wins <= 120
