"""Every bad file ends in one error: each loader of a file the project reads (a policy or value ``.npz``, a
``model.pt``, a record, verdicts, a run folder) is fed corrupted versions of a real file (truncated, bytes flipped,
emptied, a folder in its place, gzip garbage, a key removed or a value of the wrong type, NaN) and either loads
it, giving usable output, or raises ``BadFileError`` naming the file; never any other exception."""

import gzip
import io
import json
import math
import shutil
import subprocess
import sys
import zipfile
from itertools import count

import gymnasium as gym
import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tabletop_gym.agents import make_agent
from tabletop_gym.agents.network import MaskedPolicy, save_policy
from tabletop_gym.agents.policy import MODELS, PolicyAgent, committed_model
from tabletop_gym.agents.rllib import RLlibAgent
from tabletop_gym.benchmarks.ceiling.verdicts import SHIPPED, load
from tabletop_gym.benchmarks.evaluation.evaluate import evaluate, read_record
from tabletop_gym.envs import BadFileError

GAME = "royal_assassin"
RECORD = {"game": "Tabletop/RoyalAssassin-v0", "settings": {"hidden": [8]}, "seed": 0}


def tiny_policy():
    env = gym.make(RECORD["game"])
    return MaskedPolicy(env.observation_space.shape[0], env.action_space.n, (8,))


# What each kind of file is read with, and what using it gives: a loaded file must be usable.

def play_policy(path):
    agent = make_agent(f"ppo:{path}", GAME)
    network = agent.network
    action = agent.act(np.zeros(network.obs_size, dtype=np.float32), np.ones(network.num_actions, dtype=bool))
    assert 0 <= action < network.num_actions


def judge_value(path):
    network = make_agent(f"value:{path}", GAME).network
    with np.errstate(over="ignore"):
        chances = network(np.zeros((2, network.field_count), dtype=np.float32))
    assert chances.shape == (2,) and ((chances >= 0) & (chances <= 1)).all()


def play_network(path):
    agent = make_agent(f"ppo:{path}", GAME)
    shape = agent.model.shape
    action = agent.act(np.zeros(shape["obs_size"], dtype=np.float32), np.ones(shape["num_actions"], dtype=bool))
    assert 0 <= action < shape["num_actions"]


def read_episodes(path):
    rows = read_record(path)
    assert rows and all(isinstance(row["won"], bool) and math.isfinite(row["score"]) for row in rows)


def read_verdicts(path):
    ceiling = load(path)
    assert ceiling.deals >= 0


# How each kind's contents are taken apart and put back, for the corruptions of its structure.

def npz_parts(data: bytes) -> dict:
    with np.load(io.BytesIO(data), allow_pickle=False) as saved:
        return {key: saved[key] for key in saved.files}


def npz_bytes(arrays: dict) -> bytes:
    out = io.BytesIO()
    np.savez_compressed(out, **arrays)
    return out.getvalue()


def pt_parts(data: bytes) -> dict:
    return torch.load(io.BytesIO(data), weights_only=True)


def pt_bytes(saved) -> bytes:
    out = io.BytesIO()
    torch.save(saved, out)
    return out.getvalue()


def jsonl_parts(data: bytes) -> list:
    return [json.loads(line) for line in data.decode().splitlines()]


def jsonl_bytes(rows: list) -> bytes:
    return "".join(json.dumps(row) + "\n" for row in rows).encode()


def gzip_json_parts(data: bytes):
    return json.loads(gzip.decompress(data))


def gzip_json_bytes(data) -> bytes:
    return gzip.compress(json.dumps(data).encode())


WRONG_VALUES = ["false", None, float("nan"), float("inf"), -1, 10**30, [], {}, "x", True, 0.5]


def json_places(value, depth=0):
    """Every (container, key) in a JSON value, down to a few levels."""
    places = []
    if depth > 4:
        return places
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, inner in items:
        places.append((value, key))
        places += json_places(inner, depth + 1)
    return places


def corrupt_json(data, value):
    """A key of ``value`` (JSON, changed in place) removed, or its value replaced by one of a wrong type."""
    places = json_places(value)
    if not places:
        return value
    container, key = data.draw(st.sampled_from(places), label="place")
    if isinstance(container, dict) and data.draw(st.booleans(), label="remove"):
        del container[key]
    else:
        container[key] = data.draw(st.sampled_from(WRONG_VALUES), label="wrong value")
    return value


