"""Dead Center drawn as text: the cabin as a 3x3 grid with the twelve zombie slots around it.

Each pile shows its number before its top card (``3:10♠``: pile 3, the number in ``play_3``)."""

from __future__ import annotations

from ..core.cards import card_label
from . import rules

_CELL = 7
_FACE_DOWN = "##"
_KILLED = "xx"


def _cell(text: str) -> str:
    return text.ljust(_CELL)


def _slot(s: rules.State, slot: int) -> str:
    state = s.slot_state[slot]
    if state == rules.DOWN:
        return _FACE_DOWN
    return card_label(int(s.slot_card[slot])) if state == rules.UP else _KILLED


def status(s: rules.State) -> str:
    """The line under the table: what the player must do now, or how the game ended."""
    if s.phase == rules.REVEAL:
        return "reveal a face-down zombie"
    if s.phase == rules.PLAY:
        return f"drawn {card_label(s.drawn)}: play it on a pile"
    if s.phase == rules.KILL:
        targets = " or ".join(f"{card_label(int(s.slot_card[slot]))} ({rules.SLOT_NAMES[slot]})"
                              for slot in rules.killable(s, s.played))
        return f"played on pile {s.played}: kill {targets}"
    if s.result == rules.WON:
        return f"game over: WON, all 12 zombies killed with {rules.deck_size(s)} cards left"
    if s.result == rules.UNPLAYABLE:
        return f"game over: lost, drawn {card_label(s.drawn)} fits no pile ({s.kills} kills)"
    if s.result == rules.DECK_EMPTY:
        return f"game over: lost, the draw pile is empty ({s.kills} kills)"
    return f"game over: lost by an illegal action ({s.kills} kills)"


def render_text(s: rules.State) -> str:
    slot = {name: _slot(s, i) for i, name in enumerate(rules.SLOT_NAMES)}
    margin = " " * (4 + _CELL)
    lines = [
        f"Dead Center  turn {s.turn}   kills {s.kills}/12   deck {rules.deck_size(s)}",
        margin + "".join(_cell(f"T{c}") for c in range(3)),
        margin + "".join(_cell(slot[f"T{c}"]) for c in range(3)),
    ]
    for r in range(3):
        piles = "".join(_cell(f"{3 * r + c}:{card_label(int(s.pile_top[3 * r + c]))}") for c in range(3))
        lines.append(f"L{r}  " + _cell(slot[f"L{r}"]) + piles + _cell(slot[f"R{r}"]) + f"R{r}")
    lines += [
        margin + "".join(_cell(slot[f"B{c}"]) for c in range(3)),
        margin + "".join(_cell(f"B{c}") for c in range(3)),
        f"n:card is pile n and its top card (play_n plays on it); {_FACE_DOWN} face down, {_KILLED} killed",
        status(s),
    ]
    return "\n".join(line.rstrip() for line in lines)
