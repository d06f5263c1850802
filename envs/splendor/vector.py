"""Splendor's native vector env: N games of the single-agent view (``SplendorEnv``) stepped together.

Each game has one learner seat; the other seats are played by the built-in opponents inside ``step``, batched:
``"greedy"`` by ``batch.greedy_actions`` over the games whose opponent is to choose, ``"random"`` with each
game's own generator, drawn exactly as the single env draws it. So game i of ``reset(seed=s)`` is the single
env's game of seed s + i, move for move. An opponent given as an agent object cannot be batched: use
Gymnasium's ``SyncVectorEnv`` for that (``gym.make_vec(id, num_envs=N, vectorization_mode="sync", ...)``).
"""

from __future__ import annotations

import numpy as np

from ..core.vector import Batch, BatchRows, TabletopVectorEnv
from . import batch, rules
from .single import SplendorEnv


class _LearnerBatch:
    """The batched rules as the learners play them: what ``TabletopVectorEnv`` calls, with each game's learner
    seat filled in (``single._SeatRules`` does the same for one game)."""

    legal_masks = staticmethod(batch.legal_masks)
    apply = staticmethod(batch.apply)
    is_over = staticmethod(batch.is_over)
    is_truncated = staticmethod(batch.is_truncated)

    def __init__(self, seats: np.ndarray):
        self.seats = seats  # the env's array, updated in place at every deal

    def observe(self, b):
        return batch.observe(b, self.seats[b.rows] if isinstance(b, BatchRows) else self.seats)

    def forfeit(self, b, rows):
        batch.forfeit(b, rows, self.seats)

    def outcome(self, b, rows):
        return batch.outcome(b, rows, self.seats)


