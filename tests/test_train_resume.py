"""A training run owns its folder and survives a Ctrl-C: a folder holds one run (another is refused unless
--overwrite, and a lock refuses a second run while one writes), a run that did not finish never looks finished,
and the project's PPO goes on from its last checkpoint exactly as if it had never stopped."""

import json
import os
import subprocess
import sys

import gymnasium as gym
import pytest
import torch

from tabletop_gym.agents.network import load_policy
from tabletop_gym.benchmarks import cli
from tabletop_gym.benchmarks.training import clone, ppo, run
from tabletop_gym.benchmarks.training.ppo import Settings, learn
from tabletop_gym.envs import BadFileError

TINY = Settings(num_envs=4, num_steps=32, minibatch_size=64, update_epochs=2, hidden=(32,))
GAME = "Tabletop/DungeonSolitaire-v0"
# The cheapest run of the command: three updates of 4 games x 128 steps, a final evaluation of 2 deals.
COMMAND = ["train", "dungeon_solitaire", "--timesteps", "1536", "--envs", "4", "--eval-episodes", "2",
           "--workers", "1", "--quiet"]


def vector_env():
    return gym.make_vec(GAME, num_envs=4, vectorization_mode="vector_entry_point")


def same_weights(first, second) -> bool:
    one, other = load_policy(first)[0].state_dict(), load_policy(second)[0].state_dict()
    return one.keys() == other.keys() and all(torch.equal(one[key], other[key]) for key in one)


def without_speed(curve: list) -> list:
    """A curve without its steps per second, the one column that is the machine's and not the run's."""
    return [{key: value for key, value in row.items() if key != "steps_per_second"} for row in curve]


def test_an_interrupted_run_resumed_from_its_checkpoint_equals_one_never_stopped(tmp_path):
    whole = learn(vector_env(), 8 * 128, TINY, seed=3, out=tmp_path / "whole", progress=False,
                  record={"game": GAME}, checkpoint_every=0)

    def ctrl_c(update, updates, policy):
        if update == 5:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        learn(vector_env(), 8 * 128, TINY, seed=3, out=tmp_path / "stopped", progress=False, record={"game": GAME},
              checkpoint_every=0, on_update=ctrl_c)
    assert (tmp_path / "stopped" / "checkpoint.pt").is_file() and not (tmp_path / "stopped" / "model.pt").exists()
    saved = torch.load(tmp_path / "stopped" / "checkpoint.pt", weights_only=True)
    assert saved["update"] == 4 and len(saved["curve"]) == 4  # the interrupted update is played again

    # A resume with other settings, another seed or another game is refused before anything is played.
    for changes in ({"seed": 4}, {"settings": Settings(**{**TINY.__dict__, "learning_rate": 1e-3})},
                    {"record": {"game": "Tabletop/OneCardDungeon-v0"}}):
        options = {"seed": 3, "settings": TINY, "record": {"game": GAME}, **changes}
        with pytest.raises(ValueError, match="checkpoint of another run"):
            learn(vector_env(), 8 * 128, options["settings"], seed=options["seed"], out=tmp_path / "stopped",
                  progress=False, record=options["record"], resume=True)

    resumed = learn(vector_env(), 8 * 128, TINY, seed=3, out=tmp_path / "stopped", progress=False,
                    record={"game": GAME}, checkpoint_every=0, resume=True)
    assert same_weights(tmp_path / "whole" / "model.pt", tmp_path / "stopped" / "model.pt")
    assert without_speed(resumed["curve"]) == without_speed(whole["curve"]) and len(resumed["curve"]) == 8


def test_a_ctrl_c_leaves_a_checkpoint_and_says_how_to_go_on_from_it(tmp_path, monkeypatch, capsys):
    out = tmp_path / "stopped"
    assert cli.main([*COMMAND, "--out", str(tmp_path / "whole")]) == 0
    capsys.readouterr()

    clip, clips = torch.nn.utils.clip_grad_norm_, []

    def ctrl_c_in_the_second_update(*args, **kwargs):  # one minibatch an epoch, 4 epochs an update
        clips.append(1)
        if len(clips) == 6:
            raise KeyboardInterrupt
        return clip(*args, **kwargs)

    monkeypatch.setattr(torch.nn.utils, "clip_grad_norm_", ctrl_c_in_the_second_update)
    assert cli.main([*COMMAND, "--out", str(out)]) == 130  # long before the first checkpoint is due
    error = capsys.readouterr().err.strip()
    assert "\n" not in error and f"--resume {out}" in error and "checkpoint.pt" in error
    assert sorted(path.name for path in out.iterdir()) == ["checkpoint.pt"]  # the first update, whole; no lock left
    assert torch.load(out / "checkpoint.pt", weights_only=True)["update"] == 1
    monkeypatch.setattr(torch.nn.utils, "clip_grad_norm_", clip)
    assert cli.main([*COMMAND, "--out", str(out)]) == 2  # the same command again is told how to go on
    assert f"pass --overwrite to replace it, --resume {out} to go on with it, or another --out" in \
        capsys.readouterr().err

    assert cli.main([*COMMAND, "--resume", str(out)]) == 0
    assert same_weights(tmp_path / "whole" / "model.pt", out / "model.pt")
    finished, whole = (json.loads((folder / "result.json").read_text()) for folder in (out, tmp_path / "whole"))
    assert finished["curve"] == whole["curve"] and finished["evaluation"] == whole["evaluation"]
    assert not (out / "checkpoint.pt").exists()  # a finished run has nothing to resume
    assert cli.main([*COMMAND, "--resume", str(out)]) == 2
    assert "holds a finished run" in capsys.readouterr().err
    assert cli.main([*COMMAND, "--seed", "1", "--resume", str(tmp_path / "nothing")]) == 2
    assert "holds no checkpoint.pt to resume from" in capsys.readouterr().err