def corrupt_arrays(data, arrays: dict) -> dict:
    """An array of a saved ``.npz`` removed, of another dtype or shape, holding NaN, or its record's JSON
    changed."""
    key = data.draw(st.sampled_from(sorted(arrays)), label="array")
    how = data.draw(st.sampled_from(["remove", "dtype", "shape", "nan", "record"]), label="how")
    array = arrays[key]
    if how == "remove":
        del arrays[key]
    elif how == "dtype":
        dtype = data.draw(st.sampled_from(["<U3", "bool", "complex64", "int8", "S4"]), label="dtype")
        arrays[key] = np.zeros(array.shape, dtype) if array.dtype.kind in "US" else array.astype(dtype)
    elif how == "shape":
        arrays[key] = data.draw(st.sampled_from([array.reshape(-1), array[None], array.reshape(-1)[:1],
                                                 np.zeros((0,), dtype=array.dtype)]))
    elif how == "nan" and array.dtype.kind == "f" and array.size:
        array = array.astype(np.float32)
        array.reshape(-1)[data.draw(st.integers(0, array.size - 1))] = data.draw(
            st.sampled_from([np.nan, np.inf, -np.inf]))
        arrays[key] = array
    elif how == "record" and "record" in arrays:
        record = corrupt_json(data, json.loads(str(arrays["record"])))
        arrays["record"] = np.array(json.dumps(record))
    return arrays


def corrupt_network(data, saved: dict) -> dict:
    """A part of a saved ``model.pt`` removed or changed: its shape or record (JSON), or a tensor of its weights."""
    part = data.draw(st.sampled_from(["remove", "shape", "record", "weights"]), label="part")
    if part == "remove":
        del saved[data.draw(st.sampled_from(sorted(saved)))]
    elif part in ("shape", "record"):
        corrupt_json(data, saved[part])
    else:
        state = saved["state_dict"]
        key = data.draw(st.sampled_from(sorted(state)), label="tensor")
        how = data.draw(st.sampled_from(["remove", "nan", "dtype", "shape"]), label="how")
        if how == "remove":
            del state[key]
        elif how == "nan":
            state[key] = state[key].clone().reshape(-1).index_fill(0, torch.tensor([0]), float("nan")).reshape(
                state[key].shape)
        elif how == "dtype":
            state[key] = state[key].to(torch.int64)
        else:
            state[key] = state[key].reshape(-1)[:3]
    return saved


def corrupt_rows(data, rows: list) -> list:
    corrupt_json(data, rows)
    return rows


KINDS = {  # name: (the loader, taking its contents apart, putting them back, corrupting them)
    "policy": (play_policy, npz_parts, npz_bytes, corrupt_arrays),
    "value": (judge_value, npz_parts, npz_bytes, corrupt_arrays),
    "network": (play_network, pt_parts, pt_bytes, corrupt_network),
    "record": (read_episodes, jsonl_parts, jsonl_bytes, corrupt_rows),
    "verdicts": (read_verdicts, gzip_json_parts, gzip_json_bytes, corrupt_json),
}


@pytest.fixture(scope="module")
def originals(tmp_path_factory):
    """A real file of each kind."""
    folder = tmp_path_factory.mktemp("originals")
    network = folder / "model.pt"
    save_policy(tiny_policy(), network, RECORD)
    record = folder / "episodes.jsonl"
    evaluate(GAME, "random", episodes=4, workers=1, progress=False, record=str(record))
    verdicts = folder / "verdicts.json.gz"
    load(SHIPPED / "one_card_dungeon_0-49.json.gz").part(0, 5).save(verdicts)
    return {"policy": committed_model(GAME), "value": MODELS / "value" / f"{GAME}.npz", "network": network,
            "record": record, "verdicts": verdicts}


CASES = count()


def corrupted(data, original, kind: str, folder):
    """Where a corrupted copy of ``original`` now lies (with its name's ending, which some loaders go by)."""
    content = original.read_bytes()
    path = folder / f"case{next(CASES)}{''.join(original.suffixes)}"
    how = data.draw(st.sampled_from(["truncate", "flip", "empty", "folder", "gzip garbage", "structure"]),
                    label="corruption")
    if how == "folder":
        path.mkdir()
        return path
    if how == "truncate":
        content = content[:data.draw(st.integers(0, len(content) - 1), label="length")]
    elif how == "flip":
        changed = bytearray(content)
        for _ in range(data.draw(st.integers(1, 8), label="flips")):
            changed[data.draw(st.integers(0, len(changed) - 1))] ^= data.draw(st.integers(1, 255))
        content = bytes(changed)
    elif how == "empty":
        content = b""
    elif how == "gzip garbage":
        garbage = data.draw(st.binary(max_size=200), label="garbage")
        content = data.draw(st.sampled_from([gzip.compress(garbage), b"\x1f\x8b\x08\x00" + garbage]))
    else:
        _, parts, put_back, corrupt = KINDS[kind]
        content = put_back(corrupt(data, parts(content)))
    path.write_bytes(content)
    return path


@pytest.mark.parametrize("kind", ["policy", "value", "network", "record", "verdicts"])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_corrupted_file_loads_usable_or_is_a_bad_file_error(originals, tmp_path, kind, data):
    path = corrupted(data, originals[kind], kind, tmp_path)
    try:
        KINDS[kind][0](path)
    except BadFileError as error:
        assert str(path) in str(error) and "\n" not in str(error)


