"""Exact search over a solitaire deal with the whole deck known: can it be won at all, and by which moves.

    from tabletop_gym.benchmarks.ceiling.solver import Solver
    env = gym.make(env_id); env.reset(seed=7)
    verdict = Solver(game).solve(env.unwrapped.state, budget=10.0)
    verdict.outcome, verdict.line            # "won" and the actions that win, or "lost", or "unknown"

The search plays the game's own compiled turn (the env's step with ``skip_forced=True``), so a line it finds is a
line the env plays. It is a depth-first search over the player's decisions, forced moves played inline, that stops
at the first win:

- **memo**: a state whose every continuation was searched is remembered with its value, keyed on the parts of the
  state that decide the rest of the game (the game names the others: ``HISTORY_PARTS``, and ``DEAL_PARTS``, the
  same in every position of one deal, so the memo is emptied between deals), so a position reached again by
  other moves is not searched again. The key is a pair of 64-bit hashes: two different positions would
  have to agree on both to be taken for each other (odds near 2^-100 a pair), and every win found is replayed on
  the env besides;
- **sound pruning**: the game's ``verdict`` calls a game lost as soon as it can no longer be won (a card needed
  for the win gone for good, more enemies standing than draws left), which cuts nothing winnable;
- **beam first**: where the game gives ``BEAM_WIDTHS``, beam searches of growing width (the most promising
  positions of each depth, each position once) look for a quick win before the exhaustive search; they prove no
  loss, but find most wins in thousands of nodes where a depth-first search may wander in millions;
- **budget**: the search runs in slices of nodes and stops when its seconds are spent, with ``unknown``.

``Solver(game, objective="score")`` searches the whole tree for the best score instead: the same search with the
game's ``final_score`` as the value, cut where its ``score_bound`` (the points still to come) cannot beat the best
found, and no target to stop at.

A game too long for the exhaustive search is searched by beams only (``BEAMS_ONLY``), for instance a dice game on
a state whose every future die is fixed: the verdict is ``won`` or ``unknown``, with the best game the beams found
(its line and its ``final_score``, a lower bound on what the deal allows).

What the search knows of a game it finds in the game's folder, in ``solve.py`` beside ``rules.py`` (a game has a
ceiling exactly when it has one). Its hooks, the same names in every game:

- ``HISTORY_PARTS`` and ``DEAL_PARTS``: names of the rules' ``State`` parts the memo's key leaves out (parts that
  record the past and decide nothing that follows; parts no move changes);
- ``ACTION_ORDER``: action names the search tries first, in that order (the rest follow in the rules' order); any
  order gives the same verdict, a good one gives it sooner;
- ``promise(a)``: compiled, how promising the state ``a`` is (higher first), to try a state's children best first
  and to rank the beams; any judgement gives the same verdicts;
- ``step(a, action, mask, dice)``: compiled, the env's step with ``skip_forced=True`` on ``a``: the action, every
  forced move after it, ``mask`` set to the legal actions reached; ``dice`` are the dice it rolls, if any;
- ``BEAM_WIDTHS``: the widths of the beam searches run first (empty for none);
- ``BEAMS_ONLY``: True where no exhaustive search follows the beams;
- ``verdict(a)``: compiled, 1 won, 0 lost (or no longer winnable), -1 open; for a game searched exhaustively.

Some games add:

- ``final_score(a)`` and ``score_bound(a)``: compiled, the score of a finished game (-1 while open) and the most
  the game from ``a`` can still score: the best score is then searched too (``objective="score"``). A game
  searched by beams only gives ``final_score`` (the value of its beams' lines), the ``WINNING_SCORE`` that wins,
  and how the verdicts and the summary speak of it: ``SCORE_NAME`` (the verdict's key), ``SCORE_MEANS`` and
  ``DEAL_KNOWN`` (what the search saw of the deal);
- ``fix_dice(state, rng)`` and ``dice(state)``, a game with dice: the deal to search, every die fixed from
  ``rng``; and those dice, as ``step`` takes them (a ValueError when some are not fixed).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numba
import numpy as np

from ...envs import game_module
from ...envs.core.compiled import compiled


def rules_of(game: str):
    """The game's rules module (``tabletop_gym.envs.<game>.rules``)."""
    return game_module(game, "rules")


def solve_hooks(game: str):
    """The game's ``solve`` module (``tabletop_gym.envs.<game>.solve``, the hooks above), or None where it has none:
    then the game has no ceiling."""
    return game_module(game, "solve", required=False)


