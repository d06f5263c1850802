"""Royal Assassin: one test per rule and ruling of RULES.md, each driving a stacked deck.

A stacked deck is the prefix given, then the other cards in card-id order (A♠ 2♠ … K♣). Setup turns the
prefix from its first card: number cards onto the reserve (bottom first), face cards into their columns,
until a non-ace number card worth at most the face cards on the table, which is the first card in play.
"""

import re

import gymnasium as gym
import numpy as np
import pytest
from helpers import PLAIN_PYTHON, act, legal, passes_as_plain_python, play, stacked, table

from tabletop_gym.envs.core.cards import card_code
from tabletop_gym.envs.royal_assassin import features, rules

ENV_ID = "Tabletop/RoyalAssassin-v0"
ALL = range(52)
FACES = "JS QS KS JH QH KH JD QD KD JC QC KC".split()
NUMBERS = [card_code(c) for c in rules.NUMBER_CARDS]


def start(prefix, skip_forced=False, **kwargs):
    env = gym.make(ENV_ID, skip_forced=skip_forced, illegal_action="raise", **kwargs).unwrapped
    env.reset(options={"deck": stacked(prefix, ALL)})
    return env


def field(env, name):
    names = [n for n, _ in rules.OBSERVATION_FIELDS]
    return float(rules.observe(env.state)[names.index(name)])


# ------------------------------------------------------------------ cards and values

def test_values_aces_are_11_faces_11_12_13():
    assert [int(rules.VALUE[c]) for c in range(13)] == [11, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]
    assert len(rules.FACE_CARDS) == 12 and len(rules.NUMBER_CARDS) == 40


# ------------------------------------------------------------------ setup

def test_setup_ends_on_a_number_card_worth_at_most_the_face_cards_on_the_table():
    # 5♥ with no face card out, 2♦ with one, 3♣ with two: reserve. 2♣ with two face cards ends setup.
    env = start(["5H", "JS", "2D", "QH", "3C", "2C"])
    d = table(env)
    assert d["reserve"] == ["5H", "2D", "3C"]
    assert d["columns"] == {"S": ["JS"], "H": ["QH"], "D": [], "C": []}
    assert d["in_play"] == "2C" and d["decision"] == "draw" and d["deck_size"] == 46
    assert d["joker"] == "free" and d["discard"] == [] and d["result"] == "playing"
    assert legal(env) == {"attack_H", "pass"}


def test_aces_never_end_setup_even_with_every_face_card_out():
    env = start(FACES + ["AS", "AH", "9C"])
    d = table(env)
    assert d["reserve"] == ["AS", "AH"] and d["in_play"] == "9C" and d["deck_size"] == 37
    assert all(len(faces) == 3 for faces in d["columns"].values())
    assert legal(env) == {"attack_H", "attack_D", "assassin_H", "assassin_D", "pass"}


def test_the_card_that_ends_setup_is_the_first_card_of_play_not_reserve():
    env = start(["5H", "JS", "2D", "QH", "3C", "2C", "9D"])
    act(env, "attack_H")
    d = table(env)
    assert d["attack"]["H"] == ["2C"] and d["reserve"] == ["5H", "2D", "3C"]
    # Passing it instead puts it on the reserve like any drawn card.
    env = start(["5H", "JS", "2D", "QH", "3C", "2C", "9D"])
    act(env, "pass")
    d = table(env)
    assert d["reserve"] == ["5H", "2D", "3C", "2C"] and d["in_play"] == "9D" and d["deck_size"] == 45


def test_a_stacked_deck_that_never_ends_setup_is_rejected():
    env = gym.make(ENV_ID).unwrapped
    with pytest.raises(ValueError, match="never ends setup"):
        env.reset(options={"deck": NUMBERS + FACES})


class ScriptedShuffle:
    """Stands in for the generator: each shuffle lays out the next order given."""

    def __init__(self, *orders):
        self.orders = [np.array(order, dtype=np.int8) for order in orders]

    def shuffle(self, cards):
        cards[:] = self.orders.pop(0)


