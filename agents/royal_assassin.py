"""A heuristic player for Royal Assassin that reads only the observation."""

from __future__ import annotations

import numpy as np

from ..envs.core.cards import card_code
from ..envs.royal_assassin import rules

_I = {name: i for i, (name, _) in enumerate(rules.OBSERVATION_FIELDS)}
_SUITS = "SHDC"
_PASS = rules.A_PASS
_SUIT = tuple(int(rules.SUIT[c]) for c in range(rules.NUM_CARDS))
_VALUE = tuple(int(v) for v in rules.VALUE)
_TARGETS = rules.TARGETS

# Where each piece of the table sits in the observation.
_NUMBER_CARDS = tuple(int(c) for c in rules.NUMBER_CARDS)
_DEPTH = np.array([_I[f"card_{card_code(c)}_reserve_depth"] for c in _NUMBER_CARDS])
_FACES = tuple(_I[f"column_{t}_faces"] for t in _SUITS)
_SLOT_VALUE = tuple(tuple(_I[f"column_{t}_{i}_value"] for i in range(3)) for t in _SUITS)
_SLOT_ATTACK = tuple(tuple(_I[f"column_{t}_{i}_attack_total"] for i in range(3)) for t in _SUITS)
_SLOT_DEFENSE = tuple(tuple(_I[f"column_{t}_{i}_defense_total"] for i in range(3)) for t in _SUITS)
_LOCK = tuple(tuple(_I[f"column_{t}_lock_{u}"] for u in _SUITS) for t in _SUITS)
_JOKER = tuple(_I[f"column_{t}_joker"] for t in _SUITS)
_CONTINUE = _I["decision_continue"]
_IN_PLAY_SUIT = tuple(_I[f"in_play_suit_{u}"] for u in _SUITS)
_IN_PLAY_VALUE = _I["in_play_value"]
_UNSEEN = np.array([_I[f"card_{card_code(c)}_deck"] for c in range(rules.NUM_CARDS)])
# Unseen flags @ this = the points of each suit's number cards still to come (the attackers' supply).
_SUIT_POINTS = np.zeros((rules.NUM_CARDS, 4))
_SUIT_POINTS[list(_NUMBER_CARDS), [_SUIT[c] for c in _NUMBER_CARDS]] = [_VALUE[c] for c in _NUMBER_CARDS]
_IS_FACE = tuple(bool(f) for f in rules.IS_FACE)
# A win one card ahead, counted as a large finite score so that it can be averaged.
_WIN = 1000.0


