"""Players for Royal Assassin that read only the observation: a heuristic, and a learned value played with the same
one-card look-ahead."""

from __future__ import annotations

import numpy as np

from ..envs.core.cards import card_code
from ..envs.core.compiled import compiled
from ..envs.royal_assassin import features, rules
from ..envs.royal_assassin.features import (ACTION_FIELD_COUNT, describe_table, fill_seen_game, may_attack,
                                            reserve_run)
from ..envs.royal_assassin.rules import (A_ASSASSIN, A_ATTACK, AT_ATTACK_TOTAL, AT_DECISION, AT_DEFENSE_TOTAL,
                                         AT_FACES, AT_JOKER, AT_LOCK, AT_NUM_FACES, AT_RESERVE, AT_RESERVE_SIZE,
                                         AT_RESULT, AT_TARGET, CONTINUE, MAX_FACES, NUM_ACTIONS, NUM_CARDS,
                                         SUIT_TOTAL, WON, fill_legal_mask, take_action, turn_card)
from .policy import MODELS, ValueNetwork, saved_value

_I = {name: i for i, (name, _) in enumerate(rules.OBSERVATION_FIELDS)}
_UNSEEN = np.array([_I[f"card_{card_code(c)}_deck"] for c in range(NUM_CARDS)])
_SUIT = rules.SUIT[:NUM_CARDS].astype(np.int64)
_VALUE = rules.VALUE.astype(np.int64)
_IS_FACE = rules.IS_FACE
_SIZE = rules.State.SIZE
# A win one card ahead, counted as a large finite score so that it can be averaged.
_WIN = 1000.0
# The judge's weights, in this order in the array the compiled functions take.
COLUMN, WORK, SUPPLY, DEFENDER, JOKER = range(5)


class FirstBestPlayer:
    """A player that scores the actions (``action_scores``: higher is better, -inf for the illegal ones) and takes the
    first best in index order: on a tie the plain attack goes before the joker, both before pass."""

    def reset(self, seed=None):
        pass

    def act(self, observation, action_mask) -> int:
        legal = np.flatnonzero(action_mask)
        if len(legal) == 1:
            return int(legal[0])
        return int(legal[np.argmax(self.action_scores(observation, action_mask)[legal])])


