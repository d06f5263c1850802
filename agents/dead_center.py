"""A heuristic player for Dead Center that reads only the observation.

Every played card stays visible, so the draw pile's contents are public (only its order is not), and so is the
set of zombies still face down (only which slot holds which is not). The player values a table by how close each
zombie is to dying, counting the draw pile to weigh every chance, and looks one draw ahead.
"""

from __future__ import annotations

import numpy as np

from ..envs.dead_center import rules

_I = {name: i for i, (name, _) in enumerate(rules.OBSERVATION_FIELDS)}
_SUITS = ("spades", "hearts", "diamonds", "clubs")
_JOKER = 52  # either joker: the rules treat both alike

_ACCEPTS = rules.ACCEPTS                                     # _ACCEPTS[x, t]: card x may go on top card t
_ACCEPTS_F = _ACCEPTS.astype(np.float64)
_ATTACK = rules.ATTACK_PILE.astype(np.int64)                 # the pile a slot is attacked from
_SUPPORT_A = rules.SUPPORT_PILES[:, 0].astype(np.int64)      # its two support piles
_SUPPORT_B = rules.SUPPORT_PILES[:, 1].astype(np.int64)
# A pile's top card counts for four slots only: the two ends of its row and the two ends of its column.
_LINE_SLOTS = np.array([[p % 3, 6 + p % 3, 3 + p // 3, 9 + p // 3] for p in range(rules.NUM_PILES)])

# Slot codes: 0-11 a face-up zombie (its index in ZOMBIE_CARDS), then these two.
_ZOMBIES = rules.ZOMBIE_CARDS.astype(np.int64)
_ZOMBIE_INDEX = np.full(rules.NUM_CARD_IDS, -1, dtype=np.int64)
_ZOMBIE_INDEX[_ZOMBIES] = np.arange(len(_ZOMBIES))
FACE_DOWN, KILLED = 12, 13
_CODES = 14
_KILLS = rules.CAN_KILL[_ZOMBIES].astype(np.float64)         # _KILLS[z, a, b]: supports a, b kill zombie z
# Zombies the kill rule cannot tell apart (every jack; the queens of one colour) share one representative.
_KIND = np.array([next(j for j in range(len(_ZOMBIES)) if (_KILLS[j] == _KILLS[i]).all())
                  for i in range(len(_ZOMBIES))])
_RANK = rules.RANK[_ZOMBIES]
_PAIRS = rules.NUM_CARD_IDS ** 2                              # (code, a, b) -> code * _PAIRS + a * 54 + b
_KILLABLE = np.zeros((_CODES, 54, 54), dtype=bool)            # a face-up zombie these supports kill
_KILLABLE[:FACE_DOWN] = _KILLS > 0
_KILLABLE = _KILLABLE.ravel()

# Where each piece of the table sits in the observation.
_PILE_VALUE = np.array([_I[f"pile_{p}_top_value"] for p in range(rules.NUM_PILES)])
_PILE_JOKER = np.array([_I[f"pile_{p}_top_joker"] for p in range(rules.NUM_PILES)])
_PILE_SUIT = np.array([[_I[f"pile_{p}_top_{s}"] for s in _SUITS] for p in range(rules.NUM_PILES)])
_SLOT_STATE = np.array([[_I[f"slot_{n}_{k}"] for k in rules.SLOT_STATE_NAMES] for n in rules.SLOT_NAMES])
_SLOT_RANK = np.array([[_I[f"slot_{n}_{k}"] for k in ("jack", "queen", "king")] for n in rules.SLOT_NAMES])
_SLOT_SUIT = np.array([[_I[f"slot_{n}_{s}"] for s in _SUITS] for n in rules.SLOT_NAMES])
_DRAWN_VALUE, _DRAWN_JOKER = _I["drawn_value"], _I["drawn_joker"]
_DRAWN_SUIT = np.array([_I[f"drawn_{s}"] for s in _SUITS])
_UNSEEN = np.array([_I["unseen_" + rules.card_code(c)] for c in range(52)])
_UNSEEN_JOKERS = _I["unseen_jokers"]
_IS_NUMBER = np.zeros(52, dtype=bool)
_IS_NUMBER[rules.NUMBER_CARDS] = True


def read_cards(o: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """From games' observations (N, d): the nine top cards (card ids, a joker as 52), each slot's code (a face-up
    zombie's index, ``FACE_DOWN`` or ``KILLED``) and the drawn card (-1 if none: no suit and value 0 read as -1)."""
    suits = o[:, _PILE_SUIT].argmax(axis=2)
    tops = np.where(o[:, _PILE_JOKER] > 0, _JOKER, suits * 13 + o[:, _PILE_VALUE].astype(np.int64) - 1)
    state = o[:, _SLOT_STATE].argmax(axis=2)
    card = o[:, _SLOT_SUIT].argmax(axis=2) * 13 + 10 + o[:, _SLOT_RANK].argmax(axis=2)
    codes = np.where(state == rules.UP, _ZOMBIE_INDEX[card], np.where(state == rules.DOWN, FACE_DOWN, KILLED))
    drawn = np.where(o[:, _DRAWN_JOKER] > 0, _JOKER,
                     o[:, _DRAWN_SUIT].argmax(axis=1) * 13 + o[:, _DRAWN_VALUE].astype(np.int64) - 1)
    return tops, codes, drawn


class Table:
    """The public table rebuilt from the observation.

    ``tops`` the nine top cards (card ids, a joker as 52); ``codes`` each slot's code (a face-up zombie's index,
    ``FACE_DOWN`` or ``KILLED``); ``drawn`` the card to play (-1 if none); ``numbers`` the number cards in the draw
    pile and ``jokers`` its jokers (its order is unseen); ``hidden`` the indices of the zombies still face down.
    """

    __slots__ = ("tops", "codes", "drawn", "numbers", "jokers", "hidden")

    def __init__(self, o: np.ndarray):
        tops, codes, drawn = read_cards(o[None])
        self.tops, self.codes, self.drawn = tops[0], codes[0], int(drawn[0])
        unseen = o[_UNSEEN] > 0
        self.numbers = np.flatnonzero(unseen & _IS_NUMBER)
        self.jokers = int(o[_UNSEEN_JOKERS])
        self.hidden = _ZOMBIE_INDEX[np.flatnonzero(unseen & ~_IS_NUMBER)]


class Judge:
    """Values tables for one decision, given what the draw pile holds. Vectorised over rows of tables:
    ``tops`` (N, 9) and ``codes`` (N, 12).

    A slot holding a face-up zombie is worth, times the zombie's weight (1 for a jack, ``queen``, ``king``):
    - ``ready + ready_fit * fit`` when its supports already kill it (``fit``: the share of the draw pile its attack
      pile accepts, so how likely the next card kills it);
    - ``one_away * share ** share_power`` otherwise, ``share`` being the part of the draw pile that, played on one of
      its support piles, would make it ready (the power below 1 makes a rare chance count for more than its size:
      the first suited support of a king is a real step);
    - a face-down slot the same averaged over the zombies still face down, times ``face_down``; a killed one 0.
    A kill is worth ``kill`` times the zombie's weight.
    """

    def __init__(self, agent: "DeadCenterHeuristic", table: Table):
        self.agent = agent
        self.numbers, self.jokers = table.numbers, table.jokers
        self.size = len(table.numbers) + table.jokers
        share = np.zeros(rules.NUM_CARD_IDS)
        share[table.numbers] = 1.0
        share[_JOKER] = table.jokers
        if self.size:
            share /= self.size
        self.share = share
        self.fit = share @ _ACCEPTS_F                           # fit[t]: the share of the draw pile top t accepts
        # Bit j of fit_bits[t]: the j-th number card of the draw pile fits on top card t (a joker fits anywhere).
        bits = np.left_shift(np.int64(1), np.arange(len(self.numbers), dtype=np.int64))
        self.fit_bits = (_ACCEPTS[self.numbers].astype(np.int64) * bits[:, None]).sum(axis=0)
        self.all_bits = np.int64((1 << len(self.numbers)) - 1)

        # near[z, a, b]: the share of the draw pile that, played on one support pile, makes zombie z ready.
        placed = _ACCEPTS_F * share[:, None]                    # placed[c, t]: card c drawn and put on t
        near = np.minimum(placed.T @ _KILLS + _KILLS @ placed, 1.0) * (1 - _KILLS)
        near = near ** agent.share_power
        weight = np.where(_RANK == rules.KING, agent.king, np.where(_RANK == rules.QUEEN, agent.queen, 1.0))
        ready = np.zeros((_CODES, 54, 54))
        close = np.zeros((_CODES, 54, 54))
        ready[:FACE_DOWN] = _KILLS * weight[:, None, None]
        close[:FACE_DOWN] = near * weight[:, None, None]
        if len(table.hidden):
            ready[FACE_DOWN] = ready[table.hidden].mean(axis=0) * agent.face_down
            close[FACE_DOWN] = close[table.hidden].mean(axis=0) * agent.face_down
        self.base = (agent.ready * ready + agent.one_away * close).ravel()
        self.fit_weight = (agent.ready_fit * ready).ravel()
        self.kill_value = np.zeros(_CODES)
        self.kill_value[:FACE_DOWN] = agent.kill * weight

    def slot_values(self, codes, support_a, support_b, attack):
        at = codes * _PAIRS + support_a * 54 + support_b
        return self.base[at] + self.fit_weight[at] * self.fit[attack]

    def values(self, tops, codes):
        """Every slot's value (N, 12)."""
        return self.slot_values(codes, tops[:, _SUPPORT_A], tops[:, _SUPPORT_B], tops[:, _ATTACK])

    def dead_share(self, tops):
        """The share of the draw pile that no pile of each table accepts (N,): drawing one loses."""
        if not self.size:
            return np.zeros(len(tops))
        covered = np.bitwise_or.reduce(self.fit_bits[tops], axis=1)
        return np.bitwise_count(self.all_bits & ~covered) / self.size

    def after_play(self, tops, codes, values, rows, piles, cards):
        """The worth of tables ``rows`` (their slot ``values`` known) once ``cards`` go on ``piles``, taking the
        better kill the play allows."""
        agent = self.agent
        new_tops = tops[rows]
        m = np.arange(len(rows))[:, None]
        new_tops[m[:, 0], piles] = cards
        slots = _LINE_SLOTS[piles]                              # only these four slots can change
        codes = codes[rows[:, None], slots]
        support_a, support_b = new_tops[m, _SUPPORT_A[slots]], new_tops[m, _SUPPORT_B[slots]]
        new = self.slot_values(codes, support_a, support_b, new_tops[m, _ATTACK[slots]])
        total = (values[rows].sum(axis=1) + (new - values[rows[:, None], slots]).sum(axis=1)
                 - agent.dead * self.dead_share(new_tops))
        kill = _KILLABLE[codes * _PAIRS + support_a * 54 + support_b] & (_ATTACK[slots] == piles[:, None])
        return total + np.where(kill, self.kill_value[codes] - new, 0.0).max(axis=1)

    def next_draw(self, tops, codes):
        """For each table waiting for a draw: the expected worth, over the cards the draw pile may give, of the
        best play of that card (``-lost`` for a card no pile takes)."""
        values = self.values(tops, codes)
        if not self.size:
            return values.sum(axis=1)
        n = len(tops)
        fits = _ACCEPTS[self.numbers][:, tops]                   # (cards, tables, piles)
        card, row, pile = np.nonzero(fits)
        worth = self.after_play(tops, codes, values, row, pile, self.numbers[card])
        best = np.full((len(self.numbers), n), -self.agent.lost)
        if len(worth):
            # np.nonzero lists (card, table) groups contiguously: take each group's best pile.
            key = card * n + row
            starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
            best[card[starts], row[starts]] = np.maximum.reduceat(worth, starts)
        expected = self.share[self.numbers] @ best
        if self.jokers:
            rows = np.repeat(np.arange(n), rules.NUM_PILES)
            piles = np.tile(np.arange(rules.NUM_PILES), n)
            joker = self.after_play(tops, codes, values, rows, piles, np.full(len(rows), _JOKER))
            expected = expected + self.share[_JOKER] * joker.reshape(n, rules.NUM_PILES).max(axis=1)
        return expected


# ---------------------------------------------------------------- the judgement without look-ahead, many games at once

# A draw pile as a bit set over the 40 number cards (bit i: NUMBER_CARDS[i]): every share the judge needs is then a
# count of set bits, so games with different draw piles are judged in one pass, with no table built per game.
_NUMBER_BITS = np.left_shift(np.int64(1), np.arange(len(rules.NUMBER_CARDS), dtype=np.int64))


def _bits_of(cards: np.ndarray) -> np.ndarray:
    """Bit sets from a bool array whose first axis is the 40 number cards."""
    return np.tensordot(_NUMBER_BITS, cards.astype(np.int64), axes=(0, 0))


_NUMBER_ACCEPTS = _ACCEPTS[rules.NUMBER_CARDS]                              # [c, t]
_FIT_BITS = _bits_of(_NUMBER_ACCEPTS)                                        # the number cards top t accepts
_KILLS_BOOL = _KILLS > 0
# The number cards that, played on one support pile of zombie z with supports (a, b), make it ready: put on pile
# a, card c stands with b (_NEAR_ON_A[z, a, b]); put on pile b, a stands with c (_NEAR_ON_B). _JOKER_NEAR: of those
# two placements, how many a joker (it fits any pile) makes ready. All flat, indexed like _KILLABLE.
_NEAR_ON_A = _bits_of(_NUMBER_ACCEPTS[:, None, :, None]
                      & _KILLS_BOOL[:, rules.NUMBER_CARDS, :].transpose(1, 0, 2)[:, :, None, :]).ravel()
_NEAR_ON_B = _bits_of(_NUMBER_ACCEPTS[:, None, None, :]
                      & _KILLS_BOOL[:, :, rules.NUMBER_CARDS].transpose(2, 0, 1)[:, :, :, None]).ravel()
_JOKER_NEAR = (_KILLS[:, _JOKER, None, :] + _KILLS[:, :, _JOKER, None]).ravel()
_KILLS_FLAT = _KILLS.ravel()
_PHASES = np.array([_I["phase_reveal"], _I["phase_play"], _I["phase_kill"]])
_OVER = _I["phase_over"]
REVEAL_PHASE, PLAY_PHASE, KILL_PHASE = range(3)
_REVEALS = slice(rules.A_REVEAL, rules.A_PLAY)
_PLAYS = slice(rules.A_PLAY, rules.A_KILL)
_KILL_ACTIONS = slice(rules.A_KILL, rules.NUM_ACTIONS)


class Tables:
    """The public tables of many games, rebuilt from their observations (N, d): ``Table``'s fields with a leading
    axis, the draw pile as a bit set over the number cards (``bits``) plus its ``jokers``, the zombies still
    face down as a mask (``hidden``, N x 12), and the ``phase`` (``REVEAL_PHASE``, ``PLAY_PHASE``, ``KILL_PHASE``)."""

    def __init__(self, o: np.ndarray):
        self.tops, self.codes, self.drawn = read_cards(o)
        unseen = o[:, _UNSEEN] > 0
        self.bits = _bits_of(unseen[:, rules.NUMBER_CARDS].T)
        self.jokers = o[:, _UNSEEN_JOKERS].astype(np.int64)
        self.size = np.bitwise_count(self.bits).astype(np.float64) + self.jokers
        self.hidden = unseen[:, _ZOMBIES]
        self.phase = o[:, _PHASES].argmax(axis=1)


class QuickJudge:
    """What ``Judge`` makes of a table, without its look at the next draw, for many games at once (``Tables``).
    Every function takes ``rows``, the game of each entry, beside the entries themselves."""

    def __init__(self, agent: "DeadCenterHeuristic", tables: Tables):
        self.agent = agent
        self.tables = tables
        self.weight = np.where(_RANK == rules.KING, agent.king, np.where(_RANK == rules.QUEEN, agent.queen, 1.0))
        self.kill_value = np.zeros(_CODES)
        self.kill_value[:FACE_DOWN] = agent.kill * self.weight
        hidden = tables.hidden.astype(np.float64)
        self.hidden_share = hidden / np.maximum(hidden.sum(axis=1, keepdims=True), 1)

    def _shares(self, rows, counts):
        """Counts of cards in each game's draw pile as shares of it (0 for an empty pile)."""
        size = self.tables.size[rows]
        return np.divide(counts, size, out=np.zeros_like(counts), where=size > 0)

    def zombie_values(self, rows, support_a, support_b, attack, zombies):
        """(M, K): what zombies ``zombies`` (M, K indices) would each be worth in M slots (their supports and attack
        piles given, ``rows`` the games), as ``Judge`` values a face-up zombie."""
        agent, t = self.agent, self.tables
        rows, attack = rows[:, None], attack[:, None]
        at = zombies * _PAIRS + (support_a * 54 + support_b)[:, None]
        bits = t.bits[rows]
        ready = _KILLS_FLAT[at]
        fit = self._shares(rows, np.bitwise_count(bits & _FIT_BITS[attack]) + t.jokers[rows].astype(np.float64))
        near = self._shares(rows, np.bitwise_count(bits & _NEAR_ON_A[at]) + np.bitwise_count(bits & _NEAR_ON_B[at])
                            + t.jokers[rows] * _JOKER_NEAR[at])
        close = (np.minimum(near, 1.0) * (1 - ready)) ** agent.share_power
        return self.weight[zombies] * (agent.ready * ready + agent.ready_fit * ready * fit + agent.one_away * close)

    def face_down_values(self, rows, support_a, support_b, attack):
        """(M,): the average worth, over the zombies still face down in each game, of a zombie in M slots."""
        every = np.broadcast_to(np.arange(len(_ZOMBIES)), (len(rows), len(_ZOMBIES)))
        return (self.zombie_values(rows, support_a, support_b, attack, every) * self.hidden_share[rows]).sum(axis=1)

    def slot_values(self, rows, codes, support_a, support_b, attack):
        """(M,): each slot's worth. A face-down slot is worth the average over the zombies still face down,
        times ``face_down``; a killed one nothing."""
        values = np.zeros(len(codes))
        up = np.flatnonzero(codes < FACE_DOWN)
        values[up] = self.zombie_values(rows[up], support_a[up], support_b[up], attack[up], codes[up, None])[:, 0]
        down = np.flatnonzero(codes == FACE_DOWN)
        if down.size:
            values[down] = self.agent.face_down * self.face_down_values(rows[down], support_a[down],
                                                                        support_b[down], attack[down])
        return values

    def dead_share(self, rows, tops):
        """(M,): the share of each game's draw pile that no pile of its table ``tops`` (M, 9) accepts."""
        covered = np.bitwise_or.reduce(_FIT_BITS[tops], axis=1)
        return self._shares(rows, np.bitwise_count(self.tables.bits[rows] & ~covered).astype(np.float64))

    def table_values(self, rows, tops, codes):
        """Each table's slots (M, 12) and its worth as a whole (M,): the slots less ``dead`` times its dead share."""
        values = self.slot_values(np.repeat(rows, rules.NUM_SLOTS), codes.ravel(), tops[:, _SUPPORT_A].ravel(),
                                  tops[:, _SUPPORT_B].ravel(), tops[:, _ATTACK].ravel()).reshape(codes.shape)
        return values, values.sum(axis=1) - self.agent.dead * self.dead_share(rows, tops)


class DeadCenterHeuristic:
    """Count the draw pile, judge each table by how close every zombie is to dying, and look one draw ahead.

    How it judges a table (see ``Judge``): a face-up zombie whose two support cards already kill it is worth
    ``ready``, plus ``ready_fit`` times the share of the draw pile its attack pile accepts (the chance the next card
    kills it); one that a single card on a support pile would make ready is worth ``one_away`` times (the square
    root of) the share of the draw pile that could do it; a face-down slot counts the same, averaged over the
    zombies still face down, times ``face_down``; a kill is worth ``kill``. Kings count ``king`` times as much as
    the others: needing two supports of their own suit, they are the zombies left standing when the draw pile runs
    out. The share of the draw pile that would fit no pile costs ``dead`` times that share, since such a draw loses.

    - **Play**: try the drawn card on every pile that takes it (with the kill it brings), then imagine every card the
      draw pile may give next and its best play; choose the pile with the best average (a next card that fits
      nowhere counts ``-lost``). So the card goes where it kills, or builds a support of 10 or more in the right
      suit or colour, or lands on a pile nothing depends on, and the piles stay open for what is left to come.
    - **Reveal**: turn the slot whose zombie, averaged over those still face down, gives the best next turn: the one
      in front of supports that are already strong, so that it can die soon, often this very turn.
    - **Kill** (two killable at a corner): the one whose death leaves the better next turn; ties go to the higher
      rank, the harder one to set up again.

    ``kill`` is only a little above what a ready zombie is worth: a ready zombie stays ready while its supports
    stand, and any spare card that fits its attack pile kills it later, so a good support card is better spent
    building the next kill than taking this one (a kill worth much more, or less, loses many more games).

    With ``lookahead=False`` it judges each choice by the table it leaves alone, without imagining the next draw
    (a reveal by the average over the zombies it may turn up). That player is weaker (42.6% of 2,000 deals against
    60%) but judges every game of a batch in the same few array operations (``act_batch``, ``QuickJudge``): it is
    the one that finishes the search agent's playouts.
    """

    name = "heuristic"

    def __init__(self, seed=None, kill=6.5, ready=4.0, ready_fit=2.0, one_away=4.0, share_power=0.5, queen=1.0,
                 king=3.0, face_down=0.5, dead=40.0, lost=30.0, lookahead=True):
        self.lookahead = lookahead
        self.kill = kill
        self.ready = ready
        self.ready_fit = ready_fit
        self.one_away = one_away
        self.share_power = share_power
        self.queen = queen
        self.king = king
        self.face_down = face_down
        self.dead = dead
        self.lost = lost
        self.reset(seed)

    def reset(self, seed=None):
        # The strategy is deterministic (ties go to the lowest action); the generator is kept for the protocol.
        self.rng = np.random.default_rng(seed)

    def act(self, observation, action_mask) -> int:
        o = np.asarray(observation)
        legal = np.flatnonzero(action_mask)
        if legal.size == 0:
            raise ValueError("no legal action to choose from: the game is over")
        if legal.size == 1 or o[_OVER]:
            # A finished game's row in a vector env offers every action (all ignored): any will do.
            return int(legal[0])
        if not self.lookahead:
            return int(self._quick(o[None], np.asarray(action_mask, dtype=bool)[None])[0])
        table = Table(o)
        judge = Judge(self, table)
        if o[_I["phase_reveal"]]:
            return self._reveal(judge, table, legal)
        if o[_I["phase_play"]]:
            return self._play(judge, table, legal)
        return self._kill(judge, table, legal)

    def act_batch(self, observations, masks) -> np.ndarray:
        """An action for each game (rows of ``observations`` and ``masks``), as ``act`` chooses it. Without the
        look-ahead every game is judged in the same few array operations (``QuickJudge``)."""
        o = np.asarray(observations)
        masks = np.asarray(masks, dtype=bool)
        counts = masks.sum(axis=1)
        if (counts == 0).any():
            raise ValueError(f"no legal action to choose from in row {int(np.argmin(counts))}: that game is over")
        choices = masks.argmax(axis=1)
        # A finished game's row in a vector env offers every action, all ignored: its first will do.
        undecided = np.flatnonzero((counts > 1) & (o[:, _OVER] == 0))
        if not self.lookahead:
            choices[undecided] = self._quick(o[undecided], masks[undecided])
        else:
            choices[undecided] = [self.act(o[i], masks[i]) for i in undecided]
        return choices

    def _quick(self, o: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Without the look-ahead: each choice by the worth of the table it leaves (the kill it brings included),
        a reveal by the average over the zombies it may turn up."""
        tables = Tables(o)
        judge = QuickJudge(self, tables)
        values, worth = judge.table_values(np.arange(len(o)), tables.tops, tables.codes)
        choices = np.zeros(len(o), dtype=np.int64)

        reveal = np.flatnonzero(tables.phase == REVEAL_PHASE)
        if reveal.size:
            tops, n = tables.tops[reveal], rules.NUM_SLOTS
            expected = judge.face_down_values(np.repeat(reveal, n), tops[:, _SUPPORT_A].ravel(),
                                              tops[:, _SUPPORT_B].ravel(), tops[:, _ATTACK].ravel())
            after = worth[reveal, None] - values[reveal] + expected.reshape(len(reveal), n)
            choices[reveal] = rules.A_REVEAL + np.where(masks[reveal, _REVEALS], after, -np.inf).argmax(axis=1)

        kill = tables.phase == KILL_PHASE
        if kill.any():
            codes = tables.codes[kill]
            after = np.where(masks[kill, _KILL_ACTIONS],
                             judge.kill_value[codes] + worth[kill, None] - values[kill], -np.inf)
            best = after >= after.max(axis=1, keepdims=True) - 1e-9
            # Among the best, the higher rank: a king is the hardest to make ready again.
            choices[kill] = rules.A_KILL + np.where(best, _RANK[np.minimum(codes, FACE_DOWN - 1)], -1).argmax(axis=1)

        play = np.flatnonzero(tables.phase == PLAY_PHASE)
        if play.size:
            choices[play] = rules.A_PLAY + self._quick_plays(judge, tables, play, values, masks[play, _PLAYS])
        return choices

    @staticmethod
    def _quick_plays(judge: QuickJudge, tables: Tables, games, values, legal) -> np.ndarray:
        """The pile for each game's drawn card: the worth of the table after it, with the best kill it allows
        (a kill is never declined). Only the four slots on a pile's row and column change with it."""
        m, piles = len(games), np.arange(rules.NUM_PILES)
        tops = np.repeat(tables.tops[games][:, None, :], rules.NUM_PILES, axis=1)   # (m, pile played, 9)
        tops[:, piles, piles] = tables.drawn[games][:, None]
        slots = _LINE_SLOTS                                                         # (pile, 4)
        where = np.arange(m)[:, None, None], piles[None, :, None]
        support_a, support_b = tops[*where, _SUPPORT_A[slots]], tops[*where, _SUPPORT_B[slots]]
        codes = tables.codes[games][:, slots]
        rows = np.repeat(games, rules.NUM_PILES * 4)
        new = judge.slot_values(rows, codes.ravel(), support_a.ravel(), support_b.ravel(),
                                tops[*where, _ATTACK[slots]].ravel())
        new = new.reshape(m, rules.NUM_PILES, 4)
        dead = judge.dead_share(np.repeat(games, rules.NUM_PILES), tops.reshape(-1, rules.NUM_PILES))
        worth = (values[games].sum(axis=1)[:, None] - values[games][:, slots].sum(axis=2) + new.sum(axis=2)
                 - judge.agent.dead * dead.reshape(m, rules.NUM_PILES))
        kills = (_KILLABLE[codes * _PAIRS + support_a * 54 + support_b]
                 & (_ATTACK[slots] == piles[:, None]))
        bonus = np.where(kills, judge.kill_value[codes] - new, -np.inf).max(axis=2)
        worth = worth + np.where(kills.any(axis=2), bonus, 0.0)
        return np.where(legal, worth, -np.inf).argmax(axis=1)

    def _reveal(self, judge: Judge, table: Table, legal) -> int:
        slots = legal - rules.A_REVEAL
        kinds, counts = np.unique(_KIND[table.hidden], return_counts=True)
        # One row per (slot, kind of zombie it may hold).
        codes = np.repeat(table.codes[None, :], len(slots) * len(kinds), axis=0)
        codes[np.arange(len(codes)), np.repeat(slots, len(kinds))] = np.tile(kinds, len(slots))
        tops = np.repeat(table.tops[None, :], len(codes), axis=0)
        expected = judge.next_draw(tops, codes).reshape(len(slots), len(kinds)) @ (counts / counts.sum())
        return int(legal[np.argmax(expected)])

    def _play(self, judge: Judge, table: Table, legal) -> int:
        piles = legal - rules.A_PLAY
        # One row per way to play: each pile, and at a corner each kill it allows.
        tops, codes, gains, owners = [], [], [], []
        for i, pile in enumerate(piles):
            after = table.tops.copy()
            after[pile] = table.drawn
            kills = [s for s in rules.SLOTS_OF_PILE[pile] if table.codes[s] < FACE_DOWN
                     and _KILLABLE[table.codes[s] * _PAIRS + after[_SUPPORT_A[s]] * 54 + after[_SUPPORT_B[s]]]]
            for slot in kills or [None]:
                slot_codes = table.codes.copy()
                if slot is not None:
                    slot_codes[slot] = KILLED
                tops.append(after)
                codes.append(slot_codes)
                gains.append(judge.kill_value[table.codes[slot]] if slot is not None else 0.0)
                owners.append(i)
        worth = np.array(gains) + judge.next_draw(np.array(tops), np.array(codes))
        best = np.full(len(piles), -np.inf)
        np.maximum.at(best, np.array(owners), worth)
        return int(legal[np.argmax(best)])

    def _kill(self, judge: Judge, table: Table, legal) -> int:
        slots = legal - rules.A_KILL
        codes = np.repeat(table.codes[None, :], len(slots), axis=0)
        codes[np.arange(len(slots)), slots] = KILLED
        tops = np.repeat(table.tops[None, :], len(slots), axis=0)
        worth = judge.kill_value[table.codes[slots]] + judge.next_draw(tops, codes)
        # Among the best (up to rounding), the higher rank: a king is the hardest to make ready again.
        rank = rules.RANK[_ZOMBIES[table.codes[slots]]]
        return int(legal[np.argmax(np.where(worth >= worth.max() - 1e-9, rank, -1))])


# ---------------------------------------------------------------- the agents built on the heuristic

HEURISTIC = DeadCenterHeuristic
# The search agent (``SearchAgent``'s settings): about 3 s an episode on one core. The heuristic looks one draw ahead;
# without that it is much faster and only somewhat weaker, so its playouts go without (``rollout_options``) while the
# full heuristic's choice stands unless beaten. The quick heuristic chooses for many games at once, so all of a
# decision's playouts run together on the vector env (256 in about 70 ms).
SEARCH = {"simulations": 256, "rollout_options": {"lookahead": False}}
# The search agent on the learned policy (search-ppo): the policy wins far fewer deals than the heuristic (a fifth
# against three fifths), so it only names the actions worth searching, its two likeliest others, each searched on a
# third of the 256 playouts; the heuristic's choice stands among them, and the heuristic finishes the playouts.
LEARNED_SEARCH = {"candidates": 3, "learned_roles": ("proposer",)}
LEADERBOARD_SEARCH_EPISODES = 10  # the search agents' episodes of a leaderboard row, by default
AGENT_NOTES = {"search-ppo": "Dead Center's policy only names them"}
