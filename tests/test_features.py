"""observation="features": the entries each game's features module adds to the plain observation hold what they say,
checked against the rules' own state over random games, and the single and vector envs show the same observations."""

import gymnasium as gym
import numpy as np
import pytest

from tabletop_gym.envs import GAMES
from tabletop_gym.envs.core.env import observation_modes
from tabletop_gym.envs.core.cards import IS_RED, RANK, SUIT
from tabletop_gym.envs.dead_center import features as dead_center_features
from tabletop_gym.envs.dead_center import rules as dead_center
from tabletop_gym.envs.royal_assassin import features as royal_assassin_features
from tabletop_gym.envs.royal_assassin import rules as royal_assassin
from tabletop_gym.envs.splendor import features as splendor_features
from tabletop_gym.envs.splendor import rules as splendor

FEATURED = ["dead_center", "royal_assassin"]


def random_states(rules, games: int, seed: int = 0):
    """Every state of ``games`` random games (uniform over the legal actions)."""
    rng = np.random.default_rng(seed)
    for _ in range(games):
        s = rules.new_game(rng)
        while not rules.is_over(s):
            yield s
            s = rules.apply(s, int(rng.choice(np.flatnonzero(rules.legal_mask(s)))), rng)


def test_dead_center_features_are_the_kills_the_table_holds():
    names = [name for name, _ in dead_center_features.FEATURE_FIELDS]
    checked_plays = 0
    for s in random_states(dead_center, 40):
        f = dict(zip(names, dead_center_features.features(dead_center.observe(s))))
        tops = s.pile_top
        for slot, name in enumerate(dead_center.SLOT_NAMES):
            a, b = dead_center.SUPPORT_PILES[slot]
            up = s.slot_state[slot] == dead_center.UP
            assert f[f"killable_{name}"] == (up and dead_center.CAN_KILL[s.slot_card[slot], tops[a], tops[b]])
            short = max(0, 10 - dead_center.VALUE[tops[a]] - dead_center.VALUE[tops[b]]) / 10 if up else 0
            assert f[f"short_of_ten_{name}"] == pytest.approx(short)
            zombie = s.slot_card[slot]
            asked = {dead_center.JACK: lambda c: True, dead_center.QUEEN: lambda c: IS_RED[c] == IS_RED[zombie],
                     dead_center.KING: lambda c: SUIT[c] == SUIT[zombie]}[RANK[zombie]]
            matching = sum(c >= 52 or asked(c) for c in (tops[a], tops[b])) / 2 if up else 0
            assert f[f"supports_matching_{name}"] == matching
            # A face-down slot: averaged over the zombies still face down, whichever slot they lie in.
            down = s.slot_state[slot] == dead_center.DOWN
            hidden = s.slot_card[s.slot_state == dead_center.DOWN]
            killing = np.mean([dead_center.CAN_KILL[z, tops[a], tops[b]] for z in hidden]) if down else 0
            assert f[f"reveal_killable_{name}"] == pytest.approx(killing)
            matching = np.mean([dead_center.MATCHES[z, [tops[a], tops[b]]].mean() for z in hidden]) if down else 0
            assert f[f"reveal_matching_{name}"] == pytest.approx(matching)
            short = max(0, 10 - dead_center.VALUE[tops[a]] - dead_center.VALUE[tops[b]]) / 10 if down else 0
            assert f[f"reveal_short_of_ten_{name}"] == pytest.approx(short)
        draw = np.flatnonzero(s.place == dead_center.DECK)  # the draw pile's cards, jokers included

        def dead_share(tops):
            return np.mean([not dead_center.ACCEPTS[c, tops].any() for c in draw]) if len(draw) else 0.0

        assert f["dead_draw"] == pytest.approx(dead_share(tops))
        for slot, name in enumerate(dead_center.SLOT_NAMES):
            takes = np.mean([dead_center.ACCEPTS[c, tops[dead_center.ATTACK_PILE[slot]]] for c in draw]) if len(draw) else 0
            up = s.slot_state[slot] == dead_center.UP
            assert f[f"attack_fits_{name}"] == pytest.approx(takes if up else 0)
        if s.phase != dead_center.PLAY:
            assert not any(f[f"fits_pile_{p}"] for p in range(9))
            continue
        mask = dead_center.legal_mask(s)
        for pile in range(9):
            fits = bool(mask[dead_center.A_PLAY + pile])
            assert f[f"fits_pile_{pile}"] == fits
            if not fits:
                continue
            after = dead_center.apply(s, dead_center.A_PLAY + pile)  # the rules' own kill step, or none
            assert f[f"kill_after_play_{pile}"] == bool(dead_center.killable(after, pile))
            new_tops = after.pile_top
            assert f[f"dead_draw_after_play_{pile}"] == pytest.approx(dead_share(new_tops))
            for slot, name in enumerate(dead_center.SLOT_NAMES):
                a, b = dead_center.SUPPORT_PILES[slot]
                expected = (s.slot_state[slot] == dead_center.UP
                            and dead_center.CAN_KILL[s.slot_card[slot], new_tops[a], new_tops[b]])
                assert f[f"killable_after_play_{pile}_{name}"] == expected
            checked_plays += 1
    assert checked_plays > 500


