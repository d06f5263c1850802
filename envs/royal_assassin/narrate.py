"""Royal Assassin at the terminal (``tabletop-gym play``): its title (the rules in short and the moves' legend are in
RULES.md), what a step did that the table alone would not say, and how the game ended."""

from __future__ import annotations

from ..core.cards import SUIT_SYMBOLS, card_label
from ..core.render import cards_text
from . import rules

TITLE = "Royal Assassin"


def narrate(env, old, new) -> list[str]:
    """What a step did, read off the states before and after it: the joker, the defence, the dead, the draws."""
    said = []
    if old.joker < 0 <= new.joker:
        said.append(f"the joker goes on the {SUIT_SYMBOLS[new.joker]} column")
    continued = old.in_play if old.decision == rules.CONTINUE else -1
    defended = [int(c) for c in old.reserve[:old.reserve_size]
                if new.place[c] in (rules.DEFENSE, rules.DISCARD) and c != continued]
    if defended:
        said.append(f"the reserve defends with {cards_text(defended)}")
    gone = [int(c) for c in new.discard[old.discard_size:new.discard_size]]
    for face in (c for c in gone if rules.IS_FACE[c]):
        said.append(f"{card_label(face)} dies")
    numbers = [c for c in gone if not rules.IS_FACE[c]]
    if numbers:
        wiped = not any(rules.IS_FACE[c] for c in gone)
        said.append(("the attack is wiped out: " if wiped else "") + f"{cards_text(numbers)} to the discard")
    if old.joker >= 0 > new.joker:
        said.append("the joker is free again")
    if old.decision == rules.DRAW and new.place[old.in_play] == rules.RESERVE:
        said.append(f"{card_label(old.in_play)} goes onto the reserve")
    for c in (int(c) for c in old.deck[old.top:new.top]):
        if rules.IS_FACE[c]:
            said.append(f"turned {card_label(c)}: the new pretender of the {SUIT_SYMBOLS[rules.SUIT[c]]} column")
        else:
            said.append(f"drawn {card_label(c)}")
    if new.decision == rules.CONTINUE:
        said.append(f"the reserve's top {card_label(new.in_play)} may attack the {SUIT_SYMBOLS[new.target]} "
                    "column again")
    if new.result == rules.WON:
        said.append("no face card is left")
    elif new.result == rules.LOST:
        said.append("the deck is empty")
    return said


def ending(outcome: dict, seat: int) -> tuple[str, str]:
    """How the game ended, and what its score counts."""
    how = {"won": "Every face card is dead.", "lost": f"The deck ran out after {outcome.get('kills', 0)} kills.",
           "forfeited": "An illegal move forfeits."}[outcome.get("result")]
    points = "the cards left in the deck" if outcome.get("won") else "only a win scores"
    return how, points
