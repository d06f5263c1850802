"""Royal Assassin drawn as text."""

from __future__ import annotations

import textwrap

from ..core.cards import SUIT_SYMBOLS, card_label
from ..core.render import cards_text
from . import rules

WIDTH = 100  # a long reserve (or attack) goes on over more lines, indented, rather than past this


def _fit(line: str) -> list[str]:
    if len(line) <= WIDTH:
        return [line]
    indent = " " * (len(line) - len(line.lstrip()) + 4)
    return textwrap.wrap(line, WIDTH, subsequent_indent=indent, break_long_words=False, break_on_hyphens=False)


def _stack_text(cards, total) -> str:
    return f"{cards_text(cards)} ({total})" if len(cards) else "-"


def _column_lines(s: rules.State, column: int) -> list[str]:
    n = int(s.num_faces[column])
    marks = []
    if s.lock[column] >= 0:
        marks.append(f"locked to {SUIT_SYMBOLS[s.lock[column]]}")
    if s.joker == column:
        marks.append("the joker is here")
    if s.target == column:
        marks.append("under attack")
    header = f"  {SUIT_SYMBOLS[column]} column" + (f"  ({', '.join(marks)})" if marks else "")
    if n == 0:
        return [header + "  empty"]
    lines = [header]
    for level in range(n):
        face = int(s.faces[column, level])
        attack = s.attack[column, level, :s.num_attack[column, level]]
        defense = s.defense[column, level, :s.num_defense[column, level]]
        attack_total, defense_total = int(s.attack_total[column, level]), int(s.defense_total[column, level])
        pretender = level == n - 1
        line = (f"    {'>' if pretender else ' '} {card_label(face):<4}"
                f" attack {_stack_text(attack, attack_total):<18} defence {_stack_text(defense, defense_total):<14}")
        if pretender:
            short = int(rules.VALUE[face]) - attack_total + defense_total
            line += f" pretender, {short} short of dying"
        else:
            line += " covered"
        lines.append(line.rstrip())
    return lines


def render_text(s: rules.State) -> str:
    joker = "free" if s.joker < 0 else f"on the {SUIT_SYMBOLS[s.joker]} column"
    lines = [
        f"Royal Assassin   deck {rules.deck_size(s)}   discard {s.discard_size}   "
        f"kills {rules.kills(s)}   joker {joker}",
    ]
    for column in range(4):
        lines += _column_lines(s, column)
    n = s.reserve_size
    if n:
        lines.append(f"  reserve: top {card_label(rules.reserve_top(s))}, depth {n}"
                     f"   (bottom to top: {cards_text(s.reserve[:n])})")
    else:
        lines.append("  reserve: empty")
    if s.decision == rules.DRAW:
        lines.append(f"  in play: {card_label(s.in_play)}, drawn from the deck")
    elif s.decision == rules.CONTINUE:
        lines.append(f"  in play: {card_label(s.in_play)}, the reserve's top, may continue the attack on the "
                     f"{SUIT_SYMBOLS[s.target]} column")
    else:
        result = rules.outcome(s)
        lines.append(f"  game over: {result['result']}, {result['kills']} kills, score {result['score']}")
    return "\n".join(part for line in lines for part in _fit(line))