def test_royal_assassin_features_say_what_each_attack_does():
    ra, features = royal_assassin, royal_assassin_features
    names = [name for name, _ in features.FEATURE_FIELDS]
    seen = {"kill": 0, "wipe": 0, "joker": 0, "chain": 0}
    for s in random_states(ra, 300):
        f = dict(zip(names, features.features(ra.observe(s))))
        reserve = [int(c) for c in s.reserve[:s.reserve_size]][::-1]  # top first
        if s.decision == ra.CONTINUE:
            reserve = reserve[1:]  # the card in play
        runs = []
        for t in range(4):
            run = 0
            for c in reserve:
                if ra.SUIT[c] != t:
                    break
                run += int(ra.VALUE[c])
            runs.append(run)
        for t, suit in enumerate(ra.SUITS):
            assert f[f"column_{suit}_defence_waiting"] * 65 == pytest.approx(runs[t])
        assert f["attack_waiting"] * 65 == pytest.approx(runs[ra.SUIT[s.in_play]] if s.in_play >= 0 else 0)
        mask = ra.legal_mask(s)
        for t, suit in enumerate(ra.SUITS):
            if not mask[ra.A_ATTACK + t]:
                continue
            level = s.num_faces[t] - 1
            after = ra.apply(s, ra.A_ATTACK + t)
            killed = ra.kills(after) - ra.kills(s)
            assert f[f"column_{suit}_kills_now"] == (killed > 0)
            assert f[f"column_{suit}_faces_dying"] * 3 == pytest.approx(killed)
            wiped = not killed and after.num_attack[t, level] == 0
            assert f[f"column_{suit}_wiped_after"] == wiped
            need = (ra.VALUE[s.faces[t, level]] - s.attack_total[t, level] - ra.VALUE[s.in_play]
                    + s.defense_total[t, level])
            assert f[f"column_{suit}_short_after"] * ra.KING == pytest.approx(np.clip(need, 0, ra.KING))
            # Attack, then continue on the same column with every card the reserve offers: a kill on the way? The
            # feature reads the run of the card's suit on the reserve's top, which no defence can interrupt, so it
            # says yes only where the chain kills, and no only where it does not or a defence card came between.
            chain, defended = after, False
            while ra.kills(chain) == ra.kills(s) and chain.decision == ra.CONTINUE and chain.target == t:
                defended |= chain.defense_total[t, level] > s.defense_total[t, level]
                chain = ra.apply(chain, ra.A_ATTACK + t)
            chain_kills = ra.kills(chain) > ra.kills(s)
            if f[f"column_{suit}_kills_with_reserve"]:
                assert chain_kills
                seen["chain"] += not killed
            else:
                assert not chain_kills or defended
            seen["kill"] += killed > 0
            seen["wipe"] += wiped
            if mask[ra.A_ASSASSIN + t]:
                with_joker = ra.kills(ra.apply(s, ra.A_ASSASSIN + t)) - ra.kills(s)
                assert f[f"column_{suit}_faces_dying_with_joker"] * 3 == pytest.approx(with_joker)
                seen["joker"] += with_joker > 1
    assert min(seen.values()) > 20, seen


