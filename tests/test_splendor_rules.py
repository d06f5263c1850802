"""Splendor: one test per rule and ruling of envs/splendor/RULES.md, each on a stacked game.

Games are driven through the AEC env with ``illegal_action="raise"`` and ``skip_forced=False``
unless a test says otherwise. Positions that would take dozens of turns to reach (a player with many
cards or tokens) are set up through ``get_state``/``set_state`` with ``give_cards``, ``give_reserved``,
``give_tokens`` and ``set_bank``, which move cards and tokens the way play does (cards from the top
of the decks, tokens from the bank), so every invariant of the table still holds.

Card ids used below (``cards.card_text``): 0 `W 0pt (3U)`, 1 `W 0pt (2R 1K)`, 3 `W 0pt (1U 1G 1R 1K)`,
4-7 white, 7 `W 1pt (4G)`, 8-15 blue, 15 `U 1pt (4R)`, 16-23 green, 32-39 black; tier 2: 41
`W 1pt (2W 3U 3R)`, 42 `W 2pt (5R)`, 44 `W 2pt (5R 3K)`, 45 `W 3pt (6W)`, 48/49 blue 2pt; tier 3:
74 `U 3pt`, 75 `U 4pt (7W)`, 76 `U 4pt`, 77 `U 5pt`, 81 `G 5pt`, 87 `K 4pt`, 88 `K 4pt (3G 6R 3K)`.
Nobles: 0 W4 U4, 1 W4 K4, 2 U4 G4, 3 G4 R4, 4 R4 K4, 5 W3 U3 G3, 8 U3 G3 R3, 9 G3 R3 K3.
"""

import json
import re
import warnings

import gymnasium as gym
import numpy as np
import pytest
from helpers import PLAIN_PYTHON, passes_as_plain_python
from test_splendor_play import check_invariants

from tabletop_gym.envs import splendor_v0
from tabletop_gym.envs.core.errors import IllegalActionError
from tabletop_gym.envs.splendor import rules
from tabletop_gym.envs.splendor.cards import COLOR, POINTS, TIER, TIER_CARDS

NAMES = rules.ACTION_NAMES


def ordered(num_players=2, tier1=(), tier2=(), tier3=(), nobles=None):
    """A full stack: the given ids on top of each tier, then the tier's other cards in id order."""
    deck = {}
    for key, top in (("tier1", tier1), ("tier2", tier2), ("tier3", tier3)):
        rest = [int(c) for c in TIER_CARDS[int(key[-1]) - 1] if int(c) not in top]
        deck[key] = list(top) + rest
    deck["nobles"] = list(nobles) if nobles is not None else list(range(num_players + 1))
    return deck


def start(num_players=2, skip_forced=False, max_rounds=100, **stack):
    env = splendor_v0.raw_env(num_players=num_players, skip_forced=skip_forced, illegal_action="raise",
                              max_rounds=max_rounds)
    env.reset(seed=0, options={"deck": ordered(num_players, **stack)})
    return env


def play(env, *names):
    for name in names:
        env.step(NAMES.index(name))


def legal(env) -> set:
    return set(env.legal_action_names())


def table(env, seat=None):
    return env.describe(seat)


def edit(env, *changes):
    """Change the game through get_state/set_state (the public round trip), then check the table."""
    saved = env.get_state()
    for change in changes:
        change(saved["game"])
    env.set_state(saved)
    check_invariants(env.state_)


def _from_pile(s, card):
    """Take ``card`` out of its tier's draw pile as if it were the next card drawn."""
    t = TIER[card] - 1
    top = int(s.deck_top[t])
    where = int(np.flatnonzero(s.decks[t] == card)[0])
    assert where >= top, f"card {card} is not in the draw pile"
    s.decks[t, [top, where]] = s.decks[t, [where, top]]
    s.deck_top[t] += 1


def give_cards(*cards, seat=0):
    """Seat ``seat`` has bought ``cards`` from the draw piles."""
    def change(s):
        for c in cards:
            _from_pile(s, c)
            s.owner[c] = seat
            s.bonuses[seat, COLOR[c]] += 1
            s.points[seat] += POINTS[c]
            s.cards_bought[seat] += 1
    return change


def give_reserved(*cards, seat=0):
    """Seat ``seat`` has reserved ``cards`` (face up) from the draw piles, without taking gold."""
    def change(s):
        for c in cards:
            _from_pile(s, c)
            s.reserved[seat, rules.reserved_count(s, seat)] = c
    return change


def give_tokens(*counts, seat=0):
    """Move tokens (W U G R K Y counts) from the bank to the seat."""
    def change(s):
        s.bank -= np.array(counts, dtype=np.int8)
        s.tokens[seat] += np.array(counts, dtype=np.int8)
    return change


