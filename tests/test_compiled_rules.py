"""The compiled rules play exactly the games the plain-numpy rules played before them.

``tests/oracles/<game>_rules.py`` is each moved game's rules module as it stood before the move to numba. Both deal
the game of each seed and take the same random legal actions; after every action every part of the state, the legal
mask, the observation, the table and the outcome must be equal. The env's step (an action and the forced moves after
it, compiled in one call) is held to the oracle's one move at a time, and so are ``determinize`` and ``forfeit``.
The compiled loops of the vector env are held to the same functions on one game. With ``NUMBA_DISABLE_JIT=1`` the
same compiled functions run as plain Python: the rules tests pass that way too.
"""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from oracles import dead_center_rules, dungeon_solitaire_rules, one_card_dungeon_rules, royal_assassin_rules

from tabletop_gym.envs.dead_center import rules as dead_center
from tabletop_gym.envs.dungeon_solitaire import rules as dungeon_solitaire
from tabletop_gym.envs.one_card_dungeon import rules as one_card_dungeon
from tabletop_gym.envs.royal_assassin import rules as royal_assassin

# game -> (its rules, the oracle, the deal's options to try, what else to compare on a pair of states)
GAMES = {
    "dead_center": (dead_center, dead_center_rules, [{"jokers": 2}, {"jokers": 1}, {"jokers": 0}],
                    lambda new, old: [(dead_center.killable(new, p), dead_center_rules.killable(old, p))
                                      for p in range(dead_center.NUM_PILES)]),
    "royal_assassin": (royal_assassin, royal_assassin_rules, [{}],
                       lambda new, old: [(royal_assassin.kills(new), royal_assassin_rules.kills(old)),
                                         (royal_assassin.reserve_top(new), royal_assassin_rules.reserve_top(old))]),
    "dungeon_solitaire": (dungeon_solitaire, dungeon_solitaire_rules,
                          [{"min_delve_turns_before_retreat": 2}, {"min_delve_turns_before_retreat": 1}],
                          lambda new, old: [(dungeon_solitaire.treasure_points(new),
                                             dungeon_solitaire_rules.treasure_points(old)),
                                            (dungeon_solitaire.kings_in_hand(new),
                                             dungeon_solitaire_rules.kings_in_hand(old))]
                          + [(dungeon_solitaire.cards_in(new, p).tolist(), dungeon_solitaire_rules.cards_in(old, p).tolist())
                             for p in range(len(dungeon_solitaire.PLACE_NAMES))]),
    "one_card_dungeon": (one_card_dungeon, one_card_dungeon_rules, [{}, {"level": 5}, {"level": 12, "max_turns": 5}],
                         lambda new, old: [(new.dice_owed, 0), (new.rolls.tobytes(), old.rolls.tobytes())]
                         + [(one_card_dungeon.monster_order(new), one_card_dungeon_rules.monster_order(old)),
                            (one_card_dungeon.attackers(new), one_card_dungeon_rules.attackers(old))]
                         + [(one_card_dungeon.monster_destination(new, k), one_card_dungeon_rules.monster_destination(old, k))
                            for k in one_card_dungeon_rules.monster_order(old)]),
}
CASES = [(game, options) for game, (_, _, deals, _) in GAMES.items() for options in deals]


def assert_same_game(game, new, old, where):
    rules, oracle, _, extra = GAMES[game]
    for name in [name for name, *_ in rules.State.PARTS if hasattr(old, name)] + [k for k in vars(new) if k != "data"]:
        assert np.array_equal(getattr(new, name), getattr(old, name)), f"{where}: {name}"
    assert np.array_equal(rules.legal_mask(new), oracle.legal_mask(old)), f"{where}: mask"
    assert np.array_equal(rules.observe(new), oracle.observe(old)), f"{where}: observation"
    assert rules.describe(new) == oracle.describe(old), f"{where}: table"
    assert rules.outcome(new) == oracle.outcome(old), f"{where}: outcome"
    assert rules.is_over(new) == oracle.is_over(old)
    for ours, theirs in extra(new, old):
        assert ours == theirs, where


