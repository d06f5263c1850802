"""A heuristic player for Dungeon Solitaire that reads only the observation."""

from __future__ import annotations

import numpy as np

from ..envs.dungeon_solitaire import rules

_I = rules.OBSERVATION_INDEX
_ACTION = {name: i for i, name in enumerate(rules.ACTION_NAMES)}
_KINGS = ["KS", "KH", "KD", "KC"]


class DungeonSolitaireHeuristic:
    """Delve for the four kings, then get out; spend skills on the encounters that hurt.

    - Between delve turns: retreat as soon as all four kings are in hand, or once a king is lost for good
      (then only points are left to win, so bank them after ``score_delve_turns``), or after
      ``max_delve_turns`` however the hunt went, or when hit points run low. Torches are no reason to turn
      back: measured over thousands of deals, retreating on the third torch lost more wins than it saved.
    - Monsters: Go Berserk on a monster of 6 or more, or one whose worst blow could kill; with hit points low,
      buy it off with the cheapest treasure that suffices (never a king while four kings are the aim).
    - Traps: Disarm a trap of 6 or more (or one that could kill). Doors: Pick Lock up front on a door of 8 or
      more, and always after a failed attempt rather than lose cards (and perhaps a king) to the discards.
    - Dodge a blow of 3 or more, and any blow that would kill.
    """

    name = "heuristic"

    def __init__(self, seed=None, max_delve_turns=7, score_delve_turns=5, low_hp=2, skill_threshold=6):
        self.max_delve_turns = max_delve_turns
        self.score_delve_turns = score_delve_turns
        self.low_hp = low_hp
        self.skill_threshold = skill_threshold

    def reset(self, seed=None):
        pass

    def act(self, observation, action_mask) -> int:
        o = np.asarray(observation)
        legal = {name for name, i in _ACTION.items() if action_mask[i]}
        choice = self._choose(o, legal)
        return _ACTION[choice if choice in legal else "draw" if "draw" in legal else sorted(legal)[0]]

    def _choose(self, o, legal) -> str:
        hp = o[_I["hp"]]
        if o[_I["step_between_turns"]] and "delve" in legal:
            return "retreat" if "retreat" in legal and self._time_to_leave(o, hp) else "delve"
        if o[_I["step_damage"]]:
            damage = o[_I["pending_damage"]]
            return "dodge" if damage >= 3 or damage >= hp else "take_damage"
        if o[_I["step_door_failed"]]:
            return "pick_lock"
        value = o[_I["encounter_value"]]
        could_kill = value - 2 >= hp
        if o[_I["encounter_monster"]]:
            if value >= self.skill_threshold or could_kill:
                if "berserk" in legal:
                    return "berserk"
            if hp <= self.low_hp:
                drop = self._cheapest_drop(legal, keep_kings=self._kings_in_reach(o))
                if drop:
                    return drop
            return "draw"
        if o[_I["encounter_trap"]] and (value >= self.skill_threshold or could_kill):
            return "disarm"
        if o[_I["encounter_door"]] and value >= 8:
            return "pick_lock"
        return "draw"

    def _time_to_leave(self, o, hp) -> bool:
        kings = sum(o[_I[f"card_{k}_hand"]] for k in _KINGS)
        if kings == 4:
            return True
        delve_turns = o[_I["delve_turns"]]
        if not self._kings_in_reach(o) and delve_turns >= self.score_delve_turns:
            return True
        return delve_turns >= self.max_delve_turns or hp <= self.low_hp

    @staticmethod
    def _kings_in_reach(o) -> bool:
        """No king has been lost to a drop, a shut door or a failed trap."""
        return not any(o[_I[f"card_{k}_discards"]] or o[_I[f"card_{k}_used"]] for k in _KINGS)

    @staticmethod
    def _cheapest_drop(legal, keep_kings: bool) -> str | None:
        order = [f"drop_{r}D" for r in "23456789T"] + ["drop_JK"] + ([] if keep_kings else [f"drop_{k}" for k in _KINGS])
        return next((name for name in order if name in legal), None)


# ---------------------------------------------------------------- the agents built on the heuristic

HEURISTIC = DungeonSolitaireHeuristic
# The search agent (``SearchAgent``'s settings): about 1 s an episode on one core.
SEARCH = {"simulations": 256}
LEADERBOARD_SEARCH_EPISODES = 10  # the search agents' episodes of a leaderboard row, by default