def set_bank(*gems):
    """Leave ``gems`` (W U G R K) in the bank; the others go to the players (seat 1 first), 10 at most each."""
    def change(s):
        seats = [*range(1, s.num_players), 0]
        for c in range(5):
            for _ in range(int(s.bank[c]) - gems[c]):
                seat = next(k for k in seats if s.tokens[k].sum() < rules.TOKEN_LIMIT)
                s.bank[c] -= 1
                s.tokens[seat, c] += 1
    return change


def takes(env) -> set:
    return {n for n in legal(env) if n.startswith("take_")}


# ------------------------------------------------------------------ setup


@pytest.mark.parametrize("num_players, gems, nobles", [(2, 4, 3), (3, 5, 4), (4, 7, 5)])
def test_setup_tokens_nobles_and_board_per_player_count(num_players, gems, nobles):
    env = splendor_v0.raw_env(num_players=num_players)
    env.reset(seed=1)
    d = table(env)
    assert d["bank"] == {"W": gems, "U": gems, "G": gems, "R": gems, "K": gems, "Y": 5}
    assert len(d["nobles"]) == nobles and len(set(d["nobles"])) == nobles
    assert [[TIER[c] for c in d["board"][f"tier{t}"]] for t in (1, 2, 3)] == [[1] * 4, [2] * 4, [3] * 4]
    assert d["deck_sizes"] == {"tier1": 36, "tier2": 26, "tier3": 16}
    assert (d["current"], d["phase"], d["round"], d["final_round"]) == (0, "main", 1, False)
    assert env.agents == [f"player_{k}" for k in range(num_players)] and env.agent_selection == "player_0"
    for p in d["players"]:
        assert p["tokens"] == dict.fromkeys("WUGRKY", 0) and p["points"] == 0 and p["reserved"] == []


def test_play_goes_in_seat_order_and_rounds_count_from_one():
    env = start(num_players=3)
    play(env, "take_WUG")
    assert env.agent_selection == "player_1" and table(env)["current"] == 1
    play(env, "take_WUR")
    assert env.agent_selection == "player_2" and table(env)["round"] == 1
    play(env, "take_WUK")
    assert env.agent_selection == "player_0" and table(env)["round"] == 2


def test_a_stack_lays_slots_0_to_3_then_the_deck_from_the_top_and_fixes_the_nobles():
    env = start(tier1=[39, 38, 37, 36, 35, 34], tier3=[89, 88, 87, 86, 85], nobles=[9, 4, 7])
    d = table(env)
    assert d["board"] == {"tier1": [39, 38, 37, 36], "tier2": [40, 41, 42, 43], "tier3": [89, 88, 87, 86]}
    assert d["nobles"] == [9, 4, 7]
    play(env, "reserve_t1_2")
    assert table(env)["board"]["tier1"] == [39, 38, 35, 36]
    play(env, "reserve_t3_deck")
    assert table(env, seat=1)["players"][1]["reserved"] == [85]


def test_a_short_stack_fixes_the_top_and_the_seed_fixes_the_rest():
    def deal(seed):
        env = splendor_v0.raw_env()
        env.reset(seed=seed, options={"deck": {"tier2": [69, 68, 67, 66, 65]}})
        return env
    a, b, c = deal(0), deal(0), deal(1)
    assert table(a)["board"]["tier2"] == [69, 68, 67, 66] == table(c)["board"]["tier2"]
    assert a.state_.decks[1, 4] == 65 == c.state_.decks[1, 4]
    assert np.array_equal(a.state_.decks, b.state_.decks) and table(a)["nobles"] == table(b)["nobles"]
    assert not np.array_equal(a.state_.decks, c.state_.decks)


@pytest.mark.parametrize("deck, message", [
    ({"tier4": [1]}, "unknown deck key(s) 'tier4'; the keys are tier1, tier2, tier3, nobles"),
    ({"tier1": "0 1 2"}, "deck['tier1'] must be a list of ids"),
    ({"tier1": 7}, "deck['tier1'] must be a list of ids"),
    ({"tier1": [0, 1, 2, 1]}, "deck['tier1']: id 1 is repeated"),
    ({"tier1": [0, 45]}, "deck['tier1'][1]: card 45 is not a tier-1 card (tier-1 ids are 0-39)"),
    ({"tier3": [70, 69]}, "deck['tier3'][1]: card 69 is not a tier-3 card (tier-3 ids are 70-89)"),
    ({"tier2": [40, "41"]}, "deck['tier2'][1]: expected an integer id, got '41'"),
    ({"tier2": [40, True]}, "deck['tier2'][1]: expected an integer id, got True"),
    ({"tier2": [40, 41.0]}, "deck['tier2'][1]: expected an integer id, got 41.0"),
    ({"nobles": [0, 1]}, "deck['nobles'] must list exactly 3 nobles for 2 players, got 2"),
    ({"nobles": [0, 1, 10]}, "deck['nobles'][2]: no noble 10 (nobles are 0-9)"),
    ({"nobles": [3, 3, 4]}, "deck['nobles']: id 3 is repeated"),
    ([0, 1, 2], "the deck option must be a dict with keys tier1, tier2, tier3, nobles"),
])
def test_bad_stacks_are_rejected_with_the_reason(deck, message):
    for env in (splendor_v0.raw_env(), gym.make("Tabletop/Splendor-v0").unwrapped):
        with pytest.raises(ValueError, match=re.escape(message)):
            env.reset(options={"deck": deck})


