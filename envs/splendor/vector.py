"""Splendor's native vector env: N games of the single-agent view (``SplendorEnv``) stepped together.

Each game has one learner seat; the other seats are played by the built-in opponents inside ``step``, in a
compiled loop over the games (``players.play_rows_until_learner``, the same rules and greedy player the single env
plays): ``"greedy"`` inside it, ``"random"`` with each game's own generator, drawn in Python exactly as the single
env draws it (the compiled loop stops that game where a random opponent must choose). So game i of ``reset(seed=s)`` is the single
env's game of seed s + i, move for move. An opponent given as an agent object cannot be batched: use
Gymnasium's ``SyncVectorEnv`` for that (``gym.make_vec(id, num_envs=N, vectorization_mode="sync", ...)``).
"""

from __future__ import annotations

import numpy as np
from numba.typed import List

from ..core.vector import Batch, BatchRows, CompiledGames, CompiledGenerators, TabletopVectorEnv
from . import players, rules
from .rules import AT_MAX_ROUNDS, AT_PHASE, AT_ROUND
from .single import SplendorEnv


class LearnerGames(CompiledGames):
    """The compiled rules over a ``Batch`` of games (``b.data``, a row per game) as the learners play them: what
    ``TabletopVectorEnv`` calls, as for a solitaire (``CompiledGames``) but with each game's learner seat filled in
    (``single._SeatRules`` does the same for one game)."""

    rules = rules

    def __init__(self, seats: np.ndarray):
        self.seats = seats  # the env's array, updated in place at every deal

    @staticmethod
    def is_truncated(b) -> np.ndarray:
        data = b.data
        return (data[:, AT_PHASE] != rules.OVER) & (data[:, AT_ROUND] > data[:, AT_MAX_ROUNDS])

    def observe(self, b) -> np.ndarray:
        data = b.data
        seats = self.seats[b.rows] if isinstance(b, BatchRows) else self.seats
        observations = np.empty((len(data), rules.OBSERVATION_SIZE), dtype=np.float32)
        rules.fill_observations(data, seats, observations)
        return observations

    def forfeit(self, b, rows) -> None:
        rules.forfeit_rows(b.data, rows, self.seats)

    def outcome(self, b, rows) -> dict:
        """``rules.outcomes`` of each game in ``rows`` (indices), for its learner's seat."""
        data = b.data[rows]
        outcome = rules.outcomes(data, self.seats[rows])
        if not len(data):  # no game to count the players of: the batch's first
            num_players = int(b.data[0, rules.AT_NUM_PLAYERS])
            outcome["points"] = np.zeros((0, num_players), dtype=np.int64)
            outcome["winners"] = np.zeros((0, num_players), dtype=bool)
        return outcome


