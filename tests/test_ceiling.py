"""The clairvoyant ceiling: the exact search (benchmarks/ceiling/solver.py), the command, the shipped verdicts, the
leaderboard's ceiling rows and the report."""

from __future__ import annotations

import json
import re

import gymnasium as gym
import numpy as np
import pytest

from tabletop_gym.benchmarks import cli
from tabletop_gym.benchmarks.ceiling import verdicts as ceiling
from tabletop_gym.benchmarks.evaluation import leaderboard, report
from tabletop_gym.benchmarks.ceiling.solver import LOST, UNKNOWN, WON, Solver, key_positions, proves, rules_of, solve_hooks
from tabletop_gym.envs import GAMES, game_id

SOLITAIRES = [game for game in GAMES if proves(game)]


@pytest.fixture(scope="module")
def solvers():
    return {}


def solver(solvers, game, objective="win"):
    if (game, objective) not in solvers:
        solvers[game, objective] = Solver(game, objective)
    return solvers[game, objective]


def replay(game: str, deal: int, line: list) -> dict:
    """Play ``line`` (action names) on the env's deal ``deal``, with the env's defaults; the final info."""
    env = gym.make(game_id(game))
    env.reset(seed=deal)
    names = env.unwrapped.action_names
    info = {}
    for step, name in enumerate(line):
        _, _, terminated, truncated, info = env.step(names.index(name))
        assert not (terminated or truncated) or step == len(line) - 1, f"deal {deal}: the game ended early"
    assert terminated, f"deal {deal}: the line ends before the game does"
    return info


@pytest.mark.parametrize("game", SOLITAIRES)
def test_every_winning_line_found_wins_on_the_env(game, solvers):
    env = gym.make(game_id(game))
    names = env.unwrapped.action_names
    verdicts = []
    for deal in range(12):
        env.reset(seed=deal)
        before = env.unwrapped.state.data.copy()
        found = solver(solvers, game).solve(env.unwrapped.state, budget=20)
        assert np.array_equal(env.unwrapped.state.data, before)  # the deal is searched on copies
        verdicts.append(found.outcome)
        if found.outcome == WON:
            assert replay(game, deal, [names[a] for a in found.line])["won"]
        else:
            assert found.line == []
    assert set(verdicts) <= {WON, LOST, UNKNOWN}
    assert WON in verdicts


def _brute_force(rules, s, nodes: list) -> tuple[bool, int]:
    """Every line of the game from ``s``, with no memo and no pruning: (some line wins, the best final score)."""
    mask = rules.legal_mask(s)
    won, best = False, 0
    for action in np.flatnonzero(mask):
        nodes[0] += 1
        if nodes[0] > 30_000:
            raise OverflowError
        child, _ = rules.play(s, int(action), None, True)
        if rules.is_over(child):
            outcome = rules.outcome(child)
            child_won, child_best = outcome["won"], outcome["score"]
        else:
            child_won, child_best = _brute_force(rules, child, nodes)
        won, best = won or child_won, max(best, child_best)
    return won, best


def test_memo_and_pruning_change_no_verdict_and_no_best_score(solvers):
    """Dungeon Solitaire's trees are small enough to walk whole: on every deal whose whole tree stays under
    30,000 nodes, the search's verdict and best score are the plain walk's."""
    rules = rules_of("dungeon_solitaire")
    env = gym.make(game_id("dungeon_solitaire"))
    compared = {True: 0, False: 0}
    for deal in range(60):
        env.reset(seed=deal)
        try:
            won, best = _brute_force(rules, env.unwrapped.state, [0])
        except OverflowError:
            continue
        verdict = solver(solvers, "dungeon_solitaire").solve(env.unwrapped.state, budget=20)
        score = solver(solvers, "dungeon_solitaire", "score").solve(env.unwrapped.state, budget=20)
        assert verdict.outcome == (WON if won else LOST), deal
        assert score.value == best, deal
        compared[won] += 1
    assert compared[True] >= 3 and compared[False] >= 3, compared  # both kinds of deal were checked


def _scrambled(rules, hooks, s, rng):
    """A copy of ``s`` with every part of ``HISTORY_PARTS`` set to other values the part may hold."""
    other = s.copy()
    for name, shape, low, high in rules.State.PARTS:
        if name in hooks.HISTORY_PARTS:
            values = rng.integers(low, high + 1, size=shape if shape else None)
            setattr(other, name, values if shape else int(values))
    return other