def test_a_stack_takes_numpy_ids_and_tuples():
    env = splendor_v0.raw_env(num_players=3)
    env.reset(options={"deck": {"tier1": np.arange(39, -1, -1), "nobles": (5, 6, 7, 8)}})
    assert table(env)["board"]["tier1"] == [39, 38, 37, 36] and table(env)["nobles"] == [5, 6, 7, 8]


@pytest.mark.parametrize("kwargs, message", [
    ({"num_players": 1}, "num_players must be 2, 3 or 4, got 1"),
    ({"num_players": 5}, "num_players must be 2, 3 or 4, got 5"),
    ({"num_players": True}, "num_players must be 2, 3 or 4, got True"),
    ({"num_players": 2.0}, "num_players must be 2, 3 or 4, got 2.0 (a float: it takes an integer)"),
    ({"num_players": "2"}, "num_players must be 2, 3 or 4, got '2' (a str: it takes an integer)"),
    ({"max_rounds": 0}, "max_rounds must be an integer >= 1, got 0"),
    ({"max_rounds": 2.5}, "max_rounds must be an integer >= 1, got 2.5"),
    ({"illegal_action": "ignore"}, "illegal_action must be one of"),
    ({"skip_forced": 1}, "skip_forced must be True or False, got 1"),
    ({"render_mode": "svg"}, "render_mode must be one of"),
])
def test_bad_env_options_are_rejected(kwargs, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        splendor_v0.raw_env(**kwargs)
    with pytest.raises(ValueError, match=re.escape(message)):
        splendor_v0.env(**kwargs)
    with pytest.raises(ValueError, match=re.escape(message)), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # gym.make warns about an unknown render mode before the env refuses it
        gym.make("Tabletop/Splendor-v0", **kwargs)


# ------------------------------------------------------------------ taking gems


def test_take_three_different_moves_one_gem_of_each_from_the_bank():
    env = start()
    play(env, "take_WUG")
    d = table(env)
    assert d["bank"] == {"W": 3, "U": 3, "G": 3, "R": 4, "K": 4, "Y": 5}
    assert d["players"][0]["tokens"] == {"W": 1, "U": 1, "G": 1, "R": 0, "K": 0, "Y": 0}


def test_take_three_needs_each_of_its_colours_and_fewer_is_not_offered_with_three_left():
    env = start()
    edit(env, set_bank(0, 1, 2, 3, 4))
    assert takes(env) == {"take_UGR", "take_UGK", "take_URK", "take_GRK", "take_KK"}


def test_two_colours_left_allow_one_gem_of_each_or_one_gem():
    env = start()
    edit(env, set_bank(0, 0, 2, 1, 0))
    assert takes(env) == {"take_GR", "take_G", "take_R"}
    play(env, "take_GR")
    assert table(env)["bank"] == {"W": 0, "U": 0, "G": 1, "R": 0, "K": 0, "Y": 5}


def test_one_colour_left_allows_one_gem_and_none_left_allows_no_take():
    env = start()
    edit(env, set_bank(0, 0, 0, 3, 0))
    assert takes(env) == {"take_R"}
    edit(env, set_bank(0, 0, 0, 0, 0))
    assert takes(env) == set()


def test_take_two_of_a_colour_needs_four_in_the_bank_before_taking():
    env = start()
    assert {"take_WW", "take_UU", "take_GG", "take_RR", "take_KK"} <= takes(env)
    play(env, "take_WW")
    assert table(env)["bank"]["W"] == 2 and table(env)["players"][0]["tokens"]["W"] == 2
    assert "take_WW" not in takes(env) and "take_UU" in takes(env)
    play(env, "take_WUG", "take_URK")
    assert table(env)["bank"]["U"] == 2 and "take_UU" not in takes(env)
    with pytest.raises(IllegalActionError, match=re.escape("illegal action 25 (take_WW)")):
        play(env, "take_WW")


def test_take_two_of_a_colour_stays_legal_when_fewer_than_three_colours_remain():
    env = start()
    edit(env, set_bank(4, 0, 0, 0, 1))
    assert takes(env) == {"take_WK", "take_W", "take_K", "take_WW"}


def test_gold_is_never_taken_by_a_take_action():
    assert not any(n.startswith("take_") and "Y" in n for n in NAMES)
    env = start()
    edit(env, set_bank(0, 0, 0, 0, 0))
    assert table(env)["bank"]["Y"] == 5 and takes(env) == set()


# ------------------------------------------------------------------ reserving


def test_reserve_a_face_up_card_takes_a_gold_and_the_slot_is_refilled_at_once():
    env = start()
    play(env, "reserve_t2_1")
    d = table(env)
    assert d["players"][0]["reserved"] == [41]
    assert d["players"][0]["tokens"]["Y"] == 1 and d["bank"]["Y"] == 4
    assert d["board"]["tier2"] == [40, 44, 42, 43] and d["deck_sizes"]["tier2"] == 25


def test_a_blind_reservation_is_seen_only_by_its_owner():
    env = start(tier3=[70, 71, 72, 73, 88])
    play(env, "reserve_t3_deck")
    assert table(env, seat=0)["players"][0]["reserved"] == [88]
    assert table(env)["players"][0]["reserved"] == ["hidden_t3"] == table(env, seat=1)["players"][0]["reserved"]
    assert table(env)["board"]["tier3"] == [70, 71, 72, 73] and table(env)["deck_sizes"]["tier3"] == 15
    fields = [name for name, _ in rules.OBSERVATION_FIELDS]
    own = dict(zip(fields, env.observe("player_0")["observation"]))
    other = dict(zip(fields, env.observe("player_1")["observation"]))
    assert own["seat0_reserved_0_points"] == 4 and own["seat0_reserved_0_cost_R"] == 6
    assert own["seat0_reserved_0_blind"] == 1 and own["seat0_reserved_0_bonus_K"] == 1
    # Player 1 sees player 0 as the seat after its own: a tier-3 card reserved blind, nothing more.
    seen = {k[len("seat1_reserved_0_"):]: v for k, v in other.items() if k.startswith("seat1_reserved_0_")}
    assert {k for k, v in seen.items() if v} == {"present", "tier3", "blind"}
    assert "hidden_t3" in env.render() and "#88" not in env.render()


def test_another_players_face_up_reservation_is_public():
    env = start()
    play(env, "reserve_t1_0")
    assert table(env, seat=1)["players"][0]["reserved"] == [0] == table(env)["players"][0]["reserved"]
    other = dict(zip([n for n, _ in rules.OBSERVATION_FIELDS], env.observe("player_1")["observation"]))
    assert other["seat1_reserved_0_cost_U"] == 3 and other["seat1_reserved_0_blind"] == 0


def test_at_most_three_reserved_cards():
    env = start()
    play(env, "reserve_t1_0", "take_WUG", "reserve_t2_0", "take_WUR", "reserve_t3_deck", "take_WUK")
    assert len(table(env)["players"][0]["reserved"]) == 3
    assert not any(n.startswith("reserve") for n in legal(env))
    with pytest.raises(IllegalActionError):
        play(env, "reserve_t1_1")


def test_reserve_without_gold_when_the_bank_has_none():
    env = start()
    edit(env, give_tokens(0, 0, 0, 0, 0, 5, seat=1))
    play(env, "reserve_t1_3")
    d = table(env)
    assert d["players"][0]["reserved"] == [3] and d["players"][0]["tokens"]["Y"] == 0 and d["bank"]["Y"] == 0


def bought_from_board(t, slot, seat=1):
    """Seat bought the card in board slot (t, slot) (0-based tier); the slot is refilled if it can be."""
    def change(s):
        c = int(s.board[t, slot])
        s.board[t, slot] = rules._draw(s, t)
        s.owner[c] = seat
        s.bonuses[seat, COLOR[c]] += 1
        s.points[seat] += POINTS[c]
        s.cards_bought[seat] += 1
    return change


def test_reserving_from_an_empty_deck_or_an_empty_slot_is_illegal():
    env = start()
    # Player 1 bought the whole tier-1 draw pile, then the card in slot 2, which stays empty.
    edit(env, give_cards(*range(4, 40), seat=1), bought_from_board(0, 2))
    assert table(env)["deck_sizes"]["tier1"] == 0 and table(env)["board"]["tier1"] == [0, 1, None, 3]
    assert not {"reserve_t1_deck", "reserve_t1_2", "buy_t1_2"} & legal(env)
    assert {"reserve_t1_0", "reserve_t2_deck", "reserve_t3_deck"} <= legal(env)


# ------------------------------------------------------------------ buying


def test_buy_pays_the_cost_and_the_tokens_go_back_to_the_bank():
    env = start()
    play(env, "take_UU", "take_WRK", "take_WUG", "take_WRK")
    assert "buy_t1_0" in legal(env)  # card 0 costs 3 blue: player 0 holds U3
    play(env, "buy_t1_0")
    d = table(env)
    p = d["players"][0]
    assert p["tokens"] == {"W": 1, "U": 0, "G": 1, "R": 0, "K": 0, "Y": 0}
    assert p["bonuses"] == {"W": 1, "U": 0, "G": 0, "R": 0, "K": 0}
    assert (p["cards"], p["purchased"], p["points"]) == (1, [0], 0)
    assert d["bank"] == {"W": 1, "U": 4, "G": 3, "R": 2, "K": 2, "Y": 5}
    assert d["board"]["tier1"] == [4, 1, 2, 3]


def test_points_of_a_bought_card_count():
    env = start(tier2=[45, 41, 42, 43])
    edit(env, give_tokens(0, 0, 0, 0, 0, 5), give_cards(4, 5, 6, 31, seat=0))  # W3 bonuses, 1 point
    play(env, "buy_t2_0")  # card 45: 6 white, W3 from bonuses and 3 gold
    p = table(env)["players"][0]
    assert p["points"] == 4 and p["tokens"]["Y"] == 2 and p["bonuses"]["W"] == 4


def test_bonuses_reduce_the_cost_never_below_zero():
    env = start()
    edit(env, give_cards(8, 9, 10, 11))  # four blue bonuses
    assert "buy_t1_0" in legal(env)  # 3 blue, all covered: free
    play(env, "buy_t1_0")
    d = table(env)
    assert d["players"][0]["tokens"] == dict.fromkeys("WUGRKY", 0) and d["bank"]["U"] == 4
    assert d["players"][0]["bonuses"] == {"W": 1, "U": 4, "G": 0, "R": 0, "K": 0}


def test_payment_uses_gems_of_the_colour_first_and_gold_only_for_the_shortfall():
    env = start()
    edit(env, give_tokens(0, 3, 0, 0, 0, 1))
    play(env, "buy_t1_0")  # 3 blue: paid in blue, the gold kept
    assert table(env)["players"][0]["tokens"] == {"W": 0, "U": 0, "G": 0, "R": 0, "K": 0, "Y": 1}
    env = start()
    edit(env, give_tokens(0, 2, 0, 0, 0, 2))
    play(env, "buy_t1_0")  # 2 blue and 1 gold
    assert table(env)["players"][0]["tokens"] == {"W": 0, "U": 0, "G": 0, "R": 0, "K": 0, "Y": 1}
    assert table(env)["bank"] == {"W": 4, "U": 4, "G": 4, "R": 4, "K": 4, "Y": 4}


def test_a_card_is_affordable_only_when_gold_covers_the_whole_shortfall():
    env = start()  # card 3 costs U1 G1 R1 K1
    edit(env, give_tokens(0, 1, 1, 0, 0, 1))
    assert "buy_t1_3" not in legal(env)  # short of red and black: 2 missing, 1 gold
    edit(env, give_tokens(0, 0, 0, 1, 0, 0))
    assert "buy_t1_3" in legal(env)
    play(env, "buy_t1_3")
    assert table(env)["players"][0]["tokens"] == dict.fromkeys("WUGRKY", 0)


def test_buy_a_reserved_card_and_the_later_reservations_move_up():
    env = start()
    play(env, "reserve_t1_0", "take_WUG", "reserve_t2_deck", "take_WUG", "reserve_t1_1", "take_WRK")
    assert table(env, seat=0)["players"][0]["reserved"] == [0, 44, 1]
    # Three gold: card 0 (U3) and card 1 (R2 K1) are affordable, card 44 (R5 K3) is not.
    assert {n for n in legal(env) if n.startswith("buy")} == {"buy_reserved_0", "buy_reserved_2"}
    play(env, "buy_reserved_0")
    assert table(env, seat=0)["players"][0]["reserved"] == [44, 1]
    assert table(env)["players"][0]["reserved"] == ["hidden_t2", 1]
    assert table(env)["players"][0]["tokens"]["Y"] == 0 and table(env)["bank"]["Y"] == 5


def test_a_bought_face_up_card_is_replaced_and_an_empty_deck_leaves_the_slot_empty():
    env = start()
    # Player 1 has bought all of the tier-1 deck but card 39; player 0 holds U3 R2 K1.
    edit(env, give_cards(*range(4, 39), seat=1), give_tokens(0, 3, 0, 2, 1, 0))
    play(env, "buy_t1_0")
    assert table(env)["board"]["tier1"] == [39, 1, 2, 3] and table(env)["deck_sizes"]["tier1"] == 0
    play(env, "take_WUG")
    assert table(env)["phase"] == "noble"  # player 1's bonuses meet every noble: one visits
    play(env, "noble_0")
    play(env, "buy_t1_1")
    assert table(env)["board"]["tier1"] == [39, None, 2, 3]
    assert not {"buy_t1_1", "reserve_t1_1"} & legal(env)


# ------------------------------------------------------------------ the token limit


def test_over_ten_tokens_returns_one_at_a_time_until_ten():
    env = start()
    edit(env, give_tokens(2, 2, 2, 2, 1, 0))  # 9 tokens
    play(env, "take_WUG")  # 12
    d = table(env)
    assert (d["phase"], d["current"], d["tokens_to_return"]) == ("return", 0, 2)
    assert env.agent_selection == "player_0"
    assert legal(env) == {"return_W", "return_U", "return_G", "return_R", "return_K"}
    play(env, "return_W")
    assert table(env)["phase"] == "return" and table(env)["tokens_to_return"] == 1
    assert env.agent_selection == "player_0"
    play(env, "return_W")  # a gem just taken can go back too
    d = table(env)
    assert d["phase"] == "main" and d["current"] == 1
    assert d["players"][0]["tokens"] == {"W": 1, "U": 3, "G": 3, "R": 2, "K": 1, "Y": 0}
    assert d["bank"]["W"] == 3


def test_taking_while_at_ten_is_legal_and_gold_may_be_returned():
    env = start()
    edit(env, give_tokens(2, 2, 2, 2, 1, 1))  # 10 tokens
    assert "take_WUG" in legal(env) and "take_RR" not in legal(env)
    play(env, "reserve_t1_0")  # 11 with the gold
    assert legal(env) == {"return_W", "return_U", "return_G", "return_R", "return_K", "return_Y"}
    play(env, "return_Y")
    d = table(env)
    assert d["players"][0]["tokens"]["Y"] == 1 and d["bank"]["Y"] == 4 and d["current"] == 1


def test_a_return_is_never_forced_even_with_skip_forced():
    # Over 10 tokens a player holds two colours at least (7 gems of a colour at most): always a choice.
    env = start(num_players=4, skip_forced=True)
    edit(env, give_tokens(7, 0, 0, 0, 0, 3))  # 10 tokens: white and gold
    play(env, "take_UGR")  # 13
    assert legal(env) == {"return_W", "return_U", "return_G", "return_R", "return_Y"}
    play(env, "return_U", "return_G")
    assert table(env)["tokens_to_return"] == 1 and legal(env) == {"return_W", "return_R", "return_Y"}


# ------------------------------------------------------------------ nobles


def test_a_single_qualifying_noble_is_a_one_action_decision_and_the_places_close_up():
    env = start(nobles=[2, 0, 9])
    edit(env, give_cards(4, 5, 6, 8, 9, 10, 11), give_tokens(0, 0, 1, 1, 1, 0))  # W3 U4
    play(env, "buy_t1_3")  # white card 3 (U1 G1 R1 K1, blue covered): W4 U4 meets noble 0
    d = table(env)
    assert d["phase"] == "noble" and d["current"] == 0 and legal(env) == {"noble_1"}
    assert env.agent_selection == "player_0"
    play(env, "noble_1")
    d = table(env)
    assert d["players"][0]["nobles"] == [0] and d["players"][0]["points"] == 3
    assert d["nobles"] == [2, 9] and d["current"] == 1 and d["phase"] == "main"


def test_with_skip_forced_a_single_noble_visits_automatically():
    env = start(skip_forced=True, nobles=[2, 0, 9])
    edit(env, give_cards(4, 5, 6, 8, 9, 10, 11), give_tokens(0, 0, 1, 1, 1, 0))
    play(env, "buy_t1_3")
    d = table(env)
    assert d["players"][0]["nobles"] == [0] and d["current"] == 1 and d["phase"] == "main"


def test_several_qualify_the_player_chooses_one_and_the_other_visits_at_a_later_turn():
    env = start(nobles=[0, 1, 9])
    edit(env, give_cards(4, 5, 6, 8, 9, 10, 11, 32, 33, 34, 35), give_tokens(0, 0, 1, 1, 0, 0))  # W3 U4 K4
    play(env, "buy_t1_3")  # W4: both W4 U4 and W4 K4 qualify
    assert table(env)["phase"] == "noble" and legal(env) == {"noble_0", "noble_1"}
    play(env, "noble_1")
    d = table(env)
    assert d["players"][0]["nobles"] == [1] and d["nobles"] == [0, 9] and d["current"] == 1
    assert d["players"][0]["points"] == 3  # at most one noble per turn
    play(env, "take_WUG")
    play(env, "take_GRK")  # whatever the action, the noble left behind visits at the end of the turn
    assert table(env)["phase"] == "noble" and legal(env) == {"noble_0"}
    play(env, "noble_0")
    d = table(env)
    assert d["players"][0]["nobles"] == [0, 1] and d["players"][0]["points"] == 6 and d["nobles"] == [9]


def test_a_noble_cannot_be_refused():
    env = start(nobles=[0, 8, 9])
    edit(env, give_cards(4, 5, 6, 7, 8, 9, 10, 11))  # W4 U4
    play(env, "take_GRK")
    assert legal(env) == {"noble_0"}
    with pytest.raises(IllegalActionError):
        play(env, "take_WUG")


def test_token_returns_come_before_the_noble():
    env = start(nobles=[0, 8, 9])
    edit(env, give_cards(4, 5, 6, 7, 8, 9, 10, 11), give_tokens(2, 2, 2, 2, 2, 0))  # W4 U4 and 10 tokens
    play(env, "take_WUG")  # 13 tokens, and W4 U4 meets noble 0
    assert table(env)["phase"] == "return"
    play(env, "return_W", "return_U", "return_G")
    assert table(env)["phase"] == "noble" and legal(env) == {"noble_0"}


# ------------------------------------------------------------------ pass


def deadlock(p1_reserved=(77, 78, 79), skip_forced=False):
    """Every gem is in a hand (player 0 W4 U4 K2, player 1 G4 R4 K2), both hold three reserved cards
    and neither can afford a card in sight: the board was stacked with cards needing colours they lack."""
    env = start(tier1=[3, 5, 6, 12], tier2=[41, 46, 47, 53], skip_forced=skip_forced)
    edit(env, give_tokens(4, 4, 0, 0, 2, 0), give_tokens(0, 0, 4, 4, 2, 0, seat=1),
         give_reserved(74, 75, 76), give_reserved(*p1_reserved, seat=1), give_cards(39, seat=1))
    return env


def test_pass_is_legal_only_when_nothing_else_is():
    assert "pass" not in legal(start())
    env = deadlock()
    assert table(env)["bank"] == {"W": 0, "U": 0, "G": 0, "R": 0, "K": 0, "Y": 5}
    assert legal(env) == {"pass"}


def test_a_pass_is_played_automatically_with_skip_forced():
    env = deadlock(skip_forced=True)
    assert legal(env) == {"pass"}  # a position set up (or reset) offers its decision
    play(env, "pass")  # player 1 is stuck too: its forced pass is played, and that ends the game
    assert table(env)["result"] == "all_passed" and all(env.terminations.values())


def test_n_passes_in_a_row_end_the_game_at_once_and_it_is_scored():
    env = deadlock()
    play(env, "pass")
    d = table(env)
    assert d["consecutive_passes"] == 1 and d["current"] == 1 and d["phase"] == "main"
    assert legal(env) == {"pass"}
    play(env, "pass")
    d = table(env)
    assert (d["phase"], d["result"], d["winners"]) == ("over", "all_passed", [1])  # player 1 has 1 point
    assert env.rewards == {"player_0": -1.0, "player_1": 1.0} and all(env.terminations.values())


def test_four_passes_in_a_four_player_game_stay_inside_the_observation_bounds():
    env = start(num_players=4)
    saved = env.get_state()
    s = saved["game"]
    s.passes, s.phase, s.result = 4, rules.OVER, rules.ALL_PASSED
    env.set_state(saved)
    for agent in env.possible_agents:
        assert env.observation_space(agent).contains(env.observe(agent))


def test_a_main_action_resets_the_pass_count():
    env = deadlock(p1_reserved=(77, 78))
    play(env, "pass")
    assert table(env)["consecutive_passes"] == 1 and "reserve_t1_0" in legal(env)
    play(env, "reserve_t1_0")
    assert table(env)["consecutive_passes"] == 0


# ------------------------------------------------------------------ the end


FOURTEEN = (74, 75, 76, 45)  # 3 + 4 + 4 + 3 points in 4 cards


def test_reaching_fifteen_finishes_the_round_then_the_game_ends():
    env = start(num_players=3, tier1=[7, 1, 2, 3], nobles=[3, 4, 7, 9])
    edit(env, give_cards(*FOURTEEN), give_tokens(0, 0, 4, 0, 0, 0))
    play(env, "buy_t1_0")  # card 7: 1 point, 15 in all
    d = table(env)
    assert d["players"][0]["points"] == 15 and d["final_round"] and d["phase"] == "main" and d["current"] == 1
    play(env, "take_WUG")
    assert table(env)["phase"] == "main" and not any(env.terminations.values())
    play(env, "take_WUG")
    d = table(env)
    assert (d["phase"], d["result"], d["winners"]) == ("over", "finished", [0])
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0, "player_2": -1.0}
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert env.infos["player_0"]["won"] and env.infos["player_0"]["score"] == 15
    info = env.infos["player_1"]
    assert set(info) == {"won", "score", "points", "winners", "result", "illegal_action"}
    assert (info["won"], info["score"], info["illegal_action"]) == (False, 0, False)
    assert info["points"].tolist() == [15, 0, 0] and info["winners"].tolist() == [True, False, False]
    assert env.RESULT_NAMES[info["result"]] == "finished"