def test_a_random_deal_that_never_ends_setup_is_shuffled_again():
    never = [c for c in range(52) if not rules.IS_FACE[c]] + [c for c in range(52) if rules.IS_FACE[c]]
    good = list(range(52))  # A♠ … 10♠ onto the reserve, J♠ Q♠ K♠, then 2♥ ends setup
    rng = ScriptedShuffle(never, never, good)
    s = rules.new_game(rng)
    assert rng.orders == []
    d = rules.describe(s)
    assert d["columns"]["S"] == ["JS", "QS", "KS"] and d["in_play"] == "2H"
    assert len(d["reserve"]) == 11 and d["reserve"][-1] == "AH"  # the ten spades and the A♥


def test_a_seeded_deal_is_always_the_same():
    env = gym.make(ENV_ID).unwrapped
    env.reset(seed=7)
    first = table(env)
    env.reset(seed=7)
    assert table(env) == first


# ------------------------------------------------------------------ bad options

@pytest.mark.parametrize("deck, message", [
    (["AS"] * 52, "repeated: AS"),
    (NUMBERS + FACES[:-1], "it has 51 cards"),
    (NUMBERS[:-1] + FACES + ["JK"], "1 joker, but this game's deck holds no joker"),
    (NUMBERS[:-1] + FACES + ["ZZ"], "deck[51]: unknown card code 'ZZ'"),
    ("AS 2S", "must be a list of card codes"),
])
def test_bad_stacked_decks_are_rejected_with_the_reason(deck, message):
    env = gym.make(ENV_ID).unwrapped
    with pytest.raises(ValueError, match=re.escape(message)):
        env.reset(options={"deck": deck})


def test_stacked_deck_accepts_any_case_and_10():
    deck = [c.lower() for c in stacked(["5H", "JS", "TD", "QH", "2C"], ALL)]
    deck[2] = "10D"
    env = gym.make(ENV_ID).unwrapped
    env.reset(options={"deck": deck})
    assert table(env)["reserve"] == ["5H", "TD"] and table(env)["in_play"] == "2C"


@pytest.mark.parametrize("option, value, message", [
    ("reward", "kills", "reward must be one of"),
    ("skip_forced", 1, "skip_forced must be True or False"),
    ("illegal_action", "warn", "illegal_action must be one of"),
])
def test_bad_constructor_options_are_rejected(option, value, message):
    with pytest.raises(ValueError, match=message):
        gym.make(ENV_ID, **{option: value})


def test_unknown_reset_option_is_rejected():
    env = gym.make(ENV_ID).unwrapped
    with pytest.raises(ValueError, match="unknown reset option.*'rolls'"):
        env.reset(options={"rolls": [1, 2]})


# ------------------------------------------------------------------ the draw and the decision

def test_a_drawn_number_card_may_attack_only_columns_of_the_other_colour():
    env = start(["JS", "QH", "KD", "JC", "3S"])
    assert legal(env) == {"attack_H", "attack_D", "pass"}
    env = start(["JS", "QH", "KD", "JC", "3D"])
    assert legal(env) == {"attack_S", "attack_C", "pass"}


def test_only_columns_with_a_pretender_can_be_attacked():
    env = start(["JS", "QS", "2H"])
    assert legal(env) == {"attack_S", "assassin_S", "pass"}  # the ♣ column is empty


def test_a_number_card_with_nothing_to_attack_is_still_a_decision():
    env = start(["JS", "QS", "2S", "3C", "4H"])
    assert legal(env) == {"pass"} and table(env)["in_play"] == "2S"
    act(env, "pass")
    assert legal(env) == {"pass"} and table(env)["in_play"] == "3C"


def test_skip_forced_plays_the_single_pass_by_itself():
    env = start(["JS", "QS", "2S", "3C", "4H"], skip_forced=True)
    assert legal(env) == {"pass"} and table(env)["in_play"] == "2S"  # reset stops at the first decision
    act(env, "pass")
    d = table(env)
    assert d["reserve"] == ["2S", "3C"] and d["in_play"] == "4H"
    assert legal(env) == {"attack_S", "assassin_S", "pass"}


def test_pass_puts_the_drawn_card_on_the_reserve_and_turns_the_next():
    env = start(["QS", "KD", "2H", "AD"])
    act(env, "pass")
    d = table(env)
    assert d["reserve"] == ["2H"] and d["in_play"] == "AD" and d["deck_size"] == 48


