"""Two agents' results on the same deals, set side by side deal by deal: which plays better, and how sure that is.

    tabletop-gym eval <game> --agent search --episodes 1000 --record search.jsonl
    tabletop-gym eval <game> --agent heuristic --episodes 1000 --record heuristic.jsonl
    tabletop-gym compare search.jsonl heuristic.jsonl

Episode i of an evaluation is dealt from seed + i, so two agents evaluated from the same seed met the same deals
(and, in a game of several players, sat in the same seats). Most deals are then won by both or by neither, and those say nothing about
which agent is the better; the deals won by one alone do. Were the two equally strong, each of those would fall to
either with even odds, so their split is read with a sign test: the two-sided probability, at even odds, of a split
at least as lopsided. Pairing is far sharper than setting two win rates' intervals side by side, which go on
overlapping long after the deals won by one alone have told the agents apart.

The score (the levels cleared, the cards left in a won solitaire's deck...) is compared the same way:
the deals one scored more on, those the other did, and the mean difference a deal with its 95% interval (a normal
approximation: a few dozen deals or more).

A side may be several records, comma-separated, such as an evaluation run in pieces (``--seed 0``, then ``--seed
1000``). Deals that one side played and the other did not are left out, and counted. A record of a run that did not
finish (``FILE.partial``, whose first line names the run: ``benchmarks/evaluation/evaluate.py``) is read as far as it
goes, and a line says it is partial.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .evaluate import RECORD_TABLE, Z_95, load_record, wilson_interval


def sign_test(first_only: int, second_only: int) -> float:
    """The exact two-sided sign test: at even odds, the probability of a split of ``first_only + second_only``
    at least as lopsided as this one."""
    n = first_only + second_only
    tail = sum(math.comb(n, k) for k in range(min(first_only, second_only) + 1))
    return min(1.0, 2 * tail / 2**n)


def deal_of(row: dict) -> tuple:
    """What pairs two records' episodes: the deal's seed, and the agent's seat (0 in a solitaire)."""
    return row["seed"], row["seat"]


def table_of(rows: list[dict], name: str) -> tuple:
    """What the episodes were played at: the game and, for a game of several players, the opponent and the number
    of players (None for what the record does not say); records that mix two are refused."""
    tables = {tuple(row.get(key) for key in RECORD_TABLE) for row in rows}
    if len(tables) > 1:
        raise ValueError(f"{name} mixes episodes of {' and '.join(_said(t) for t in sorted(tables, key=str))}")
    return tables.pop() if tables else (None,) * len(RECORD_TABLE)


def _said(table: tuple) -> str:
    return ", ".join(f"{key} {value}" for key, value in zip(RECORD_TABLE, table) if value is not None) or "no game"


def read_side(spec: str) -> list[dict]:
    """The episodes of one side: one record, or several comma-separated; a deal (seed and seat) twice is refused.
    A partial record (of a run that did not finish) is said so, on a line of its own."""
    rows, seen = [], {}
    for path in (part.strip() for part in spec.split(",")):
        if not path:
            raise ValueError(f"{spec!r}: an empty name among the comma-separated records")
        record = load_record(path)
        if record.partial:
            print(record.note())
        for row in record.rows:
            key = deal_of(row)
            if key in seen:
                raise ValueError(f"deal {row['seed']} (seat {row['seat']}) is in {seen[key]} and again in {path}: "
                                 f"a side's records must not overlap")
            seen[key] = path
            rows.append(row)
    table_of(rows, spec)
    return rows


