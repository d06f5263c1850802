"""Dead Center at the terminal (``tabletop-gym play``): its title (the rules in short and the moves' legend are in
RULES.md), what a step did that the table alone would not say, and how the game ended."""

from __future__ import annotations

from ..core.cards import card_label, parse_card
from . import rules

TITLE = "Dead Center"


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


def ending(outcome: dict, seat: int) -> tuple[str, str]:
    """How the game ended, and what its score counts."""
    kills = outcome.get("kills", 0)
    how = {"won": "All 12 zombies are dead.", "unplayable": f"The drawn card fit no pile, after {kills} kills.",
           "deck_empty": f"The draw pile ran out, after {kills} kills.",
           "forfeited": "An illegal move forfeits."}[outcome.get("result")]
    points = "the cards left in the draw pile" if outcome.get("won") else "only a win scores"
    return how, points