@pytest.mark.parametrize("game", FEATURED)
def test_features_extend_the_plain_observation_in_single_and_vector_envs(game):
    env_id = GAMES[game].id
    plain, featured = gym.make(env_id), gym.make(env_id, observation="features")
    envs = gym.make_vec(env_id, num_envs=3, vectorization_mode="vector_entry_point", observation="features")
    size = plain.observation_space.shape[0]
    assert featured.observation_space.shape[0] > size and envs.single_observation_space == featured.observation_space
    observations, infos = envs.reset(seed=5)
    rng = np.random.default_rng(0)
    for i in range(3):
        o_plain, _ = plain.reset(seed=5 + i)
        o_featured, _ = featured.reset(seed=5 + i)
        assert np.array_equal(o_featured[:size], o_plain) and np.array_equal(observations[i], o_featured)
    for _ in range(60):
        actions = [int(rng.choice(np.flatnonzero(m))) for m in infos["action_mask"]]
        observations, _, _, _, infos = envs.step(np.array(actions))
        assert all(featured.observation_space.contains(o) for o in observations)


def test_an_unknown_observation_mode_is_refused_by_name():
    with pytest.raises(ValueError, match="observation must be one of 'plain', 'features'"):
        gym.make("Tabletop/DeadCenter-v0", observation="pixels")


def slot_fields_by_hand(s, tops, killed=None) -> list:
    """What ``action_features`` says of each slot of a table with top cards ``tops`` and the slots of state
    ``s`` (the slot ``killed`` emptied), worked out from the state one slot at a time."""
    dc = dead_center
    draw = np.flatnonzero(s.place == dc.DECK)
    hidden = s.slot_card[s.slot_state == dc.DOWN]
    fields = []
    for slot in range(dc.NUM_SLOTS):
        a, b = tops[dc.SUPPORT_PILES[slot]]
        up, down = s.slot_state[slot] == dc.UP, s.slot_state[slot] == dc.DOWN
        if slot == killed or not (up or down):
            fields += [0.0] * 9
            continue
        zombies = [s.slot_card[slot]] if up else hidden  # a face-down slot may hold any of the hidden zombies
        fields += [up, down, np.mean([dc.CAN_KILL[z, a, b] for z in zombies]),
                   max(0, 10 - dc.VALUE[a] - dc.VALUE[b]) / 10,
                   np.mean([dc.MATCHES[z, [a, b]].mean() for z in zombies]),
                   np.mean([dc.ACCEPTS[c, tops[dc.ATTACK_PILE[slot]]] for c in draw]) if len(draw) else 0.0]
        fields += [np.mean([RANK[z] == rank for z in zombies]) for rank in (dc.JACK, dc.QUEEN, dc.KING)]
    return [float(x) for x in fields]


