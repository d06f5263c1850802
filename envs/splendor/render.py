"""Splendor drawn as text: the bank, the nobles, the board and each player's holdings."""

from __future__ import annotations

from . import rules
from .cards import COLORS, TOKEN_COLORS, card_text, noble_text


WIDTH = 100  # a row of cards or nobles longer than this goes on over a second line
COLOR_KEY = "W white, U blue, G green, R red, K black, Y gold"


def _counts(row, letters) -> str:
    return " ".join(f"{c}{int(n)}" for c, n in zip(letters, row))


def _row(head: str, items: list[str], empty: str = "-") -> list[str]:
    """``head`` then the items two spaces apart; where that is too long, on as few lines as fit, the items
    shared evenly between them and each line going on under the first item."""
    if not items:
        return [head + empty]
    for count in range(1, len(items) + 1):
        per_line = -(-len(items) // count)
        lines = ["  ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
        if all(len(head) + len(line) <= WIDTH for line in lines):
            break
    return [head + lines[0]] + [" " * len(head) + line for line in lines[1:]]


def render_text(s: rules.State, seat: int | None = None) -> str:
    """The table as ``seat`` sees it (None: as a spectator, every blind reservation face down)."""
    d = rules.describe(s, seat)
    if s.phase == rules.OVER:
        won = ", ".join(f"player_{k}" for k in d["winners"]) or "nobody"
        head = f"Splendor  round {s.round}  game over ({d['result']}): won by {won}"
    else:
        head = f"Splendor  round {s.round}/{s.max_rounds}  player_{s.current} to play ({d['phase']})"
        if d["result"] == "truncated":
            head = f"Splendor  truncated after {s.max_rounds} rounds"
        if s.final_round:
            head += "  [last round]"
        if d["tokens_to_return"]:
            head += f"  [{d['tokens_to_return']} token(s) to return]"
    lines = [head, f"  bank: {_counts(s.bank, TOKEN_COLORS)}   ({COLOR_KEY})"]
    lines += _row("  nobles: ", [f"[{i}] {noble_text(n)}" for i, n in enumerate(d["nobles"])])
    for t in (2, 1, 0):
        slots = [f"[{i}] {card_text(c)}" if c >= 0 else f"[{i}] (empty)" for i, c in enumerate(s.board[t])]
        lines += _row(f"  tier {t + 1} (deck {rules.deck_size(s, t)}): ", slots)
    for k, p in enumerate(d["players"]):
        marker = ">" if k == s.current and s.phase != rules.OVER else " "
        reserved = [
            f"[{i}] {card_text(r)}" + ("*" if s.reserved_blind[k, i] else "") if isinstance(r, int) else f"[{i}] {r}"
            for i, r in enumerate(p["reserved"])]
        nobles = " ".join(f"N{n}" for n in p["nobles"]) or "-"
        lines.append(f" {marker}player_{k}: {p['points']} points, {p['cards']} cards, nobles {nobles}")
        lines.append(f"    tokens {_counts(s.tokens[k], TOKEN_COLORS)}   bonuses {_counts(s.bonuses[k], COLORS)}")
        lines += _row("    reserved: ", reserved)
    if any(s.reserved_blind[k, i] and s.reserved[k, i] >= 0 and isinstance(d["players"][k]["reserved"][i], int)
           for k in range(s.num_players) for i in range(rules.MAX_RESERVED)):
        lines.append("  (* reserved blind from the top of a deck: only its owner sees it)")
    return "\n".join(lines)