def test_reaching_fifteen_on_the_last_seat_ends_the_game_at_once():
    env = start(tier1=[7, 1, 2, 3])
    edit(env, give_cards(*FOURTEEN, seat=1), give_tokens(0, 0, 4, 0, 0, 0, seat=1))
    play(env, "take_WUR", "buy_t1_0")
    d = table(env)
    assert (d["phase"], d["result"], d["winners"], d["round"]) == ("over", "finished", [1], 1)


def end_with(p1_cards, p1_buys, p1_tokens):
    """Player 0 reaches 15 with 5 cards (14 points in 4, then card 7); player 1 then buys ``p1_buys``."""
    env = start(tier1=[7, 15, 2, 3], tier2=[42, 41, 40, 43], nobles=[3, 4, 9])
    edit(env, give_cards(*FOURTEEN), give_tokens(0, 0, 4, 0, 0, 0),
         give_cards(*p1_cards, seat=1), give_tokens(*p1_tokens, seat=1))
    play(env, "buy_t1_0", p1_buys)
    return env


def test_the_most_points_win():
    env = end_with([77, 81, 48, 49], "buy_t2_0", (0, 0, 0, 4, 0, 1))  # 14 + card 42 (2 points): 16
    d = table(env)
    assert [p["points"] for p in d["players"]] == [15, 16] and [p["cards"] for p in d["players"]] == [5, 5]
    assert d["winners"] == [1] and env.rewards == {"player_0": -1.0, "player_1": 1.0}


