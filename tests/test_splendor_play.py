"""Splendor under random play: invariants after every step, hidden information and determinize."""

from collections import Counter

import numpy as np
import pytest
from helpers import random_legal

from tabletop_gym.envs import splendor_v0
from tabletop_gym.envs.splendor import rules
from tabletop_gym.envs.splendor.cards import COLOR, NOBLE_POINTS, POINTS, TIER, TIER_CARDS, TIER_SIZE


def check_invariants(s: rules.State) -> None:
    """What must hold after every step of any game."""
    n = s.num_players
    # The bank and the players' tokens add up to the box's; nothing is negative; absent seats hold nothing.
    box = np.array([rules.GEMS_PER_COLOR[n]] * 5 + [rules.GOLD_TOKENS])
    assert np.array_equal(s.bank + s.tokens[:n].sum(axis=0), box)
    assert (s.bank >= 0).all() and (s.tokens >= 0).all()
    assert not s.tokens[n:].any() and not s.bonuses[n:].any() and not s.points[n:].any()
    for seat in range(n):
        limit = 13 if s.phase == rules.RETURN and seat == s.current else rules.TOKEN_LIMIT
        assert s.tokens[seat].sum() <= limit
    # Every card is in exactly one place: a draw pile, the board, a hand of reserved cards, or bought.
    places = []
    for t in range(3):
        assert sorted(s.decks[t, :TIER_SIZE[t]].tolist()) == TIER_CARDS[t].tolist()
        places += rules.draw_pile(s, t).tolist()
        # A slot is empty only when its deck is.
        assert (s.board[t] >= 0).all() or rules.deck_size(s, t) == 0
    places += [int(c) for c in s.board.ravel() if c >= 0]
    places += [int(c) for c in s.reserved.ravel() if c >= 0]
    places += np.flatnonzero(s.owner >= 0).tolist()
    counts = Counter(places)
    assert len(places) == 90 and set(counts) == set(range(90)), counts.most_common(3)
    # Reservations are packed, at most 3, and only a reserved card can be blind.
    for seat in range(rules.MAX_PLAYERS):
        held = s.reserved[seat] >= 0
        assert held.tolist() == sorted(held.tolist(), reverse=True)
        assert not (s.reserved_blind[seat] & ~held).any()
        assert seat < n or not held.any()
    # Bonuses, cards and points are what the bought cards and the nobles say.
    for seat in range(n):
        mine = np.flatnonzero(s.owner == seat)
        assert np.array_equal(s.bonuses[seat], np.bincount(COLOR[mine], minlength=5))
        assert s.cards_bought[seat] == len(mine)
        nobles = int(np.sum(s.noble_owner == seat))
        assert s.nobles_owned[seat] == nobles
        assert s.points[seat] == POINTS[mine].sum() + NOBLE_POINTS * nobles
    # The nobles: players + 1 of them, on the table (packed) or with one player.
    table = s.nobles[s.nobles >= 0].tolist()
    assert s.nobles.tolist() == table + [-1] * (rules.MAX_PLAYERS + 1 - len(table))
    owned = np.flatnonzero(s.noble_owner >= 0).tolist()
    assert len(table) + len(owned) == n + 1 and not set(table) & set(owned)
    assert 0 <= s.current < n and s.round >= 1 and 0 <= s.passes <= n
    for seat in range(n):
        obs = rules.observe(s, seat)
        assert (obs >= rules.OBSERVATION_LOW).all() and (obs <= rules.OBSERVATION_HIGH).all()


