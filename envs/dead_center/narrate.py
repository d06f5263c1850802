"""Dead Center at the terminal (``tabletop-gym play``): its title, its rules in short, what its move names
mean, what a step did that the table alone would not say, and how the game ended."""

from __future__ import annotations

from ..core.cards import card_label, parse_card
from . import rules

TITLE = "Dead Center"

RULES = [
    "Kill the 12 zombies (J, Q, K) that lie face down around the cabin, a 3x3 grid of piles numbered 0-8 "
    "row by row. Each turn: reveal a zombie (while any is face down), draw a card and play it on a pile, "
    "then perhaps kill.",
    "A card goes on a pile whose top card is of the same value, or of the same colour and higher, or of "
    "the other colour and lower; a joker goes anywhere and takes anything. If the card fits no pile, you "
    "lose.",
    "After a play, a face-up zombie in a slot next to that pile dies if the two other top cards in its line "
    "(its supports) sum to 10 or more: a king needs both of its suit, a queen both of its colour, a jack "
    "any. One kill a turn. Kill all 12 to win (score: the cards left in the draw pile); an empty draw "
    "pile loses.",
]

LEGEND = [
    ("reveal_T0", "turn the zombie at slot T0 face up: T top, R right, B bottom, L left, 0-2 along its side"),
    ("play_3", "play the drawn card on pile 3 (3:10♠ on the grid is pile 3, its top card 10♠)"),
    ("kill_T0", "kill the zombie at slot T0"),
]


def narrate(env, old, new) -> list[str]:
    """What a step did, read off the states before and after it: zombies revealed and killed, cards played."""
    before, after = rules.describe(old), rules.describe(new)
    said = []
    for slot, was in before["slots"].items():
        now = after["slots"][slot]
        if was == "down" and now != "down":
            said.append(f"the zombie at {slot} is {label(now)}")
        elif was not in ("down", None) and now is None:
            said.append(f"{label(was)} at {slot} is killed ({after['kills']} of 12)")
    for pile, (was, now) in enumerate(zip(before["cabin"], after["cabin"])):
        if was != now:
            said.append(f"{label(now)} on pile {pile}")
    if after["drawn"] is not None and (after["drawn"] != before["drawn"] or before["phase"] != "play"):
        said.append(f"drawn {label(after['drawn'])}")
    if after["result"] != before["result"]:
        said.append({"won": "every zombie is dead", "unplayable": "it fits no pile",
                     "deck_empty": "the draw pile is empty", "forfeited": "forfeited"}[after["result"]])
    return said


def label(code: str) -> str:
    """A card of the described table (``TS``) as the table prints it (``10♠``)."""
    return card_label(parse_card(code))


def ending(info: dict, seat: int) -> tuple[str, str]:
    """How the game ended, and what its score counts."""
    kills = info.get("kills", 0)
    how = {"won": "All 12 zombies are dead.", "unplayable": f"The drawn card fit no pile, after {kills} kills.",
           "deck_empty": f"The draw pile ran out, after {kills} kills.",
           "forfeited": "An illegal move forfeits."}[info.get("result")]
    points = "the cards left in the draw pile" if info.get("won") else "only a win scores"
    return how, points
