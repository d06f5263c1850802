"""Dungeon Solitaire drawn as text."""

from __future__ import annotations

from ..core.cards import RANK, SUIT
from ..core.render import cards_text
from . import rules

_ENCOUNTER_KIND = {rules.SPADES: "monster", rules.DIAMONDS: "trap", rules.CLUBS: "sealed door"}


def _turns(n: int, kind: str) -> str:
    return f"{n} {kind} turn{'' if n == 1 else 's'}"


def _where(s: rules.State) -> str:
    """Where the game stands: the delve or retreat turn, or how and when it ended."""
    if s.stage == rules.RETREAT:
        return f"retreat turn {s.retreat_turns} of {s.delve_turns - 1} (after {_turns(s.delve_turns, 'delve')})"
    if s.stage == rules.DELVE:
        return f"delve turn {s.delve_turns}"
    if s.result == rules.ESCAPED:
        return (f"over: escaped after {_turns(s.delve_turns, 'delve')} and "
                f"{_turns(s.retreat_turns, 'retreat')}")
    when = f"retreat turn {s.retreat_turns}" if s.retreat_turns else f"delve turn {s.delve_turns}"
    how = {rules.KILLED: "killed", rules.LOST_IN_THE_DARK: "lost in the dark",
           rules.FORFEITED: "forfeited by an illegal move"}[s.result]
    return f"over: {how} on {when}"


def render_text(s: rules.State) -> str:
    lines = [
        f"Dungeon Solitaire  {_where(s)}",
        f"  HP {s.hp}/{rules.MAX_HP}   torches out {s.torches}/{rules.MAX_TORCHES}"
        f"{'   scroll used' if s.scroll_used else ''}   deck {rules.deck_size(s)}",
        f"  torch row: {cards_text(rules.cards_in(s, rules.TORCH_ROW))}",
        f"  hand:      {cards_text(rules.cards_in(s, rules.HAND))}",
        f"  turn:      {cards_text(rules.cards_in(s, rules.TURN))}",
    ]
    lines += ["  " + line for line in status_lines(s)]
    return "\n".join(lines)


def status_lines(s: rules.State) -> list[str]:
    """What is going on besides the cards: the encounter, what is pending, the end (the picture shows them too)."""
    lines = []
    if s.encounter >= 0:
        lines.append(f"encounter: {_ENCOUNTER_KIND[SUIT[s.encounter]]} {RANK[s.encounter]}")
    if s.pending_damage:
        lines.append(f"a blow of {s.pending_damage} damage is coming")
    if s.pending_discards:
        lines.append(f"the door stays shut: {s.pending_discards} cards to discard")
    if s.stage == rules.OVER:
        result = rules.outcome(s)
        lines.append(f"game over: {result['result']}, {result['kings']} kings, score {result['score']}"
                     f"{', WON' if result['won'] else ''}")
    return lines