class SplendorVectorEnv(TabletopVectorEnv):
    """N games of Splendor's single-agent view stepped together; the options are the single env's (see
    ``SplendorEnv``: ``num_players``, ``seat``, ``opponent`` ("random", "greedy" or a list of them, one per other
    seat), ``max_rounds``, ``skip_forced``, ``reward``, ``illegal_action``), and game i of ``reset(seed=s)`` is the
    single env's game of seed s + i. ``seats`` holds each game's learner seat (drawn per game with
    ``seat="random"``).

    At the end of a game ``infos`` holds ``won``, ``score``, ``result`` (the code of a name in ``RESULT_NAMES``),
    ``points`` (N, num_players: every seat's points) and ``winners`` (N, num_players: whether each seat is among the
    winners), each with its ``_key`` mask of the games that ended; the keys are there on every reset and step
    (see ``TabletopVectorEnv``), and ``info_of(infos, i)`` gives game i's as the single env's info has them. The
    opponents' moves are not kept: a list of names per game and step would cost more than the step itself (play a
    single env beside, and ask its ``opponent_moves()``, to watch the opponents).
    """

    single_env = SplendorEnv
    RESULT_NAMES = rules.OUTCOME_RESULT_NAMES
    _row_keeps = ("seats",)

    def __init__(self, num_envs: int = 1, **options):
        opponents = options.get("opponent", "greedy")
        for opponent in opponents if isinstance(opponents, (list, tuple)) else [opponents]:
            if not isinstance(opponent, str) and callable(getattr(opponent, "act", None)):
                raise ValueError(f"the native vector env plays only the built-in opponents 'random' and 'greedy', "
                                 f"not an agent object ({opponent!r}); for that use Gymnasium's SyncVectorEnv: "
                                 "gym.make_vec(id, num_envs=N, vectorization_mode='sync', opponent=...)")
        super().__init__(num_envs, **options)
        dealer = self._dealer
        self.num_players = dealer.num_players
        self.max_rounds = dealer.max_rounds
        self.seat_option = dealer.seat_option
        # Per other seat in seat order (the learner's seat left out), whether the greedy player plays it.
        self._greedy = np.array([opponent == "greedy" for opponent in dealer.opponents])
        self.seats = np.zeros(self.num_envs, dtype=np.int64)
        # Per game, per seat: whether the greedy player plays it (the learner's own seat: never asked).
        self._greedy_seats = np.zeros((self.num_envs, rules.MAX_PLAYERS), dtype=np.bool_)
        self.batch = LearnerGames(self.seats)

    @classmethod
    def like(cls, env, num_envs: int):
        raise NotImplementedError("Splendor's view has seats and opponents of its own that a single state does not "
                                  "hold; play its sampled worlds out on single envs")

    # ------------------------------------------------------------ TabletopVectorEnv hooks

    def _deal(self, rows: np.ndarray, options: dict) -> None:
        """New games in ``rows`` as the single env's ``reset`` deals them, each with its row's generator: the
        learner's seat (if random), the shuffle, then the seats before the learner's play (forced moves too)."""
        deck = options.get("deck")
        rules.check_deck(deck, self.num_players)  # a bad deck is refused before any generator is drawn from
        indices = np.flatnonzero(rows)
        seats = [int(self._rngs[i].integers(self.num_players)) if self.seat_option == "random" else self.seat_option
                 for i in indices]
        if self.state is None:
            self.state = Batch(rules.new_game(np.random.default_rng(0), self.num_players, self.max_rounds),
                               self.num_envs)
        data, checked = self.state.data, rules.check_deck(deck, self.num_players)
        if checked:
            for i in indices:  # rules.new_game, into the game's row
                rules.deal(data[i], self._rngs[i], self.num_players, self.max_rounds, checked)
        else:  # the same deal, compiled
            rules.deal_rows(data, indices, self._compiled_rngs(), rules.new_table(self.num_players, self.max_rounds))
        self.seats[indices] = seats
        for seat in set(seats):  # per learner seat, whether the greedy player plays each other seat
            others = iter(self._greedy)
            greedy = [k != seat and next(others) for k in range(self.num_players)]
            self._greedy_seats[indices[np.asarray(seats) == seat]] = greedy + [False] * (
                rules.MAX_PLAYERS - self.num_players)
        self._until_learner_decides(rows, skip_forced=False)

    def _play_on(self, rows: np.ndarray) -> None:
        self._until_learner_decides(rows, self.skip_forced)

    def _final_rewards(self, outcome: dict) -> np.ndarray:
        if self.reward_mode == "score":
            return outcome["score"]
        return np.where(outcome["won"], 1.0, 0.0 if self.reward_mode == "win_only" else -1.0)

    # ------------------------------------------------------------ the other seats

    def _until_learner_decides(self, rows: np.ndarray, skip_forced: bool) -> None:
        """Play the other seats (and, with ``skip_forced``, the learner's forced moves) in the games ``rows``
        selects until each learner has a decision to make or its game is over or truncated: a compiled loop over
        the games, which leaves a game where a random opponent must choose; Python draws that choice from the
        game's generator (as the single env does), and the loop goes on in those games."""
        players.play_rows_until_learner(self.state.data, np.asarray(rows, dtype=bool), self.seats,
                                        self._greedy_seats, skip_forced, self._compiled_rngs())

    def _compiled_rngs(self) -> List:
        """The games' generators as a list the compiled loop takes (``CompiledGenerators``)."""
        if not hasattr(self, "_generator_list"):
            self._generator_list = CompiledGenerators()
        return self._generator_list.of(self._rngs)
