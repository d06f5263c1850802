"""Dead Center: one test per rule and ruling of RULES.md, each driving a stacked deck through the env."""

import re

import gymnasium as gym
import numpy as np
import pytest
from helpers import PLAIN_PYTHON, act, legal, passes_as_plain_python, play, table

from tabletop_gym.envs.core.cards import card_code, parse_card
from tabletop_gym.envs.dead_center import rules

ENV_ID = "Tabletop/DeadCenter-v0"
SLOTS = rules.SLOT_NAMES
FACE_CARDS = [card_code(c) for c in rules.ZOMBIE_CARDS]
NUMBER_CARDS = [card_code(c) for c in rules.NUMBER_CARDS]


def deal(cabin, zombies=None, draw=(), jokers=2):
    """A full stacked deck: the 9 cabin codes, the zombies ({slot: code}, the other slots filled with the
    remaining face cards in card-id order), the draw pile's top cards, then every other number card in
    card-id order and the jokers not used yet."""
    zombies = dict(zombies or {})
    taken = {z.upper() for z in zombies.values()}
    spare = [c for c in FACE_CARDS if c not in taken]
    slots = [zombies.get(name) or spare.pop(0) for name in SLOTS]
    used = {parse_card(c) for c in [*cabin, *draw] if c.upper() != "JK"}
    jokers_left = jokers - sum(c.upper() == "JK" for c in [*cabin, *draw])
    rest = [c for c in NUMBER_CARDS if parse_card(c) not in used]
    return [*cabin, *slots, *draw, *rest, *["JK"] * jokers_left]


def swap(deck, i, j):
    deck = list(deck)
    deck[i], deck[j] = deck[j], deck[i]
    return deck


def start(deck, skip_forced=False, **kwargs):
    env = gym.make(ENV_ID, skip_forced=skip_forced, illegal_action="raise", **kwargs).unwrapped
    env.reset(options={"deck": deck})
    return env


# ------------------------------------------------------------------ the book's worked example

# Six turns that build the figure's table (p. 21): each turn reveals a zombie and plays the drawn card;
# 4♣ on pile 8 kills the J♣ at B2 (supports A♠ + 10♣) and the joker on pile 6 kills the J♠ at L2
# (supports 8♥ + 4♣); the other four cards build down the centre pile to 2♦ and never attack.
EXAMPLE_CABIN = ["7H", "4S", "AS", "6C", "9D", "TC", "5S", "8H", "9S"]
EXAMPLE_ZOMBIES = {"T0": "JH", "T1": "QH", "T2": "KC", "R0": "JD", "R1": "QC", "R2": "KS",
                   "B0": "KH", "B1": "QD", "B2": "JC", "L0": "QS", "L1": "KD", "L2": "JS"}
EXAMPLE_DRAWS = ["4C", "JK", "7D", "5H", "3H", "2D"]
EXAMPLE_TURNS = [("reveal_B2", "play_8", "kill_B2"), ("reveal_L2", "play_6", "kill_L2"),
                 ("reveal_T2", "play_4"), ("reveal_R0", "play_4"), ("reveal_L0", "play_4"),
                 ("reveal_R1", "play_4"), ("reveal_B0",)]


def book_example(drawn, then=(), skip_forced=False):
    env = start(deal(EXAMPLE_CABIN, EXAMPLE_ZOMBIES, EXAMPLE_DRAWS + [drawn, *then]), skip_forced=skip_forced)
    for turn in EXAMPLE_TURNS:
        for name in turn:
            # With skip_forced the single kills play themselves.
            if not skip_forced or name in legal(env):
                act(env, name)
    return env


def test_the_book_example_table_is_reached_from_a_stacked_deal():
    env = book_example("3D")
    d = table(env)
    assert d["cabin"] == ["7H", "4S", "AS", "6C", "2D", "TC", "JK", "8H", "4C"]
    assert d["slots"] == {"T0": "down", "T1": "down", "T2": "KC", "R0": "JD", "R1": "QC", "R2": "down",
                          "B0": "KH", "B1": "down", "B2": None, "L0": "QS", "L1": "down", "L2": None}
    assert (d["phase"], d["drawn"], d["turn"], d["kills"], d["deck_size"]) == ("play", "3D", 7, 2, 33 - 7)