def test_dead_center_action_features_describe_the_table_each_action_leaves():
    dc, features = dead_center, dead_center_features
    names = features.ACTION_FIELDS
    seen = {"reveal": 0, "play": 0, "kill": 0}
    for s in random_states(dc, 25, seed=1):
        rows = features.action_features(dc.observe(s)).reshape(dc.NUM_ACTIONS, features.ACTION_FIELD_COUNT)
        draw = np.flatnonzero(s.place == dc.DECK)

        def dead_share(tops):
            return np.mean([not dc.ACCEPTS[c, tops].any() for c in draw]) if len(draw) else 0.0

        for action in np.flatnonzero(dc.legal_mask(s)):
            f = dict(zip(names, rows[action]))
            kind = ("reveal", "play", "kill")[int(action >= dc.A_PLAY) + int(action >= dc.A_KILL)]
            tops, killed, kills, rank = s.pile_top, None, 0, None
            if kind == "play":
                after = dc.apply(s, action)  # the card goes on the pile; the kill step, if any, follows
                tops = after.pile_top
                kills = bool(dc.killable(after, action - dc.A_PLAY))
            elif kind == "kill":
                killed = action - dc.A_KILL
                kills, rank = 1, RANK[s.slot_card[killed]]
            expected = slot_fields_by_hand(s, tops, killed)
            assert rows[action, :len(expected)] == pytest.approx(expected, abs=1e-6), (kind, action)
            assert (f["is_reveal"], f["is_play"], f["is_kill"]) == tuple(kind == k for k in seen)
            assert [f["kills_jack"], f["kills_queen"], f["kills_king"]] == [rank == r for r in
                                                                           (dc.JACK, dc.QUEEN, dc.KING)]
            assert f["kills"] == kills and f["dead_draw"] == pytest.approx(dead_share(tops))
            assert [f[f"reveals_{n}"] for n in dc.SLOT_NAMES] == [kind == "reveal" and action == i
                                                                  for i in range(dc.NUM_SLOTS)]
            seen[kind] += 1
    assert min(seen.values()) > 100, seen


def test_dead_center_action_features_agree_with_the_features():
    dc, features = dead_center, dead_center_features
    states = list(random_states(dc, 30, seed=2))
    obs = np.array([dc.observe(s) for s in states])
    f = dict(zip([name for name, _ in features.FEATURE_FIELDS], np.moveaxis(features.features(obs), -1, 0)))
    rows = features.action_features(obs).reshape(len(obs), dc.NUM_ACTIONS, features.ACTION_FIELD_COUNT)
    field = features.ACTION_FIELDS.index
    # Revealing leaves the table as it is: its slots read as the features read them now.
    for slot, name in enumerate(dc.SLOT_NAMES):
        at = slot * 9
        up = rows[:, dc.A_REVEAL, at] > 0
        assert np.array_equal(np.where(up, rows[:, dc.A_REVEAL, at + 2], 0), f[f"killable_{name}"])
        assert np.allclose(np.where(up, 0, rows[:, dc.A_REVEAL, at + 2]), f[f"reveal_killable_{name}"], atol=1e-6)
    fits = np.stack([f[f"fits_pile_{p}"] for p in range(9)], axis=1) > 0
    plays = rows[:, dc.A_PLAY:dc.A_KILL]
    kill_after = np.stack([f[f"kill_after_play_{p}"] for p in range(9)], axis=1)
    dead_after = np.stack([f[f"dead_draw_after_play_{p}"] for p in range(9)], axis=1)
    assert fits.sum() > 500
    assert np.array_equal(plays[..., field("kills")][fits], kill_after[fits])
    assert np.allclose(plays[..., field("dead_draw")][fits], dead_after[fits], atol=1e-6)
    assert np.allclose(rows[:, dc.A_REVEAL, field("dead_draw")], f["dead_draw"], atol=1e-6)


@pytest.mark.parametrize("rules, features", [(dead_center, dead_center_features),
                                             (royal_assassin, royal_assassin_features)],
                         ids=["dead_center", "royal_assassin"])
def test_the_actions_observation_ends_with_a_row_per_action_in_single_and_vector_envs(rules, features):
    env_id = GAMES[rules.__name__.split(".")[-2]].id
    env = gym.make(env_id, observation="actions")
    envs = gym.make_vec(env_id, num_envs=3, vectorization_mode="vector_entry_point", observation="actions")
    sizes = [rules.OBSERVATION_SIZE, features.FEATURE_SIZE, features.ACTION_FEATURE_SIZE]
    assert env.observation_space.shape == (sum(sizes),) == envs.single_observation_space.shape
    assert features.ACTION_FEATURE_SIZE == rules.NUM_ACTIONS * len(features.ACTION_FIELDS)
    featured = gym.make(env_id, observation="features")
    observations, infos = envs.reset(seed=8)
    for i in range(3):
        obs, _ = env.reset(seed=8 + i)
        assert np.array_equal(obs[:sizes[0] + sizes[1]], featured.reset(seed=8 + i)[0])
        assert np.array_equal(obs[-sizes[2]:], features.action_features(obs[:sizes[0]]))
        assert np.array_equal(observations[i], obs) and env.observation_space.contains(obs)
    rng = np.random.default_rng(0)
    for _ in range(60):
        actions = [int(rng.choice(np.flatnonzero(m))) for m in infos["action_mask"]]
        observations, _, _, _, infos = envs.step(np.array(actions))
        assert all(env.observation_space.contains(o) for o in observations)


