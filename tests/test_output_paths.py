"""Every command checks the files it will write before any work: a missing folder, or a folder where a file is to
be written (a file where a folder is), is one line and exit 2, and nothing is played."""

from importlib import import_module

import pytest

from tabletop_gym.benchmarks import cli

NOT_PLAYED = {  # the module and the function of the work each command does
    "eval": ("tabletop_gym.benchmarks.evaluation.evaluate", "evaluate"),
    "ceiling": ("tabletop_gym.benchmarks.ceiling.verdicts", "ceiling"),
    "leaderboard": ("tabletop_gym.benchmarks.evaluation.leaderboard", "evaluate"),
    "curves": ("tabletop_gym.benchmarks.training.curves", "read_run"),
    "replay": ("tabletop_gym.benchmarks.human.replay", "record"),
    "train": ("tabletop_gym.benchmarks.training.ppo", "train"),
    "bench": ("tabletop_gym.benchmarks.evaluation.throughput", "main"),
}


# A command line of each command with an output it cannot write ({nodir}: a folder that does not exist, {folder}: a
# folder, {file}: a file), and that output.
BAD_OUTPUTS = [
    ("eval dead_center --episodes 2 --record {nodir}/x.jsonl", "{nodir}/x.jsonl"),
    ("eval dead_center --episodes 2 --record {folder}", "{folder}"),
    ("ceiling dead_center --deals 2 --json {folder}", "{folder}"),
    ("ceiling dead_center --deals 2 --json {nodir}/v.json", "{nodir}/v.json"),
    ("leaderboard --episodes 2 --games dead_center --out {folder}", "{folder}"),
    ("leaderboard --episodes 2 --games dead_center --out {tmp}/b.md --png {nodir}/b.png", "{nodir}/b.png"),
    ("curves {run} --out {nodir}/c.png", "{nodir}/c.png"),
    ("curves {run} --out {tmp}/c.png --table {folder}", "{folder}"),
    ("replay dead_center --out {folder}", "{folder}"),
    ("replay dead_center --out {nodir}/r.html", "{nodir}/r.html"),
    ("train dead_center --timesteps 64 --out {file}", "{file}"),
    ("bench --out {folder}", "{folder}"),
    ("bench --png {nodir}/t.png", "{nodir}/t.png"),
]


@pytest.mark.parametrize("command, output", BAD_OUTPUTS)
def test_an_output_that_cannot_be_written_is_refused_before_any_work(command, output, tmp_path, monkeypatch, capsys):
    for name, (module, function) in NOT_PLAYED.items():
        monkeypatch.setattr(import_module(module), function,
                            lambda *a, name=name, **k: pytest.fail(f"{name} did its work"))
    (tmp_path / "folder.gif").mkdir()
    (tmp_path / "run").mkdir()
    (tmp_path / "a_file").write_text("not a folder")
    places = {"tmp": tmp_path, "nodir": tmp_path / "nodir", "folder": tmp_path / "folder.gif",
              "file": tmp_path / "a_file", "run": tmp_path / "run"}
    assert cli.main(command.format(**places).split()) == 2
    error = capsys.readouterr().err.strip()
    assert error.startswith("tabletop-gym: cannot write") and "\n" not in error
    assert output.format(**places) in error
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a_file", "folder.gif", "run"]  # nothing written