def test_a_face_card_joins_its_column_and_becomes_the_pretender():
    env = start(["QS", "KD", "2H", "JS", "KS", "5C"])
    act(env, "pass")
    d = table(env)
    assert d["columns"]["S"] == ["QS", "JS", "KS"] and d["in_play"] == "5C"
    assert field(env, "column_S_pretender_value") == 13 and field(env, "column_S_faces") == 3


# ------------------------------------------------------------------ resolving an attack

def test_translators_worked_example():
    # Q♠ attacked by a 7♥ drawn from the deck: 5 short before any defence. The reserve's top 3♠ defends
    # (3 < 7): 8 short. The next reserve top is a heart: the player continues, and the Q is 2 short.
    deck = ["6H", "3S", "QS", "KH", "2C", "7H"]
    env = start(deck)
    act(env, "attack_H")  # the setup card goes against the K♥; nothing comes of it
    assert table(env)["in_play"] == "7H" and legal(env) == {"attack_S", "pass"}
    act(env, "attack_S")
    d = table(env)
    assert d["attack"]["S"] == ["7H"] and d["defense"]["S"] == ["3S"]
    assert field(env, "column_S_pretender_short") == 12 - 7 + 3 == 8
    assert d["decision"] == "continue" and d["in_play"] == "6H" and d["attacking"] == "S"
    assert legal(env) == {"attack_S", "pass"}
    act(env, "attack_S")
    d = table(env)
    assert d["attack"]["S"] == ["7H", "6H"] and d["defense"]["S"] == ["3S"] and d["reserve"] == []
    assert field(env, "column_S_pretender_short") == 12 - 13 + 3 == 2
    assert d["decision"] == "draw" and d["in_play"] == "AS"  # the reserve offers nothing more
    # Without a spade on the reserve's top the Q stays 5 short.
    env = start(["6H", "3D", "QS", "KH", "2C", "7H"])
    play(env, "attack_H", "attack_S")
    assert field(env, "column_S_pretender_short") == 5 and table(env)["defense"]["S"] == []


def test_the_kill_check_comes_before_the_defence():
    # J♠ (11) attacked by A♥ (11) dies at once, though the reserve's top 5♠ would have defended it.
    env = start(["5S", "JS", "KC", "2D", "AH"])
    act(env, "attack_C")  # the 2♦ goes against the K♣: the ♣ column is locked to ♦
    assert legal(env) == {"attack_S", "pass"}
    act(env, "attack_S")
    d = table(env)
    assert d["columns"]["S"] == [] and d["discard"] == ["JS", "AH"] and d["reserve"] == ["5S"]
    assert d["kills"] == 1 and d["result"] == "playing" and d["in_play"] == "AS"


def test_defence_comes_from_the_reserve_top_while_defence_is_below_attack():
    # Reserve, top first: 2♠ 3♠ 9♦. The 9♥ on Q♠ draws 2♠ and 3♠ (5 < 9); 9♦ is not a spade.
    env = start(["9D", "3S", "2S", "QS", "KC", "2D", "9H"])
    act(env, "attack_C")
    act(env, "attack_S")
    d = table(env)
    assert d["attack"]["S"] == ["9H"] and d["defense"]["S"] == ["2S", "3S"] and d["reserve"] == ["9D"]
    assert field(env, "column_S_pretender_attack") == 9 and field(env, "column_S_pretender_defense") == 5
    assert d["lock"]["S"] == "H" and d["decision"] == "draw"  # 9♦ is no heart: the attack is over


def test_wipe_when_defence_equals_attack():
    # Reserve, top first: 2♠ 4♠. The 2♠ brings the defence level with the 2♥: no more defence, a wipe.
    env = start(["4S", "2S", "QS", "KD", "2H"])
    act(env, "attack_S")
    d = table(env)
    assert d["columns"]["S"] == ["QS"] and d["attack"]["S"] == [] and d["defense"]["S"] == []
    assert d["discard"] == ["2H", "2S"] and d["reserve"] == ["4S"]
    assert d["lock"]["S"] is None and d["kills"] == 0


def test_wipe_when_defence_passes_attack_and_defence_stops_there():
    # Reserve, top first: 5♠ 6♠ 2♠. Against the 9♥: 5 (< 9), then 6 makes 11 ≥ 9: wiped; 2♠ stays.
    env = start(["2S", "6S", "5S", "QS", "KC", "2D", "9H"])
    play(env, "attack_C", "attack_S")
    d = table(env)
    assert d["discard"] == ["9H", "5S", "6S"] and d["reserve"] == ["2S"]
    assert d["attack"]["S"] == [] and d["lock"]["S"] is None and d["columns"]["S"] == ["QS"]