@pytest.mark.parametrize("game, mode", [(game, mode) for game in [*FEATURED, "splendor"]
                                        for mode in observation_modes(gym.make(GAMES[game].id).unwrapped.features)
                                        if mode != "plain"])
def test_every_observation_mode_passes_gymnasiums_checker(game, mode):
    import warnings

    from gymnasium.utils.env_checker import check_env

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(gym.make(GAMES[game].id, observation=mode).unwrapped)
    assert [str(w.message) for w in caught] == []


def royal_assassin_fields_by_hand(before, after, action) -> dict:
    """What ``action`` left, read off the game's own state: ``before`` the action, ``after`` it was played by the
    rules with no card left to turn (so nothing comes after the resolution)."""
    ra = royal_assassin
    unseen = [int(c) for c in before.deck[before.top:] if not ra.IS_FACE[c]]  # their order aside, known
    supply = [sum(int(ra.VALUE[c]) for c in unseen if ra.SUIT[c] == u) for u in range(4)]
    lock = [int(x) for x in after.lock]
    reserve = [int(c) for c in after.reserve[:after.reserve_size]][::-1]  # top first, a continuation's card too
    run = 0
    for c in reserve:
        if ra.SUIT[c] != ra.SUIT[reserve[0]]:
            break
        run += int(ra.VALUE[c])
    f = {}
    for t, letter in enumerate(ra.SUITS):
        n = int(after.num_faces[t])
        black = (True, False, False, True)  # spades and clubs: a column is attacked by the other colour
        attackers = [lock[t]] if lock[t] >= 0 else [u for u in range(4) if black[u] != black[t] and u not in lock]
        points = sum(supply[u] for u in attackers)
        short = (int(ra.VALUE[after.faces[t, n - 1]]) - int(after.attack_total[t, n - 1])
                 + int(after.defense_total[t, n - 1])) if n else 0
        f.update({
            f"column_{letter}_faces": n / 3, f"column_{letter}_short": short / 13,
            f"column_{letter}_attacked": float(n > 0 and after.attack_total[t, n - 1] > 0),
            f"column_{letter}_buried_attack": float(any(after.attack_total[t, k] > 0 for k in range(n - 1))),
            f"column_{letter}_locked": float(n > 0 and lock[t] >= 0),
            f"column_{letter}_joker": float(n > 0 and after.joker == t),
            f"column_{letter}_supply": points / 130,
            f"column_{letter}_short_per_supply": short / (points + 1) / 13,
            f"column_{letter}_run_on_top": run / 65 if reserve and ra.SUIT[reserve[0]] == t else 0.0})
    killed = int(before.num_faces.sum() - after.num_faces.sum())
    attacked = action != ra.A_PASS
    column = action % 4 if attacked else -1
    # A wipe takes defence from the reserve and clears the attack (a kill takes none; a defence too weak keeps it).
    defended = before.reserve_size - (before.decision == ra.CONTINUE) > after.reserve_size
    wiped = attacked and defended and after.attack_total[column, after.num_faces[column] - 1] == 0
    f.update({
        "is_attack": float(action < ra.A_ASSASSIN), "is_assassin": float(ra.A_ASSASSIN <= action < ra.A_PASS),
        "is_pass": float(not attacked), "to_reserve": float(not attacked and before.decision == ra.DRAW),
        "faces_killed": killed / 3, "faces_left": int(after.num_faces.sum()) / 12,
        "won": float(after.result == ra.WON), "wiped": float(bool(wiped)),
        "continues": float(after.decision == ra.CONTINUE), "joker_free": float(after.joker < 0)})
    f.update({f"attacks_{letter}": float(column == t) for t, letter in enumerate(ra.SUITS)})
    return f