@dataclass
class Comparison:
    first: str
    second: str
    deals: int  # the deals both played
    seeds: tuple  # the lowest and highest of them
    first_wins: int
    second_wins: int
    first_only: int  # deals won by the first and lost by the second
    second_only: int
    p_value: float  # the sign test on first_only against second_only
    first_score: float  # mean score over the paired deals
    second_score: float
    first_higher: int  # deals on which the first scored more
    second_higher: int
    score_difference: float  # first minus second, mean over the paired deals
    difference_low: float  # its 95% interval (nan with fewer than two deals)
    difference_high: float
    unpaired: tuple  # deals of the first, and of the second, that the other did not play

    def __str__(self) -> str:
        width = max(len(self.first), len(self.second))
        lines = [f"{self.deals} deals played by both (seeds {self.seeds[0]}-{self.seeds[1]})"]
        if any(self.unpaired):
            lines[0] += (f"; left out, played by one side only: {self.unpaired[0]} of {self.first}, "
                         f"{self.unpaired[1]} of {self.second}")
        for name, wins, score in ((self.first, self.first_wins, self.first_score),
                                  (self.second, self.second_wins, self.second_score)):
            low, high = wilson_interval(wins, self.deals)
            lines.append(f"  {name:<{width}}  won {wins} ({100 * wins / self.deals:.1f}%, 95% CI "
                         f"{100 * low:.1f}-{100 * high:.1f}%), mean score {score:.2f}")
        lines.append(f"won by {self.first} alone: {self.first_only}, by {self.second} alone: {self.second_only} "
                     f"(sign test, two-sided: p = {self.p_value:.3g})")
        interval = "" if math.isnan(self.difference_low) else \
            f" (95% CI {self.difference_low:+.2f} to {self.difference_high:+.2f})"
        lines.append(f"scored more by {self.first}: {self.first_higher} deals, by {self.second}: "
                     f"{self.second_higher}; mean difference {self.score_difference:+.2f} a deal{interval}")
        return "\n".join(lines)


def compare(first: list[dict], second: list[dict], names: tuple = ("first", "second")) -> Comparison:
    """The two sides' episodes (``read_side``) paired by deal and seat; sides played at different tables (another
    game, opponent or number of players, where their records say) are refused."""
    tables = table_of(first, names[0]), table_of(second, names[1])
    if any(a is not None and b is not None and a != b for a, b in zip(*tables)):
        raise ValueError(f"{names[0]} and {names[1]} did not play the same games: {_said(tables[0])} against "
                         f"{_said(tables[1])}")
    mine, theirs = ({deal_of(row): row for row in rows} for rows in (first, second))
    keys = sorted(mine.keys() & theirs.keys())
    if not keys:
        raise ValueError(f"{names[0]} and {names[1]} share no deal (seed and seat): evaluate both from the same "
                         f"--seed (and, in a game of several players, the same number of players)")
    a = [mine[key] for key in keys]
    b = [theirs[key] for key in keys]
    won_a = np.array([bool(row["won"]) for row in a])
    won_b = np.array([bool(row["won"]) for row in b])
    score_a = np.array([row["score"] for row in a], dtype=float)
    score_b = np.array([row["score"] for row in b], dtype=float)
    difference = score_a - score_b
    first_only, second_only = int((won_a & ~won_b).sum()), int((won_b & ~won_a).sum())
    half = Z_95 * difference.std(ddof=1) / math.sqrt(len(keys)) if len(keys) > 1 else math.nan
    mean = float(difference.mean())
    return Comparison(
        first=names[0], second=names[1], deals=len(keys), seeds=(keys[0][0], keys[-1][0]),
        first_wins=int(won_a.sum()), second_wins=int(won_b.sum()), first_only=first_only, second_only=second_only,
        p_value=sign_test(first_only, second_only),
        first_score=float(score_a.mean()), second_score=float(score_b.mean()),
        first_higher=int((difference > 0).sum()), second_higher=int((difference < 0).sum()),
        score_difference=mean, difference_low=mean - half, difference_high=mean + half,
        unpaired=(len(first) - len(keys), len(second) - len(keys)))


def main(first: str, second: str) -> Comparison:
    result = compare(read_side(first), read_side(second), names=(first, second))
    print(result)
    return result
