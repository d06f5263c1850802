"""Scripted Splendor players, used as opponents by the single-agent view (``agents/`` wraps them).

Both play from what their seat sees, its observation and legal-action mask, never from the state:

- ``random_action``: uniform over the legal actions.
- ``greedy_action``: buy the best affordable card (points, then progress towards nobles, then how much
  its bonus helps buy the other cards in sight); otherwise pick the best target card (value for the
  gems still missing) and take the gems it needs, reserving it when no take helps; return the tokens
  the target needs least; any qualifying noble.
"""

from __future__ import annotations

import numpy as np

from oracles import splendor_rules as r

_BOARD = slice(r.OBS_BOARD, r.OBS_NOBLES)
_NOBLES = slice(r.OBS_NOBLES, r.OBS_SEATS)
_OWN = r.OBS_SEATS
_RESERVED = slice(_OWN + r.SEAT_HEAD, _OWN + r.SEAT_SIZE)
_TAKES = r.TAKE_GEMS.astype(np.float64)  # (30, 5) gems per take action
_BUY_ACTIONS = np.arange(r.A_BUY, r.A_RETURN)  # 12 face-up then 3 reserved, like the candidates below


def random_action(action_mask, rng: np.random.Generator) -> int:
    """A uniformly random legal action."""
    legal = np.flatnonzero(action_mask)
    return int(legal[rng.integers(legal.size)])


class _Sight:
    """What the greedy player reads from its observation: the 15 cards it could buy and its means."""

    def __init__(self, obs: np.ndarray):
        board = obs[_BOARD].reshape(12, r.CARD_SIZE)
        reserved = obs[_RESERVED].reshape(r.MAX_RESERVED, r.RESERVED_SIZE)[:, :r.CARD_SIZE]
        cards = np.vstack([board, reserved])
        self.present = cards[:, r.F_PRESENT] > 0
        self.points = cards[:, r.F_POINTS]
        self.color = cards[:, r.F_BONUS:r.F_BONUS + 5].argmax(axis=1)
        self.cost = cards[:, r.F_COST:r.F_COST + 5]
        self.bank = obs[r.OBS_BANK:r.OBS_BANK + 6]
        self.tokens = obs[_OWN + r.S_TOKENS:_OWN + r.S_BONUSES]
        self.bonuses = obs[_OWN + r.S_BONUSES:_OWN + r.S_POINTS]
        nobles = obs[_NOBLES].reshape(r.MAX_PLAYERS + 1, r.NOBLE_SIZE)
        self.noble_need = np.maximum(nobles[nobles[:, 0] > 0, 1:] - self.bonuses, 0)
        # Gems each card still needs after bonuses, and what is missing after tokens and gold.
        self.need = np.maximum(self.cost - self.bonuses, 0)
        self.short = np.maximum(self.need - self.tokens[:5], 0)
        self.missing = np.maximum(self.short.sum(axis=1) - self.tokens[r.GOLD], 0)

    def noble_progress(self) -> np.ndarray:
        """Per card: how much its bonus brings the nobles nearer (3 points shared over the bonuses missing)."""
        progress = np.zeros(len(self.color))
        for need in self.noble_need:
            total = need.sum()
            if total > 0:
                progress += np.where(need[self.color] > 0, 3.0 / total, 0.0)
        return progress

    def usefulness(self) -> np.ndarray:
        """Per card: how many of the other cards in sight still need a gem of its bonus colour."""
        demand = (self.need[self.present] > 0).sum(axis=0)
        return demand[self.color]

    def value(self) -> np.ndarray:
        return self.points + self.noble_progress() + 0.1 * self.usefulness()


def greedy_action(observation: np.ndarray, action_mask) -> int:
    """The greedy player's choice for the seat whose observation and mask these are."""
    legal = np.asarray(action_mask).astype(bool)
    phase = observation[r.OBS_CONTEXT:r.OBS_CONTEXT + 3]
    if phase[2]:  # a noble visits: any qualifying one is worth the same 3 points
        return int(np.flatnonzero(legal[r.A_NOBLE:r.A_PASS])[0] + r.A_NOBLE)
    sight = _Sight(observation)
    value = np.where(sight.present, sight.value(), -np.inf)
    if phase[1]:
        return _return_token(sight, value, legal)
    buyable = legal[r.A_BUY:r.A_RETURN]
    if buyable.any():
        # Best card by points and noble progress; among equals the cheapest in tokens spent.
        score = np.where(buyable, value - 0.01 * sight.need.sum(axis=1), -np.inf)
        return int(_BUY_ACTIONS[np.argmax(score)])
    target = _target(sight, value)
    takes = legal[:r.A_RESERVE]
    if takes.any():
        # Gems of each take that the target still lacks (a second gem of a colour counts only if needed).
        gain = np.minimum(_TAKES, sight.short[target]).sum(axis=1) if target is not None else np.zeros(len(_TAKES))
        if target is not None and gain[takes].max() == 0 and _can_reserve(target, legal):
            return _reserve_action(target)
        # Gems for the target first, then gems most cards in sight still need; fewer tokens over 10.
        demand = (sight.short[sight.present] > 0).sum(axis=0)
        over = np.maximum(sight.tokens.sum() + _TAKES.sum(axis=1) - r.TOKEN_LIMIT, 0)
        score = np.where(takes, 10 * gain + 0.1 * (_TAKES @ demand) - 0.5 * over, -np.inf)
        return int(np.argmax(score))
    if target is not None and _can_reserve(target, legal):
        return _reserve_action(target)
    reserves = np.flatnonzero(legal[r.A_RESERVE:r.A_BUY])
    if reserves.size:
        return int(reserves[0] + r.A_RESERVE)
    return int(np.flatnonzero(legal)[0])


def _target(sight: _Sight, value: np.ndarray):
    """The card to work towards: most value per gem still missing, gems the bank cannot supply counted twice."""
    if not sight.present.any():
        return None
    scarce = np.maximum(sight.short - sight.bank[:5], 0).sum(axis=1)
    score = (value + 0.5) / (1.0 + sight.missing + scarce)
    return int(np.argmax(np.where(sight.present, score, -np.inf)))


def _can_reserve(target: int, legal: np.ndarray) -> bool:
    return target < 12 and bool(legal[r.A_RESERVE + target])


def _reserve_action(target: int) -> int:
    return r.A_RESERVE + target


def _return_token(sight: _Sight, value: np.ndarray, legal: np.ndarray) -> int:
    """Give back the colour held most beyond what the target needs; gold only when nothing else is held."""
    target = _target(sight, value)
    need = sight.need[target] if target is not None else np.zeros(5)
    surplus = np.append(sight.tokens[:5] - need, -10.0)
    surplus = np.where(legal[r.A_RETURN:r.A_NOBLE], surplus + 0.01 * sight.tokens, -np.inf)
    return int(np.argmax(surplus) + r.A_RETURN)