def proves(game: str) -> bool:
    """Whether the search can prove a deal of ``game`` lost as well as won: it has hooks, and not beams only."""
    hooks = solve_hooks(game)
    return hooks is not None and not hooks.BEAMS_ONLY


WON, LOST, UNKNOWN, SOLVED = "won", "lost", "unknown", "solved"
BEAM_MAX_DEPTH = 4096     # decisions in a game searched by beams only: a few hundred turns, with room
MAX_DEPTH = 256           # decisions in one game searched exhaustively, with room: the longest are under 70
TABLE_BITS = 22           # 4M remembered positions (about 100 MB), filled to three quarters at most
SLICE_NODES = 200_000     # nodes between two looks at the clock
NODES_PER_SECOND = 1_000_000  # about the slowest game's rate here: how a beam search keeps to the budget


@compiled
def _no_bound(a):
    return 1 << 62


_STATUS_RUNNING, _STATUS_FOUND, _STATUS_EXHAUSTED = 0, 1, 2
# control: the search's registers between slices
_DEPTH, _NODES, _STATUS, _LINE, _ENTRIES, _GENERATION, _STARTED, _ALPHA = range(8)


@dataclass
class Verdict:
    """What the search found for one deal: ``outcome`` won, lost or unknown (``solved`` for the best score);
    ``line`` the actions (indices) from the deal to the win (empty otherwise; for a game searched by beams only,
    the best game found); ``value`` the best value proven (1 for a win; the best score with ``objective="score"``;
    the line's ``final_score`` for a game searched by beams only); ``nodes`` the states searched, ``seconds`` the
    time taken."""

    outcome: str
    value: int
    nodes: int
    seconds: float
    line: list = field(default_factory=list)


def key_positions(rules, hooks) -> np.ndarray:
    """The places in a state's ``data`` that tell positions of one deal apart: every part of the ``rules``' state
    but the game's ``HISTORY_PARTS`` (they decide nothing that follows) and ``DEAL_PARTS`` (no move changes them),
    as its ``hooks`` name them."""
    offsets = {}
    at = 0
    for name, shape, _, _ in rules.State.PARTS:
        size = int(np.prod(shape)) if shape else 1
        offsets[name] = range(at, at + size)
        at += size
    left_out = set(hooks.HISTORY_PARTS) | set(hooks.DEAL_PARTS)
    unknown = left_out - set(offsets)
    if unknown:
        raise ValueError(f"HISTORY_PARTS or DEAL_PARTS name parts the state does not have: {sorted(unknown)}")
    return np.array([i for name, places in offsets.items() if name not in left_out for i in places], dtype=np.int64)


_HASH_SEEDS = (np.uint64(0x9E3779B97F4A7C15), np.uint64(0xC2B2AE3D27D4EB4F))


