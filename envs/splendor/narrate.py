"""Splendor at the terminal (``tabletop-gym play``): its title, its rules in short, what its move names mean,
what a step did that the table alone would not say, the opponents' moves in words, and how the game ended."""

from __future__ import annotations

from . import rules
from .cards import card_text

TITLE = "Splendor"

RULES = [
    "Be the first to 15 prestige points. Gems come in five colours, W white, U blue, G green, R red, "
    "K black, and gold Y is wild. On your turn, take 3 gems of different colours, or 2 of one colour "
    "(when the bank holds 4 of it), or reserve a card (and take a gold), or buy a card.",
    "A card costs gems; every card you own is a permanent gem of its colour (a bonus) that pays for later "
    "cards, and many give points. A noble visits (3 points) at the end of a turn in which your bonuses "
    "meet its requirement. You may hold 10 tokens at most and return the rest.",
    "When someone reaches 15 points the round is played out; the most points wins (a tie: fewer cards "
    "bought). Cards read #23 G 1pt (4K): card 23, a green bonus, 1 point, costs 4 black.",
]

LEGEND = [
    ("colours", "W white, U blue, G green, R red, K black; Y gold (wild)"),
    ("take_WUG", "take 3 gems of different colours: white, blue, green"),
    ("take_WW", "take 2 white gems (the bank must hold 4 white)"),
    ("take_WU, take_W", "take fewer, when fewer than 3 colours are left in the bank"),
    ("reserve_t1_2", "reserve the tier 1 card in slot [2] and take a gold; you may hold 3"),
    ("reserve_t1_deck", "reserve the top card of the tier 1 deck, unseen by the others"),
    ("buy_t1_2", "buy the tier 1 card in slot [2]"),
    ("buy_reserved_0", "buy your reserved card [0]"),
    ("return_W", "give a white token back (over 10 tokens)"),
    ("noble_0", "choose noble [0] when more than one can visit"),
    ("pass", "only when no other move is legal"),
]

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


def ending(info: dict, seat: int) -> tuple[str, str]:
    """How the game ended, and what the player's score counts, beside everyone's points."""
    winners = " and ".join(f"player_{k}" for k in info.get("winners", [])) or "nobody"
    how = {"finished": f"Won by {winners}.", "all_passed": f"Everybody passed; won by {winners}.",
           "truncated": "Cut at the round limit: no winner.",
           "forfeited": "An illegal move forfeits."}[info.get("result")]
    points = "your prestige points (" + ", ".join(
        f"player_{k}{' (you)' if k == seat else ''} {p}" for k, p in enumerate(info.get("points", []))) + ")"
    return how, points
