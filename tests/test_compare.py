"""tabletop-gym compare: two eval records paired deal by deal, the split of the deals won by one alone read with an
exact sign test, and bad records refused with the line that is wrong."""

import json
import math
from itertools import product

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tabletop_gym.benchmarks import cli
from tabletop_gym.benchmarks.evaluation.compare import compare, read_side, sign_test
from tabletop_gym.benchmarks.evaluation.evaluate import read_record


def write(path, rows):
    path.write_text("".join(json.dumps({"seat": 0, "length": 10, **row}) + "\n" for row in rows))
    return str(path)


def test_the_sign_test_matches_its_textbook_values():
    assert sign_test(10, 0) == sign_test(0, 10) == pytest.approx(2 / 1024)
    assert sign_test(0, 0) == sign_test(7, 7) == 1.0
    assert sign_test(6, 1) == pytest.approx(2 * 8 / 128)  # P(X <= 1) = (1 + 7) / 2^7, both tails
    assert sign_test(139, 129) == pytest.approx(0.58, abs=0.005)


@given(st.integers(0, 7), st.integers(0, 7))
def test_the_sign_test_is_every_split_at_least_as_lopsided(first, second):
    n = first + second
    lopsided = [split for split in product((0, 1), repeat=n) if abs(2 * sum(split) - n) >= abs(first - second)]
    assert sign_test(first, second) == pytest.approx(len(lopsided) / 2**n)


def test_deals_are_paired_by_seed_and_counted_by_who_won_them():
    first = [{"seed": 0, "won": True, "score": 5}, {"seed": 1, "won": True, "score": 3},
             {"seed": 2, "won": False, "score": 0}, {"seed": 3, "won": True, "score": 1},
             {"seed": 9, "won": True, "score": 9}]  # seed 9: the other side never played it
    second = [{"seed": 3, "won": False, "score": 0}, {"seed": 2, "won": True, "score": 4},
              {"seed": 1, "won": True, "score": 1}, {"seed": 0, "won": False, "score": 0}]
    rows = [[{"seat": 0, "length": 1, **row} for row in side] for side in (first, second)]
    result = compare(*rows, names=("a", "b"))
    assert (result.deals, result.seeds, result.unpaired) == (4, (0, 3), (1, 0))
    assert (result.first_wins, result.second_wins, result.first_only, result.second_only) == (3, 2, 2, 1)
    assert result.p_value == 1.0  # 2 to 1 is no evidence
    assert (result.first_score, result.second_score) == (2.25, 1.25)
    assert (result.first_higher, result.second_higher) == (3, 1)
    differences = [5, 2, -4, 1]
    spread = math.sqrt(sum((d - 1) ** 2 for d in differences) / 3)
    assert result.score_difference == 1.0
    assert result.difference_high - 1 == pytest.approx(1.959964 * spread / 2)
    text = str(result)
    assert "won by a alone: 2, by b alone: 1" in text and "left out, played by one side only: 1 of a, 0 of b" in text


def test_splendor_deals_in_other_seats_are_other_games():
    first = [{"seed": 5, "seat": 0, "won": True, "score": 15, "length": 30}]
    second = [{"seed": 5, "seat": 1, "won": False, "score": 8, "length": 30}]
    with pytest.raises(ValueError, match="share no deal"):
        compare(first, second)
    second.append({"seed": 5, "seat": 0, "won": False, "score": 8, "length": 30})
    result = compare(first, second)
    assert (result.deals, result.first_only, result.unpaired) == (1, 1, (0, 1))
    assert math.isnan(result.difference_low) and "95% CI" not in str(result).splitlines()[-1]