def test_a_card_passed_to_the_reserve_defends_only_at_the_next_attack():
    env = start(["QS", "KD", "2H", "3S", "4H"])
    act(env, "attack_S")
    assert legal(env) == {"attack_D", "pass"} and table(env)["in_play"] == "3S"
    act(env, "pass")
    d = table(env)
    assert d["reserve"] == ["3S"] and d["defense"]["S"] == []  # no defence when it is put on the reserve
    act(env, "attack_S")
    d = table(env)
    assert d["attack"]["S"] == ["2H", "4H"] and d["defense"]["S"] == ["3S"] and d["reserve"] == []


def test_continuation_is_offered_with_a_reserve_top_of_the_attacking_suit():
    env = start(["4H", "QS", "KD", "2H", "AS"])
    act(env, "attack_S")
    d = table(env)
    assert d["decision"] == "continue" and d["in_play"] == "4H" and d["reserve"] == ["4H"]
    assert legal(env) == {"attack_S", "pass"}
    act(env, "pass")  # stop: the 4♥ stays on the reserve
    d = table(env)
    assert d["reserve"] == ["4H"] and d["in_play"] == "AS" and d["decision"] == "draw"
    assert d["attack"]["S"] == ["2H"]


def test_no_continuation_with_a_reserve_top_of_another_suit_even_of_the_same_colour():
    env = start(["4D", "QS", "KC", "2H", "AS"])
    act(env, "attack_S")
    d = table(env)
    assert d["decision"] == "draw" and d["in_play"] == "AS" and d["reserve"] == ["4D"]


def test_a_continuation_attacks_with_the_reserve_top_and_goes_back_to_the_kill_check():
    env = start(["9H", "QS", "KD", "2H", "AS"])
    act(env, "attack_S")
    act(env, "attack_S")  # 2 + 9 = 11 < 12
    d = table(env)
    assert d["attack"]["S"] == ["2H", "9H"] and d["reserve"] == [] and d["in_play"] == "AS"


# ------------------------------------------------------------------ locks

def test_a_locked_column_can_be_attacked_only_by_its_lock_suit():
    env = start(["QS", "JC", "2H", "5D"])
    act(env, "attack_S")
    assert table(env)["lock"] == {"S": "H", "H": None, "D": None, "C": None}
    assert legal(env) == {"attack_C", "pass"}  # the 5♦ cannot join the hearts' attack on ♠


def test_a_suit_holding_a_lock_cannot_attack_another_column():
    env = start(["QS", "JC", "2H", "5H"])
    act(env, "attack_S")
    assert legal(env) == {"attack_S", "pass"}  # not the ♣ column while ♥ holds ♠


def test_the_lock_ends_when_no_attack_card_is_left():
    env = start(["4S", "QS", "JC", "2H", "5D"])
    act(env, "attack_S")  # the 4♠ wipes the 2♥
    assert table(env)["lock"]["S"] is None
    assert legal(env) == {"attack_S", "attack_C", "pass"}


def test_a_buried_attack_keeps_its_lock():
    env = start(["JS", "KD", "2H", "QS", "5D"])
    act(env, "attack_S")
    d = table(env)
    assert d["columns"]["S"] == ["JS", "QS"] and d["attack"]["S"] == [] and d["lock"]["S"] == "H"
    assert d["buried"]["S"] == [{"face": "JS", "attack": ["2H"], "defense": []}]
    assert legal(env) == {"pass"}  # the 5♦ cannot attack ♠ (locked to ♥) and ♣ is empty


# ------------------------------------------------------------------ a new face card, buried attacks