def test_the_books_worked_example():
    # 3♦ may be played on 7♥, 8♥, A♠ or the joker; 7♠ on 7♥, 2♦, 10♣ or the joker.
    env = book_example("3D")
    assert legal(env) == {"play_0", "play_7", "play_2", "play_6"}
    assert legal(book_example("7S")) == {"play_0", "play_4", "play_5", "play_6"}

    # On A♠ (pile 2): K♣ (10♣ + 4♣, both clubs) or J♦ (7♥ + 4♠), not both.
    on_ace = env.clone()
    act(on_ace, "play_2")
    assert table(on_ace)["phase"] == "kill" and legal(on_ace) == {"kill_T2", "kill_R0"}

    # On 7♥ (pile 0): the Q♠ at L0 has the right colour but 4♠ + A♠ = 5; the turn ends without a kill.
    on_seven = env.clone()
    act(on_seven, "play_0")
    d = table(on_seven)
    assert (d["phase"], d["turn"], d["kills"], d["slots"]["L0"]) == ("reveal", 8, 2, "QS")

    # On the joker (pile 6): 7♥ + 6♣ = 13 but not both hearts, so the K♥ at B0 lives.
    on_joker = env.clone()
    act(on_joker, "play_6")
    d = table(on_joker)
    assert (d["phase"], d["turn"], d["kills"], d["slots"]["B0"]) == ("reveal", 8, 2, "KH")


def test_the_book_example_renders_the_cabin_inside_its_slots():
    env = book_example("3D")
    assert env.render_text(env.state) == "\n".join([
        "Dead Center  turn 7   kills 2/12   deck 26",
        "           T0     T1     T2",
        "           ##     ##     K♣",
        "L0  Q♠     0:7♥   1:4♠   2:A♠   J♦     R0",
        "L1  ##     3:6♣   4:2♦   5:10♣  Q♣     R1",
        "L2  xx     6:JK   7:8♥   8:4♣   ##     R2",
        "           K♥     ##     xx",
        "           B0     B1     B2",
        "n:card is pile n and its top card (play_n plays on it); ## face down, xx killed",
        "drawn 3♦: play it on a pile",
    ])


# ------------------------------------------------------------------ cards and setup

def test_a_game_starts_at_the_reveal_step_with_all_zombies_face_down():
    env = start(deal(EXAMPLE_CABIN, EXAMPLE_ZOMBIES, EXAMPLE_DRAWS))
    d = table(env)
    assert d["cabin"] == EXAMPLE_CABIN and set(d["slots"].values()) == {"down"}
    assert (d["phase"], d["turn"], d["kills"], d["deck_size"], d["drawn"], d["jokers"]) == ("reveal", 1, 0, 33, None, 2)
    assert legal(env) == {"reveal_" + name for name in SLOTS}


def test_a_random_deal_puts_number_cards_in_the_cabin_and_the_zombies_on_the_slots():
    env = gym.make(ENV_ID).unwrapped
    for seed in range(20):
        env.reset(seed=seed)
        s = env.state
        assert all(c >= 52 or rules.RANK[c] <= 10 for c in s.pile_top)
        assert sorted(s.slot_card.tolist()) == sorted(rules.ZOMBIE_CARDS.tolist())
        assert rules.deck_size(s) == 33


@pytest.mark.parametrize("deck, message", [
    (deal(EXAMPLE_CABIN)[:-1], "it has 53 cards, this game needs 54"),
    (deal(EXAMPLE_CABIN) + ["JK"], "3 jokers, but this game's deck holds 2 jokers"),
    (deal(EXAMPLE_CABIN)[:-2] + ["AS", "AS"], "repeated: AS"),
    (deal(EXAMPLE_CABIN)[:-1] + ["ZZ"], "deck[53]: unknown card code 'ZZ'"),
    (swap(deal(EXAMPLE_CABIN), 0, 11), "cabin card deck[0] is KS, a face card"),
    (swap(deal(EXAMPLE_CABIN), 9, 21), "zombie deck[9] (slot T0) is 2S, not a face card"),
    (swap(deal(EXAMPLE_CABIN), 20, 53), "zombie deck[20] (slot L2) is JK, not a face card"),
    ("7H 4S AS", "must be a list of card codes"),
])
def test_bad_stacked_decks_are_rejected_with_the_reason(deck, message):
    env = gym.make(ENV_ID).unwrapped
    with pytest.raises(ValueError, match=re.escape(message)):
        env.reset(options={"deck": deck})


