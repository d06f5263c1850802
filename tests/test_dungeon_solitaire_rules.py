"""Dungeon Solitaire: one test per rule and ruling of RULES.md, each driving a stacked deck."""

import re

import gymnasium as gym
import pytest
from helpers import PLAIN_PYTHON, act, legal, passes_as_plain_python, play, stacked, table

from tabletop_gym.envs.core.cards import card_code
from tabletop_gym.envs.dungeon_solitaire import rules

ALL = rules.DECK_CARDS
WALKTHROUGH_DECK = ("5D 3S QC JS 9C AD 3C 2D 4D 8D TS 9S KS AH 5S JH 3D KD 4S JK 6D 5C KC QS 7S 2S 8S JD AC AS "
                    "8C QD 6S TD KH 6C 9D 2C 7C 4C TC JC 7D QH").split()


def start(prefix, skip_forced=False, **kwargs):
    env = gym.make("Tabletop/DungeonSolitaire-v0", skip_forced=skip_forced, illegal_action="raise",
                   **kwargs).unwrapped
    env.reset(options={"deck": stacked(prefix, ALL)})
    return env


# ------------------------------------------------------------------ cards and setup

def test_deck_has_44_cards_without_the_heart_pips():
    codes = {card_code(c) for c in ALL}
    assert len(ALL) == 44
    assert not any(f"{r}H" in codes for r in "23456789T")
    assert {"AH", "JH", "QH", "KH", "JK"} <= codes


@pytest.mark.parametrize("deck, message", [
    (["AS"] * 44, "repeated: AS"),
    (WALKTHROUGH_DECK[:-1], "it has 43 cards"),
    (WALKTHROUGH_DECK[:-1] + ["5H"], "not in this game: 5H"),
    (WALKTHROUGH_DECK[:-1] + ["ZZ"], "deck[43]: unknown card code 'ZZ'"),
    ("5D 3S", "must be a list of card codes"),
])
def test_bad_stacked_decks_are_rejected_with_the_reason(deck, message):
    env = gym.make("Tabletop/DungeonSolitaire-v0").unwrapped
    with pytest.raises(ValueError, match=re.escape(message)):
        env.reset(options={"deck": deck})


def test_stacked_deck_accepts_any_case_and_10():
    deck = [c.lower() for c in WALKTHROUGH_DECK]
    deck[deck.index("ts")] = "10S"
    env = gym.make("Tabletop/DungeonSolitaire-v0").unwrapped
    env.reset(options={"deck": deck})
    assert env.describe()["deck_size"] == 44


def test_game_starts_before_the_first_card_with_only_draw():
    env = start(["5S", "6S"])
    d = table(env)
    assert (d["phase"], d["delve_turns"], d["hp"], d["torches"], d["hand"], d["turn"]) == ("delve", 0, 9, 0, [], [])
    assert legal(env) == {"draw"}


# ------------------------------------------------------------------ revealing cards

def test_cards_are_revealed_until_the_encounter_aces_jacks_kings_on_the_way():
    env = start(["AS", "JS", "KH", "JK", "7S"])
    act(env, "draw")
    d = table(env)
    assert d["torches"] == 1 and d["torch_row"] == ["AS"]
    assert d["hand"] == ["JS"]
    assert d["turn"] == ["KH", "JK", "7S"] and d["encounter"] == "7S"
    assert legal(env) == {"draw", "berserk"}


def test_queen_before_the_encounter_wins_it_when_it_appears():
    env = start(["QH", "KS", "9S"])
    act(env, "draw")
    d = table(env)
    assert d["encounter"] is None and d["turn"] == []
    assert d["hand"] == ["KS"]  # the king is collected; the queen and the monster mark the turn
    assert d["hp"] == 9 and d["delve_turns"] == 1 and legal(env) == {"delve"}


def test_queen_during_an_encounter_wins_it():
    env = start(["9S", "QD"])
    play(env, "draw", "draw")
    d = table(env)
    assert d["encounter"] is None and d["hp"] == 9 and d["hand"] == []  # Q♦ is no treasure


def test_jack_revealed_goes_to_the_hand_even_when_the_turn_is_lost():
    env = start(["8D", "JC", "3S"])
    play(env, "draw", "draw", "draw")  # 8♦ trap, J♣ to the hand, 3♠ fails the trap
    act(env, "take_damage")
    d = table(env)
    assert d["hand"] == ["JC"] and d["hp"] == 4 and d["encounter"] is None


# ------------------------------------------------------------------ monsters

