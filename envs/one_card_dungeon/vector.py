"""One Card Dungeon's native vector env: ``OneCardDungeonVectorEnv(num_envs=N, ...)``, or
``gym.make_vec("Tabletop/OneCardDungeon-v0", num_envs=N)``."""

from __future__ import annotations

import numpy as np

from ..core.vector import CompiledGames, TabletopVectorEnv
from . import rules
from .env import OneCardDungeonEnv
from .rules import AT_RESULT

_ENDED = np.isin(np.arange(len(rules.RESULT_NAMES)), [rules.WON, rules.LOST, rules.FORFEITED])  # per result code
BANK_SIZE = 96


class DiceBank:
    """Each game's dice, asked of its generator ``BANK_SIZE`` at a time rather than three a turn: one call every 32
    turns. The dice are the same: a numpy Generator's ``integers`` draws its results one after another from one
    stream, so asking for 3 dice k times gives exactly the dice of asking once for 3k (the vector tests hold the
    vector env to the single env's dice). Nothing else in a game draws from its generator. Row i of ``dice`` is
    game i's bank as ``rules.pay_dice`` reads it (the index of its next die, then the dice); the bank remembers the
    generator it was drawn from, and a game given a new one (a reseed) starts afresh."""

    def __init__(self, n: int):
        self.dice = np.zeros((n, 1 + BANK_SIZE), dtype=np.int64)
        self.dice[:, 0] = 1 + BANK_SIZE  # none left
        self.generators = [None] * n

    def of(self, rngs: list) -> np.ndarray:
        """The banks, emptied for the games whose generator is not the one their dice came from."""
        if self.generators != rngs:  # (one quick comparison of the lists, element by element identity first)
            for i, (drawn_from, now) in enumerate(zip(self.generators, rngs)):
                if drawn_from is not now:
                    self.dice[i, 0] = 1 + BANK_SIZE
            self.generators = list(rngs)
        return self.dice

    def refill(self, rows: np.ndarray, rngs: list) -> None:
        """Fill the bank of every game ``rows`` selects: the dice still in it first, then its generator's."""
        for i in np.flatnonzero(rows):
            rules.refill(self.dice[i], rngs[i])


def _read_only(rolls: np.ndarray) -> np.ndarray:
    """The fixed rolls as the single env's rules see them (read-only), so that both use one compiled version."""
    view = rolls.view()
    view.flags.writeable = False
    return view


class Games(CompiledGames):
    """The batched side of ``TabletopVectorEnv`` for One Card Dungeon (see ``CompiledGames``): a ``Batch`` of its
    states also holds ``rolls`` (N, 3 * max_turns) and, once dice are drawn, its ``DiceBank``. A step is one
    compiled call (``rules.step_rows``) that refills a bank that runs short from its game's generator; the other
    loops (a reset's deal, a search's playouts) report the games whose bank ran short (``waiting``), whose banks are
    filled here and which carry on."""

    rules = rules

    @staticmethod
    def _banks(b, rngs) -> tuple[DiceBank, np.ndarray]:
        bank = getattr(b, "dice_bank", None)
        if bank is None:
            bank = b.dice_bank = DiceBank(len(b.data))
        bank.of(rngs)
        return bank, np.zeros(len(b.data), dtype=bool)

    @classmethod
    def _pay(cls, b, bank, waiting, rngs) -> None:
        while waiting.any():
            bank.refill(waiting, rngs)
            rules.pay_rows(b.data, waiting.copy(), bank.dice, waiting)

    @classmethod
    def apply(cls, b, actions, rows, rngs=None) -> None:
        bank, waiting = cls._banks(b, rngs)
        rules.take_actions(b.data, actions, rows, _read_only(b.rolls), bank.dice, waiting)
        cls._pay(b, bank, waiting, rngs)

    @classmethod
    def play_forced(cls, b, rows, rngs=None) -> None:
        bank, waiting = cls._banks(b, rngs)
        rolls = _read_only(b.rolls)
        rules.continue_rows(b.data, rows, True, rolls, bank.dice, waiting)
        while waiting.any():
            bank.refill(waiting, rngs)
            rules.continue_rows(b.data, waiting.copy(), True, rolls, bank.dice, waiting)

    @classmethod
    def deal(cls, b, rows, rngs, options) -> None:
        """Begin each new game's first turn with its own generator, as ``rules.new_game`` does: the rest of a new
        game is already in place (``TabletopVectorEnv._deal`` puts one new game in every row first, its dice rolled
        by a stand-in generator), so its level is set up and its turn begun again."""
        starting = np.zeros(len(b.data), dtype=bool)
        starting[rows] = True
        bank, waiting = cls._banks(b, rngs)
        rules.start_games(b.data, starting, _read_only(b.rolls), bank.dice, waiting)
        cls._pay(b, bank, waiting, rngs)

    @classmethod
    def step(cls, b, fresh, actions, taking, starting, *rest) -> None:
        """``CompiledGames.step``, the games that start given a new game's fixed rolls first; each game's dice bank
        is refilled inside the compiled call from its own generator (the dice the Python refill would draw)."""
        b.rolls[starting] = fresh.rolls
        super().step(b, fresh, actions, taking, starting, *rest)

    @classmethod
    def step_arguments(cls, b, fresh, actions, taking, starting, rngs, skip_forced, masks, observations) -> tuple:
        bank, _ = cls._banks(b, rngs)
        return (b.data, actions, taking, starting, fresh.data, _read_only(b.rolls), bank.dice,
                cls.generators(b, rngs), skip_forced, masks, observations)

    @staticmethod
    def is_over(b) -> np.ndarray:
        return _ENDED[b.data[:, AT_RESULT]]  # a truncated game is over too, but not ended by the rules

    @staticmethod
    def is_truncated(b) -> np.ndarray:
        return b.data[:, AT_RESULT] == rules.TRUNCATED



class OneCardDungeonVectorEnv(TabletopVectorEnv):
    """N games of One Card Dungeon stepped together; the options are the single env's (see
    ``OneCardDungeonEnv``), and game i of ``reset(seed=s)`` is the single env's game of seed s + i.
    ``autoreset_mode`` (NEXT_STEP, SAME_STEP, DISABLED), the all-ones mask of a finished game's row and the numeric
    infos (``result`` a code into ``RESULT_NAMES``) are ``TabletopVectorEnv``'s."""

    single_env = OneCardDungeonEnv
    batch = Games
    RESULT_NAMES = rules.RESULT_NAMES  # infos["result"] holds the index of the name