def test_stacked_deck_accepts_any_case_and_10():
    deck = [c.lower() for c in deal(EXAMPLE_CABIN)]
    deck[deck.index("tc")] = "10C"
    env = start(deck)
    assert table(env)["cabin"][5] == "TC"


@pytest.mark.parametrize("jokers", [3, -1, True, "2", 2.0, None])
def test_the_jokers_option_must_be_0_1_or_2(jokers):
    with pytest.raises(ValueError, match="jokers must be 0, 1 or 2"):
        gym.make(ENV_ID, jokers=jokers)


# ------------------------------------------------------------------ step 1: reveal

def test_the_player_chooses_which_zombie_to_reveal_and_then_the_card_is_drawn():
    env = start(deal(EXAMPLE_CABIN, EXAMPLE_ZOMBIES, ["4C"]))
    act(env, "reveal_R1")
    d = table(env)
    assert d["slots"]["R1"] == "QC" and sum(v == "down" for v in d["slots"].values()) == 11
    assert (d["phase"], d["drawn"], d["deck_size"]) == ("play", "4C", 32)
    assert not legal(env) & {"reveal_" + name for name in SLOTS}


# The whole draw pile goes on the centre pile, which attacks nothing: aces on 10♥, then each value
# red first onto the black card below it, equal values on each other, and the jokers last.
CENTRE_CABIN = ["TS", "TD", "TC", "9S", "TH", "9H", "9D", "9C", "8S"]
CENTRE_DRAWS = [f"{v}{s}" for v in "A234567" for s in "HSDC"] + ["8H", "8D", "8C"]


def test_the_twelfth_reveal_is_forced_and_from_turn_13_the_turn_starts_with_the_draw():
    env = start(deal(CENTRE_CABIN, draw=CENTRE_DRAWS))
    for name in SLOTS[:11]:
        play(env, "reveal_" + name, "play_4")
    assert legal(env) == {"reveal_L2"}
    play(env, "reveal_L2", "play_4")
    d = table(env)
    assert (d["phase"], d["turn"], d["drawn"], d["deck_size"]) == ("play", 13, "4H", 33 - 13)
    assert "down" not in d["slots"].values()

    forced = start(deal(CENTRE_CABIN, draw=CENTRE_DRAWS), skip_forced=True)
    for name in SLOTS[:11]:
        play(forced, "reveal_" + name, "play_4")
    assert table(forced)["turn"] == 12 and table(forced)["slots"]["L2"] == "KC" and table(forced)["drawn"] == "3C"


# ------------------------------------------------------------------ step 2: draw and play

@pytest.mark.parametrize("top, drawn, fits", [
    ("5S", "5H", True),    # the same value, any colours
    ("AD", "AC", True),    # an ace matches an ace
    ("9D", "5H", True),    # the same colour and the top higher: build down in one colour
    ("6H", "5H", True),
    ("3D", "5H", False),   # the same colour but the top lower
    ("3C", "5H", True),    # the opposite colour and the top lower: build up alternating
    ("AS", "5H", True),
    ("7C", "5H", False),   # the opposite colour but the top higher
    ("2H", "AC", False),   # nothing is lower than an ace
    ("2S", "AC", True),
    ("9H", "TS", True),
    ("9S", "TS", False),
    ("JK", "7D", True),    # anything goes on a joker
    ("2C", "JK", True),    # a joker goes on anything
    ("TD", "JK", True),
])
def test_placement_rule(top, drawn, fits):
    # The card under test meets pile 4; pile 0 holds a joker (when none is under test) so that the drawn
    # card always has a home and the game goes on.
    fillers = iter(c for c in ["2D", "3S", "4D", "6D", "7S", "8D", "9C", "AH", "4C"] if c not in (top, drawn))
    cabin = [next(fillers) for _ in range(9)]
    cabin[4] = top
    if "JK" not in (top, drawn):
        cabin[0] = "JK"
    env = start(deal(cabin, draw=[drawn]))
    act(env, "reveal_T0")
    assert table(env)["drawn"] == drawn and table(env)["phase"] == "play"
    assert ("play_4" in legal(env)) == fits