def test_a_folder_holds_one_run_and_an_interrupted_evaluation_never_looks_finished(tmp_path, monkeypatch):
    options = {"timesteps": 256, "n_envs": 4, "out": str(tmp_path), "eval_episodes": 2, "workers": 1,
               "progress": False}
    ppo.train("dungeon_solitaire", **options)
    before = {path.name: path.read_bytes() for path in tmp_path.iterdir()}
    with pytest.raises(ValueError, match=f"{tmp_path} holds another run .*: pass --overwrite to replace it or "
                                         "another --out"):
        ppo.train("dungeon_solitaire", seed=1, **options)
    assert {path.name: path.read_bytes() for path in tmp_path.iterdir()} == before  # untouched

    # --overwrite removes the old run's files first: a Ctrl-C in the new run's final evaluation leaves the new
    # model and no result.json, never the new model beside the old record.
    def ctrl_c(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(run.Run, "evaluate", ctrl_c)
    with pytest.raises(KeyboardInterrupt, match=f"--resume {tmp_path}"):
        ppo.train("dungeon_solitaire", seed=1, overwrite=True, **options)
    assert sorted(path.name for path in tmp_path.iterdir()) == [
        "checkpoint.pt", "learning_curve.csv", "model.pt", "policy.npz"]
    assert load_policy(tmp_path / "model.pt")[1]["seed"] == 1
    monkeypatch.undo()
    result = ppo.train("dungeon_solitaire", seed=1, resume=str(tmp_path), **{**options, "out": None})
    assert json.loads((tmp_path / "result.json").read_text())["seed"] == 1 == result.seed
    assert "checkpoint.pt" not in os.listdir(tmp_path)
    with pytest.raises(ValueError, match="choose one"):
        ppo.train("dungeon_solitaire", overwrite=True, resume=str(tmp_path), **{**options, "out": None})


def test_a_run_holds_its_folders_lock_and_takes_over_one_left_by_a_process_that_is_gone(tmp_path, monkeypatch,
                                                                                       capsys):
    options = {"timesteps": 128, "n_envs": 4, "out": str(tmp_path), "eval_episodes": 2, "workers": 1,
               "progress": False, "overwrite": True}
    lock = tmp_path / "run.lock"
    lock.write_text(str(os.getpid()))  # a run of this process writes there
    with pytest.raises(ValueError, match=f"{tmp_path} is in use by another training run \\(process {os.getpid()}"):
        ppo.train("dungeon_solitaire", **options)
    assert lock.read_text() == str(os.getpid()) and sorted(os.listdir(tmp_path)) == ["run.lock"]

    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    lock.write_text(str(gone.pid))
    ppo.train("dungeon_solitaire", **options)
    assert f"left by process {gone.pid}, which is no longer running" in capsys.readouterr().err
    assert (tmp_path / "result.json").is_file() and not lock.exists()

    def fails(*args, **kwargs):
        raise RuntimeError("the env broke")

    monkeypatch.setattr(ppo, "native_vector_env", fails)
    with pytest.raises(RuntimeError, match="the env broke"):
        ppo.train("dungeon_solitaire", **options)
    assert not lock.exists()  # released whatever happened


class Payload:
    """What a crafted checkpoint would run when loaded: it makes a file."""

    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return open, (self.path, "w")


def test_a_checkpoint_is_read_as_data_and_a_crafted_one_is_refused_without_running(tmp_path):
    folder = tmp_path / "run"
    folder.mkdir()
    torch.save({"update": 1, "model": Payload(tmp_path / "ran")}, folder / "checkpoint.pt")
    with pytest.raises(BadFileError, match="not a checkpoint tabletop-gym train saved"):
        ppo.train("dungeon_solitaire", timesteps=128, n_envs=4, resume=str(folder), progress=False)
    assert not (tmp_path / "ran").exists() and not (folder / "run.lock").exists()


def test_a_run_from_a_cloned_start_resumes_without_cloning_again(tmp_path, monkeypatch):
    options = {"start_episodes": 4, "timesteps": 256, "n_envs": 4, "eval_episodes": 2, "workers": 1,
               "progress": False}

    def ctrl_c(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(run.Run, "evaluate", ctrl_c)
    with pytest.raises(KeyboardInterrupt, match=f"--resume {tmp_path}"):
        clone.train("dungeon_solitaire", "heuristic", out=str(tmp_path), **options)
    monkeypatch.undo()
    with pytest.raises(ValueError, match="did not start from random's 4 games"):
        clone.train("dungeon_solitaire", "random", resume=str(tmp_path), **options)
    monkeypatch.setattr(clone, "collect", lambda *args, **kwargs: pytest.fail("cloned again"))
    result = clone.train("dungeon_solitaire", "heuristic", resume=str(tmp_path), **options)
    assert result.hyperparameters["start"] == "heuristic" and (tmp_path / "result.json").is_file()


@pytest.mark.parametrize("flags, why", [(["--algo", "sb3"], "SB3's own"), (["--self-play"], "snapshots"),
                                        (["--algo", "value"], "no checkpoint")])
def test_the_trainers_that_keep_no_checkpoint_of_their_own_refuse_resume_in_one_line(flags, why, tmp_path, capsys):
    assert cli.main(["train", "dungeon_solitaire", *flags, "--resume", str(tmp_path)]) == 2
    error = capsys.readouterr().err.strip()
    assert "\n" not in error and why in error
    assert error.startswith("tabletop-gym: --resume goes with the project's own PPO")