class Table:
    """The public table rebuilt from the observation: all that a resolution depends on.

    ``faces[t]`` holds column t's face values oldest first, ``attack[t]`` / ``defense[t]`` the totals
    lying on each of them, ``lock[t]`` the locking suit (-1 none), ``joker`` the joker's column (-1
    free), ``reserve`` the reserve's (suit, value) pairs bottom first, top last.
    """

    __slots__ = ("faces", "attack", "defense", "lock", "joker", "reserve", "won")

    def copy(self) -> "Table":
        t = Table.__new__(Table)
        t.faces = [list(f) for f in self.faces]
        t.attack = [list(a) for a in self.attack]
        t.defense = [list(d) for d in self.defense]
        t.lock = list(self.lock)
        t.joker = self.joker
        t.reserve = list(self.reserve)
        t.won = self.won
        return t

    @classmethod
    def from_observation(cls, o) -> "Table":
        t = cls.__new__(cls)
        t.faces, t.attack, t.defense, t.lock = [], [], [], []
        for c in range(4):
            n = int(o[_FACES[c]])
            t.faces.append([int(o[i]) for i in _SLOT_VALUE[c][:n]])
            t.attack.append([int(o[i]) for i in _SLOT_ATTACK[c][:n]])
            t.defense.append([int(o[i]) for i in _SLOT_DEFENSE[c][:n]])
            t.lock.append(next((u for u in range(4) if o[_LOCK[c][u]]), -1))
        t.joker = next((c for c in range(4) if o[_JOKER[c]]), -1)
        depth = o[_DEPTH]
        order = np.flatnonzero(depth)
        order = order[np.argsort(-depth[order])]  # deepest (the bottom) first
        t.reserve = [(_SUIT[_NUMBER_CARDS[k]], _VALUE[_NUMBER_CARDS[k]]) for k in order]
        t.won = False
        return t

    # ------------------------------------------------------------ the rules of an attack, as in rules.py

    def targets(self, suit: int) -> list[int]:
        """The columns a drawn card of this suit may attack (as ``rules.legal_mask``): the other colour's
        columns with a pretender, only the one it holds a lock on if any, none locked to another suit."""
        lock = self.lock
        columns = [c for c in _TARGETS[suit] if lock[c] == suit] or _TARGETS[suit]
        return [c for c in columns if self.faces[c] and lock[c] in (-1, suit)]

    def place_attack(self, column: int, suit: int, value: int, joker: bool) -> None:
        self.attack[column][-1] += value
        self.lock[column] = suit
        if joker:
            self.joker = column

    def resolve(self, column: int, attacker: int) -> bool:
        """Steps a-c after an attack card was placed; True when step d offers a continuation."""
        faces, attack, defense, reserve = self.faces[column], self.attack[column], self.defense[column], self.reserve
        # a. Kill check, before any defence; a kill goes on only onto a face card with a buried attack.
        if attack[-1] - defense[-1] >= faces[-1]:
            self._kill(column)
            if not any(self.faces):
                self.won = True
                return False
            if not faces or attack[-1] == 0:
                return False
        # b. Defence from the reserve's top, c. the wipe.
        while reserve and reserve[-1][0] == column and defense[-1] < attack[-1]:
            defense[-1] += reserve.pop()[1]
        if defense[-1] >= attack[-1]:
            attack[-1] = defense[-1] = 0
            self._update_lock(column)
            return False
        # d. A continuation when the reserve's top is of the attacking suit.
        return bool(reserve) and reserve[-1][0] == attacker

    def _kill(self, column: int) -> None:
        faces = self.faces[column]
        dead = len(faces) if self.joker == column else 1
        for _ in range(dead):
            faces.pop()
            self.attack[column].pop()
            self.defense[column].pop()
        if self.joker == column:
            self.joker = -1
        self._update_lock(column)

    def _update_lock(self, column: int) -> None:
        if not any(self.attack[column]):
            self.lock[column] = -1