def trajectory_invariants(states: list) -> None:
    """The main invariants of check_invariants on every state of a game at once (vectorised over steps)."""
    n, steps = states[0].num_players, len(states)
    stack = lambda name: np.stack([getattr(s, name) for s in states]).astype(np.int64)  # noqa: E731
    bank, tokens = stack("bank"), stack("tokens")
    box = np.array([rules.GEMS_PER_COLOR[n]] * 5 + [rules.GOLD_TOKENS])
    assert (bank + tokens.sum(axis=1) == box).all() and bank.min() >= 0 and tokens.min() >= 0
    hands = tokens.sum(axis=2)
    returning = np.array([s.phase == rules.RETURN for s in states])
    current = np.array([s.current for s in states])
    hands[returning, current[returning]] = np.minimum(hands[returning, current[returning]], rules.TOKEN_LIMIT)
    assert hands.max() <= rules.TOKEN_LIMIT
    # Every card is in exactly one place at every step.
    owner, decks, top = stack("owner"), stack("decks"), stack("deck_top")
    in_pile = (np.arange(decks.shape[2]) >= top[:, :, None]) & (decks >= 0)
    step_of = np.arange(steps)
    places = [(np.broadcast_to(step_of[:, None, None], decks.shape)[in_pile], decks[in_pile])]
    for name in ("board", "reserved"):
        where = stack(name).reshape(steps, -1)
        held = where >= 0
        places.append((np.broadcast_to(step_of[:, None], where.shape)[held], where[held]))
    bought = owner >= 0
    places.append((np.broadcast_to(step_of[:, None], owner.shape)[bought], np.nonzero(bought)[1]))
    rows = np.concatenate([r for r, _ in places])
    cards = np.concatenate([c for _, c in places])
    assert (np.bincount(rows * 90 + cards, minlength=steps * 90) == 1).all()
    # Bonuses, cards and points are what the bought cards and the nobles say.
    step, card = np.nonzero(bought)
    seat = step * rules.MAX_PLAYERS + owner[step, card]
    seats = steps * rules.MAX_PLAYERS
    assert (np.bincount(seat, minlength=seats) == stack("cards_bought").ravel()).all()
    points = np.bincount(seat, weights=POINTS[card], minlength=seats) + NOBLE_POINTS * stack("nobles_owned").ravel()
    assert (points == stack("points").ravel()).all()
    assert (np.bincount(seat * 5 + COLOR[card], minlength=seats * 5) == stack("bonuses").ravel()).all()


def play_random_game(s: rules.State, rng, full_check: bool) -> rules.State:
    """A game of uniformly random legal actions from ``s``; the invariants hold after every step."""
    states = []
    mask = rules.legal_mask(s)
    while not rules.is_over(s) and not rules.is_truncated(s):
        assert mask.any(), "a player always has a legal action while the game runs"
        if mask[rules.A_PASS]:
            assert mask.sum() == 1
        if s.phase == rules.RETURN:
            # Over 10 tokens a player always holds two colours at least: a return is never forced.
            assert mask.sum() >= 2
        s = rules.apply(s, random_legal(rng, mask))
        mask = rules.legal_mask(s)
        states.append(s)
        if full_check:
            check_invariants(s)
    assert not mask.any()
    trajectory_invariants(states)
    check_invariants(s)
    return s


@pytest.mark.parametrize("num_players, seeds", [(2, range(0, 800)), (3, range(800, 1400)),
                                                (4, range(1400, 2000))])
def test_random_play_keeps_the_invariants(num_players, seeds):
    rng = np.random.default_rng(num_players)
    results = Counter()
    for seed in seeds:
        s = rules.new_game(np.random.default_rng(seed), num_players)
        # Every invariant after every step of one game in twenty, the main ones on all the others.
        s = play_random_game(s, rng, full_check=seed % 20 == 0)
        result = rules.outcome(s)["result"]
        results[result] += 1
        if result == "finished":
            assert s.points[:num_players].max() >= rules.WINNING_POINTS
            assert s.current == num_players - 1  # the round was completed
            assert rules.winners(s)
    assert results["finished"] > 0.9 * len(seeds), results


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_random_play_through_the_aec_env(num_players):
    """The AEC loop: the agent to act is the current seat, its mask is non-empty, the others' are zeros."""
    rng = np.random.default_rng(0)
    for seed in range(30):
        env = splendor_v0.raw_env(num_players=num_players, skip_forced=bool(seed % 2))
        env.reset(seed=seed)
        space = env.observation_space("player_0")
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, info = env.last()
            assert space.contains(obs)
            if terminated or truncated:
                assert not obs["action_mask"].any() and {"won", "score", "result"} <= set(info)
                env.step(None)
                continue
            assert agent == f"player_{env.state_.current}" and obs["action_mask"].any()
            assert np.array_equal(obs["action_mask"].astype(bool), env.action_mask())
            for other in env.agents:
                if other != agent:
                    assert not env.observe(other)["action_mask"].any()
            env.step(random_legal(rng, obs["action_mask"]))
        assert env.agents == []