def oracle_step(oracle, old, action, rng, skip_forced):
    """The env's step as the oracle's env took it: the action, then one forced move at a time."""
    old = oracle.apply(old, action, rng)
    mask = oracle.legal_mask(old)
    while skip_forced and mask.sum() == 1:
        old = oracle.apply(old, int(mask.argmax()), rng)
        mask = oracle.legal_mask(old)
    return old, mask


@pytest.mark.parametrize("game, options", CASES, ids=[f"{g}-{o}" for g, o in CASES])
def test_every_move_of_a_thousand_deals_matches_the_plain_rules(game, options):
    rules, oracle, _, _ = GAMES[game]
    choices = np.random.default_rng(sum(options.values()))
    ended = getattr(oracle, "is_truncated", lambda old: False)
    moves = 0
    for seed in range(1000):
        new_rng, old_rng = np.random.default_rng(seed), np.random.default_rng(seed)  # a game's own: its deal, its dice
        new = rules.new_game(new_rng, **options)
        old = oracle.new_game(old_rng, **options)
        assert_same_game(game, new, old, f"seed {seed} dealt")
        while not (oracle.is_over(old) or ended(old)):
            legal = np.flatnonzero(oracle.legal_mask(old))
            action = int(legal[choices.integers(len(legal))])
            if seed % 5 == 0:  # a world sampled for search, from the same generator
                new = rules.determinize(new, np.random.default_rng(moves))
                old = oracle.determinize(old, np.random.default_rng(moves))
            if seed % 2:
                new, new_mask = rules.play(new, action, new_rng, skip_forced=True)
                old, old_mask = oracle_step(oracle, old, action, old_rng, skip_forced=True)
                assert np.array_equal(new_mask, old_mask)
            else:
                new, old = rules.apply(new, action, new_rng), oracle.apply(old, action, old_rng)
            moves += 1
            assert_same_game(game, new, old, f"seed {seed} move {moves}")
        assert_same_game(game, rules.forfeit(new), oracle.forfeit(old), f"seed {seed} forfeited")
    assert moves > 5_000  # every deal played to its end (Dungeon Solitaire's random games are the shortest)


def played_games(rules, deals, rng):
    """300 games in every phase: each dealt, then played some random legal moves on."""
    games = []
    for seed in range(300):
        s = rules.new_game(np.random.default_rng(seed), **deals[seed % len(deals)])
        for _ in range(rng.integers(0, 40)):
            legal = np.flatnonzero(rules.legal_mask(s))
            if not len(legal):
                break
            s = rules.apply(s, int(rng.choice(legal)))
        games.append(s)
    return games


# One Card Dungeon's loops also pay each game's dice from a bank: tests/test_vector_one_card_dungeon.py holds them to
# the single-game functions, every legal action of hand-set tables.
@pytest.mark.parametrize("game", [game for game in GAMES if game != "one_card_dungeon"])
def test_the_vector_loops_are_the_single_game_functions(game):
    rules, _, deals, _ = GAMES[game]
    rng = np.random.default_rng(7)
    games = played_games(rules, deals, rng)
    data = np.stack([s.data for s in games])
    masks = np.empty((len(games), rules.NUM_ACTIONS), dtype=bool)
    rules.fill_legal_masks(data, masks)
    observations = np.empty((len(games), rules.OBSERVATION_SIZE), dtype=np.float32)
    if game == "dead_center":
        rules.fill_observations(data, np.array([s.jokers for s in games]), observations)
    else:
        rules.fill_observations(data, observations)
    for k, s in enumerate(games):
        assert np.array_equal(masks[k], rules.legal_mask(s)) and np.array_equal(observations[k], rules.observe(s))
    playing = masks.any(axis=1)
    actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
    rules.take_actions(data, actions, playing)
    rules.play_forced_rows(data, playing)
    for k, s in enumerate(games):
        expected = rules.play(s, int(actions[k]), None, skip_forced=True)[0] if playing[k] else s
        assert np.array_equal(data[k], expected.data)


def test_the_rules_pass_as_plain_python():
    # What coverage and a debugger see: the same functions, not compiled.
    here = Path(__file__).parent
    tests = [str(here / f"test_{game}_rules.py") for game in GAMES]
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=", *tests],
                            env={**os.environ, "NUMBA_DISABLE_JIT": "1"}, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert " passed" in result.stdout