def test_a_side_may_be_an_evaluation_in_pieces_that_do_not_overlap(tmp_path):
    low = write(tmp_path / "low.jsonl", [{"seed": s, "won": s % 2 == 0, "score": s} for s in range(3)])
    high = write(tmp_path / "high.jsonl", [{"seed": s, "won": True, "score": s} for s in range(3, 5)])
    assert [row["seed"] for row in read_side(f"{low}, {high}")] == [0, 1, 2, 3, 4]
    again = write(tmp_path / "again.jsonl", [{"seed": 2, "won": False, "score": 0}])
    with pytest.raises(ValueError, match=r"deal 2 \(seat 0\) is in .*low.jsonl and again in .*again.jsonl"):
        read_side(f"{low},{again}")
    with pytest.raises(ValueError, match="an empty name"):
        read_side(f"{low},")


def test_records_of_other_games_or_opponents_are_not_paired(tmp_path):
    def rows(**table):
        return [{**table, "seed": s, "seat": 0, "won": True, "score": 1, "length": 5} for s in range(3)]

    royal, dead = rows(game="Tabletop/RoyalAssassin-v0"), rows(game="Tabletop/DeadCenter-v0")
    with pytest.raises(ValueError, match="a and b did not play the same games: game Tabletop/RoyalAssassin-v0 "
                                         "against game Tabletop/DeadCenter-v0"):
        compare(royal, dead, names=("a", "b"))
    greedy = rows(game="Tabletop/Splendor-v0", opponent="greedy", players=2)
    with pytest.raises(ValueError, match="opponent greedy, players 2 against .* opponent random, players 2"):
        compare(greedy, rows(game="Tabletop/Splendor-v0", opponent="random", players=2))
    assert compare(royal, rows()).deals == 3  # a record that does not say its game (an older one) is taken at its word
    with pytest.raises(ValueError, match="share no deal"):
        compare([], royal)
    mixed = write(tmp_path / "royal.jsonl", royal), write(tmp_path / "dead.jsonl", [{**r, "seed": 9} for r in dead[:1]])
    with pytest.raises(ValueError, match="mixes episodes of game Tabletop/DeadCenter-v0 and game Tabletop/Royal"):
        read_side(",".join(mixed))


def test_a_file_that_is_not_a_record_is_refused_with_its_line(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"seed": 0, "seat": 0, "won": true, "score": 1, "length": 3}\n\nnot json\n')
    with pytest.raises(ValueError, match=r"bad.jsonl: line 3: not JSON"):
        read_record(str(bad))
    bad.write_text('{"seed": 0, "won": true}\n')
    with pytest.raises(ValueError, match=r"line 1: not an eval --record line \(no seat, score, length\)"):
        read_record(str(bad))
    bad.write_text("\n")
    with pytest.raises(ValueError, match="holds no episodes"):
        read_record(str(bad))


def test_the_command_compares_two_agents_evaluated_on_the_same_deals(tmp_path, capsys):
    paths = {}
    for agent in ("heuristic", "random"):
        paths[agent] = str(tmp_path / f"{agent}.jsonl")
        assert cli.main(["eval", "royal_assassin", "--agent", agent, "--episodes", "12", "--workers", "1", "--quiet",
                         "--record", paths[agent]]) == 0
    capsys.readouterr()
    assert cli.main(["compare", paths["heuristic"], paths["random"]]) == 0
    out = capsys.readouterr().out
    heuristic, random = read_record(paths["heuristic"]), read_record(paths["random"])
    alone = sum(h["won"] and not r["won"] for h, r in zip(heuristic, random))
    assert out.startswith("12 deals played by both (seeds 0-11)")
    assert f"won {sum(h['won'] for h in heuristic)} (" in out and f"heuristic.jsonl alone: {alone}," in out
    assert cli.main(["compare", paths["heuristic"], str(tmp_path / "none.jsonl")]) == 2
    assert "none.jsonl: cannot read it as a record (No such file or directory)" in capsys.readouterr().err


def test_records_from_other_seeds_are_refused_by_the_command(tmp_path, capsys):
    a = write(tmp_path / "a.jsonl", [{"seed": 0, "won": True, "score": 1}])
    b = write(tmp_path / "b.jsonl", [{"seed": 1000, "won": True, "score": 1}])
    assert cli.main(["compare", a, b]) == 2
    assert "share no deal" in capsys.readouterr().err
