"""Records (eval --record) and verdicts (ceiling --json) are written as the work finishes, so that a run interrupted
or faulted keeps what it played and resumes where it stopped (--resume) to the file an undisturbed run writes; compare
and report read a partial record and say so; and a file that is not a record or verdicts is one BadFileError."""

from __future__ import annotations

import gzip
import json

import pytest

from tabletop_gym.benchmarks import cli
from tabletop_gym.benchmarks.ceiling import verdicts as ceiling
from tabletop_gym.benchmarks.evaluation import evaluate as evaluation
from tabletop_gym.benchmarks.evaluation.evaluate import evaluate, load_record, read_record
from tabletop_gym.benchmarks.evaluation.report import report
from tabletop_gym.envs import GAMES, BadFileError

GAME = "dungeon_solitaire"  # the quickest to play, and its verdicts ship for deals 0-9999
EPISODES = 12  # one a chunk on one worker


def run(path, agent="random", episodes=EPISODES, **options):
    return evaluate(GAME, agent, episodes=episodes, workers=options.pop("workers", 1), progress=False,
                    record=str(path), **options)


def stop_after(episodes: int, error=KeyboardInterrupt):
    """An ``on_episodes`` that raises ``error`` once ``episodes`` have finished."""
    finished = []

    def on_episodes(count):
        finished.append(count)
        if sum(finished) >= episodes:
            raise error("stopped here")

    return on_episodes


@pytest.fixture(scope="module")
def whole(tmp_path_factory):
    """An undisturbed run's result and record."""
    path = tmp_path_factory.mktemp("whole") / "whole.jsonl"
    return run(path), path.read_text()


def not_played(monkeypatch):
    monkeypatch.setattr(evaluation, "_play_chunk", lambda *args: pytest.fail("an episode was played"))


def test_the_record_is_written_as_episodes_finish_then_renamed(tmp_path, whole):
    path, partial = tmp_path / "r.jsonl", tmp_path / "r.jsonl.partial"
    path.write_text("an older run's record\n")
    seen = []
    run(path, on_episodes=lambda count: seen.append((len(read_record(partial)), path.exists())))
    # each episode on file as it finished, and no older record left looking like this run's
    assert seen == [(played, False) for played in range(1, EPISODES + 1)]
    assert path.read_text() == whole[1] and not partial.exists()


def test_a_long_run_is_kept_a_bounded_chunk_at_a_time(monkeypatch):
    monkeypatch.setattr(evaluation, "LARGEST_CHUNK", 2)
    finished = []
    evaluate(GAME, "random", episodes=40, workers=1, progress=False, on_episodes=finished.append)
    assert finished == [2] * 20  # forty episodes on one worker: five a chunk, but for the cap


@pytest.mark.parametrize("error, workers", [(KeyboardInterrupt, 2), (RuntimeError, 1)])
def test_an_interrupted_or_faulted_run_keeps_its_episodes_and_resumes_to_the_same_record(error, workers, tmp_path,
                                                                                       whole, capsys):
    path, partial = tmp_path / "r.jsonl", tmp_path / "r.jsonl.partial"
    with pytest.raises(error, match="stopped here"):
        run(path, workers=workers, on_episodes=stop_after(5, error))
    assert not path.exists()
    kept = load_record(partial)
    assert kept.partial and len(kept.rows) >= 5
    assert f"{len(kept.rows)} episodes kept in {partial}: resuming (--resume)" in capsys.readouterr().err
    assert set(map(json.dumps, kept.rows)) <= set(whole[1].splitlines())  # what was played, as it was played
    resumed = []
    result = run(path, resume=True, on_episodes=resumed.append)
    assert sum(resumed) == EPISODES - len(kept.rows)  # only the missing seeds played
    assert path.read_text().splitlines() == whole[1].splitlines()
    assert result == whole[0] and not partial.exists()