class RoyalAssassinHeuristic(FirstBestPlayer):
    """Play each attack out in the head, bring the joker only with a killing card, judge what is left.

    Everything between two draws follows from the face-up cards alone: where the card lands, which
    reserve cards defend, whether the pretender dies, which continuations the reserve then offers. So for
    each legal choice (attack a column, attack it with the joker, pass) the player plays the whole
    attack out by the rules (``rules.take_action`` on the game the observation shows, ``features.fill_seen_game``),
    trying every way of continuing or stopping, and judges the table it would leave:

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

    def act_batch(self, observations, masks) -> np.ndarray:
        """``act`` for each row: the search agent plays its playouts on the vector env with this."""
        choices = np.empty(len(masks), dtype=np.int64)
        fill_choices(np.asarray(observations, dtype=np.float32), np.asarray(masks, dtype=bool), self._weights(),
                     self.lookahead, choices)
        return choices

    def _weights(self) -> np.ndarray:
        return np.array([self.column_weight, self.work_weight, self.supply_weight, self.defender_weight,
                         self.joker_weight])

    def action_scores(self, observation, action_mask) -> np.ndarray:
        """Each action's judgement (higher is better; a win now is +inf), -inf for the illegal ones: the
        numbers ``act`` takes the best of, which a learner can be taught as well as the choice."""
        scores = np.empty(NUM_ACTIONS)
        fill_scores(np.asarray(observation, dtype=np.float32), np.asarray(action_mask, dtype=bool), self._weights(),
                    self.lookahead, scores)
        return scores


# ---------------------------------------------------------------- the player's thinking, compiled

@compiled
def fill_choices(observations, masks, weights, lookahead, choices):
    """``choices[i]``: the first best legal action of row i (``act``)."""
    scores = np.empty(NUM_ACTIONS)
    for i in range(len(masks)):
        fill_scores(observations[i], masks[i], weights, lookahead, scores)
        choices[i] = np.argmax(scores)  # the illegal actions are -inf, every legal one more


@compiled
def fill_scores(obs, mask, weights, lookahead, scores):
    """``scores`` of the actions of the game ``obs`` shows (``action_scores``): -inf for the illegal ones."""
    scores[:] = -np.inf
    seen = np.empty(_SIZE, dtype=np.int64)
    fill_seen_game(obs, seen)
    unseen = np.flatnonzero(obs[_UNSEEN] > 0)
    supply = np.zeros(4)  # the unseen points of each suit's number cards: the attackers still to come
    for c in unseen:
        if not _IS_FACE[c]:
            supply[_SUIT[c]] += _VALUE[c]
    ahead = lookahead and len(unseen) > 0
    for action in range(NUM_ACTIONS):
        if mask[action]:
            for end in endings(seen, action):
                value = expect(end, unseen, supply, weights) if ahead else judge(end, supply, weights)
                scores[action] = max(scores[action], value)


@compiled
def endings(a, action):
    """Every game ``action`` can leave ``a`` in, up to the next card: with each continuation it offers, stopping
    there, going on, and going on with the joker (where it may go)."""
    first = a.copy()
    take_action(first, action)
    found, todo = [first], [first]
    mask = np.empty(NUM_ACTIONS, dtype=np.bool_)
    while len(todo):
        b = todo.pop()
        if b[AT_DECISION] != CONTINUE:
            continue
        fill_legal_mask(b, mask)
        for go_on in (A_ATTACK + b[AT_TARGET], A_ASSASSIN + b[AT_TARGET]):
            if mask[go_on]:
                c = b.copy()
                take_action(c, go_on)
                found.append(c)
                todo.append(c)
    return found


@compiled
def expect(a, unseen, supply, weights):
    """The table judged one card ahead: the mean over the unseen cards of the best play with each (a face card
    joins its column, and the card after it is not looked at)."""
    if a[AT_RESULT] == WON:
        return np.inf
    mask = np.empty(NUM_ACTIONS, dtype=np.bool_)
    total = 0.0
    for c in unseen:
        b = a.copy()
        turn_card(b, c)
        if _IS_FACE[c]:
            total += judge(b, supply, weights)
            continue
        fill_legal_mask(b, mask)
        best = -np.inf
        for action in range(NUM_ACTIONS):
            if mask[action]:
                for end in endings(b, action):
                    best = max(best, judge(end, supply, weights))
        total += min(best, _WIN)
    return total / len(unseen)


@compiled
def judge(a, supply, weights):
    """How good game ``a``'s table is between two draws (higher is better)."""
    if a[AT_RESULT] == WON:
        return np.inf
    score = 0.0 if a[AT_JOKER] < 0 else -weights[JOKER]
    lock = a[AT_LOCK:AT_LOCK + 4]
    for column in range(4):
        n = a[AT_NUM_FACES + column]
        if n == 0:
            continue
        stack = column * MAX_FACES + n - 1
        short = _VALUE[a[AT_FACES + stack]] - a[AT_ATTACK_TOTAL + stack] + a[AT_DEFENSE_TOTAL + stack]  # >= 1
        points = 0.0  # the unseen points of the suits still free to attack this column
        for u in range(4):
            if may_attack(lock, column, u):
                points += supply[u]
        score -= weights[COLUMN] + short * (weights[WORK] + weights[SUPPLY] / (points + 1))
    size = a[AT_RESERVE_SIZE]
    if size and a[AT_NUM_FACES + _SUIT[a[AT_RESERVE + size - 1]]]:  # a run that will defend a live column
        score -= weights[DEFENDER] * reserve_run(a)
    return score


# ---------------------------------------------------------------- the value agent