def test_forced_passes_happen_in_random_play():
    """Forced passes are rare but real: the bank runs dry while a player can neither reserve nor buy."""
    rng = np.random.default_rng(7)
    passes = 0
    for seed in range(300):
        env = splendor_v0.raw_env(num_players=2, skip_forced=False)
        env.reset(seed=seed)
        for agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            passes += int(obs["action_mask"][rules.A_PASS])
            env.step(random_legal(rng, obs["action_mask"]))
    assert passes > 0


# ------------------------------------------------------------------ hidden information


def random_position(seed, num_players, rng, steps):
    env = splendor_v0.raw_env(num_players=num_players)
    env.reset(seed=seed)
    for _ in range(steps):
        if env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
            break
        env.step(random_legal(rng, env.observe(env.agent_selection)["action_mask"]))
    return env


def reshuffle_unseen(s: rules.State, seat: int, rng) -> rules.State:
    """The same table with everything ``seat`` has not seen put in another order (by hand, not determinize)."""
    other = s.copy()
    for t in range(3):
        top = int(other.deck_top[t])
        other.decks[t, top:TIER_SIZE[t]] = rng.permutation(other.decks[t, top:TIER_SIZE[t]])
    # Swap an opponent's blind reservation with a card of the same tier from the draw pile.
    for k in range(s.num_players):
        for j in range(rules.MAX_RESERVED):
            card = other.reserved[k, j]
            if k != seat and other.reserved_blind[k, j] and card >= 0:
                t = int(TIER[card]) - 1
                pile = rules.draw_pile(other, t)
                if pile.size:
                    i = int(rng.integers(pile.size))
                    drawn_at = int(np.flatnonzero(other.decks[t, :other.deck_top[t]] == card)[0])
                    other.reserved[k, j], other.decks[t, drawn_at], pile[i] = pile[i], pile[i], card
    return other


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_states_differing_only_in_the_unseen_look_the_same(num_players):
    rng = np.random.default_rng(num_players)
    blind_swaps = 0
    for seed in range(150):
        env = random_position(seed, num_players, rng, int(rng.integers(0, 120)))
        s = env.state_
        for seat in range(num_players):
            other = reshuffle_unseen(s, seat, rng)
            blind_swaps += not np.array_equal(other.reserved, s.reserved)
            assert np.array_equal(rules.observe(other, seat), rules.observe(s, seat))
            assert rules.describe(other, seat) == rules.describe(s, seat)
            if seat == s.current:
                assert np.array_equal(rules.legal_mask(other), rules.legal_mask(s))
        assert rules.describe(reshuffle_unseen(s, -1, rng)) == rules.describe(s)
    assert blind_swaps > 20


def test_the_observation_changes_with_what_the_seat_does_see():
    env = random_position(3, 2, np.random.default_rng(0), 0)
    s = env.state_
    other = s.copy()
    other.board[0, 0], other.decks[0, 4] = other.decks[0, 4], other.board[0, 0]  # a face-up card differs
    assert not np.array_equal(rules.observe(other, 0), rules.observe(s, 0))