def _build_search(rules, step, value, bound, promise, order: np.ndarray, key_at: np.ndarray):
    """The compiled search over the game's turn ``step`` on ``rules``' state, with ``value`` (1/0/-1 or a score, -1
    while open) at each node, trying the open children of a state by ``promise`` (higher first) and cutting those
    whose ``bound`` (the most they can still be worth) is no better than the best value found so far.

    It is built per game as a closure over that game's compiled functions; numba caches no such closure on disk,
    so it compiles in each process at its first use (a second or two)."""
    fill_legal_mask = rules.fill_legal_mask
    masks_width = rules.NUM_ACTIONS
    seed_a, seed_b = _HASH_SEEDS
    prime = np.uint64(0x100000001B3)
    shift = np.uint64(29)
    one = np.uint64(1)

    @numba.njit
    def hashes(a):
        h1, h2 = seed_a, seed_b
        for i in key_at:
            v = np.uint64(a[i] + 2)  # values are -1 or more
            h1 = (h1 ^ v) * prime
            h1 ^= h1 >> shift
            h2 = (h2 + v) * seed_a
            h2 ^= h2 >> shift
        return h1 | one, h2  # h1 is never 0: 0 marks a free slot

    @numba.njit
    def find(table_keys, table_gen, generation, h1, h2):
        """The slot holding (h1, h2), or the free slot where it would go."""
        size = table_keys.shape[0]
        slot = np.int64(h1 & np.uint64(size - 1))
        while table_gen[slot] == generation and not (table_keys[slot, 0] == h1 and table_keys[slot, 1] == h2):
            slot = (slot + 1) & (size - 1)
        return slot

    @numba.njit
    def expand(depth, states, children, child_values, count, best, exact, chosen, control, masks, target,
               extra):
        """Every legal action of the state at ``depth``, played out to the next decision: the open ones kept in
        ``children[depth]`` and listed in ``child_values[depth]`` (action, promise, index in ``children``) most
        promising first; decided ones counted into ``best``. True on a win (reaching ``target``)."""
        parent = states[depth]
        n = 0
        for action in order:
            if not masks[depth, action]:
                continue
            child = children[depth, n]
            child[:] = parent
            step(child, action, masks[depth + 1], extra)
            control[_NODES] += 1
            v = value(child)
            if v >= target:
                chosen[depth] = action
                control[_STATUS] = _STATUS_FOUND
                control[_LINE] = depth + 1
                return True
            if v >= 0:
                if v > best[depth]:
                    best[depth] = v
                if v > control[_ALPHA]:
                    control[_ALPHA] = v
                continue
            if bound(child) <= control[_ALPHA]:
                exact[depth] = False  # cut: this state's value is now known only to be at most what was found
                continue
            child_values[depth, n, 0] = action
            child_values[depth, n, 1] = promise(child)
            child_values[depth, n, 2] = n
            # insertion by promise, ties in ``order``'s order: the new child's row slides up to its place
            k = n
            while k > 0 and child_values[depth, k - 1, 1] < child_values[depth, k, 1]:
                for j in range(3):
                    child_values[depth, k - 1, j], child_values[depth, k, j] = (child_values[depth, k, j],
                                                                               child_values[depth, k - 1, j])
                k -= 1
            n += 1
        count[depth] = n
        return False

    @numba.njit
    def search(states, children, child_values, masks, count, tried, best, exact, chosen, keys, control,
               table_keys, table_gen, table_values, max_nodes, target, extra):
        depth = control[_DEPTH]
        generation = control[_GENERATION]
        stop = control[_NODES] + max_nodes
        capacity = table_keys.shape[0] * 3 // 4
        if not control[_STARTED]:
            control[_STARTED] = 1
            if expand(depth, states, children, child_values, count, best, exact, chosen, control, masks, target,
                      extra):
                return
        while control[_NODES] < stop:
            if tried[depth] == count[depth]:
                # every action of this state searched: its value is known
                v = best[depth]
                if exact[depth] and control[_ENTRIES] < capacity:
                    slot = find(table_keys, table_gen, generation, keys[depth, 0], keys[depth, 1])
                    table_gen[slot] = generation
                    table_keys[slot, 0] = keys[depth, 0]
                    table_keys[slot, 1] = keys[depth, 1]
                    table_values[slot] = v
                    control[_ENTRIES] += 1
                if depth == 0:
                    control[_STATUS] = _STATUS_EXHAUSTED
                    return
                depth -= 1
                if v > best[depth]:
                    best[depth] = v
                exact[depth] = exact[depth] and exact[depth + 1]
                continue
            k = tried[depth]
            tried[depth] += 1
            chosen[depth] = child_values[depth, k, 0]
            child = children[depth, child_values[depth, k, 2]]
            h1, h2 = hashes(child)
            slot = find(table_keys, table_gen, generation, h1, h2)
            if table_gen[slot] == generation:  # searched before, by other moves
                if table_values[slot] > best[depth]:
                    best[depth] = table_values[slot]
                continue
            depth += 1
            states[depth] = child
            fill_legal_mask(states[depth], masks[depth])
            tried[depth] = 0
            best[depth] = 0
            exact[depth] = True
            keys[depth, 0] = h1
            keys[depth, 1] = h2
            if expand(depth, states, children, child_values, count, best, exact, chosen, control, masks, target,
                      extra):
                control[_DEPTH] = depth
                return
        control[_DEPTH] = depth

    @numba.njit
    def beam(root, width, max_depth, target, lines, lines_of, control, max_nodes, extra):
        """A beam search from ``root``: each round every state kept plays each legal action, and the ``width``
        most promising open states go on. It proves no loss but finds a win fast where a good order of moves wins.
        The best game it finished (by ``value``) is recorded as it goes: its value in ``control[_ALPHA]``, its line
        in ``lines`` (length ``control[_LINE]``). True once a game reaches ``target``; it stops too once
        ``control`` counts ``max_nodes`` nodes."""
        size = root.shape[0]
        mask = np.zeros(masks_width, dtype=np.bool_)
        scratch = np.zeros(masks_width, dtype=np.bool_)
        level = np.zeros((1, size), dtype=np.int64)
        level[0] = root
        for depth in range(max_depth):
            kept = level.shape[0]
            room = 0
            for i in range(kept):
                fill_legal_mask(level[i], mask)
                room += mask.sum()
            nxt = np.zeros((room, size), dtype=np.int64)
            promises = np.zeros(room, dtype=np.int64)
            born = np.zeros((room, 2), dtype=np.int64)  # parent's index, action
            n = 0
            for i in range(kept):
                fill_legal_mask(level[i], mask)
                for action in order:
                    if not mask[action]:
                        continue
                    child = nxt[n]
                    child[:] = level[i]
                    step(child, action, scratch, extra)
                    control[_NODES] += 1
                    v = value(child)
                    if v > control[_ALPHA] or (v >= 0 and control[_LINE] == 0):
                        control[_ALPHA] = v
                        control[_LINE] = depth + 1
                        at = i  # walk back through the parents to the root
                        for d in range(depth - 1, -1, -1):
                            lines[d] = lines_of[d, at, 1]
                            at = lines_of[d, at, 0]
                        lines[depth] = action
                        if v >= target:
                            return True
                    if v < 0:
                        promises[n] = promise(child)
                        born[n, 0] = i
                        born[n, 1] = action
                        n += 1
            if n == 0 or control[_NODES] >= max_nodes:
                return False
            # the most promising first, each position once (other move orders reach the same ones)
            ranked = np.argsort(-promises[:n], kind="mergesort")
            best = np.zeros(min(width, n), dtype=np.int64)
            seen = dict()
            kept = 0
            for i in ranked:
                h1, h2 = hashes(nxt[i])
                if h1 in seen:
                    continue
                seen[h1] = h2
                best[kept] = i
                kept += 1
                if kept == width:
                    break
            best = best[:kept]
            level = nxt[best].copy()
            lines_of[depth, :kept] = born[best]
        return False

    return search, hashes, beam