class RoyalAssassinValueAgent(FirstBestPlayer):
    """The heuristic's one-card look-ahead with a learned judge: a value network in place of the hand-written one.

    For each legal choice the agent plays the attack out in every way the rules allow (``endings``), then pictures
    each unseen card turned next, equally likely, and the best play with it; each table that leaves is judged by
    the network: the chance of winning from a table between two draws, learned from games (``tabletop-gym train
    royal_assassin --algo value``, ``tabletop_gym.benchmarks.training.value``). A choice is worth the mean, over the next
    cards, of the best table that card allows; a win now beats everything, a win one card ahead is worth 1, and a
    face card turned next is judged as the table it leaves (its column grows). The network reads
    ``TABLE_FIELDS`` of a table (``fill_table_fields``).

    Without ``lookahead`` the agent judges the tables each choice leaves and looks no further: about two points
    weaker (the heuristic's level), five times faster, and for many games at once (``act_batch``) one pass of the
    network judges every game's tables, so it can finish the search agent's playouts.

    ``path``: a saved value (``.npz``, as ``benchmarks/training/value.py`` writes it); by default the one that ships,
    ``agents/models/value/royal_assassin.npz``. The agent is deterministic: ``seed`` is accepted for the common
    interface.
    """

    name = "value"

    def __init__(self, path=None, seed=None, network: ValueNetwork | None = None, lookahead: bool = True):
        self.lookahead = lookahead
        self.path = str(path or SHIPPED_VALUE)
        self.network = saved_value(self.path, network, TABLE_FIELD_COUNT, "Royal Assassin's tables")
        self.record = self.network.record

    def act_batch(self, observations, masks) -> np.ndarray:
        """``act`` for each row."""
        if self.lookahead:
            scores = np.stack([self.action_scores(o, m) for o, m in zip(observations, masks)])
        else:
            scores = self.scores_now(observations, masks)
        return np.argmax(scores, axis=1)  # the first best: the illegal actions are -inf, every legal one more

    def scores_now(self, observations, masks) -> np.ndarray:
        """Each row's ``action_scores`` without the look-ahead: the best table each action leaves (2 for a win)."""
        fields, ending_row, ending_action, ending_won = judged_endings(np.asarray(observations, dtype=np.float32),
                                                                       np.asarray(masks, dtype=bool))
        worth = self.network(fields)
        worth[ending_won] = 2.0
        scores = np.full((len(masks), NUM_ACTIONS), -np.inf)
        np.maximum.at(scores, (ending_row, ending_action), worth)
        return scores

    def chances(self, observations, masks) -> np.ndarray:
        """Each row's chance of a win as the value sees it without the look-ahead: that of the best table a legal
        action leaves (1 for a win). What the search agent judges a playout cut short by (its ``leaf_value``)."""
        return np.minimum(self.scores_now(observations, masks).max(axis=1), 1.0)

    def action_scores(self, observation, action_mask) -> np.ndarray:
        """Each action's worth (the chance of a win one card ahead, or without the look-ahead the chance from the
        best table it leaves; 2 for a win now), -inf for the illegal ones."""
        if not self.lookahead:
            return self.scores_now(np.asarray(observation)[None], np.asarray(action_mask)[None])[0]
        fields, leaf_group, leaf_won, group_ending, ending_action, ending_won = look_ahead(
            np.asarray(observation, dtype=np.float32), np.asarray(action_mask, dtype=bool))
        leaf_value = self.network(fields)
        leaf_value[leaf_won] = 1.0
        best = np.full(len(group_ending), -np.inf)  # each next card's best table
        np.maximum.at(best, leaf_group, leaf_value)
        worth = np.bincount(group_ending, best, minlength=len(ending_action)) / np.maximum(
            np.bincount(group_ending, minlength=len(ending_action)), 1)
        worth[ending_won] = 2.0
        values = np.full(NUM_ACTIONS, -np.inf)
        np.maximum.at(values, ending_action, worth)
        return values


SHIPPED_VALUE = MODELS / "value" / "royal_assassin.npz"

# What the value reads of a table between two draws: the action fields' description of the columns (``describe_table``:
# faces, shortfall, locks, the joker, the points that may still attack each), then the cards still to come and the
# reserve, which decide what the next draws can do.
TABLE_FIELDS = ([f"table_{name}" for name in features.ACTION_FIELDS]
                + ["unseen_cards", "reserve_size", "continuing"]
                + [f"unseen_{t}_{part}" for t in rules.SUITS for part in ("number_points", "faces", "number_cards")]
                + [f"reserve_{t}_points" for t in rules.SUITS]
                + [f"reserve_{depth}_{part}" for depth in ("top", "second", "third")
                   for part in ("value", *rules.SUITS)])
TABLE_FIELD_COUNT = len(TABLE_FIELDS)
_UNSEEN_AT = ACTION_FIELD_COUNT + 3
_RESERVE_POINTS_AT = _UNSEEN_AT + 12
_RESERVE_TOP_AT = _RESERVE_POINTS_AT + 4


@compiled
def unseen_by_suit(obs):
    """Per suit, of the unseen cards (the draw pile's, in any order): the number cards' points, the face cards, the
    number cards."""
    counts = np.zeros((4, 3))
    for c in np.flatnonzero(obs[_UNSEEN] > 0):
        if _IS_FACE[c]:
            counts[_SUIT[c], 1] += 1
        else:
            counts[_SUIT[c], 0] += _VALUE[c]
            counts[_SUIT[c], 2] += 1
    return counts