def test_a_longer_run_resumes_from_a_finished_record_and_a_run_with_nothing_to_resume_plays_all(tmp_path, whole):
    path = tmp_path / "r.jsonl"
    run(path, episodes=5)
    played = []
    assert run(path, resume=True, on_episodes=played.append) == whole[0]
    assert sum(played) == EPISODES - 5 and path.read_text() == whole[1]
    played.clear()
    assert run(path, resume=True, on_episodes=played.append) == whole[0] and played == []  # nothing left to play
    fresh = tmp_path / "fresh.jsonl"
    assert run(fresh, resume=True) == whole[0] and fresh.read_text() == whole[1]


def test_an_unfinished_last_line_is_played_again(tmp_path, whole):
    path, partial = tmp_path / "r.jsonl", tmp_path / "r.jsonl.partial"
    with pytest.raises(KeyboardInterrupt):
        run(path, on_episodes=stop_after(4))
    partial.write_text(partial.read_text() + whole[1].splitlines()[7][:25])  # cut short as it was written
    assert len(read_record(partial)) == 4
    assert run(path, resume=True) == whole[0] and path.read_text() == whole[1]
    # a finished record cut short is refused
    cut = tmp_path / "cut.jsonl"
    cut.write_text(whole[1][:-20])
    with pytest.raises(BadFileError, match=rf"{cut}: line {EPISODES}: not JSON"):
        read_record(cut)


@pytest.mark.parametrize("argv, refusal", [
    ("--agent heuristic", "records random on Tabletop/DungeonSolitaire-v0, not heuristic on "
                          "Tabletop/DungeonSolitaire-v0: a run resumes only its own record"),
    ("--seed 3", "records deal 0, outside this run's seeds (3-14)"),
    ("--episodes 4", "records deal 4, outside this run's seeds (0-3)"),
])
def test_a_run_resumes_only_its_own_record(argv, refusal, tmp_path, monkeypatch, capsys):
    path = tmp_path / "r.jsonl"
    with pytest.raises(KeyboardInterrupt):
        run(path, on_episodes=stop_after(6))
    capsys.readouterr()
    not_played(monkeypatch)
    command = f"eval {GAME} --agent random --episodes {EPISODES} --workers 1 --quiet --record {path} --resume {argv}"
    assert cli.main(command.split()) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"tabletop-gym: {path}.partial: {refusal}") and "\n" not in err


def test_a_record_of_another_game_or_table_is_not_resumed(tmp_path, monkeypatch):
    path = tmp_path / "r.jsonl"
    lines = [{"game": GAMES["royal_assassin"].id, "agent": "random", "seed": 0, "seat": 0, "won": True, "score": 1.0,
              "length": 3}]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    not_played(monkeypatch)
    with pytest.raises(BadFileError, match=f"{path}: records random on Tabletop/RoyalAssassin-v0, not random on "
                                           f"Tabletop/DungeonSolitaire-v0"):
        run(path, resume=True)