def test_a_new_face_card_blocks_the_attack_which_resumes_after_it_dies():
    env = start(["AH", "3H", "JS", "KD", "2H", "QS", "9H", "5C"])
    act(env, "attack_S")  # 2♥ on J♠
    assert table(env)["decision"] == "continue" and table(env)["in_play"] == "3H"
    act(env, "pass")  # stop; Q♠ comes and covers J♠, then the 9♥
    d = table(env)
    assert d["columns"]["S"] == ["JS", "QS"] and d["in_play"] == "9H"
    assert d["buried"]["S"] == [{"face": "JS", "attack": ["2H"], "defense": []}]
    assert legal(env) == {"attack_S", "assassin_S", "pass"}
    play(env, "attack_S", "attack_S")  # 9♥ + 3♥ = 12 kills Q♠; J♠'s buried attack resumes
    d = table(env)
    assert d["discard"] == ["QS", "9H", "3H"] and d["columns"]["S"] == ["JS"]
    assert d["attack"]["S"] == ["2H"] and d["buried"]["S"] == []
    assert d["decision"] == "continue" and d["in_play"] == "AH" and d["attacking"] == "S"
    act(env, "attack_S")  # 2 + 11 = 13 kills J♠
    d = table(env)
    assert d["discard"] == ["QS", "9H", "3H", "JS", "2H", "AH"] and d["columns"]["S"] == []
    assert d["lock"]["S"] is None and d["kills"] == 2 and d["in_play"] == "5C"


def test_a_kill_uncovering_a_face_card_with_no_attack_ends_the_attack():
    env = start(["9H", "AH", "JS", "QS", "2H", "5C"])
    play(env, "attack_S", "attack_S")  # 2♥ + A♥ = 13 kills Q♠; J♠ has no attack on it
    d = table(env)
    assert d["columns"]["S"] == ["JS"] and d["attack"]["S"] == [] and d["lock"]["S"] is None
    assert d["reserve"] == ["9H"] and d["decision"] == "draw" and d["in_play"] == "5C"


def test_a_wipe_leaves_a_deeper_buried_attack_and_its_lock():
    env = start(["JS", "KD", "2H", "QS", "4S", "5H"])
    act(env, "attack_S")  # 2♥ on J♠; Q♠ covers it; 4♠ passed onto the reserve
    act(env, "pass")
    act(env, "attack_S")  # 5♥ on Q♠ draws the 4♠ (4 < 5): no wipe yet
    d = table(env)
    assert d["attack"]["S"] == ["5H"] and d["defense"]["S"] == ["4S"]
    env = start(["JS", "KD", "2H", "QS", "5S", "5H"])
    play(env, "attack_S", "pass", "attack_S")  # 5♠ meets the 5♥: wiped
    d = table(env)
    assert d["attack"]["S"] == [] and d["discard"] == ["5H", "5S"]
    assert d["buried"]["S"] == [{"face": "JS", "attack": ["2H"], "defense": []}] and d["lock"]["S"] == "H"


# ------------------------------------------------------------------ the joker

def test_the_joker_only_on_a_column_of_two_or_more_face_cards():
    assert legal(start(["JS", "KD", "2H"])) == {"attack_S", "pass"}
    assert legal(start(["JS", "QS", "2H"])) == {"attack_S", "assassin_S", "pass"}


def test_the_joker_kills_the_whole_column_and_comes_back_free():
    env = start(["AH", "JS", "KC", "2H", "QS", "3H", "5D"])
    play(env, "attack_S", "pass")  # 2♥ on J♠, then Q♠ covers it; 3♥ drawn
    act(env, "assassin_S")
    d = table(env)
    assert d["joker"] == "S" and d["attack"]["S"] == ["3H"] and d["in_play"] == "AH"
    assert legal(env) == {"attack_S", "pass"}  # the joker is no longer free
    act(env, "attack_S")  # 3 + 11 = 14 kills Q♠, and with the joker the whole column
    d = table(env)
    assert d["columns"]["S"] == [] and d["buried"]["S"] == [] and d["joker"] == "free"
    assert d["discard"] == ["QS", "3H", "AH", "JS", "2H"] and d["kills"] == 2
    assert d["lock"]["S"] is None and d["columns"]["C"] == ["KC"] and d["result"] == "playing"
    assert d["in_play"] == "5D" and legal(env) == {"attack_C", "pass"}


def test_the_joker_may_come_with_a_continuation_card_and_is_placed_before_the_kill_check():
    env = start(["AH", "JS", "QS", "KC", "2H"])
    act(env, "attack_S")
    assert legal(env) == {"attack_S", "assassin_S", "pass"}
    act(env, "assassin_S")  # 2 + 11 = 13 kills Q♠ and J♠ with it
    d = table(env)
    assert d["columns"]["S"] == [] and d["discard"] == ["QS", "2H", "AH", "JS"] and d["joker"] == "free"


