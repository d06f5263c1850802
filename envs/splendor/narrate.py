"""Splendor at the terminal (``tabletop-gym play``): its title (the rules in short and the moves' legend are in
RULES.md), what a step did that the table alone would not say, the opponents' moves in words, and how the game
ended."""

from __future__ import annotations

from . import rules
from .cards import card_text

TITLE = "Splendor"

GEM_WORDS = dict(zip("WUGRKY", ("white", "blue", "green", "red", "black", "gold")))


def narrate(env, old, new) -> list[str]:
    """What the player's step did that the table alone would not say: a noble's visit."""
    before, after = rules.describe(old, env.seat), rules.describe(new, env.seat)
    mine_before, mine_after = before["players"][env.seat], after["players"][env.seat]
    return [f"noble N{n} visits you (3 points)" for n in mine_after["nobles"] if n not in mine_before["nobles"]]


def opponent_move(move: str, seat: int, before, env) -> str:
    """An opponent's move in words, with the card it bought or reserved read off the table (``before`` is None
    for the moves played before the player's first turn)."""
    kind, _, what = move.partition("_")
    if kind == "take":
        if len(what) == 2 and what[0] == what[1]:
            return f"takes 2 {GEM_WORDS[what[0]]}"
        return "takes " + ", ".join(GEM_WORDS[c] for c in what)
    if kind == "return":
        return f"returns a {GEM_WORDS[what]} token"
    if kind == "pass":
        return "passes"
    now = rules.describe(env.state, env.seat)["players"][seat]
    was = rules.describe(before, env.seat)["players"][seat] if before is not None else {
        "purchased": [], "reserved": [], "nobles": []}
    if kind == "noble":
        new = [n for n in now["nobles"] if n not in was["nobles"]]
        return f"noble N{new[0]} visits (3 points)" if new else "a noble visits (3 points)"
    if kind == "reserve":
        new = [r for r in now["reserved"] if r not in was["reserved"]] or ["a card"]
        shown = card_text(new[0]) if isinstance(new[0], int) else f"a face-down tier-{what[1]} card"
        return f"reserves {shown}"
    bought = [c for c in now["purchased"] if c not in was["purchased"]]
    return f"buys {card_text(bought[0])}" if bought else "buys a card"


def ending(outcome: dict, seat: int) -> tuple[str, str]:
    """How the game ended, and what the player's score counts, beside everyone's points."""
    winners = " and ".join(f"player_{k}" for k in outcome.get("winners", [])) or "nobody"
    how = {"finished": f"Won by {winners}.", "all_passed": f"Everybody passed; won by {winners}.",
           "truncated": "Cut at the round limit: no winner.",
           "forfeited": "An illegal move forfeits."}[outcome.get("result")]
    points = "your prestige points (" + ", ".join(
        f"player_{k}{' (you)' if k == seat else ''} {p}" for k, p in enumerate(outcome.get("points", []))) + ")"
    return how, points