@compiled
def fill_table_fields(obs, a, unseen_count, unseen, turned, out):
    """``out`` (``TABLE_FIELD_COUNT``) set to the ``TABLE_FIELDS`` of game ``a``, a table the game ``obs`` shows may
    come to before its next draw, or after card ``turned`` (-1: none). ``unseen_count`` and ``unseen``
    (``unseen_by_suit(obs)``) are of ``obs``; the turned card is taken off the latter here."""
    out[:] = 0
    describe_table(obs, a, out)
    out[ACTION_FIELD_COUNT] = unseen_count / (NUM_CARDS - 3)
    out[ACTION_FIELD_COUNT + 1] = a[AT_RESERVE_SIZE] / rules.MAX_RESERVE
    out[ACTION_FIELD_COUNT + 2] = a[AT_DECISION] == CONTINUE
    for u in range(4):
        points, faces, numbers = unseen[u, 0], unseen[u, 1], unseen[u, 2]
        if turned >= 0 and _SUIT[turned] == u:
            if _IS_FACE[turned]:
                faces -= 1
            else:
                points -= _VALUE[turned]
                numbers -= 1
        out[_UNSEEN_AT + 3 * u] = points / SUIT_TOTAL
        out[_UNSEEN_AT + 3 * u + 1] = faces / MAX_FACES
        out[_UNSEEN_AT + 3 * u + 2] = numbers / 10
    size = a[AT_RESERVE_SIZE]
    for i in range(size):
        c = a[AT_RESERVE + i]
        out[_RESERVE_POINTS_AT + _SUIT[c]] += _VALUE[c] / SUIT_TOTAL
    for depth in range(min(size, 3)):
        c = a[AT_RESERVE + size - 1 - depth]
        out[_RESERVE_TOP_AT + 5 * depth] = _VALUE[c] / 11
        out[_RESERVE_TOP_AT + 5 * depth + 1 + _SUIT[c]] = 1


@compiled
def fill_after_fields(obs, action, out):
    """``out`` set to the ``TABLE_FIELDS`` of the table ``action`` leaves in the game ``obs`` shows (before any
    continuation it offers is taken): what the value learns from, one row a decision. Whether it won the game."""
    a = np.empty(_SIZE, dtype=np.int64)
    fill_seen_game(obs, a)
    take_action(a, action)
    fill_table_fields(obs, a, np.sum(obs[_UNSEEN] > 0), unseen_by_suit(obs), -1, out)
    return a[AT_RESULT] == WON


@compiled
def look_ahead(obs, mask):
    """The tables the value agent judges for the game ``obs`` shows, and how their values combine.

    Each legal action's endings (``endings``); for each ending still playing, a group per unseen card that may
    turn next, holding the tables of every play with that card (one table for a face card, which is not played);
    an ending already won, or with no card left to turn, is a group of one, itself. Returns the leaves' fields
    (leaves, ``TABLE_FIELD_COUNT``), each leaf's group and whether it is won, each group's ending, and each
    ending's action and whether it is won."""
    seen = np.empty(_SIZE, dtype=np.int64)
    fill_seen_game(obs, seen)
    unseen_cards = np.flatnonzero(obs[_UNSEEN] > 0)
    unseen = unseen_by_suit(obs)
    leaves = []  # the tables judged
    turned = []  # the card each turned (-1: none)
    leaf_group = []
    group_ending = []
    ending_action = []
    ending_won = []
    next_mask = np.empty(NUM_ACTIONS, dtype=np.bool_)
    for action in range(NUM_ACTIONS):
        if not mask[action]:
            continue
        for end in endings(seen, action):
            won = end[AT_RESULT] == WON
            if won or len(unseen_cards) == 0:
                leaves.append(end)
                turned.append(-1)
                leaf_group.append(len(group_ending))
                group_ending.append(len(ending_action))
            else:
                for c in unseen_cards:
                    b = end.copy()
                    turn_card(b, c)
                    if _IS_FACE[c]:
                        leaves.append(b)
                        turned.append(c)
                        leaf_group.append(len(group_ending))
                    else:
                        fill_legal_mask(b, next_mask)
                        for reply in range(NUM_ACTIONS):
                            if next_mask[reply]:
                                for reply_end in endings(b, reply):
                                    leaves.append(reply_end)
                                    turned.append(c)
                                    leaf_group.append(len(group_ending))
                    group_ending.append(len(ending_action))
            ending_action.append(action)
            ending_won.append(won)
    fields = np.empty((len(leaves), TABLE_FIELD_COUNT), dtype=np.float32)
    leaf_won = np.empty(len(leaves), dtype=np.bool_)
    for i in range(len(leaves)):
        leaf = leaves[i]
        fill_table_fields(obs, leaf, len(unseen_cards) - (turned[i] >= 0), unseen, turned[i], fields[i])
        leaf_won[i] = leaf[AT_RESULT] == WON
    return (fields, np.array(leaf_group), leaf_won, np.array(group_ending), np.array(ending_action),
            np.array(ending_won))