class Solver:
    """The exact search for one game, with its buffers; ``solve`` takes one deal at a time (a state as the env
    holds it, never changed). ``objective``: ``"win"`` (stop at the first win) or ``"score"`` (the best final
    score, searching every line)."""

    def __init__(self, game: str, objective: str = "win", table_bits: int = TABLE_BITS):
        hooks = solve_hooks(game)
        if hooks is None:
            raise ValueError(f"the exact search knows the card solitaires and the other games whose folder holds "
                             f"its hooks (solve.py), not {game!r}")
        if objective not in ("win", "score"):
            raise ValueError(f"objective must be 'win' or 'score', got {objective!r}")
        self.game, self.objective = game, objective
        self.rules = rules = rules_of(game)
        self.hooks = hooks
        if objective == "score" and not hasattr(hooks, "score_bound"):
            raise ValueError(f"{game} has no score to search for here: objective='win'")
        names = list(rules.ACTION_NAMES)
        first = [names.index(name) for name in hooks.ACTION_ORDER]
        self.order = np.array(first + [a for a in range(len(names)) if a not in first], dtype=np.int64)
        self.proves = not hooks.BEAMS_ONLY  # the exhaustive search runs after the beams
        self.value = hooks.verdict if objective == "win" and self.proves else hooks.final_score
        self.target = np.iinfo(np.int64).max if objective == "score" else (1 if self.proves else hooks.WINNING_SCORE)
        self.max_depth = MAX_DEPTH if self.proves else BEAM_MAX_DEPTH
        self.extra = np.zeros(1, dtype=np.int64)  # the dice, for a game with dice
        self.bound = hooks.score_bound if objective == "score" else _no_bound
        self._search, self.hashes, self._beam = _build_search(rules, hooks.step, self.value, self.bound, hooks.promise,
                                                              self.order, key_positions(rules, hooks))
        size = rules.State.SIZE
        self.states = np.zeros((MAX_DEPTH, size), dtype=np.int64)
        self.children = np.zeros((MAX_DEPTH, rules.NUM_ACTIONS, size), dtype=np.int64)
        self.child_values = np.zeros((MAX_DEPTH, rules.NUM_ACTIONS, 3), dtype=np.int64)
        self.count = np.zeros(MAX_DEPTH, dtype=np.int64)
        self.masks = np.zeros((MAX_DEPTH, rules.NUM_ACTIONS), dtype=np.bool_)
        self.tried = np.zeros(MAX_DEPTH, dtype=np.int64)
        self.best = np.zeros(MAX_DEPTH, dtype=np.int64)
        self.exact = np.ones(MAX_DEPTH, dtype=np.bool_)
        self.chosen = np.zeros(MAX_DEPTH, dtype=np.int64)
        self.keys = np.zeros((MAX_DEPTH, 2), dtype=np.uint64)
        self.control = np.zeros(8, dtype=np.int64)
        table_bits = table_bits if self.proves else 1  # the beams keep no memo
        self.table_keys = np.zeros((1 << table_bits, 2), dtype=np.uint64)
        self.table_gen = np.zeros(1 << table_bits, dtype=np.int32)
        self.table_values = np.zeros(1 << table_bits, dtype=np.int32)

    def solve(self, state, budget: float = 10.0, slice_nodes: int = SLICE_NODES) -> Verdict:
        """The verdict on the deal ``state`` (the rules' ``State``, as ``env.unwrapped.state`` holds it after
        ``reset``), within ``budget`` seconds."""
        if not isinstance(state, self.rules.State):
            raise TypeError(f"solve takes a {self.game} rules.State (env.unwrapped.state), got {type(state).__name__}")
        if budget <= 0:
            raise ValueError(f"budget must be a positive number of seconds, got {budget}")
        if hasattr(self.hooks, "dice"):
            self.extra = self.hooks.dice(state)
        started = time.perf_counter()
        value = self.value(state.data)
        if value >= 0:  # the game is already decided
            return self._verdict(value, 0, started, [])
        control = self.control
        generation = control[_GENERATION] + 1  # a new generation forgets every earlier deal's positions
        control[:] = 0
        control[_GENERATION] = generation
        self.states[0] = state.data
        self.rules.fill_legal_mask(self.states[0], self.masks[0])
        self.tried[0] = self.best[0] = 0
        self.exact[0] = True
        self.keys[0] = self.hashes(self.states[0])
        best = Verdict(UNKNOWN, 0, 0, 0.0)  # with no exhaustive search after the beams: the best game they found
        for width in self.hooks.BEAM_WIDTHS if self.objective != "score" else ():
            line = np.zeros(self.max_depth, dtype=np.int64)
            left = budget - (time.perf_counter() - started)
            control[_ALPHA] = control[_LINE] = 0
            won = self._beam(self.states[0], width, self.max_depth, self.target, line,
                             np.zeros((self.max_depth, width, 2), dtype=np.int64), control,
                             control[_NODES] + int(left * NODES_PER_SECOND), self.extra)
            if won:
                found = [int(a) for a in line[:control[_LINE]]]
                return self._verdict(self.target, int(control[_NODES]), started, found)
            if control[_ALPHA] > best.value or not best.line:
                best = Verdict(UNKNOWN, int(control[_ALPHA]), 0, 0.0, [int(a) for a in line[:control[_LINE]]])
            if time.perf_counter() - started >= budget:
                break
        control[_ALPHA] = control[_LINE] = 0
        if not self.proves:
            best.nodes, best.seconds = int(control[_NODES]), time.perf_counter() - started
            return best
        while True:
            self._search(self.states, self.children, self.child_values, self.masks, self.count, self.tried,
                         self.best, self.exact, self.chosen, self.keys, control, self.table_keys, self.table_gen,
                         self.table_values, slice_nodes, self.target, self.extra)
            status, nodes = control[_STATUS], int(control[_NODES])
            if status == _STATUS_FOUND:
                return self._verdict(self.target, nodes, started, [int(a) for a in self.chosen[:control[_LINE]]])
            if status == _STATUS_EXHAUSTED:
                return self._verdict(int(self.best[0]), nodes, started, [])
            if time.perf_counter() - started >= budget:
                return Verdict(UNKNOWN, int(max(control[_ALPHA], self.best[:control[_DEPTH] + 1].max())), nodes,
                               time.perf_counter() - started)

    def _verdict(self, value: int, nodes: int, started: float, line: list) -> Verdict:
        if self.objective == "score":
            outcome = SOLVED  # the best score is ``value``
        else:
            outcome = WON if value >= 1 else LOST
        return Verdict(outcome, int(value), nodes, time.perf_counter() - started, line)