def test_royal_assassin_action_features_are_the_table_the_rules_leave():
    ra, features = royal_assassin, royal_assassin_features
    seen = {"kill": 0, "joker_kill": 0, "wipe": 0, "continues": 0, "won": 0, "kill_then_defence": 0}
    for s in random_states(ra, 300):
        rows = features.action_features(ra.observe(s)).reshape(ra.NUM_ACTIONS, features.ACTION_FIELD_COUNT)
        for action in np.flatnonzero(ra.legal_mask(s)):
            last_card = s.copy()
            last_card.top = ra.NUM_CARDS  # nothing to turn after the resolution: the table stays as it left it
            after = ra.apply(last_card, int(action))
            expected = royal_assassin_fields_by_hand(s, after, int(action))
            got = dict(zip(features.ACTION_FIELDS, rows[action]))
            assert got.keys() == expected.keys()
            for name in got:
                assert got[name] == pytest.approx(expected[name], abs=1e-6), (name, int(action), ra.describe(s))
            seen["kill"] += expected["faces_killed"] > 0
            seen["joker_kill"] += expected["faces_killed"] > 1 / 3
            seen["wipe"] += expected["wiped"] > 0
            seen["continues"] += expected["continues"] > 0
            seen["won"] += expected["won"] > 0
            seen["kill_then_defence"] += expected["faces_killed"] > 0 and got["continues"] + got["wiped"] > 0
    assert min(seen.values()) >= 20, seen


def test_royal_assassin_action_features_of_a_finished_game_are_zeros():
    ra, features = royal_assassin, royal_assassin_features
    s = ra.forfeit(next(random_states(ra, 1)))
    assert not features.action_features(ra.observe(s)).any()


def splendor_positions(games: int, seed: int = 0):
    """Every main-phase decision of ``games`` random 2-player games, with its legal mask."""
    rng = np.random.default_rng(seed)
    for _ in range(games):
        s = splendor.new_game(rng, 2)
        while not splendor.is_over(s):
            mask = splendor.legal_mask(s)
            if splendor.PHASE_NAMES[s.phase] == "main":
                yield s, mask
            s = splendor.apply(s, int(rng.choice(np.flatnonzero(mask))), rng)


def splendor_affordable(s, seat, tokens, bonuses, bought) -> list[int]:
    """The points of each card in sight (face-up and the seat's reserved, the one bought aside) that these
    tokens and bonuses pay for, gold standing in for any colour."""
    in_sight = [int(c) for c in s.board.reshape(-1)] + [int(c) for c in s.reserved[seat]]
    affordable = []
    for place, card in enumerate(in_sight):
        if card < 0 or place == bought:
            continue
        short = np.maximum(splendor.COST[card] - bonuses - tokens[:5], 0).sum()
        if short <= tokens[splendor.GOLD]:
            affordable.append(int(splendor.POINTS[card]))
    return affordable


def splendor_kind(name: str) -> str:
    """An action's kind, read off its name (take_WUG, take_WW, reserve_t1_deck, buy_reserved_0, ...)."""
    move, _, rest = name.partition("_")
    if move == "take":
        return "double" if len(rest) == 2 and rest[0] == rest[1] else f"take{len(rest)}"
    if move == "reserve":
        return "reserve_deck" if rest.endswith("deck") else "reserve"
    if move == "buy":
        return "buy_reserved" if rest.startswith("reserved") else "buy"
    return move