@compiled
def judged_endings(observations, masks):
    """The tables the value agent without look-ahead judges, for every row: each legal action's endings. Returns
    their fields (endings, ``TABLE_FIELD_COUNT``), and each ending's row, action and whether it is won."""
    ends = []
    ending_row = []
    ending_action = []
    seen = np.empty(_SIZE, dtype=np.int64)
    for i in range(len(masks)):
        fill_seen_game(observations[i], seen)
        for action in range(NUM_ACTIONS):
            if masks[i, action]:
                for end in endings(seen, action):
                    ends.append(end)
                    ending_row.append(i)
                    ending_action.append(action)
    fields = np.empty((len(ends), TABLE_FIELD_COUNT), dtype=np.float32)
    ending_won = np.empty(len(ends), dtype=np.bool_)
    row = -1
    unseen_count, unseen = 0, np.zeros((4, 3))
    for k in range(len(ends)):
        if ending_row[k] != row:  # the endings come row by row
            row = ending_row[k]
            unseen_count, unseen = np.sum(observations[row][_UNSEEN] > 0), unseen_by_suit(observations[row])
        fill_table_fields(observations[row], ends[k], unseen_count, unseen, -1, fields[k])
        ending_won[k] = ends[k][AT_RESULT] == WON
    return fields, np.array(ending_row), np.array(ending_action), ending_won


class RoyalAssassinTables:
    """What the value trainer (``tabletop_gym.benchmarks.training.value``) keeps of a game: a row for every decision, the
    fields of the table its move left; a random move is any legal one; the outcome is the win. Half of the
    heuristic's games take a random move at a decision with probability 0.3, half with 0.15 (about 20 minutes on two
    cores: ``tabletop-gym train royal_assassin --algo value``)."""

    env_id = "Tabletop/RoyalAssassin-v0"
    field_count = TABLE_FIELD_COUNT
    settings = {}  # the trainer's settings as they are

    def value_agent(self, network: ValueNetwork):
        return RoyalAssassinValueAgent("training", network=network)

    def first_row(self, obs):
        return None

    def random_choices(self, agent, obs, mask):
        return np.flatnonzero(mask)

    def fill_row(self, obs, action: int, row: np.ndarray) -> bool:
        fill_after_fields(np.asarray(obs, dtype=np.float32), action, row)
        return True

    def outcome(self, info: dict) -> float:
        return float(info["won"])


# ---------------------------------------------------------------- the agents built on the heuristic

HEURISTIC = RoyalAssassinHeuristic
# The search agent (``SearchAgent``'s settings): about a third of a second an episode on one core. The heuristic thinks
# one card ahead; without that it is much faster and only somewhat weaker, so its playouts go without
# (``rollout_options``) while the full heuristic's choice stands unless beaten by ``margin``. The quick heuristic
# chooses for many games at once, so all of a decision's playouts run together on the vector env.
SEARCH = {"simulations": 256, "margin": 1.5, "rollout_options": {"lookahead": False}}
LEADERBOARD_SEARCH_EPISODES = 10  # the search agents' episodes of a leaderboard row, by default
VALUE_AGENT = RoyalAssassinValueAgent
# The search on the value agent (search-value), the value agent's choice standing unless beaten: the value agent
# without look-ahead (``rollout_options``) plays each playout on for two choices, and the value then judges where it
# stopped (its chance of a win from there, ``chances``): less noisy than one game played to its end.
VALUE_SEARCH = {"max_rollout_steps": 2, "rollout_options": {"lookahead": False}}
VALUE_JUDGES = ("the tables", "decisions")  # what the value judges, and what the trainer's rows were
VALUE_ROWS = RoyalAssassinTables
AGENT_NOTES = {"value": "Royal Assassin's value of the tables, judged one card ahead",
               "search-value": "Royal Assassin's playouts are the value's without its look-ahead, two choices on, "
                               "judged by the value where they stop"}
