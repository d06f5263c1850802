"""The pages the commands write (the leaderboard, the throughput tables, the table of training runs) begin with
their provenance: the command line that wrote them, the code it ran (a commit, or an installed version) and the
date."""

import json
import re
import subprocess

import pytest

from tabletop_gym.benchmarks import cli, outputs
from tabletop_gym.benchmarks.evaluation import leaderboard, throughput
from tabletop_gym.benchmarks.evaluation.throughput import REFERENCE, Row

# What ran: a commit of this checkout, or (a clone installed without -e, as CI does) the installed package.
CODE = r"(at commit [0-9a-f]{4,}( \+ uncommitted changes)?|with tabletop-gym \S+ installed)"
DATE = r"on \d{4}-\d{2}-\d{2}\."


def head(page: str) -> str:
    return page.splitlines()[0]


def test_the_provenance_names_the_command_the_code_and_the_date():
    assert re.fullmatch(rf"Written by `tabletop-gym bench --out t.md` {CODE} {DATE}",
                        outputs.provenance("tabletop-gym bench --out t.md"))


def test_in_a_checkout_the_code_is_its_commit_and_whether_it_was_changed():
    root = str(outputs.SOURCE_ROOT)
    inside = subprocess.run(["git", "-C", root, "rev-parse", "--show-toplevel"], capture_output=True, text=True)
    if inside.returncode != 0 or inside.stdout.strip() != root:
        pytest.skip("the package does not run from a git checkout of its own")
    commit = subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            check=True).stdout.strip()
    changed = subprocess.run(["git", "-C", root, "status", "--porcelain"], capture_output=True, text=True,
                             check=True).stdout.strip()
    assert outputs.code_that_ran() == f"at commit {commit}" + (" + uncommitted changes" if changed else "")


def test_outside_a_checkout_the_code_is_the_installed_version(tmp_path, monkeypatch):
    monkeypatch.setattr(outputs, "SOURCE_ROOT", tmp_path)  # a folder that is no git checkout
    assert outputs.code_that_ran() == f"with tabletop-gym {outputs.package_version()} installed"


def test_a_call_from_python_is_said_with_the_arguments_it_was_given():
    said = outputs.python_call(leaderboard.main, {"episodes": 2, "seed": 0, "games": ["dead_center"], "png": None,
                                                  "command": None})
    assert said == "tabletop_gym.benchmarks.evaluation.leaderboard.main(episodes=2, games=['dead_center'], png=None)"


def test_the_leaderboard_page_begins_with_its_command_line(tmp_path, capsys):
    out = tmp_path / "board.md"
    argv = ["leaderboard", "--games", "dead_center", "--agents", "random", "--episodes", "2", "--workers", "1",
            "--out", str(out), "--png", "", "--quiet"]
    assert cli.main(argv) == 0
    page = out.read_text(encoding="utf-8")
    assert re.fullmatch(rf"Written by `tabletop-gym leaderboard --games dead_center --agents random --episodes 2 "
                        rf"--workers 1 --out {re.escape(str(out))} --png '' --quiet` {CODE} {DATE}", head(page))
    assert page.splitlines()[1] == "" and "| DeadCenter-v0 | random | - | 2 |" in page


def test_the_leaderboard_called_from_python_begins_with_the_call(tmp_path):
    out = tmp_path / "board.md"
    page = leaderboard.main(episodes=2, games=["dead_center"], agents=("random",), out=str(out), png=None, workers=1,
                            progress=False)
    assert page == out.read_text(encoding="utf-8")
    call = (f"tabletop_gym.benchmarks.evaluation.leaderboard.main(episodes=2, workers=1, games=['dead_center'], "
            f"agents=('random',), out={str(out)!r}, png=None, progress=False)")  # in the order of its signature
    assert re.fullmatch(rf"Written by `{re.escape(call)}` {CODE} {DATE}", head(page))


def test_the_throughput_page_begins_with_its_command_line(tmp_path, monkeypatch):
    # The measuring itself is timed elsewhere (test_vector.py): here, rows as it returns them.
    rows = [Row(REFERENCE, 1000.0, 0.05), Row("Tabletop/DeadCenter-v0", 3000.0, 0.1)]
    monkeypatch.setattr(throughput, "measure", lambda *args, **kwargs: rows)
    out = tmp_path / "t.md"
    assert cli.main(["bench", "--games", "dead_center", "--out", str(out), "--png", "", "--quiet"]) == 0
    page = out.read_text(encoding="utf-8")
    assert re.fullmatch(rf"Written by `tabletop-gym bench --games dead_center --out {re.escape(str(out))} --png '' "
                        rf"--quiet` {CODE} {DATE}", head(page))
    assert "| Tabletop/DeadCenter-v0 | 3,000 | 10% | 3.00× |" in page


def test_the_table_of_training_runs_begins_with_its_command_line(tmp_path):
    pytest.importorskip("matplotlib", reason="the curves need the rl extra's matplotlib")
    run = tmp_path / "run0"
    run.mkdir()
    (run / "learning_curve.csv").write_text("step,win_rate,mean_score\n256,0.1,1.0\n512,0.2,2.0\n")
    evaluation = {"episodes": 4, "win_rate": 0.25, "win_low": 0.05, "win_high": 0.7, "mean_score": 2.5}
    (run / "result.json").write_text(json.dumps({
        "game": "Tabletop/DeadCenter-v0", "seed": 0, "timesteps": 512, "seconds": 60.0, "evaluation": evaluation,
        "hyperparameters": {"num_envs": 4, "learning_rate": 0.0003}, "env_kwargs": {}}))
    table, png = tmp_path / "runs.md", tmp_path / "curves.png"
    assert cli.main(["curves", str(run), "--out", str(png), "--table", str(table)]) == 0
    page = table.read_text(encoding="utf-8")
    assert re.fullmatch(rf"Written by `tabletop-gym curves {re.escape(str(run))} --out {re.escape(str(png))} "
                        rf"--table {re.escape(str(table))}` {CODE} {DATE}", head(page))
    assert "| DeadCenter-v0 | 0 | 512 | 1.0 | scratch | - | 0.0003 | 25.0% (5.0–70.0%) over 4 |" in page