class SplendorVectorEnv(TabletopVectorEnv):
    """N games of Splendor's single-agent view stepped together; the options are the single env's (see
    ``SplendorEnv``: ``num_players``, ``seat``, ``opponent`` ("random", "greedy" or a list of them, one per other
    seat), ``max_rounds``, ``skip_forced``, ``reward``, ``illegal_action``), and game i of ``reset(seed=s)`` is the
    single env's game of seed s + i. ``seats`` holds each game's learner seat (drawn per game with
    ``seat="random"``).

    At the end of a game ``infos`` holds ``won``, ``score``, ``result`` (the code of a name in ``RESULT_NAMES``),
    ``points`` (N, num_players: every seat's points) and ``winners`` (N, num_players: whether each seat is among the
    winners), each with its ``_key`` mask of the games that ended; the keys are there on every reset and step
    (see ``TabletopVectorEnv``), and ``info_of(infos, i)`` gives game i's as the single env's info has them (the
    winners as a list of seats). ``opponent_moves`` is left out: a list of names per game and step would cost
    more than the step itself (play a single env beside to watch the opponents).
    """

    single_env = SplendorEnv
    info_keys_left_out = ("opponent_moves",)
    RESULT_NAMES = rules.RESULT_NAMES + ("truncated",)
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
        self._fresh = rules.new_game(np.random.default_rng(0), self.num_players, self.max_rounds)
        self.batch = _LearnerBatch(self.seats)

    @classmethod
    def like(cls, env, num_envs: int):
        raise NotImplementedError("Splendor's view has seats and opponents of its own that a single state does not "
                                  "hold; play its sampled worlds out on single envs")

    # ------------------------------------------------------------ TabletopVectorEnv hooks

    def _deal(self, rows: np.ndarray, options: dict) -> None:
        """New games in ``rows`` as the single env's ``reset`` deals them, each with its row's generator: the
        learner's seat (if random), the shuffle, then the seats before the learner's play (forced moves too)."""
        deck = options.get("deck")
        rules._check_deck(deck, self.num_players)  # a bad deck is refused before any generator is drawn from
        indices = np.flatnonzero(rows)
        seats = [int(self._rngs[i].integers(self.num_players)) if self.seat_option == "random" else self.seat_option
                 for i in indices]
        if deck is None:
            # Only the shuffle differs between new games: one fresh game everywhere, then each row's shuffle.
            if self.state is None:
                self.state = Batch(self._fresh, self.num_envs)
            self.state.put_same(indices, self._fresh)
            batch.deal(self.state, indices, self._rngs)
        else:
            states = [rules.new_game(self._rngs[i], self.num_players, self.max_rounds, deck=deck) for i in indices]
            if self.state is None:
                self.state = Batch(states[0], self.num_envs)
            self.state.put_many(indices, states)
        self.seats[indices] = seats
        self._until_learner_decides(rows, skip_forced=False)

    def _play_on(self, rows: np.ndarray) -> None:
        self._until_learner_decides(rows, self.skip_forced)

    def _outcome_arrays(self, outcome: dict) -> dict:
        """As the solitaires', and the lists of each game's points and winners as rows of a (games, num_players)
        array: the points, and whether each seat won."""
        arrays = super()._outcome_arrays(outcome)
        games = len(arrays["won"])
        points = np.zeros((games, self.num_players), dtype=np.int64)
        winners = np.zeros((games, self.num_players), dtype=bool)
        for k, (seat_points, seats) in enumerate(zip(outcome["points"], outcome["winners"])):
            points[k] = seat_points
            winners[k, seats] = True
        arrays["points"], arrays["winners"] = points, winners
        return arrays

    def _single_value(self, key: str, value):
        if key == "winners":
            return np.flatnonzero(value).tolist()
        return super()._single_value(key, value)

    def _final_rewards(self, outcome: dict) -> np.ndarray:
        if self.reward_mode == "score":
            return outcome["score"]
        return np.where(outcome["won"], 1.0, 0.0 if self.reward_mode == "win_only" else -1.0)

    # ------------------------------------------------------------ the other seats

    def _until_learner_decides(self, rows: np.ndarray, skip_forced: bool) -> None:
        """Play the other seats (and, with ``skip_forced``, the learner's forced moves) in the games ``rows``
        selects until each learner has a decision to make or its game is over or truncated. Each pass plays one
        move in every game still going; those are looked at alone once they are few, so late passes are small."""
        going = np.flatnonzero(rows)
        while going.size:
            if self._most(going):
                masks, current = batch.legal_masks(self.state)[going], self.state.current[going]
            else:
                table = self.state.view(going)
                masks, current = batch.legal_masks(table), table.current
            choices = masks.sum(axis=1)
            learner = current == self.seats[going]
            moving = (~learner & (choices > 0)) | (learner & skip_forced & (choices == 1))
            going, masks, current, choices = going[moving], masks[moving], current[moving], choices[moving]
            if not going.size:
                return
            actions = masks.argmax(axis=1)  # a forced move is played without asking anyone
            choosing = choices > 1  # only an opponent gets here: the learner's choices are returned to it
            if choosing.any():
                actions[choosing] = self._opponent_actions(going[choosing], masks[choosing], current[choosing])
            chosen = np.zeros(self.num_envs, dtype=np.int64)
            chosen[going] = actions
            batch.apply(self.state, chosen, going)

    def _most(self, games: np.ndarray) -> bool:
        """Whether ``games`` are most of the batch: then finding every game's legal actions costs less than
        copying those games out first (an observation costs more than the copy, so it is always of the games)."""
        return 2 * games.size > self.num_envs

    def _opponent_actions(self, games: np.ndarray, masks: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """The choice of the opponent at ``seats`` in each of ``games``, given its mask."""
        greedy = self._greedy[seats - (seats > self.seats[games])]
        actions = np.empty(len(games), dtype=np.int64)
        if greedy.any():
            observations = batch.observe(self.state.view(games[greedy]), seats[greedy])
            actions[greedy] = batch.greedy_actions(observations, masks[greedy])
        if not greedy.all():
            actions[~greedy] = batch.random_actions(masks[~greedy], games[~greedy], self._rngs)
        return actions