def test_monster_hits_for_the_difference_and_the_fight_goes_on_until_a_tie_or_better():
    env = start(["9S", "4C", "9C"])
    play(env, "draw", "draw")
    assert table(env)["pending_damage"] == 5 and legal(env) == {"take_damage"}
    act(env, "take_damage")
    d = table(env)
    assert d["hp"] == 4 and d["encounter"] == "9S" and legal(env) == {"draw"}
    act(env, "draw")  # 9♣ ties the monster: a tie wins
    assert table(env)["encounter"] is None and table(env)["hp"] == 4


def test_diamonds_that_failed_against_a_monster_are_collected_when_it_is_beaten():
    env = start(["7S", "3D", "8C"])
    play(env, "draw", "draw", "take_damage", "draw")
    assert table(env)["hand"] == ["3D"] and table(env)["hp"] == 5


def test_berserk_after_damage_with_a_jack_drawn_mid_fight():
    env = start(["9S", "2C", "JS"])
    play(env, "draw", "draw", "take_damage")
    assert legal(env) == {"draw"}
    act(env, "draw")  # J♠ comes up mid-fight and can be played at once
    assert legal(env) == {"draw", "berserk"}
    act(env, "berserk")
    d = table(env)
    assert d["encounter"] is None and d["hp"] == 2 and d["hand"] == []


def test_a_skill_only_works_on_its_own_kind_of_encounter():
    env = start(["JD", "JC", "JS", "5S"])
    act(env, "draw")
    assert table(env)["hand"] == ["JD", "JC", "JS"]
    assert legal(env) == {"draw", "berserk"}


def test_killed_at_zero_hp_never_below():
    env = start(["TS", "2C", "3C"])
    play(env, "draw", "draw", "take_damage")  # 8 damage
    assert table(env)["hp"] == 1
    act(env, "draw")  # 7 more
    _, reward, terminated, _, info = act(env, "take_damage")
    assert terminated and table(env)["hp"] == 0 and table(env)["phase"] == "over"
    assert (rules.RESULT_NAMES[info["result"]], info["score"], info["won"], reward) == ("killed", 0, False, 0.0)


# ------------------------------------------------------------------ treasure drop

def test_treasure_drop_needs_a_card_worth_at_least_the_monster():
    env = start(["5D", "9C", "7S"])
    play(env, "draw", "draw", "delve")  # 5♦ collected, then a 7♠ monster
    assert table(env)["hand"] == ["5D"] and legal(env) == {"draw"}
    env = start(["5D", "9C", "5S"])
    play(env, "draw", "draw", "delve")
    assert legal(env) == {"draw", "drop_5D"}


@pytest.mark.parametrize("monster, drops", [
    ("5S", {"drop_KS", "drop_JK", "drop_5D"}),
    ("6S", {"drop_KS", "drop_JK"}),
    ("7S", {"drop_KS"}),
])
def test_kings_are_worth_10_and_the_joker_6_for_a_drop(monster, drops):
    env = start(["KS", "JK", "5D", "9C", monster])
    play(env, "draw", "draw")  # the 5♦ trap passed: K♠, joker and 5♦ collected
    assert sorted(table(env)["hand"]) == ["5D", "JK", "KS"]
    act(env, "delve")
    assert legal(env) == {"draw"} | drops


def test_treasure_drop_ends_the_fight_unwon_and_the_turns_treasure_is_lost():
    env = start(["8D", "9C", "KC", "6S", "JK", "2D"])
    play(env, "draw", "draw", "delve")  # 8♦ collected; K♣ lies in the turn before the 6♠
    act(env, "draw")  # the joker joins the turn
    assert legal(env) == {"draw", "drop_8D"}
    act(env, "drop_8D")
    d = table(env)
    assert d["hand"] == [] and d["turn"] == [] and d["encounter"] is None and d["hp"] == 9
    assert legal(env) == {"delve", "retreat"}


def test_a_dropped_joker_no_longer_saves_from_the_fourth_torch():
    env = start(["KS", "JK", "5D", "9C", "6S", "AS", "AH", "AD", "AC"])
    play(env, "draw", "draw", "delve", "drop_JK", "delve")
    d = table(env)
    assert d["phase"] == "over" and d["torches"] == 4 and d["result"] == "lost_in_the_dark"


# ------------------------------------------------------------------ traps