def test_the_played_card_becomes_the_top_of_its_pile():
    env = start(deal(EXAMPLE_CABIN, EXAMPLE_ZOMBIES, ["8D"]))
    play(env, "reveal_T0", "play_4")  # 8♦ on 9♦
    d = table(env)
    assert d["cabin"][4] == "8D" and d["pile_sizes"] == [1, 1, 1, 1, 2, 1, 1, 1, 1] and d["drawn"] is None


def test_a_drawn_card_no_pile_accepts_loses_at_once():
    # Nine black cards above the ace: a red ace fits nowhere.
    cabin = ["2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "TS"]
    for reward in ("win", "score"):
        env = start(deal(cabin, draw=["AH"]), reward=reward)
        _, reward_value, terminated, _, info = act(env, "reveal_B1")
        d = table(env)
        assert terminated and reward_value == 0.0
        result = rules.RESULT_NAMES[info["result"]]
        assert (info["won"], info["score"], info["kills"], result) == (False, 0, 0, "unplayable")
        assert (d["phase"], d["drawn"], d["deck_size"]) == ("over", "AH", 32)
        assert env.action_masks().all() and not env.legal_action_names()


def test_a_draw_due_from_an_empty_draw_pile_loses():
    env = start(deal(CENTRE_CABIN, draw=CENTRE_DRAWS))
    for turn in range(1, 34):
        if turn <= 12:
            act(env, "reveal_" + SLOTS[turn - 1])
        assert table(env)["phase"] == "play"
        _, _, terminated, _, info = act(env, "play_4")
    d = table(env)
    result = rules.RESULT_NAMES[info["result"]]
    assert terminated and (info["won"], info["score"], result, info["kills"]) == (False, 0, "deck_empty", 0)
    assert (d["phase"], d["deck_size"], d["turn"], d["cabin"][4], d["pile_sizes"][4]) == ("over", 0, 34, "JK", 34)


# ------------------------------------------------------------------ step 3: kill

def _other_line(slot):
    """The two piles on the line through the attack pile that is not the slot's line."""
    a = rules.ATTACK_PILE[slot]
    row, col = divmod(int(a), 3)
    line = [3 * row + c for c in range(3)] if SLOTS[slot][0] in "TB" else [3 * r + col for r in range(3)]
    return [p for p in line if p != a]


@pytest.mark.parametrize("slot", range(12), ids=SLOTS)
@pytest.mark.parametrize("fives_on", ["supports", "other_line"])
def test_the_support_piles_of_each_slot(slot, fives_on):
    # A jack at the slot; 5♥ + 5♦ (exactly 10) on two piles; the other piles low; the attack pile a joker.
    piles = [int(p) for p in rules.SUPPORT_PILES[slot]] if fives_on == "supports" else _other_line(slot)
    low = iter(["AS", "AH", "AD", "AC", "2S", "2H", "2D", "2C"])
    cabin = ["5H" if p == piles[0] else "5D" if p == piles[1] else "JK" if p == rules.ATTACK_PILE[slot]
             else next(low) for p in range(9)]
    env = start(deal(cabin, {SLOTS[slot]: "JS"}, ["9C"]))
    play(env, "reveal_" + SLOTS[slot], f"play_{rules.ATTACK_PILE[slot]}")
    if fives_on == "supports":
        assert legal(env) == {"kill_" + SLOTS[slot]}
        act(env, "kill_" + SLOTS[slot])
        assert table(env)["slots"][SLOTS[slot]] is None and table(env)["kills"] == 1
    else:
        assert table(env)["phase"] == "reveal" and table(env)["kills"] == 0


@pytest.mark.parametrize("zombie, support_4, support_7, dies", [
    ("KH", "6H", "4H", True),    # a king needs both supports of its suit
    ("KH", "6H", "4D", False),   # the right colour is not enough
    ("KC", "9C", "AC", True),    # an ace is worth 1: exactly 10
    ("KC", "8C", "AC", False),   # 9 is too little
    ("QH", "6H", "4D", True),    # a queen needs both of her colour
    ("QS", "6C", "4S", True),
    ("QH", "6H", "4S", False),
    ("JH", "6C", "4D", True),    # a jack takes any suits
    ("JH", "6C", "3D", False),   # but still 10
    ("KH", "JK", "TH", True),    # a joker is worth 0 and matches every suit
    ("KH", "TH", "JK", True),
    ("KH", "JK", "9H", False),   # so it needs a 10 beside it
    ("KH", "JK", "TS", False),   # of the king's suit
    ("QD", "JK", "TH", True),
    ("QD", "TS", "JK", False),   # of the queen's colour
    ("JS", "JK", "TD", True),
    ("JS", "JK", "JK", False),   # two jokers sum to 0
])
def test_kill_conditions_king_suit_queen_colour_jack_any_jokers_zero_and_every_suit(zombie, support_4, support_7,
                                                                                    dies):
    # T1 is attacked from pile 1 (7♣; the drawn 7♠ fits it) with supports piles 4 and 7.
    low = iter(c for c in ["2S", "2H", "2D", "2C", "3S", "3H"] if c not in (support_4, support_7))
    cabin = [next(low), "7C", next(low), next(low), support_4, next(low), next(low), support_7, next(low)]
    env = start(deal(cabin, {"T1": zombie}, ["7S"]))
    play(env, "reveal_T1", "play_1")
    if dies:
        assert legal(env) == {"kill_T1"}
    else:
        d = table(env)
        assert (d["phase"], d["turn"], d["slots"]["T1"]) == ("reveal", 2, zombie)


def test_face_down_zombies_cannot_be_killed():
    # The J♣ at B2 would die from pile 8 (supports A♠ + 10♣) but B2 was not revealed.
    env = start(deal(EXAMPLE_CABIN, EXAMPLE_ZOMBIES, EXAMPLE_DRAWS))
    play(env, "reveal_T0", "play_8")
    assert table(env)["phase"] == "reveal" and table(env)["slots"]["B2"] == "down"


def test_the_card_just_played_does_not_count_as_a_support():
    # The Q♠ at L0 has supports 4♠ + A♠ = 5. The 10♠ played on pile 0 would make 10♠ + 4♠ (black)
    # if it counted.
    env = start(deal(EXAMPLE_CABIN, {"L0": "QS"}, ["TS"]))
    play(env, "reveal_L0", "play_0")  # 10♠ on 7♥
    assert table(env)["phase"] == "reveal" and table(env)["slots"]["L0"] == "QS"


def test_one_kill_per_turn_and_the_player_chooses_at_a_corner():
    env = book_example("3D", then=["3C"], skip_forced=True)
    act(env, "play_2")
    assert legal(env) == {"kill_T2", "kill_R0"}
    act(env, "kill_T2")
    d = table(env)
    assert d["slots"]["T2"] is None and d["slots"]["R0"] == "JD" and d["kills"] == 3
    assert (d["phase"], d["turn"]) == ("reveal", 8)
    # The J♦ left alive can still die later: 3♣ on 3♦ (pile 2) next turn, and a single kill is automatic.
    play(env, "reveal_T0", "play_2")
    d = table(env)
    assert d["slots"]["R0"] is None and d["kills"] == 4 and (d["phase"], d["turn"]) == ("reveal", 9)


def test_a_single_kill_is_a_one_action_decision_that_skip_forced_plays():
    deck = deal(EXAMPLE_CABIN, EXAMPLE_ZOMBIES, EXAMPLE_DRAWS)
    env = start(deck, skip_forced=False)
    play(env, "reveal_B2", "play_8")
    assert table(env)["phase"] == "kill" and table(env)["played_pile"] == 8 and legal(env) == {"kill_B2"}

    env = start(deck, skip_forced=True)
    play(env, "reveal_B2", "play_8")
    d = table(env)
    assert d["slots"]["B2"] is None and d["kills"] == 1 and (d["phase"], d["turn"]) == ("reveal", 2)


def test_the_centre_pile_never_kills():
    env = start(deal(EXAMPLE_CABIN, EXAMPLE_ZOMBIES, ["8D"]))
    play(env, "reveal_T1", "play_4")  # T1's supports are piles 4 and 7, but it is attacked from pile 1 only
    assert table(env)["phase"] == "reveal" and table(env)["slots"]["T1"] == "QH"


# ------------------------------------------------------------------ the end: win and score

# Twelve turns, twelve kills: each turn reveals a zombie, plays the drawn card on its attack pile and kills it.
WIN_CABIN = ["9H", "7S", "6C", "2S", "TD", "5D", "5S", "7H", "7D"]
WIN_ZOMBIES = dict(zip(SLOTS, ["KH", "JS", "KD", "JD", "JH", "QC", "JC", "QD", "KS", "QS", "QH", "KC"]))
WIN_TURNS = [  # (slot, zombie, drawn card, attack pile, its top, the supports then)
    ("B0", "JC", "5C", 6, "5S", "9H + 2S"),
    ("T1", "JS", "JK", 1, "7S", "TD + 7H"),
    ("L1", "QH", "JK", 3, "2S", "TD + 5D"),
    ("T2", "KD", "6H", 2, "6C", "5D + 7D"),
    ("B1", "QD", "9C", 7, "7H", "JK + TD"),
    ("R1", "JH", "8S", 5, "5D", "JK + TD"),
    ("R2", "QC", "8C", 8, "7D", "5C + 9C"),
    ("L2", "KC", "TH", 6, "5C", "9C + 8C"),
    ("T0", "KH", "TC", 0, "9H", "JK + TH"),
    ("R0", "JD", "TS", 2, "6H", "TC + JK"),
    ("B2", "KS", "8D", 8, "8C", "TS + 8S"),
    ("L0", "QS", "3S", 0, "TC", "JK + TS"),
]


@pytest.mark.parametrize("reward, expected_reward", [("win", 1.0), ("score", 21.0)])
def test_the_twelfth_kill_wins_at_once_and_the_score_is_the_cards_left(reward, expected_reward):
    env = start(deal(WIN_CABIN, WIN_ZOMBIES, [turn[2] for turn in WIN_TURNS]), reward=reward)
    for number, (slot, zombie, drawn, pile, top, supports) in enumerate(WIN_TURNS, start=1):
        act(env, "reveal_" + slot)
        d = table(env)
        assert (d["slots"][slot], d["drawn"], d["cabin"][pile], d["turn"]) == (zombie, drawn, top, number)
        assert [d["cabin"][p] for p in rules.SUPPORT_PILES[SLOTS.index(slot)]] == supports.split(" + ")
        act(env, f"play_{pile}")
        assert legal(env) == {"kill_" + slot}
        _, reward_value, terminated, _, info = act(env, "kill_" + slot)
        assert terminated == (number == 12)
    d = table(env)
    result = rules.RESULT_NAMES[info["result"]]
    assert (info["won"], info["score"], info["kills"], result, reward_value) == (True, 21, 12, "won",
                                                                                 expected_reward)
    assert (d["phase"], d["deck_size"], d["drawn"], d["turn"]) == ("over", 21, None, 12)
    assert set(d["slots"].values()) == {None} and env.action_masks().all() and not env.legal_action_names()
    assert env.render_text(env.state).endswith("game over: WON, all 12 zombies killed with 21 cards left")


def test_the_win_with_forced_moves_skipped_needs_only_the_real_choices():
    env = start(deal(WIN_CABIN, WIN_ZOMBIES, [turn[2] for turn in WIN_TURNS]), skip_forced=True)
    steps = 0
    while table(env)["phase"] != "over":
        slot, _, _, pile, _, _ = WIN_TURNS[table(env)["turn"] - 1]
        _, _, terminated, _, info = act(env, "reveal_" + slot if table(env)["phase"] == "reveal" else f"play_{pile}")
        steps += 1
    assert terminated and info["won"] and info["score"] == 21
    assert steps == 11 + 12  # 11 reveals and 12 plays: the twelve kills and the last reveal played themselves


# ------------------------------------------------------------------ the jokers option

@pytest.mark.parametrize("jokers", [0, 1, 2])
def test_the_jokers_option_sets_the_deck_size_and_what_a_stacked_deck_holds(jokers):
    draws = [c for c in CENTRE_DRAWS]
    env = start(deal(CENTRE_CABIN, draw=draws, jokers=jokers), jokers=jokers)
    assert table(env)["deck_size"] == 31 + jokers and table(env)["jokers"] == jokers
    for turn in range(1, 32 + jokers):
        if turn <= 12:
            act(env, "reveal_" + SLOTS[turn - 1])
        _, _, terminated, _, info = act(env, "play_4")
    assert terminated and rules.RESULT_NAMES[info["result"]] == "deck_empty" and table(env)["turn"] == 32 + jokers

    random_env = gym.make(ENV_ID, jokers=jokers).unwrapped
    random_env.reset(seed=1)
    assert int(np.sum(random_env.state.place[52:] != rules.OUT_OF_PLAY)) == jokers
    assert rules.deck_size(random_env.state) == 31 + jokers


def test_a_stacked_deck_must_hold_the_variants_jokers():
    env = gym.make(ENV_ID, jokers=1).unwrapped
    with pytest.raises(ValueError, match=re.escape("it has 54 cards, this game needs 53")):
        env.reset(options={"deck": deal(CENTRE_CABIN, draw=CENTRE_DRAWS, jokers=2)})
    env = gym.make(ENV_ID, jokers=0).unwrapped
    with pytest.raises(ValueError, match=re.escape("1 joker, but this game's deck holds no joker")):
        env.reset(options={"deck": deal(CENTRE_CABIN, draw=CENTRE_DRAWS, jokers=1)[1:]})


# ------------------------------------------------------------------ what the player sees

def test_describe_has_the_keys_of_the_rules_page_and_is_json():
    import json

    env = book_example("3D")
    d = table(env)
    assert {"cabin", "slots", "drawn", "deck_size", "kills"} <= set(d)
    assert json.loads(json.dumps(d)) == d
    act(env, "play_2")
    assert table(env)["drawn"] is None and table(env)["played_pile"] == 2


def test_the_observation_shows_the_table_and_counts_the_unseen_cards():
    env = book_example("3D")
    obs = rules.observe(env.state)
    value = {name: obs[i] for i, (name, _) in enumerate(rules.OBSERVATION_FIELDS)}
    assert value["pile_0_top_value"] == 7 and value["pile_0_top_hearts"] == 1
    assert value["pile_6_top_joker"] == 1 and value["pile_6_top_value"] == 0
    assert value["slot_T2_up"] == 1 and value["slot_T2_king"] == 1 and value["slot_T2_clubs"] == 1
    assert value["slot_T0_down"] == 1 and sum(value[f"slot_T0_{p}"] for p in ("jack", "queen", "king")) == 0
    assert value["slot_L2_killed"] == 1
    assert value["drawn_present"] == 1 and value["drawn_value"] == 3 and value["drawn_diamonds"] == 1
    assert value["phase_play"] == 1 and value["deck_size"] == 26 and value["kills"] == 2
    assert value["face_down"] == 5 and value["jokers_in_game"] == 2
    # Unseen: the 26 cards of the draw pile and the 5 face-down zombies; 3♦ is drawn, the joker played.
    assert value["unseen_3D"] == 0 and value["unseen_9D"] == 0 and value["unseen_JH"] == 1 and value["unseen_KC"] == 0
    assert value["unseen_jokers"] == 1 and value["unseen_value_3"] == 2 and value["unseen_value_10"] == 3
    assert sum(value["unseen_" + card_code(c)] for c in range(52)) == 25 + 5
    assert env.observation_space.contains(obs)


@pytest.mark.skipif(PLAIN_PYTHON, reason="this is the run as plain Python")
def test_the_rules_pass_as_plain_python():
    passes_as_plain_python(__file__)