def unseen(s, seat) -> list:
    cards = [int(c) for t in range(3) for c in rules.draw_pile(s, t)]
    return cards + [int(s.reserved[k, j]) for k in range(s.num_players) for j in range(rules.MAX_RESERVED)
                    if k != seat and s.reserved_blind[k, j] and s.reserved[k, j] >= 0]


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_determinize_keeps_the_observation_and_resamples_the_unseen(num_players):
    rng = np.random.default_rng(10 + num_players)
    positions = changed = blind_changed = 0
    for seed in range(120):
        env = random_position(seed, num_players, rng, int(rng.integers(0, 150)))
        if env.state_.phase == rules.OVER:
            continue
        positions += 1
        seat = env.state_.current
        guess = env.determinize(rng)
        g, s = guess.state_, env.state_
        assert np.array_equal(rules.observe(g, seat), rules.observe(s, seat))
        assert rules.describe(g, seat) == rules.describe(s, seat)
        assert np.array_equal(rules.legal_mask(g), rules.legal_mask(s))
        check_invariants(g)
        # The unseen cards of each tier (draw pile and others' blind reservations) are the same cards.
        assert np.array_equal(g.reserved[seat], s.reserved[seat])
        assert sorted(unseen(g, seat)) == sorted(unseen(s, seat))
        changed += not np.array_equal(g.decks, s.decks)
        blind_changed += not np.array_equal(g.reserved, s.reserved)
    assert positions > 60 and changed > 0.9 * positions and blind_changed > 5


def play_on(env, rng, full_check: bool = False) -> None:
    """Random legal moves by the env's own masks until the game ends; the main invariants hold after every step
    (all of them with ``full_check``), all of them at the end."""
    states = [env.state_]
    while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
        mask = env.action_mask()
        assert np.array_equal(mask, rules.legal_mask(env.state_)), "the mask is the table's own"
        env.step(random_legal(rng, mask))
        states.append(env.state_)
        if full_check:
            check_invariants(env.state_)
    trajectory_invariants(states)
    check_invariants(env.state_)


def test_determinized_for_another_seat_than_the_one_to_act_the_clone_has_its_own_tables_mask():
    """The issue's case: four players, seed 9, random play, determinize(default_rng(0), seat=2). Seat 2 has not seen
    the blind reservations of the player to act, so they are resampled, and what that player may buy changes
    (the clone's mask once kept the old table's, and stepping it gave player_1 -2 gold and the bank 7)."""
    env = splendor_v0.raw_env(num_players=4)
    env.reset(seed=9)
    rng = np.random.default_rng(0)
    stale = 0
    while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
        guess = env.determinize(np.random.default_rng(0), seat=2)
        assert np.array_equal(guess.action_mask(), rules.legal_mask(guess.state_))
        if not np.array_equal(env.action_mask(), guess.action_mask()):
            stale += 1  # a table whose legal moves differ from the real one's: play it on
            play_on(guess, np.random.default_rng(stale), full_check=True)
        env.step(random_legal(rng, env.action_mask()))
    assert stale >= 3, stale


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_every_determinized_clone_for_every_seat_plays_on_as_a_legal_game(num_players):
    rng = np.random.default_rng(20 + num_players)
    positions = blind = 0
    for seed in range(40):
        env = random_position(seed, num_players, rng, int(rng.integers(10, 100)))
        if env.state_.phase == rules.OVER:
            continue
        positions += 1
        blind += bool(env.state_.reserved_blind.any())
        for seat in range(num_players):
            guess = env.determinize(rng, seat=seat)
            check_invariants(guess.state_)
            assert np.array_equal(guess.action_mask(), rules.legal_mask(guess.state_))
            assert np.array_equal(rules.observe(guess.state_, seat), rules.observe(env.state_, seat))
            play_on(guess, rng, full_check=seed % 10 == 0)
    assert positions > 30 and blind > 10, (positions, blind)


def test_determinize_depends_only_on_what_the_seat_has_seen():
    """Two tables that differ only in the unseen give the same determinized table for the same generator,
    so a determinized deal cannot reveal the true order."""
    rng = np.random.default_rng(4)
    for seed in range(60):
        env = random_position(seed, 2 + seed % 3, rng, int(rng.integers(0, 120)))
        s = env.state_
        seat = s.current
        other = reshuffle_unseen(s, seat, rng)
        a = rules.determinize(s, np.random.default_rng(seed), seat)
        b = rules.determinize(other, np.random.default_rng(seed), seat)
        assert a.equals(b)