def test_trap_has_one_chance_that_aces_kings_and_jacks_do_not_use():
    env = start(["8D", "AS", "KS", "JH", "3C"])
    act(env, "draw")
    for _ in range(3):
        assert legal(env) == {"draw"}
        act(env, "draw")
    assert table(env)["torches"] == 1 and table(env)["turn"] == ["8D", "KS"] and table(env)["hand"] == ["JH"]
    act(env, "draw")  # 3♣ is the chance: 5 damage, and the J♥ may dodge it
    assert table(env)["pending_damage"] == 5 and legal(env) == {"take_damage", "dodge"}
    act(env, "take_damage")
    d = table(env)
    assert d["encounter"] is None and d["hand"] == ["JH"] and d["hp"] == 4  # the K♠ is lost with the turn
    assert legal(env) == {"delve"}


def test_disarm_is_offered_before_the_chance_and_not_after_it():
    env = start(["JD", "5S", "9C", "8D", "3C"])
    play(env, "draw", "draw", "delve")  # J♦ collected in turn 1, then the 8♦ trap
    assert legal(env) == {"draw", "disarm"}
    act(env, "draw")  # 3♣ fails
    assert legal(env) == {"take_damage"}
    act(env, "take_damage")
    assert table(env)["hand"] == ["JD"] and legal(env) == {"delve", "retreat"}


def test_disarm_wins_the_trap_and_its_treasure():
    env = start(["JD", "5S", "9C", "8D", "3C"])
    play(env, "draw", "draw", "delve", "disarm")
    assert table(env)["hand"] == ["8D"] and table(env)["hp"] == 9


def test_all_treasure_turn_leaves_its_lowest_diamond_as_the_marker():
    env = start(["4D", "KS", "7D"])
    play(env, "draw", "draw", "draw")
    assert sorted(table(env)["hand"]) == ["7D", "KS"]


def test_the_marker_is_never_a_king_or_the_joker_while_a_diamond_can_stay():
    env = start(["5D", "JK", "KD", "9D"])
    play(env, "draw", "draw", "draw", "draw")
    assert sorted(table(env)["hand"]) == ["9D", "JK", "KD"]


# ------------------------------------------------------------------ doors and discards

def test_door_allows_one_action_card_then_discards_with_aces_as_torches():
    env = start(["5C", "AS", "2S", "AH", "KD", "JC", "9S"])
    play(env, "draw", "draw")  # the ace on the way does not use the attempt
    assert legal(env) == {"draw"} and table(env)["torches"] == 1
    act(env, "draw")  # 2♠ fails: 3 discards
    assert legal(env) == {"discard"} and table(env)["pending_discards"] == 3
    act(env, "discard")
    d = table(env)
    assert d["torches"] == 2 and d["torch_row"] == ["AS", "AH"]
    assert d["discards"] == ["KD", "JC"]  # a discarded king and jack are out of the game
    assert d["hp"] == 9 and d["hand"] == [] and d["deck_size"] == 44 - 6
    assert legal(env) == {"delve"}


def test_pick_lock_before_or_right_after_a_failed_attempt():
    env = start(["JC", "5S", "9C", "KD", "6C", "2S"])
    play(env, "draw", "draw", "delve")  # J♣ collected; then K♦ and the 6♣ door
    assert legal(env) == {"draw", "pick_lock"}
    act(env, "draw")  # 2♠ fails
    assert legal(env) == {"discard", "pick_lock"}
    act(env, "pick_lock")
    d = table(env)
    assert d["hand"] == ["KD"] and d["discards"] == [] and d["deck_size"] == 44 - 6


def test_a_fourth_ace_among_the_discards_is_lost_in_the_dark():
    env = start(["AS", "AH", "AD", "5C", "2S", "3D", "AC", "9S"])
    play(env, "draw", "draw")
    _, _, terminated, _, info = act(env, "discard")
    assert terminated and rules.RESULT_NAMES[info["result"]] == "lost_in_the_dark" and table(env)["torches"] == 4


# ------------------------------------------------------------------ dodge blow

def test_dodge_cancels_a_whole_blow_against_a_monster():
    env = start(["JH", "5S", "9C", "TS", "2C"])
    play(env, "draw", "draw", "delve", "draw")  # 8 damage coming
    assert legal(env) == {"dodge", "take_damage"}
    act(env, "dodge")
    d = table(env)
    assert d["hp"] == 9 and d["hand"] == [] and d["encounter"] == "TS" and legal(env) == {"draw"}


def test_dodge_works_on_a_trap_and_the_turn_is_still_lost():
    env = start(["JH", "5S", "9C", "TD", "2C"])
    play(env, "draw", "draw", "delve", "draw", "dodge")
    d = table(env)
    assert d["hp"] == 9 and d["encounter"] is None and d["hand"] == []


