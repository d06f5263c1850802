"""One Card Dungeon drawn as text.

The grid in the level's own orientation (row 0 the far edge): ``##`` a wall, ``S`` / ``E`` the start
and other stair, ``@`` the adventurer, a monster as its slot number, the first letter of its type and
its health (``0s2``: slot 0, a spider with 2 health), ``.`` floor.
"""

from __future__ import annotations

from . import rules
from .levels import SIZE


def _cell(s: rules.State, t: int) -> str:
    if t == s.pos:
        return "@"
    for k, (p, hp) in enumerate(zip(s.monster_pos.tolist(), s.monster_hp.tolist())):
        if p == t:
            return f"{k}{rules.LEVEL_MONSTER[s.level].name[0].lower()}{hp}"
    if (rules.WALLS[rules.layout(s)] >> t) & 1:
        return "##"
    if t == rules.LEVEL_START[s.level]:
        return "S"
    if t == rules.LEVEL_OTHER_STAIR[s.level]:
        return "E"
    return "."


def render_text(s: rules.State) -> str:
    kind = rules.LEVEL_MONSTER[s.level]
    lines = [
        f"One Card Dungeon  level {s.level}  turn {s.turn}/{s.max_turns}  phase {rules.PHASE_NAMES[s.phase]}",
        f"  {kind.name}: health {kind.hp}  speed {kind.speed}  attack {kind.attack}  defense {kind.defense}"
        f"  range {kind.range}",
        ("      " + "".join(f"c{c:<4}" for c in range(SIZE))).rstrip(),
    ]
    for r in range(SIZE):
        lines.append(f"  r{r}  " + "".join(f"{_cell(s, rules.tile(r, c)):<5}" for c in range(SIZE)).rstrip())
    lines.append(f"  adventurer: health {s.health}/{rules.MAX_HEALTH}  speed {s.speed}  attack {s.attack}"
                 f"  defense {s.defense}  range {s.range}")
    dice = " ".join(str(d) for d in s.dice.tolist())
    lines.append(f"  dice {dice}  speed left {s.speed_left}  attack left {s.attack_left}"
                 f"  defense total {s.defense_total}")
    if s.phase == rules.OVER:
        result = rules.outcome(s)
        lines.append(f"  game over: {result['result']}, levels cleared {result['score']}"
                     f"{', WON' if result['won'] else ''}")
    return "\n".join(lines)