def test_a_tie_goes_to_fewer_purchased_cards():
    env = end_with([77, 81, 87], "buy_t1_1", (0, 0, 0, 4, 0, 0))  # 14 in 3 cards + card 15: 15 in 4
    d = table(env)
    assert [p["points"] for p in d["players"]] == [15, 15] and [p["cards"] for p in d["players"]] == [5, 4]
    assert d["winners"] == [1] and env.rewards == {"player_0": -1.0, "player_1": 1.0}


def test_reserved_cards_do_not_count_in_the_tie_break():
    env = start(tier1=[7, 15, 2, 3], nobles=[3, 4, 9])
    edit(env, give_cards(*FOURTEEN), give_tokens(0, 0, 4, 0, 0, 0), give_reserved(82, 83),
         give_cards(77, 81, 48, 49, seat=1), give_tokens(0, 0, 0, 4, 0, 0, seat=1))
    play(env, "buy_t1_0", "buy_t1_1")
    assert table(env)["winners"] == [0, 1]


def test_still_tied_the_win_is_shared():
    env = end_with([77, 81, 48, 49], "buy_t1_1", (0, 0, 0, 4, 0, 0))  # 15 in 5 cards each
    d = table(env)
    assert [p["points"] for p in d["players"]] == [15, 15] and [p["cards"] for p in d["players"]] == [5, 5]
    assert d["winners"] == [0, 1] and env.rewards == {"player_0": 1.0, "player_1": 1.0}
    assert env.infos["player_0"]["won"] and env.infos["player_1"]["won"]