def test_dodge_saves_from_a_lethal_blow():
    env = start(["JH", "5S", "9C", "TS", "2C", "3C", "TC"])
    play(env, "draw", "draw", "delve", "draw", "take_damage")  # hp 1
    act(env, "draw")  # 7 damage would kill
    act(env, "dodge")
    act(env, "draw")  # 10♣ wins
    assert table(env)["hp"] == 1 and table(env)["phase"] == "delve"


# ------------------------------------------------------------------ torches and the scroll

def test_fourth_torch_loses_without_the_scroll():
    env = start(["AS", "AH", "AD", "AC"])
    _, reward, terminated, _, info = act(env, "draw")
    assert terminated and rules.RESULT_NAMES[info["result"]] == "lost_in_the_dark" and table(env)["torches"] == 4
    assert info["score"] == 0 and reward == 0.0


def test_the_scroll_in_hand_is_spent_on_the_fourth_torch_and_the_ace_goes_under_the_deck():
    env = start(["KS", "JK", "5D", "9C", "AS", "AH", "AD", "AC", "5S"])
    play(env, "draw", "draw", "delve")
    d = table(env)
    assert d["torches"] == 3 and d["scroll_used"] and "JK" not in d["hand"]
    assert d["torch_row"] == ["AS", "AH", "AD", "JK"] and d["encounter"] == "5S"
    state = env.state
    assert state.deck[state.end - 1] == rules.card(rules.ACE, rules.CLUBS)
    assert d["deck_size"] == 44 - 9 + 1


def test_a_scroll_still_lying_in_the_turn_cannot_be_used():
    env = start(["AS", "AH", "AD", "JK", "AC"])
    _, _, terminated, _, info = act(env, "draw")
    assert terminated and rules.RESULT_NAMES[info["result"]] == "lost_in_the_dark"


def test_the_ace_under_the_deck_loses_when_it_comes_up_again():
    env = start(["KS", "JK", "5D", "9C", "AS", "AH", "AD", "AC", "5S"])
    play(env, "draw", "draw", "delve")
    env.state.top = env.state.end - 1  # a position where only the returned ace is left to draw
    _, _, terminated, _, info = act(env, "draw")
    assert terminated and rules.RESULT_NAMES[info["result"]] == "lost_in_the_dark" and table(env)["torches"] == 4


def test_an_empty_deck_is_lost_in_the_dark():
    env = start(["5S", "6S"])
    act(env, "draw")
    env.state.top = env.state.end  # unreachable in play: the deck always holds an ace while the game lives
    _, _, terminated, _, info = act(env, "draw")
    assert terminated and rules.RESULT_NAMES[info["result"]] == "lost_in_the_dark"


# ------------------------------------------------------------------ delve, retreat, escape, score

def test_retreat_after_two_delve_turns_and_n_minus_one_retreat_turns():
    env = start(["KS", "2S", "3S", "2C", "3C", "4S", "5S"])
    play(env, "draw", "draw")
    assert legal(env) == {"delve"}  # not after one turn
    play(env, "delve", "draw")
    assert legal(env) == {"delve", "retreat"}
    act(env, "retreat")  # the first retreat turn starts at once
    d = table(env)
    assert (d["phase"], d["retreat_turns"], d["encounter"]) == ("retreat", 1, "4S")
    _, reward, terminated, _, info = act(env, "draw")
    assert terminated and rules.RESULT_NAMES[info["result"]] == "escaped" and info["score"] == 10 and info["kings"] == 1
    assert not info["won"] and reward == 0.0
    assert (table(env)["delve_turns"], table(env)["retreat_turns"]) == (2, 1)


def test_retreat_after_one_turn_with_the_option_escapes_at_once():
    env = start(["KS", "2S", "3S"], min_delve_turns_before_retreat=1)
    play(env, "draw", "draw")
    assert legal(env) == {"delve", "retreat"}
    _, _, terminated, _, info = act(env, "retreat")
    assert terminated and rules.RESULT_NAMES[info["result"]] == "escaped" and table(env)["retreat_turns"] == 0


def test_the_last_retreat_turn_lost_still_escapes_if_alive():
    env = start(["2S", "3S", "2C", "3C", "9C", "4S", "5D", "6D", "7D", "8D", "2D", "3D", "4D"])
    play(env, "draw", "draw", "delve", "draw", "retreat", "draw")  # 9♣ door, 4♠ fails: 5 discards
    _, _, terminated, _, info = act(env, "discard")
    assert terminated and rules.RESULT_NAMES[info["result"]] == "escaped"
    assert table(env)["discards"] == ["5D", "6D", "7D", "8D", "2D"]


