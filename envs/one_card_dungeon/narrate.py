"""One Card Dungeon at the terminal (``tabletop-gym play``): its title (the rules in short and the moves' legend are in
RULES.md), what a step did that the table alone would not say, and how the game ended."""

from __future__ import annotations

from . import rules

TITLE = "One Card Dungeon"


def narrate(env, old, new) -> list[str]:
    """What a step did, read off the states before and after it: the monsters' moves and bites, the dice."""
    before, after = rules.describe(old), rules.describe(new)
    kind = after["monster_type"]["name"].lower()
    said = []
    if after["level"] == before["level"]:
        for k, (was, now) in enumerate(zip(before["monsters"], after["monsters"])):
            if was is None:
                continue
            if now is None:
                said.append(f"{kind} {k} dies")
                continue
            if now["pos"] != was["pos"]:
                said.append(f"{kind} {k} moves {tile(was['pos'])} -> {tile(now['pos'])}")
            if now["hp"] != was["hp"]:
                said.append(f"{kind} {k} health {was['hp']} -> {now['hp']}")
    else:
        monster = after["monster_type"]
        said.append(f"level {after['level']}: {len(after['monsters'])} {kind}s (health {monster['hp']}, speed "
                    f"{monster['speed']}, attack {monster['attack']}, defense {monster['defense']}, range "
                    f"{monster['range']})")
    health = before["adventurer"]["health"], after["adventurer"]["health"]
    if health[1] < health[0]:
        said.append(f"the {kind}s hit you: health {health[0]} -> {health[1]}")
    elif health[1] > health[0]:
        said.append(f"health {health[0]} -> {health[1]}")
    if after["phase"] == "level_up" and before["phase"] != "level_up":
        said.append(f"level {after['level']} cleared: choose an upgrade or heal")
    if after["turn"] > before["turn"]:
        said.append(f"turn {after['turn']}: dice {' '.join(map(str, after['dice']))}")
    if after["result"] != before["result"]:
        said.append({"won": "the last level is cleared", "lost": "your health is gone",
                     "truncated": f"the turn limit ({after['max_turns']}) is reached",
                     "forfeited": "forfeited"}[after["result"]])
    return said


def tile(pos) -> str:
    """A grid position as the move names write it: ``r1c2``."""
    return f"r{pos[0]}c{pos[1]}"


def ending(outcome: dict, seat: int) -> tuple[str, str]:
    """How the game ended, and what its score counts."""
    score = outcome.get("score", 0)
    how = {"won": "All 12 levels are cleared.", "lost": "Your health ran out.",
           "truncated": "The turn limit was reached.", "forfeited": "An illegal move forfeits."}[outcome.get("result")]
    points = {0: "no level cleared", 1: "1 level cleared"}.get(score, f"{score} levels cleared")
    return how, points
