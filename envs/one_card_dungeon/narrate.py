"""One Card Dungeon at the terminal (``tabletop-gym play``): its title, its rules in short, what its move names
mean, what a step did that the table alone would not say, and how the game ended."""

from __future__ import annotations

from . import rules

TITLE = "One Card Dungeon"

RULES = [
    "Clear 12 levels of monsters on a 5x5 grid (row 0 the far edge). Each turn you roll three dice and "
    "give one to each of Speed, Attack and Defense (skill + die is this turn's total).",
    "Then move and attack in any order: a step costs 2 Speed orthogonally, 3 diagonally; an attack on a "
    "monster in your range and sight costs its Defense in Attack and takes 1 Health. Ending the turn "
    "lets the monsters move; then those in range and sight of you attack: their Attack summed, divided "
    "by your Defense total (rounded down), is the damage you take.",
    "Killing a level's last monster lets you raise a skill or heal to 6, then the next level begins. "
    "Health 0 loses; the score is the levels cleared; clearing level 12 wins.",
]

LEGEND = [
    ("assign_HML", "the dice sorted High, Mid, Low go to Speed, Attack, Defense in the order of the "
                   "letters (assign_LHM: Low to Speed, High to Attack, Mid to Defense)"),
    ("move_r1c2", "walk to row 1, column 2 by the cheapest path"),
    ("attack_0", "attack monster 0 (on the grid 0s2: monster 0, a spider with 2 Health)"),
    ("end_turn", "end your moves: the monsters move and attack"),
    ("upgrade_speed", "after a level: +1 Speed (or attack, defense, range)"),
    ("heal", "after a level: Health back to 6"),
    ("grid", "@ you, ## a wall, S and E the stairs, . floor"),
]


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


def ending(info: dict, seat: int) -> tuple[str, str]:
    """How the game ended, and what its score counts."""
    score = info.get("score", 0)
    how = {"won": "All 12 levels are cleared.", "lost": "Your health ran out.",
           "truncated": "The turn limit was reached.", "forfeited": "An illegal move forfeits."}[info.get("result")]
    points = {0: "no level cleared", 1: "1 level cleared"}.get(score, f"{score} levels cleared")
    return how, points