def test_score_counts_kings_diamonds_and_the_joker_and_reward_score_option():
    env = start(["KS", "JK", "5D", "9C", "2S", "3S", "4S", "5S"], reward="score")
    play(env, "draw", "draw", "delve", "draw", "retreat")
    _, reward, terminated, _, info = act(env, "draw")
    assert terminated and info["score"] == 10 + 6 + 5 and reward == 21.0


def test_kings_are_reported_on_a_loss_with_score_zero():
    env = start(["KS", "5D", "9C", "AS", "AH", "AD", "AC"])
    play(env, "draw", "draw")
    _, _, terminated, _, info = act(env, "delve")
    assert terminated and info["kings"] == 1 and info["score"] == 0


# ------------------------------------------------------------------ the designer's walkthrough

WALKTHROUGH_MOVES = [
    # (move, what the table shows afterwards) for the rulebook's example game
    ("draw", None), ("draw", None), ("take_damage", {"hp": 7}),                      # turn 1: 5♦ trap, 3♠
    ("delve", {"hand": ["JS"]}),                                                      # turn 2: Q♣, J♠, 9♣
    ("delve", {"torches": 1, "encounter": "3C"}), ("draw", None), ("discard", {"discards": ["4D"]}),  # turn 3
    ("delve", None), ("draw", {"hand": ["JS", "8D"]}),                                # turn 4: 8♦, 10♠
    ("delve", {"encounter": "9S"}), ("berserk", {"hand": ["8D"]}),                    # turn 5
    ("delve", {"torches": 2, "turn": ["KS", "5S"]}),                                  # turn 6
    ("draw", {"hand": ["8D", "JH"]}), ("draw", {"pending_damage": 2}), ("take_damage", {"hp": 5}),
    ("draw", None), ("draw", {"pending_damage": 1}), ("take_damage", {"hp": 4}), ("draw", None),
    ("draw", {"hand": ["8D", "JH", "KS", "3D", "6D", "KD", "JK"]}),
    ("delve", {"encounter": "5C"}), ("draw", None), ("draw", {"delve_turns": 7}),    # turn 7: 5♣, K♣, Q♠
    ("retreat", {"phase": "retreat", "encounter": "7S"}),                             # turn 8
    ("draw", {"pending_damage": 5}), ("dodge", {"hp": 4}), ("drop_8D", {"retreat_turns": 1}),
    ("draw", {"encounter": "8S"}), ("draw", None), ("draw", {"torches": 3}),          # turn 9
    ("draw", {"torches": 3, "scroll_used": True}), ("draw", {"encounter": None}),
    ("draw", {"retreat_turns": 3, "encounter": None}),                                # turn 10: Q♦, 6♠
    ("draw", {"encounter": "TD"}), ("disarm", None),                                  # turn 11
    ("draw", {"turn": ["KH", "6C"]}), ("draw", None),                                 # turn 12
    ("draw", {"encounter": "2C"}), ("draw", {"phase": "over"}),                       # turn 13
]


def test_the_rulebook_walkthrough_ends_4_kings_68_points():
    env = start([c for c in WALKTHROUGH_DECK])
    for move, expected in WALKTHROUGH_MOVES:
        _, reward, terminated, _, info = act(env, move)
        for key, value in (expected or {}).items():
            assert table(env)[key] == value, (move, key)
    assert terminated and info["won"] and info["score"] == 68 and info["kings"] == 4 and reward == 1.0
    d = table(env)
    assert (d["delve_turns"], d["retreat_turns"], d["hp"]) == (7, 6, 4)
    assert sorted(d["hand"]) == sorted(["KS", "3D", "6D", "KD", "KC", "TD", "KH", "9D"])


def test_the_walkthrough_with_forced_moves_skipped_needs_only_the_real_choices():
    env = start(WALKTHROUGH_DECK, skip_forced=True)
    choices = ["draw", "delve", "delve", "delve", "berserk", "delve", "draw", "draw", "take_damage", "draw", "draw",
               "take_damage", "draw", "draw", "delve", "retreat", "draw", "dodge", "drop_8D", "draw", "draw", "draw",
               "draw", "disarm"]
    for move in choices:
        _, reward, terminated, _, info = act(env, move)
    assert terminated and info["won"] and info["score"] == 68


@pytest.mark.skipif(PLAIN_PYTHON, reason="this is the run as plain Python")
def test_the_rules_pass_as_plain_python():
    passes_as_plain_python(__file__)