@pytest.mark.parametrize("game", SOLITAIRES)
def test_what_the_memo_leaves_out_decides_nothing(game):
    """The parts the memo's key leaves out: a history part set to anything gives the same game from there on (the
    same masks, the same parts in the key, the same end), and no move changes a deal part."""
    rules, hooks = rules_of(game), solve_hooks(game)
    env = gym.make(game_id(game))
    rng = np.random.default_rng(0)
    key = key_positions(rules, hooks)
    deal_at = [i for i in range(rules.State.SIZE) if i not in set(key)]
    for deal in range(15):
        env.reset(seed=deal)
        s = env.unwrapped.state
        start = s.data.copy()
        other = _scrambled(rules, hooks, s, rng)
        while not rules.is_over(s):
            mask = rules.legal_mask(s)
            assert np.array_equal(mask, rules.legal_mask(other))
            action = int(rng.choice(np.flatnonzero(mask)))
            s, _ = rules.play(s, action, None, True)
            other, _ = rules.play(other, action, None, True)
            assert np.array_equal(s.data[key], other.data[key])
            assert hooks.verdict(s.data) == hooks.verdict(other.data)
        assert rules.outcome(s)["won"] == rules.outcome(other)["won"]
        for name, shape, _, _ in rules.State.PARTS:
            if name in hooks.DEAL_PARTS:
                assert np.array_equal(getattr(s, name), start_view(rules, start, name)), name
        assert deal_at  # something is left out of every game's key


def start_view(rules, data, name):
    state = object.__new__(rules.State)
    state.data = data
    return getattr(state, name)


@pytest.mark.parametrize("game", SOLITAIRES)
def test_a_verdict_of_lost_is_never_a_game_that_random_play_wins(game):
    """``verdict`` calls some live games lost before they end: random games from there never win."""
    rules, hooks = rules_of(game), solve_hooks(game)
    env = gym.make(game_id(game))
    rng = np.random.default_rng(1)
    for deal in range(300):
        env.reset(seed=deal)
        s = env.unwrapped.state
        called = False
        while not rules.is_over(s):
            called = called or hooks.verdict(s.data) == 0
            s, _ = rules.play(s, int(rng.choice(np.flatnonzero(rules.legal_mask(s)))), None, True)
        assert not (called and rules.outcome(s)["won"]), deal
        assert hooks.verdict(s.data) == int(rules.outcome(s)["won"])


def test_a_spent_budget_is_unknown_never_a_verdict(solvers):
    env = gym.make(game_id("dungeon_solitaire"))
    env.reset(seed=0)
    found = solver(solvers, "dungeon_solitaire").solve(env.unwrapped.state, budget=1e-9, slice_nodes=1)
    assert found.outcome == UNKNOWN and found.line == []


def test_the_search_refuses_what_it_cannot_search(solvers):
    with pytest.raises(ValueError, match="card solitaires"):
        Solver("splendor")
    with pytest.raises(ValueError, match="no ceiling for splendor"):
        ceiling.ceiling("splendor")
    with pytest.raises(ValueError, match="objective"):
        Solver("royal_assassin", objective="fastest")
    with pytest.raises(ValueError, match="no score"):
        Solver("royal_assassin", objective="score")
    env = gym.make(game_id("royal_assassin"))
    env.reset(seed=0)
    with pytest.raises(ValueError, match="budget"):
        solver(solvers, "royal_assassin").solve(env.unwrapped.state, budget=0)
    with pytest.raises(TypeError, match="rules.State"):
        solver(solvers, "dead_center").solve(env.unwrapped.state)


@pytest.mark.parametrize("game", SOLITAIRES)
def test_every_shipped_winning_line_wins_on_the_env(game):
    paths = sorted(ceiling.SHIPPED.glob(f"{game}_*.json.gz"))
    assert paths, f"no verdicts ship for {game}"
    for path in paths:
        shipped = ceiling.load(path)
        deals = [v["deal"] for v in shipped.verdicts]
        assert deals == list(range(shipped.seed, shipped.seed + shipped.deals))
        for verdict in shipped.verdicts:
            assert verdict["verdict"] in (WON, LOST, UNKNOWN)
            if verdict["verdict"] == WON:
                assert replay(game, verdict["deal"], verdict["line"])["won"], verdict["deal"]
        if game == "dungeon_solitaire":
            assert all(v["best_score"] is not None for v in shipped.verdicts if v["verdict"] != UNKNOWN)