# ------------------------------------------------------------------ the observation, field by field


def observation_by_name(s: rules.State, seat: int) -> np.ndarray:
    """The observation built entry by entry from OBSERVATION_FIELDS, as RULES.md describes it."""
    at = {name: i for i, (name, _) in enumerate(rules.OBSERVATION_FIELDS)}
    obs = np.zeros(rules.OBSERVATION_SIZE, dtype=np.float32)

    def put(name, value):
        obs[at[name]] = value

    def card(prefix, c, blind=None, hidden=False):
        put(prefix + "present", 1)
        put(prefix + f"tier{TIER[c]}", 1)
        if blind is not None:
            put(prefix + "blind", blind)
        if not hidden:
            put(prefix + "bonus_" + "WUGRK"[COLOR[c]], 1)
            put(prefix + "points", POINTS[c])
            for color, n in zip("WUGRK", rules.COST[c]):
                put(prefix + "cost_" + color, n)

    for color, n in zip("WUGRKY", s.bank):
        put("bank_" + color, n)
    for t in range(3):
        put(f"deck_size_t{t + 1}", rules.deck_size(s, t))
        for slot in range(4):
            if s.board[t, slot] >= 0:
                card(f"board_t{t + 1}_{slot}_", s.board[t, slot])
    for i, noble in enumerate(s.nobles):
        if noble >= 0:
            put(f"noble_{i}_present", 1)
            for color, n in zip("WUGRK", rules.NOBLE_REQUIREMENT[noble]):
                put(f"noble_{i}_needs_{color}", n)
    n = s.num_players
    for r in range(n):
        k, p = (seat + r) % n, f"seat{r}_"
        put(p + "present", 1)
        for color, v in zip("WUGRKY", s.tokens[k]):
            put(p + "tokens_" + color, v)
        for color, v in zip("WUGRK", s.bonuses[k]):
            put(p + "bonus_" + color, v)
        put(p + "points", s.points[k])
        put(p + "cards", s.cards_bought[k])
        put(p + "nobles", s.nobles_owned[k])
        put(p + "reserved", rules.reserved_count(s, k))
        for j in range(3):
            if s.reserved[k, j] >= 0:
                blind = bool(s.reserved_blind[k, j])
                card(p + f"reserved_{j}_", s.reserved[k, j], int(blind), hidden=blind and k != seat)
    if s.phase != rules.OVER:
        put("phase_" + rules.PHASE_NAMES[s.phase], 1)
    if s.phase == rules.RETURN:
        put("tokens_to_return", s.tokens[s.current].sum() - rules.TOKEN_LIMIT)
    put("final_round", s.final_round)
    put("round_progress", min(s.round, s.max_rounds) / s.max_rounds)
    put("consecutive_passes", s.passes)
    put(f"players_{n}", 1)
    put(f"my_seat_{seat}", 1)
    put(f"to_play_seat{(s.current - seat) % n}", 1)
    return obs


def test_observe_matches_the_observation_built_field_by_field():
    rng = np.random.default_rng(0)
    checked = 0
    for game in range(9):
        n = 2 + game % 3
        s = rules.new_game(np.random.default_rng(game), n, max_rounds=60)
        mask = rules.legal_mask(s)
        while mask.any():
            s = rules.apply(s, random_legal(rng, mask))
            mask = rules.legal_mask(s)
            for seat in range(n):
                expected = observation_by_name(s, seat)
                actual = rules.observe(s, seat)
                assert np.array_equal(actual, expected), [rules.OBSERVATION_FIELDS[i][0]
                                                          for i in np.flatnonzero(actual != expected)]
                checked += 1
    assert checked > 2000
    assert rules.OBSERVATION_SIZE == 493 and len({name for name, _ in rules.OBSERVATION_FIELDS}) == 493