def test_truncation_after_max_rounds_gives_no_reward():
    env = start(max_rounds=2)
    play(env, "take_WUG", "take_WUG", "take_WRK")
    assert not any(env.truncations.values())
    play(env, "take_URK")  # the end of round 2
    d = table(env)
    assert d["result"] == "truncated" and d["round"] == 3 and d["winners"] == []
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert env.rewards == {"player_0": 0.0, "player_1": 0.0} and env.action_mask("player_0").sum() == 0
    assert env.RESULT_NAMES[env.infos["player_0"]["result"]] == "truncated" and not env.infos["player_0"]["won"]
    for agent in list(env.agents):
        assert env.last()[3]
        env.step(None)
    assert env.agents == []


def test_a_game_ending_by_the_rules_in_the_last_round_is_terminated_not_truncated():
    env = start(max_rounds=1, tier1=[7, 1, 2, 3])
    edit(env, give_cards(*FOURTEEN, seat=1), give_tokens(0, 0, 4, 0, 0, 0, seat=1))
    play(env, "take_WUR", "buy_t1_0")
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert table(env)["result"] == "finished" and env.rewards["player_1"] == 1.0


def test_the_score_is_the_points_also_on_a_loss():
    env = end_with([77, 81, 48, 49], "buy_t2_0", (0, 0, 0, 4, 0, 1))
    assert env.infos["player_0"]["score"] == 15 and not env.infos["player_0"]["won"]
    assert env.infos["player_1"]["score"] == 16


# ------------------------------------------------------------------ describe


def test_describe_has_the_keys_of_the_rules_page_and_is_json():
    env = start()
    play(env, "reserve_t2_deck")
    d = table(env)
    assert {"bank", "board", "deck_sizes", "nobles", "players", "current", "phase", "round"} <= set(d)
    assert {"tokens", "bonuses", "points", "cards", "reserved", "nobles"} <= set(d["players"][0])
    assert json.loads(json.dumps(d)) == d and json.loads(json.dumps(table(env, 0))) == table(env, 0)
    assert d["viewer"] is None and table(env, 1)["viewer"] == 1


@pytest.mark.skipif(PLAIN_PYTHON, reason="this is the run as plain Python")
def test_the_rules_pass_as_plain_python():
    passes_as_plain_python(__file__)