@pytest.mark.parametrize("kind", list(KINDS))
def test_each_original_loads(originals, kind):
    KINDS[kind][0](originals[kind])


# The worst cases, each named.

def test_a_truncated_policy_is_a_bad_file_error(tmp_path):
    path = tmp_path / "policy.npz"
    path.write_bytes(committed_model(GAME).read_bytes()[:3000])
    with pytest.raises(BadFileError, match="policy.npz: not a saved policy or value"):
        PolicyAgent(path)


def test_a_model_pt_that_is_a_zip_of_garbage_is_a_bad_file_error(tmp_path):
    path = tmp_path / "model.pt"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("model/data.pkl", b"garbage" * 20)
    with pytest.raises(BadFileError, match="model.pt: not a policy tabletop-gym train saved"):
        make_agent(f"ppo:{path}", GAME)


@pytest.mark.parametrize("name, agent", [("policy.npz", "ppo"), ("model.pt", "ppo"), ("model.zip", "ppo"),
                                         ("value.npz", "value")])
def test_a_folder_for_a_model_file_is_a_bad_file_error(tmp_path, name, agent):
    path = tmp_path / name
    path.mkdir()
    with pytest.raises(BadFileError, match=f"{name}: a folder"):
        make_agent(f"{agent}:{path}", GAME)


def test_a_run_folder_plays_the_model_its_result_names(tmp_path):
    shutil.copy(committed_model(GAME), tmp_path / "policy.npz")
    (tmp_path / "result.json").write_text(json.dumps({"model_path": "elsewhere/policy.npz"}))
    assert make_agent(f"ppo:{tmp_path}", GAME).path == str(tmp_path / "policy.npz")
    (tmp_path / "result.json").write_text(json.dumps({"model_path": "elsewhere/model.pt"}))
    with pytest.raises(BadFileError, match="names the model model.pt, which the folder does not hold"):
        make_agent(f"ppo:{tmp_path}", GAME)
    shutil.copy(MODELS / "value" / f"{GAME}.npz", tmp_path / "value.npz")
    (tmp_path / "result.json").write_text(json.dumps({"model_path": "value.npz"}))
    assert make_agent(f"value:{tmp_path}", GAME).path == str(tmp_path / "value.npz")


@pytest.mark.parametrize("result, refusal", [
    (None, "a folder with no result.json"),
    ("{", "result.json: not a run's result.json"),
    ('{"game": "x"}', "result.json: not a run's result.json: no model_path"),
    ('{"model_path": 3}', "result.json: its model_path is 3"),
])
def test_a_run_folder_without_its_model_is_a_bad_file_error(tmp_path, result, refusal):
    if result is not None:
        (tmp_path / "result.json").write_text(result)
    with pytest.raises(BadFileError, match=refusal):
        make_agent(f"ppo:{tmp_path}", GAME)


@pytest.mark.parametrize("content, refusal", [
    (b"", "not a saved model"), (b"PK\x05\x06" + bytes(18), "not a MaskablePPO model: it holds no data"),
])
def test_a_maskable_ppo_zip_that_is_no_model_is_a_bad_file_error(tmp_path, content, refusal):
    path = tmp_path / "model.zip"
    path.write_bytes(content)
    with pytest.raises(BadFileError, match=refusal):
        make_agent(f"ppo:{path}", GAME)


@pytest.mark.parametrize("scale, refusal", [
    (b"garbage", "not an observation scale"), (np.array(["a", "b"]), "not one row of numbers"),
    (np.array([1.0, np.nan]), "NaN"), (None, "not an observation scale"),
])
def test_an_rllib_checkpoints_bad_observation_scale_is_a_bad_file_error(tmp_path, scale, refusal):
    (tmp_path / "learner_group" / "learner" / "rl_module" / "default_policy").mkdir(parents=True)
    path = tmp_path / "observation_scale.npy"
    if scale is None:
        path.mkdir()
    elif isinstance(scale, bytes):
        path.write_bytes(scale)
    else:
        np.save(path, scale)
    with pytest.raises(BadFileError, match=f"observation_scale.npy: .*{refusal}"):
        RLlibAgent(tmp_path)


def test_the_cli_says_a_bad_file_in_one_line(tmp_path):
    path = tmp_path / "policy.npz"
    path.write_bytes(committed_model(GAME).read_bytes()[:3000])
    done = subprocess.run([sys.executable, "-m", "tabletop_gym.benchmarks.cli", "eval", GAME, "--agent",
                           f"ppo:{path}", "--episodes", "1", "--workers", "1", "--quiet"],
                          capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and done.stderr.startswith(f"tabletop-gym: {path}: not a saved policy")