def test_splendor_action_fields_are_what_the_rules_make_of_each_action():
    field = splendor_features.ACTION_FIELDS.index
    kinds = [name for name in splendor_features.ACTION_FIELDS if name.startswith("is_")]
    changes = slice(field("tokens_W_change"), field("tokens_Y_change") + 1)
    checked = {"buy": 0, "noble": 0, "take": 0, "reserve": 0}
    for s, mask in splendor_positions(25):
        seat = s.current
        rows = splendor_features.action_features(splendor.observe(s, seat)).reshape(splendor.NUM_ACTIONS, -1)
        for action in np.flatnonzero(mask).tolist():
            f = rows[action]
            after = splendor.apply(s, action, np.random.default_rng(0))
            name = splendor.ACTION_NAMES[action]
            kind = splendor_kind(name)
            assert f[:len(kinds)].sum() == 1 and f[field(f"is_{kind}")] == 1
            tokens, bonuses = after.tokens[seat].astype(int), after.bonuses[seat].astype(int)
            assert np.allclose(f[changes] * 3, tokens - s.tokens[seat])
            assert f[field("tokens_after")] * 10 == pytest.approx(tokens.sum())
            assert f[field("tokens_over_limit")] * 3 == pytest.approx(max(tokens.sum() - 10, 0))
            assert f[field("bonuses_after")] * 20 == pytest.approx(bonuses.sum())
            # A noble the bought card's bonus earns is counted at once (the rules visit it now, or ask which one
            # first); one the seat already met, left for the end of a later turn, is not.
            choosing = splendor.PHASE_NAMES[after.phase] == "noble" and after.current == seat
            points = int(after.points[seat]) + 3 * choosing
            earned = after.nobles_owned[seat] > s.nobles_owned[seat] or choosing
            if splendor.qualifying_nobles(s, seat).any():
                assert round(float(f[field("points_after")]) * 15, 4) in (points, points - 3)
                continue
            assert f[field("points_after")] * 15 == pytest.approx(points)
            assert f[field("reaches_winning_points")] == (points >= 15)
            assert f[field("noble_now")] == earned
            bought = action - splendor.A_BUY if kind.startswith("buy") else -1
            if kind == "buy_reserved":
                bought = 12 + action - splendor.A_BUY_RESERVED
            affordable = splendor_affordable(s, seat, tokens, bonuses, bought)
            assert f[field("affordable_after")] * 15 == pytest.approx(len(affordable))
            assert f[field("best_affordable_points")] * 5 == pytest.approx(max(affordable, default=0))
            if kind.startswith("buy"):
                card = [*s.board.reshape(-1), *s.reserved[seat]][bought]
                assert f[field("card_points")] * 5 == splendor.POINTS[card]
                assert f[field("card_cost")] * 14 == pytest.approx(splendor.COST[card].sum())
                assert f[field("card_bonus_W") + splendor.COLOR[card]] == 1
            move = name.split("_")[0]
            checked[move] = checked.get(move, 0) + 1
            checked["noble"] += bool(earned)
    assert min(checked[move] for move in ("take", "reserve", "buy", "noble")) >= 100, checked


def test_splendor_actions_observation_in_single_and_vector_envs():
    env_id = GAMES["splendor"].id
    assert observation_modes(splendor_features) == ["plain", "actions"]
    env = gym.make(env_id, observation="actions")
    plain = gym.make(env_id)
    envs = gym.make_vec(env_id, num_envs=3, vectorization_mode="vector_entry_point", observation="actions")
    plain_size = splendor.OBSERVATION_SIZE
    size = plain_size + splendor_features.ACTION_FEATURE_SIZE
    assert env.observation_space.shape == (size,) == envs.single_observation_space.shape
    assert (splendor_features.ACTION_FEATURE_SIZE == splendor.NUM_ACTIONS * len(splendor_features.ACTION_FIELDS)
            == 72 * 40)
    observations, infos = envs.reset(seed=8)
    for i in range(3):
        obs, _ = env.reset(seed=8 + i)
        assert np.array_equal(obs[:plain_size], plain.reset(seed=8 + i)[0])
        assert np.array_equal(obs[plain_size:], splendor_features.action_features(obs[:plain_size]))
        assert np.array_equal(observations[i], obs)
    rng = np.random.default_rng(0)
    for _ in range(150):
        actions = [int(rng.choice(np.flatnonzero(m))) for m in infos["action_mask"]]
        observations, _, _, _, infos = envs.step(np.array(actions))
        assert all(env.observation_space.contains(o) for o in observations)