def test_the_record_is_checked_before_any_work_and_an_unfinished_run_is_not_thrown_away(tmp_path, monkeypatch):
    not_played(monkeypatch)
    with pytest.raises(ValueError, match="cannot write .*: there is no folder"):
        run(tmp_path / "nodir" / "r.jsonl")
    with pytest.raises(ValueError, match="cannot write .*: it is a folder"):
        run(tmp_path)
    (tmp_path / "r.jsonl.partial").write_text("the episodes of an unfinished run\n")
    with pytest.raises(ValueError, match=r"r.jsonl.partial holds the episodes of a run that did not finish: resume it"):
        run(tmp_path / "r.jsonl")
    with pytest.raises(ValueError, match=r"resume \(--resume\) goes with record \(--record\)"):
        evaluate(GAME, episodes=2, workers=1, progress=False, resume=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.jsonl.partial"]


def test_compare_and_report_read_a_partial_record_and_say_so(tmp_path, capsys):
    paths = {}
    for agent in ("random", "heuristic"):
        paths[agent] = tmp_path / f"{agent}.jsonl"
        with pytest.raises(KeyboardInterrupt):
            run(paths[agent], agent=agent, on_episodes=stop_after(5))
    capsys.readouterr()
    random, heuristic = (f"{paths[agent]}.partial" for agent in ("random", "heuristic"))
    assert cli.main(["compare", random, heuristic]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[:2] == [f"{random} is partial: 5 of {EPISODES} episodes, from a run that did not finish (eval --resume "
                       f"finishes it)", f"{heuristic} is partial: 5 of {EPISODES} episodes, from a run that did not "
                                        f"finish (eval --resume finishes it)"]
    assert out[2].startswith("5 deals played by both (seeds 0-4)")
    text = report(GAME, random).splitlines()
    assert text[0] == f"{random}: 5 deals of {GAMES[GAME].id} (0-4)"
    assert text[1] == f"{random} is partial: 5 of {EPISODES} episodes, from a run that did not finish (eval --resume " \
                      f"finishes it)"
    # the record's own name, when only its partial file is there, points to that
    with pytest.raises(BadFileError, match=rf"{paths['random']}: no such file; {random} holds the episodes of a run "
                                           "that did not finish"):
        read_record(paths["random"])


LINE = {"seed": 0, "seat": 0, "won": True, "score": 1.5, "length": 3}
HEADER = '{"partial": {"seed": 0, "episodes": 4}, "game": "Tabletop/DungeonSolitaire-v0", "agent": "random"}\n'


def line(**changes) -> str:
    row = {key: value for key, value in {**LINE, **changes}.items() if value is not ...}
    return json.dumps(row) + "\n"


@pytest.mark.parametrize("content, problem", [
    ("", "holds no episodes"),
    ("\n \n", "holds no episodes"),
    (line(won="false"), "line 1: won is 'false', not true or false"),
    (line(won=1), "line 1: won is 1, not true or false"),
    (line(score=float("nan")), "line 1: score is nan, not a finite number"),
    (line(score=float("inf")), "line 1: score is inf, not a finite number"),
    (line(score="1"), "line 1: score is '1', not a finite number"),
    (line(seed="3"), "line 1: seed is '3', not a whole number"),
    (line(seed=3.5), "line 1: seed is 3.5, not a whole number"),
    (line(seed=True), "line 1: seed is True, not a whole number"),
    (line(seat=-1), "line 1: seat is -1, not a whole number from 0"),
    (line(length=None), "line 1: length is None, not a whole number from 0"),
    (line(game=7), "line 1: game is 7, not a string"),
    (line(won=...), r"line 1: not an eval --record line \(no won\)"),
    ("[1, 2]\n", r"line 1: not an eval --record line \(a JSON object an episode\)"),
    (line() + line(score=2.0), r"line 2: deal 0 \(seat 0\) again"),
    (line() + line(seed=1)[:30], "line 2: not JSON"),
    (line() + HEADER, r"line 2: not an eval --record line"),
    (HEADER.replace('"episodes": 4', '"episodes": "4"') + line(), "line 1: the unfinished run's episodes is '4', "
                                                                  "not a whole number from 0"),
    (HEADER.replace('"agent": "random"', '"agent": null') + line(), "line 1: the unfinished run's agent is None"),
    (b"\xff\xfe\x00", "not UTF-8 text, so not a record"),
    (HEADER, "holds no episodes, from a run that stopped before it finished one"),
])
def test_a_file_that_is_not_a_record_is_one_bad_file_error(content, problem, tmp_path):
    path = tmp_path / "bad.jsonl"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    with pytest.raises(BadFileError, match=f"^{path}: {problem}"):
        read_record(path)


def test_a_missing_record_or_a_folder_is_one_bad_file_error(tmp_path):
    with pytest.raises(BadFileError, match=r"none.jsonl: cannot read it as a record \(No such file or directory\)"):
        read_record(tmp_path / "none.jsonl")
    with pytest.raises(BadFileError, match=rf"^{tmp_path}: cannot read it as a record \(Is a directory\)"):
        read_record(tmp_path)


def test_compare_refuses_a_record_with_a_nan_score_in_one_line(tmp_path, capsys):
    good, bad = tmp_path / "good.jsonl", tmp_path / "bad.jsonl"
    good.write_text(line() + line(seed=1))
    bad.write_text(line() + line(seed=1, score=float("nan")))
    assert cli.main(["compare", str(good), str(bad)]) == 2
    assert capsys.readouterr().err.strip() == f"tabletop-gym: {bad}: line 2: score is nan, not a finite number"


# Verdicts

@pytest.fixture(scope="module")
def verdicts():
    """Three deals' verdicts as ``Ceiling.save`` writes them."""
    shipped = ceiling.shipped(GAME, 0, 3)
    return json.loads(json.dumps(shipped.as_dict()))


def save(path, data, gzipped=False) -> str:
    text = json.dumps(data)
    if gzipped:
        path.write_bytes(gzip.compress(text.encode()))
    else:
        path.write_text(text)
    return str(path)


def changed(data: dict, *path, value=...) -> dict:
    """``data`` with the value at ``path`` (keys and indices) replaced, or removed when no value is given."""
    data = json.loads(json.dumps(data))
    place = data
    for key in path[:-1]:
        place = place[key]
    if value is ...:
        del place[path[-1]]
    else:
        place[path[-1]] = value
    return data


@pytest.mark.parametrize("where, value, problem", [
    (("game",), ..., r"not verdicts \(no game\)"),
    (("budget",), ..., r"not verdicts \(no budget\)"),
    (("verdicts", 1, "line"), ..., r"verdict 1: not a verdict \(no line\)"),
    (("game",), "chess", "game is 'chess', not a game with a ceiling"),
    (("game",), "splendor", "game is 'splendor', not a game with a ceiling"),
    (("seed",), "0", "seed is '0', not a whole number"),
    (("budget",), 0, "budget is 0, not a positive number of seconds"),
    (("verdicts",), {}, "verdicts is not a list of at least one verdict"),
    (("verdicts",), [], "verdicts is not a list of at least one verdict"),
    (("verdicts", 0, "deal"), "0", "verdict 0: deal is '0', not a whole number"),
    (("verdicts", 2, "deal"), 7, "verdict 2: deal 7, not 2"),
    (("verdicts", 0, "verdict"), "maybe", "verdict 0: verdict is 'maybe', not won, lost or unknown"),
    (("verdicts", 0, "nodes"), -1, "verdict 0: nodes is -1, not a whole number from 0"),
    (("verdicts", 0, "seconds"), float("nan"), "verdict 0: seconds is nan, not a finite number"),
    (("verdicts", 0, "line"), "up", "verdict 0: line is 'up', not a list of moves"),
    (("verdicts", 0, "line"), [1], r"verdict 0: line is \[1\], not a list of moves"),
    (("verdicts", 0, "best_score"), "54", "verdict 0: best_score is '54', not a finite number or null"),
    (("verdicts", 0), ["not a verdict"], r"verdict 0: not a verdict \(a JSON object a deal\)"),
    (("deals",), 5, "says 5 deals but holds 3 verdicts"),
])
def test_verdicts_of_the_wrong_kind_are_one_bad_file_error(where, value, problem, verdicts, tmp_path):
    path = save(tmp_path / "v.json", changed(verdicts, *where, value=value))
    with pytest.raises(BadFileError, match=f"^{path}: {problem}"):
        ceiling.load(path)


def test_a_verdict_file_unreadable_cut_short_or_unfinished_is_one_bad_file_error(verdicts, tmp_path):
    assert ceiling.load(save(tmp_path / "v.json.gz", verdicts, gzipped=True)).deals == 3  # the file as it is, read
    whole = (tmp_path / "v.json.gz").read_bytes()
    cases = {"cut.json.gz": whole[:len(whole) // 2], "plain.json.gz": json.dumps(verdicts).encode(),
             "cut.json": json.dumps(verdicts).encode()[:-40], "empty.json": b"", "list.json": b"[1, 2]",
             "latin.json": b"\xff\xfe\x00"}
    problems = {"cut.json.gz": "not a whole gzip file, so not verdicts", "plain.json.gz": "not a whole gzip file",
                "cut.json": "not JSON", "empty.json": "not JSON", "list.json": r"not verdicts \(a JSON object",
                "latin.json": "not UTF-8 text, so not verdicts"}
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
        with pytest.raises(BadFileError, match=f"^{tmp_path / name}: {problems[name]}"):
            ceiling.load(tmp_path / name)
    for path, problem in ((tmp_path / "none.json", "No such file or directory"), (tmp_path, "Is a directory")):
        with pytest.raises(BadFileError, match=rf"^{path}: cannot read it as verdicts \({problem}\)"):
            ceiling.load(path)


def without_seconds(result) -> list:
    return [{key: value for key, value in verdict.items() if key != "seconds"} for verdict in result.verdicts]


def test_the_ceiling_writes_verdicts_as_deals_are_solved_and_resumes_to_the_same_verdicts(tmp_path, monkeypatch,
                                                                                          capsys):
    options = dict(deals=5, seed=10, budget=10.0, workers=1, progress=False)
    whole = ceiling.ceiling("dead_center", **options, json_path=tmp_path / "whole.json")
    path, partial = tmp_path / "v.json.gz", tmp_path / "v.json.gz.partial"
    solve, calls = ceiling.solve_deals, []

    def solve_two(game, seeds, budget):
        calls.append(seeds)
        if len(calls) > 2:
            raise KeyboardInterrupt
        return solve(game, seeds, budget)

    monkeypatch.setattr(ceiling, "solve_deals", solve_two)
    with pytest.raises(KeyboardInterrupt):
        ceiling.ceiling("dead_center", **options, json_path=path)
    assert "2 verdicts kept in" in capsys.readouterr().err and not path.exists()
    lines = partial.read_text().splitlines()
    assert json.loads(lines[0]) == {"partial": {"seed": 10, "deals": 5}, "game": "dead_center", "budget": 10.0}
    assert [json.loads(line)["deal"] for line in lines[1:]] == [10, 11]
    with pytest.raises(BadFileError, match="the verdicts of a ceiling run that did not finish: finish it with "
                                           "ceiling --resume"):
        ceiling.load(partial)
    with pytest.raises(ValueError, match="holds the verdicts of a run that did not finish: resume it"):
        ceiling.ceiling("dead_center", **options, json_path=path)
    with pytest.raises(BadFileError, match=rf"{partial}: holds verdicts on dead_center at a budget of 10 s, not on "
                                           "dead_center at 5 s"):
        ceiling.ceiling("dead_center", **{**options, "budget": 5.0}, json_path=path, resume=True)
    with pytest.raises(ValueError, match=r"resume \(--resume\) goes with json_path \(--json\)"):
        ceiling.ceiling("dead_center", **options, resume=True)
    calls.clear()
    monkeypatch.setattr(ceiling, "solve_deals", solve)
    assert cli.main(["ceiling", "dead_center", "--deals", "5", "--seed", "10", "--workers", "1", "--quiet",
                     "--json", str(path), "--resume"]) == 0
    resumed = ceiling.load(path)
    assert without_seconds(resumed) == without_seconds(whole) and not partial.exists()
    assert ceiling.load(tmp_path / "whole.json").verdicts == whole.verdicts
    assert "deals/s" not in capsys.readouterr().out  # a resumed run's time was spent in two runs