def test_the_joker_stays_on_its_column_after_a_wipe_and_cannot_move():
    env = start(["4S", "JS", "QS", "JC", "QC", "2H", "5D"])
    assert legal(env) == {"attack_S", "assassin_S", "attack_C", "assassin_C", "pass"}
    act(env, "assassin_S")  # the 4♠ wipes the 2♥
    d = table(env)
    assert d["joker"] == "S" and d["attack"]["S"] == [] and d["discard"] == ["2H", "4S"]
    assert legal(env) == {"attack_S", "attack_C", "pass"}  # no assassin_C: the joker stays on ♠


# ------------------------------------------------------------------ end and score

def test_win_with_face_cards_still_in_the_deck_scores_the_cards_left():
    env = start(["AH", "JS", "QS", "2H"], reward="score")
    act(env, "assassin_S")
    _, reward, terminated, _, info = act(env, "attack_S")
    d = table(env)
    assert terminated and info["won"] and rules.RESULT_NAMES[info["result"]] == "won"
    assert info["score"] == d["deck_size"] == 48 and reward == 48.0 and info["kills"] == 2
    assert legal(env) == set() and d["decision"] is None
    assert sum(rules.IS_FACE[env.state.deck[env.state.top:]]) == 10  # ten face cards never drawn


def test_win_without_the_joker_is_checked_after_every_kill():
    env = start(["AH", "JS", "JC", "2H", "AD"])
    play(env, "attack_S", "attack_S")  # 2♥ + A♥ kill J♠
    assert table(env)["result"] == "playing" and table(env)["in_play"] == "AD"
    _, reward, terminated, _, info = act(env, "attack_C")  # A♦ kills J♣: no face card on the table
    assert terminated and info["won"] and info["score"] == 47 and reward == 1.0


def test_loss_when_the_deck_runs_out_with_face_cards_on_the_table():
    middle = [c for c in stacked(["JS", "QS", "2H"], ALL)[3:] if c != "KC"]
    env = gym.make(ENV_ID, skip_forced=False, illegal_action="raise", reward="score").unwrapped
    env.reset(options={"deck": ["JS", "QS", "2H"] + middle + ["KC"]})
    terminated = False
    while not terminated:
        _, reward, terminated, _, info = act(env, "pass")
    d = table(env)
    assert rules.RESULT_NAMES[info["result"]] == "lost" and not info["won"] and info["score"] == 0 and reward == 0.0
    assert d["deck_size"] == 0 and d["columns"]["C"][-1] == "KC"  # the last card, a face card, ends it
    assert len(d["reserve"]) == 40 and d["discard"] == [] and d["in_play"] is None


def test_continuation_is_offered_with_an_empty_deck_before_the_loss():
    head = ["JS", "QS", "2H"]
    middle = [c for c in stacked(head, ALL)[3:] if c not in ("3H", "4H")]
    env = gym.make(ENV_ID, skip_forced=False, illegal_action="raise").unwrapped
    env.reset(options={"deck": head + middle + ["3H", "4H"]})
    while table(env)["in_play"] != "4H":
        act(env, "pass")
    act(env, "attack_S")  # 4♥ on K♠ (13), the 3♥ passed just before is the reserve's top
    d = table(env)
    assert d["deck_size"] == 0 and d["decision"] == "continue" and d["in_play"] == "3H"
    _, _, terminated, _, info = act(env, "attack_S")
    assert terminated and rules.RESULT_NAMES[info["result"]] == "lost" and table(env)["attack"]["S"] == ["4H", "3H"]


def test_an_illegal_action_forfeits_and_keeps_the_card_in_play_shown():
    env = gym.make(ENV_ID).unwrapped
    env.reset(options={"deck": stacked(["QS", "KD", "2H"], ALL)})
    _, reward, terminated, _, info = env.step(env.action_names.index("attack_D"))
    d = table(env)
    assert terminated and info["illegal_action"] and rules.RESULT_NAMES[info["result"]] == "forfeited"
    assert (info["won"], info["score"], reward) == (False, 0, 0.0)
    assert d["in_play"] == "2H" and d["decision"] is None and d["result"] == "forfeited"


def test_illegal_action_in_raise_mode_names_the_legal_ones():
    env = start(["QS", "KD", "2H"])
    with pytest.raises(ValueError, match=r"illegal action 2 \(attack_D\); legal now: attack_S, pass"):
        act(env, "attack_D")
    assert table(env)["in_play"] == "2H"


