"""A model file is data: a crafted ``model.pt`` is refused without running what it holds, a ``.npz`` declaring
layers too large or shaped unlike a policy is refused before its arrays are read, and a policy of another game is
refused when the agent is built for a game, naming both."""

import io
import json
import tracemalloc
import zipfile

import gymnasium as gym
import numpy as np
import pytest
import torch

from tabletop_gym.agents import make_agent
from tabletop_gym.agents.network import MaskedPolicy, save_policy
from tabletop_gym.agents.policy import MAX_LAYER_WIDTH, MAX_SAVED_BYTES, PolicyAgent, committed_model, saved_value

RECORD = {"game": "Tabletop/RoyalAssassin-v0", "settings": {"hidden": [8]}, "seed": 0}


class Payload:
    """Unpickled, it creates the file ``marker``: what a crafted model file could run instead."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return open, (self.marker, "w")


def tiny_policy():
    env = gym.make(RECORD["game"])
    return MaskedPolicy(env.observation_space.shape[0], env.action_space.n, (8,))


def test_a_model_file_holding_code_is_refused_without_running_it(tmp_path):
    marker = tmp_path / "ran"
    path = tmp_path / "model.pt"
    policy = tiny_policy()
    # The payload hides in the record, so that a loader trusting the file would build a working policy.
    torch.save({"shape": policy.shape, "state_dict": policy.state_dict(), "record": Payload(marker)}, path)
    with pytest.raises(ValueError, match="model.pt: not a policy .*would run code") as refused:
        make_agent(f"ppo:{path}", "royal_assassin")
    assert str(path) in str(refused.value)
    assert not marker.exists()


def test_the_projects_own_model_file_loads_and_names_its_game(tmp_path):
    path = tmp_path / "model.pt"
    save_policy(tiny_policy(), path, RECORD)
    agent = make_agent(f"ppo:{path}", "royal_assassin")
    assert agent.act(np.zeros(agent.model.shape["obs_size"], dtype=np.float32),
                     np.ones(agent.model.shape["num_actions"], dtype=bool)) >= 0
    with pytest.raises(ValueError, match="trained on royal_assassin; it cannot play splendor"):
        make_agent(f"ppo:{path}", "splendor")


def npy(shape, dtype="<f8", data=b""):
    """An .npy member: the header declaring ``shape``, then ``data`` (which may be much less than declared)."""
    out = io.BytesIO()
    np.lib.format.write_array_header_1_0(out, {"descr": dtype, "fortran_order": False, "shape": shape})
    return out.getvalue() + data


def test_a_policy_declaring_a_huge_layer_is_refused_before_it_is_allocated(tmp_path):
    path = tmp_path / "policy.npz"
    with zipfile.ZipFile(path, "w") as archive:  # 3 kB declaring a 256 x 1,000,000 layer (2 GB)
        archive.writestr("obs_scale.npy", npy((4,), data=np.ones(4).tobytes()))
        archive.writestr("record.npy", npy((), "<U2", np.array("{}").tobytes()))
        archive.writestr("weight_0.npy", npy((256, 1_000_000)))
        archive.writestr("bias_0.npy", npy((256,), data=np.zeros(256).tobytes()))
    assert path.stat().st_size < 4_000
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=f"declares arrays of 2,048,002,088 bytes.*at most {MAX_SAVED_BYTES:,}"):
            make_agent(f"ppo:{path}", "royal_assassin")
        with pytest.raises(ValueError, match="declares arrays"):
            saved_value(str(path), None, 4, "the tables")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 50 * 2**20


def policy_file(path, **arrays):
    np.savez(path, record=np.array(json.dumps(RECORD)), obs_scale=np.ones(6, dtype=np.float32), **arrays)
    return path


@pytest.mark.parametrize("arrays, refusal", [
    ({"weight_0": np.zeros((MAX_LAYER_WIDTH + 1, 6)), "bias_0": np.zeros(MAX_LAYER_WIDTH + 1)},
     f"weight_0 has {MAX_LAYER_WIDTH + 1:,} units; a layer has at most {MAX_LAYER_WIDTH:,}"),
    ({"weight_0": np.zeros((8, 6)), "bias_0": np.zeros(8), "weight_1": np.zeros((3, 7)), "bias_1": np.zeros(3)},
     "weight_1 reads 7 entries; the layer before gives 8"),
    ({"weight_0": np.zeros((8, 5)), "bias_0": np.zeros(8)}, "first layer reads 5 entries from entry 0; its "
                                                            "observation has 6"),
    ({"weight_0": np.zeros((8, 6)), "bias_0": np.zeros(7)}, r"weight_0 has shape \(8, 6\) and its bias \(7,\)"),
    ({"weight_0": np.zeros((8, 6))}, "has no weight_0 or bias_0"),
])
def test_a_policy_whose_layers_do_not_fit_is_refused_when_loaded(tmp_path, arrays, refusal):
    path = policy_file(tmp_path / "policy.npz", **arrays)
    with pytest.raises(ValueError, match=refusal) as refused:
        PolicyAgent(path)
    assert str(path) in str(refused.value)


@pytest.mark.parametrize("agent", ["ppo", "search-ppo"])
def test_another_games_policy_is_refused_when_the_agent_is_built(agent):
    path = committed_model("royal_assassin")
    with pytest.raises(ValueError, match="trained on royal_assassin; it cannot play splendor") as refused:
        make_agent(f"{agent}:{path}", "Tabletop/Splendor-v0")
    assert str(path) in str(refused.value)
    assert make_agent(f"{agent}:{path}", "royal_assassin") is not None
