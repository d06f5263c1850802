"""Dungeon Solitaire at the terminal (``tabletop-gym play``): its title (the rules in short and the moves' legend are
in RULES.md), what a step did that the table alone would not say, and how the game ended."""

from __future__ import annotations

from ..core.cards import card_label
from ..core.render import cards_text
from . import rules

TITLE = "Dungeon Solitaire: Tomb of Four Kings"


def narrate(env, old, new) -> list[str]:
    """What a step did, read off the states before and after it: the cards it revealed, HP, the turn's end."""
    said = []
    began = new.delve_turns > old.delve_turns or new.retreat_turns > old.retreat_turns
    if new.delve_turns > old.delve_turns:
        said.append(f"delve turn {new.delve_turns} begins")
    if new.retreat_turns > old.retreat_turns:
        said.append(f"retreat turn {new.retreat_turns} of {new.delve_turns - 1} begins")
    revealed = [int(c) for c in old.deck[old.top:new.top]]
    # The encounter may be over already (a queen came first): a new turn's first 2-10 of a suit still was it.
    encounter = new.encounter if new.encounter >= 0 and new.encounter != old.encounter else next(
        (c for c in revealed if began and rules.is_encounter_card(c)), -1)
    if revealed:
        said.append("revealed " + ", ".join(revealed_card(c, new, encounter) for c in revealed))
    if new.scroll_used and not old.scroll_used:
        said.append("the Scroll of Light burns in place of the fourth torch")
    if new.hp != old.hp:
        said.append(f"HP {old.hp} -> {new.hp}")
    if new.pending_damage and not old.pending_damage:
        said.append(f"a blow of {new.pending_damage} damage is coming")
    if new.pending_discards and not old.pending_discards:
        said.append(f"the door stays shut: {new.pending_discards} cards to discard, or pick the lock")
    if new.step == rules.BETWEEN_TURNS and (old.step != rules.BETWEEN_TURNS or began):  # an escape too
        collected = [c for c in rules.cards_in(new, rules.HAND)
                     if old.place[c] != rules.HAND and rules.RANK[c] != rules.JACK]
        said.append("the turn ends" + (f": {cards_text(collected)} to the hand" if collected else ""))
    if new.stage == rules.OVER and old.stage != rules.OVER:
        said.append({rules.ESCAPED: "you are out of the dungeon", rules.KILLED: "you are killed",
                     rules.LOST_IN_THE_DARK: "the last torch goes out: lost in the dark",
                     rules.FORFEITED: "forfeited"}[new.result])
    return said


def revealed_card(c: int, s, encounter: int) -> str:
    """A revealed card and what became of it."""
    label, rank = card_label(c), rules.RANK[c]
    if rank == rules.ACE:
        return f"{label} (a torch goes out)"
    if rank == rules.JACK:
        return f"{label} (to the hand)"
    if rank == rules.QUEEN:
        return f"{label} (divine favour)"
    if s.place[c] == rules.DISCARDS:
        return f"{label} (discarded)"
    if c == encounter:
        kind = {rules.SPADES: "a monster", rules.DIAMONDS: "a trap", rules.CLUBS: "a sealed door"}[rules.SUIT[c]]
        return f"{label} (the encounter: {kind})"
    return label


def ending(outcome: dict, seat: int) -> tuple[str, str]:
    """How the game ended, and what its score counts."""
    result, kings = outcome.get("result"), outcome.get("kings", 0)
    how = {"escaped": f"You escaped with {kings} of the 4 kings" + ("." if kings == 4 else " (a win needs "
                                                                                          "all four)."),
           "killed": "You were killed.", "lost_in_the_dark": "The last torch went out: lost in the dark.",
           "forfeited": "An illegal move forfeits."}[result]
    points = "your points of treasure" if result == "escaped" else "only an escape scores"
    return how, points