# ------------------------------------------------------------------ what the player is shown

def test_describe_lists_the_pages_keys_and_is_json():
    import json

    env = start(["4H", "QS", "KD", "2H"])
    act(env, "attack_S")
    d = table(env)
    assert {"columns", "attack", "defense", "lock", "reserve", "joker", "in_play", "deck_size",
            "discard"} <= set(d)
    assert json.loads(json.dumps(d)) == d
    assert d["in_play"] == d["reserve"][-1] == "4H"  # a continuation card stays listed in the reserve


def test_the_observation_shows_the_reserve_in_order_and_the_card_in_play():
    env = start(["9D", "3S", "2S", "QS", "KC", "2D"])
    assert field(env, "card_9D_reserve_depth") == 3 and field(env, "card_2S_reserve_depth") == 1
    assert field(env, "card_2D_in_play") == 1 and field(env, "in_play_value") == 2
    assert field(env, "in_play_suit_D") == 1 and field(env, "decision_draw") == 1
    assert field(env, "card_KS_deck") == 1 and field(env, "card_QS_column") == 1
    assert field(env, "deck_size") == 46 and field(env, "unseen_rank_12") == 3 and field(env, "unseen_suit_S") == 10
    act(env, "attack_C")
    assert field(env, "card_2D_attack") == 1 and field(env, "column_C_lock_D") == 1
    assert field(env, "column_C_pretender_short") == 11 and field(env, "joker_free") == 1


# ------------------------------------------------------------------ the game an observation shows

SEEN_PARTS = ("num_faces", "faces", "attack_total", "defense_total", "lock", "joker", "reserve", "reserve_size",
              "in_play", "decision", "target", "result")


def seen_game(s):
    seen = rules.State(np.zeros(52, dtype=np.int64))
    features.fill_seen_game(rules.observe(s), seen.data)
    return seen


def same_table(a, b) -> bool:
    return all(np.array_equal(getattr(a, part), getattr(b, part)) for part in SEEN_PARTS)


def test_the_game_an_observation_shows_plays_on_as_the_real_one_up_to_the_next_card():
    """What a player pictures from the observation (the heuristic and the action fields play on it): the real
    table, the same legal actions, and each of them ends where the rules take the real game, up to the next card;
    ``turn_card`` then turns the card the real game turns."""
    rng = np.random.default_rng(0)
    continuations = turned = 0
    for seed in range(200):
        s = rules.new_game(np.random.default_rng(seed))
        while not rules.is_over(s):
            seen = seen_game(s)
            assert seen.top == 52 and same_table(seen, s), rules.describe(s)
            assert np.array_equal(rules.legal_mask(seen), rules.legal_mask(s))
            continuations += s.decision == rules.CONTINUE
            for action in np.flatnonzero(rules.legal_mask(s)):
                last_card = s.copy()
                last_card.top = 52
                assert same_table(rules.apply(seen, int(action)), rules.apply(last_card, int(action)))
            action = int(rng.choice(np.flatnonzero(rules.legal_mask(s))))
            after, pictured = rules.apply(s, action), rules.apply(seen, action)
            if pictured.decision == rules.OVER and after.top == s.top + 1 and not rules.IS_FACE[s.deck[s.top]]:
                rules.turn_card(pictured.data, int(s.deck[s.top]))
                assert same_table(pictured, after)
                turned += 1
            s = after
    assert continuations > 100 and turned > 1000


def test_render_shows_columns_reserve_joker_and_card_in_play():
    env = gym.make(ENV_ID, render_mode="ansi", skip_forced=False).unwrapped
    env.reset(options={"deck": stacked(["AH", "JS", "QS", "KC", "2H"], ALL)})
    act(env, "assassin_S")
    text = env.render()
    assert "joker on the ♠ column" in text and "locked to ♥" in text
    assert "> Q♠" in text and "attack 2♥ (2)" in text and "pretender, 10 short of dying" in text
    assert "reserve: top A♥, depth 1" in text and "in play: A♥" in text


@pytest.mark.skipif(PLAIN_PYTHON, reason="this is the run as plain Python")
def test_the_rules_pass_as_plain_python():
    passes_as_plain_python(__file__)