def test_the_command_solves_prints_and_writes_the_verdicts(tmp_path, capsys):
    out = tmp_path / "verdicts.json"
    assert cli.main(["ceiling", "dead_center", "--deals", "3", "--seed", "5", "--workers", "1", "--quiet",
                     "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "DeadCenter-v0: deals 5-7" in printed and "nodes a deal" in printed
    data = json.loads(out.read_text())
    assert [v["deal"] for v in data["verdicts"]] == [5, 6, 7]
    assert data["summary"]["won"] + data["summary"]["lost"] + data["summary"]["unknown"] == 3
    for v in data["verdicts"]:
        if v["verdict"] == WON:
            assert replay("dead_center", v["deal"], v["line"])["won"]


def test_dungeon_solitaire_also_gives_the_best_score(capsys):
    result = ceiling.ceiling("dungeon_solitaire", deals=4, workers=1, progress=False)
    assert all(isinstance(v["best_score"], int) for v in result.verdicts)
    # a won deal escapes with the four kings, 40 points at least
    assert all(v["best_score"] >= 40 for v in result.verdicts if v["verdict"] == WON)
    assert "best score reachable" in result.summary()


@pytest.mark.parametrize("argv, message", [
    (["ceiling", "splendor"], "no ceiling for splendor"),
    (["ceiling", "royal_assassin", "--deals", "0"], "deals must be at least 1"),
    (["ceiling", "royal_assassin", "--budget", "0"], "budget must be a positive"),
    (["ceiling", "royal_assassin", "--json", "/no/such/folder/x.json"], "no folder"),
])
def test_the_command_refuses_bad_requests_with_the_reason(argv, message, capsys):
    assert cli.main(argv) == 2
    assert message in capsys.readouterr().err


def replays_to_its_levels(verdict: dict) -> None:
    """A One Card Dungeon line, played on the env rolling its own dice from the deal's seed, clears the levels the
    search says it does."""
    assert verdict["verdict"] in (WON, UNKNOWN)  # a beam proves no loss
    env = gym.make(game_id("one_card_dungeon"))
    env.reset(seed=verdict["deal"])
    names = env.unwrapped.action_names
    for name in verdict["line"]:
        _, _, terminated, truncated, info = env.step(names.index(name))
    assert terminated or truncated
    assert info["score"] == verdict["levels"] and info["won"] == (verdict["verdict"] == WON)


def test_one_card_dungeon_gets_a_lower_bound_whose_line_the_env_replays():
    result = ceiling.ceiling("one_card_dungeon", deals=2, seed=3, budget=2.0, workers=1, progress=False)
    for verdict in result.verdicts:
        replays_to_its_levels(verdict)
    assert "lower bounds" in result.summary()


def test_every_shipped_one_card_dungeon_line_replays_to_its_levels():
    paths = sorted(ceiling.SHIPPED.glob("one_card_dungeon_*.json.gz"))
    assert paths
    for path in paths:
        for verdict in ceiling.load(path).verdicts:
            replays_to_its_levels(verdict)


def test_the_search_needs_every_die_of_one_card_dungeon_fixed():
    env = gym.make(game_id("one_card_dungeon"))
    env.reset(seed=0)
    with pytest.raises(ValueError, match="dice are not all known"):
        Solver("one_card_dungeon").solve(env.unwrapped.state)


def test_the_ceiling_counts_unknowns_both_ways():
    verdicts = [{"deal": i, "verdict": kind, "nodes": 1, "seconds": 0.0, "line": []}
                for i, kind in enumerate([WON] * 6 + [LOST] * 2 + [UNKNOWN] * 2)]
    result = ceiling.Ceiling("royal_assassin", 0, 1.0, verdicts)
    low, high = result.bounds
    from tabletop_gym.benchmarks.evaluation.evaluate import wilson_interval
    assert low == wilson_interval(6, 10)[0] and high == wilson_interval(8, 10)[1]
    assert result.part(2, 3).deals == 3 and result.covers(0, 10) and not result.covers(5, 10)


def test_the_leaderboard_sets_every_solitaire_agent_against_its_ceiling():
    results = leaderboard.run(episodes=6, games=["royal_assassin", "splendor"], agents=["random", "heuristic"],
                              workers=1, progress=False)
    rows = [r for r in results if isinstance(r, leaderboard.CeilingRow)]
    assert len(rows) == 1 and rows[0].episodes == 6 and rows[0].reason is None
    shipped = ceiling.shipped("royal_assassin", 0, 6)
    assert rows[0].won == shipped.counts[WON]
    heuristic = next(r for r in results if getattr(r, "agent", None) == "heuristic" and "Royal" in r.game)
    share, lost = leaderboard.against_ceiling(heuristic, rows[0], 0)
    winnable = shipped.winnable()
    assert lost == len(winnable - set(heuristic.won_seeds))
    assert share == pytest.approx(len(winnable & set(heuristic.won_seeds)) / len(winnable))
    table = leaderboard.markdown(results, 0)
    assert "| RoyalAssassin-v0 | ceiling | - | 6 |" in table
    assert f"| {100 * share:.1f}% | {lost} |" in table
    splendor = [line for line in table.splitlines() if line.startswith("| Splendor-v0")]
    assert splendor and all(line.endswith("| - | - |") for line in splendor)


def test_a_leaderboard_on_deals_no_verdicts_cover_says_so():
    row = leaderboard.ceiling_row("dead_center", 10**7, 5)
    assert row.reason is not None and "tabletop-gym ceiling dead_center --seed 10000000 --deals 5" in row.reason


def test_the_report_lists_winnable_deals_lost_and_sets_one_beside_its_winning_line(tmp_path, capsys):
    record = tmp_path / "random.jsonl"
    assert cli.main(["eval", "royal_assassin", "--agent", "random", "--episodes", "20", "--workers", "1",
                     "--quiet", "--record", str(record)]) == 0
    capsys.readouterr()
    rows = [json.loads(line) for line in record.read_text().splitlines()]
    shipped = ceiling.shipped("royal_assassin", 0, 20)
    lost = sorted(shipped.winnable() - {r["seed"] for r in rows if r["won"]})
    text = report.report("royal_assassin", str(record), agent="random")
    assert f"winnable deals it lost ({len(lost)}): {', '.join(map(str, lost))}" in text
    assert f"deal {lost[0]}: random (lost) beside a winning line" in text
    assert "(they part here)" in text
    with pytest.raises(ValueError, match="not a winnable deal"):
        report.report("royal_assassin", str(record), agent="random", deal=10**7)
    with pytest.raises(ValueError, match="holds verdicts on dead_center"):
        other = tmp_path / "dc.json"
        ceiling.ceiling("dead_center", deals=1, workers=1, progress=False).save(other)
        report.report("royal_assassin", str(record), verdicts=str(other))


def _lost_record(path, game_id: str, agent: str = "random", deals: int = 20) -> None:
    """An eval --record file of ``agent`` losing deals 0 to ``deals - 1`` of ``game_id``."""
    rows = [{"game": game_id, "agent": agent, "seed": seed, "seat": 0, "won": False, "score": 0.0, "length": 1}
            for seed in range(deals)]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))


def test_the_report_refuses_a_record_of_another_game(tmp_path, capsys):
    record = tmp_path / "dead_center.jsonl"
    _lost_record(record, GAMES["dead_center"].id)
    refusal = f"{record} holds episodes of {GAMES['dead_center'].id}, not {GAMES['royal_assassin'].id}"
    with pytest.raises(ValueError, match=re.escape(refusal)):
        report.report("royal_assassin", str(record))
    with pytest.raises(ValueError, match=re.escape(refusal)):
        report.report("royal_assassin", str(record), agent="random")
    assert cli.main(["report", "royal_assassin", str(record)]) == 2
    assert refusal in capsys.readouterr().err


def test_the_report_replays_the_agent_its_record_names_unless_told_another(tmp_path):
    record = tmp_path / "random.jsonl"
    _lost_record(record, GAMES["royal_assassin"].id)
    first_lost = min(ceiling.shipped("royal_assassin", 0, 20).winnable())
    assert re.search(rf"deal {first_lost}: random \((won|lost)\) beside a winning line",
                     report.report("royal_assassin", str(record)))
    assert re.search(rf"deal {first_lost}: heuristic \((won|lost)\) beside a winning line",
                     report.report("royal_assassin", str(record), agent="heuristic"))