class RoyalAssassinHeuristic:
    """Play each attack out in the head, bring the joker only with a killing card, judge what is left.

    Everything between two draws follows from the face-up cards alone: where the card lands, which
    reserve cards defend, whether the pretender dies, which continuations the reserve then offers. So for
    each legal choice (attack a column, attack it with the joker, pass) the player plays the whole
    attack out, trying every way of continuing or stopping, and judges the table it would leave:

    - A win now beats everything. Then each column still holding face cards costs ``column_weight``.
    - The joker is only ever laid with the card that kills: it then takes the whole column and is free
      again at once, so it is worth more in hand than waiting on a column (``joker_weight`` against).
      With it in hand, a column is one kill away from dying, so its work left is the pretender's
      shortfall (value - attack + defence), counted once (``work_weight``) and once more divided by the
      points of the unseen cards that may still attack it (``supply_weight``): a suit locked onto
      another column, or a column locked to one suit, has fewer cards coming to finish it.
    - A run of a live column's suit on top of the reserve will defend it at the next attack: its points
      count against (``defender_weight``), so passing a card onto its own live column's top costs, and
      an attack that flushes defenders out is worth something.

    With ``lookahead`` (the default) the player also thinks one card ahead: the next card is any of the
    unseen ones, equally likely (which cards are unseen is public, their order is not); each table is
    judged by the average, over those cards, of the best play with that card. This sees that a passed
    card can feed the next attack, or that a column is about to be reinforced. It wins about 69% of
    deals (about 66% without the look-ahead, ten times faster), against about 54% for the reference greedy
    (attack whenever possible, weakest pretender first, always continue, joker on the biggest column).
    The player is deterministic: ``seed`` is accepted for the common interface.
    """

    name = "heuristic"

    def __init__(self, seed=None, lookahead=True, column_weight=20.0, work_weight=1.0, supply_weight=16.0,
                 defender_weight=0.5, joker_weight=20.0):
        self.lookahead = lookahead
        self.column_weight = column_weight
        self.work_weight = work_weight
        self.supply_weight = supply_weight
        self.defender_weight = defender_weight
        self.joker_weight = joker_weight
        self.supply = [0.0] * 4
        self.unseen = []

    def reset(self, seed=None):
        pass

    def act(self, observation, action_mask) -> int:
        legal = np.flatnonzero(action_mask)
        if len(legal) == 1:
            return int(legal[0])
        # The first best in index order: on a tie the plain attack goes before the joker, both before pass.
        return int(legal[np.argmax(self.action_scores(observation, action_mask)[legal])])

    def action_scores(self, observation, action_mask) -> np.ndarray:
        """Each action's judgement (higher is better; a win now is +inf), -inf for the illegal ones: the
        numbers ``act`` takes the best of, which a learner can be taught as well as the choice."""
        o = np.asarray(observation)
        scores = np.full(rules.NUM_ACTIONS, -np.inf)
        table = Table.from_observation(o)
        suit = next(u for u in range(4) if o[_IN_PLAY_SUIT[u]])
        value = int(o[_IN_PLAY_VALUE])
        continuing = bool(o[_CONTINUE])
        unseen = o[_UNSEEN]
        self.supply = (unseen @ _SUIT_POINTS).tolist()
        self.unseen = [(_SUIT[c], _VALUE[c], _IS_FACE[c]) for c in np.flatnonzero(unseen).tolist()]
        judge = self.expect if self.lookahead and self.unseen else self.judge
        for action in np.flatnonzero(action_mask).tolist():
            if action == _PASS:
                after = table.copy()
                if not continuing:
                    after.reserve.append((suit, value))
                scores[action] = judge(after)
            else:
                scores[action] = self._attack(table, action % 4, suit, value, action >= rules.A_ASSASSIN, continuing,
                                              judge)
        return scores

    def _attack(self, table: Table, column: int, suit: int, value: int, joker: bool, from_reserve: bool,
                judge) -> float:
        """The best judgement over every way of going on with the attack this card makes."""
        t = table.copy()
        if from_reserve:
            t.reserve.pop()
        t.place_attack(column, suit, value, joker)
        if not t.resolve(column, suit):
            return judge(t)
        # A continuation is offered: stop, go on, or go on with the joker.
        best = judge(t)
        top_suit, top_value = t.reserve[-1]
        best = max(best, self._attack(t, column, top_suit, top_value, False, True, judge))
        if t.joker < 0 and len(t.faces[column]) >= 2:
            best = max(best, self._attack(t, column, top_suit, top_value, True, True, judge))
        return best

    def expect(self, t: Table) -> float:
        """The table judged one card ahead: the mean over the unseen cards of the best play with each."""
        if t.won:
            return np.inf
        total = 0.0
        for suit, value, face in self.unseen:
            if face:  # it joins its column (the card after it is not looked at)
                t.faces[suit].append(value)
                t.attack[suit].append(0)
                t.defense[suit].append(0)
                total += self.judge(t)
                t.faces[suit].pop()
                t.attack[suit].pop()
                t.defense[suit].pop()
            else:
                total += self._best_draw(t, suit, value)
        return total / len(self.unseen)

    def _best_draw(self, t: Table, suit: int, value: int) -> float:
        """The best judgement of a drawn number card's plays (a win counts as a big finite number)."""
        t.reserve.append((suit, value))
        best = self.judge(t)  # pass
        t.reserve.pop()
        for c in t.targets(suit):
            best = max(best, self._attack(t, c, suit, value, False, False, self.judge))
            if t.joker < 0 and len(t.faces[c]) >= 2:
                best = max(best, self._attack(t, c, suit, value, True, False, self.judge))
        return min(best, _WIN)

    def judge(self, t: Table) -> float:
        """How good the table is between two draws (higher is better)."""
        if t.won:
            return np.inf
        score = 0.0 if t.joker < 0 else -self.joker_weight
        lock, supply = t.lock, self.supply
        for c in range(4):
            faces = t.faces[c]
            if not faces:
                continue
            short = faces[-1] - t.attack[c][-1] + t.defense[c][-1]  # at least 1 while it lives
            # The unseen points of the suits still free to attack this column.
            if lock[c] >= 0:
                points = supply[lock[c]]
            else:
                points = sum(supply[u] for u in _TARGETS[c] if u not in lock)
            score -= self.column_weight + short * (self.work_weight + self.supply_weight / (points + 1))
        reserve = t.reserve
        if reserve and t.faces[reserve[-1][0]]:
            top = reserve[-1][0]
            run = 0
            for u, v in reversed(reserve):
                if u != top:
                    break
                run += v
            score -= self.defender_weight * run
        return score
