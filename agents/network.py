"""Learned policies played like any other agent: the project's own masked PPO (``model.pt``, written by
``tabletop-gym train``) and sb3-contrib's MaskablePPO (``model.zip``, ``tabletop-gym train --algo sb3``).
Importing this module imports torch (the ``rl`` extra)."""

from __future__ import annotations

import json
import pickle
import re
import zipfile
from pathlib import Path

import numpy as np
import torch
from torch import nn

from ..envs.core.errors import BadFileError
from .policy import MAX_LAYER_WIDTH, check_record, check_trained_on, existing_file, one_line


def _layer(size_in: int, size_out: int, gain: float) -> nn.Linear:
    linear = nn.Linear(size_in, size_out)
    nn.init.orthogonal_(linear.weight, gain)
    nn.init.zeros_(linear.bias)
    return linear


class MaskedPolicy(nn.Module):
    """An actor and a critic, each an MLP over the flat observation; the actor's logits masked to the legal
    actions (an illegal action gets a logit of -1e9, so its probability is 0).

    ``obs_high`` (the observation space's upper bounds) scales every entry into [0, 1] before the first layer:
    the envs' observations are counts and values (a draw pile of 33, a card value of 13) beside 0/1 flags, and
    unscaled, the large entries swamp the flags in a tanh network's first layer.

    ``action_fields=k`` is for an observation that ends with ``k`` fields for each action (a game's
    ``observation="actions"``): the actor's MLP then reads the rest of the observation into a summary (its last
    hidden layer), and one small MLP, the scorer (``scorer_hidden``), gives each action its logit from the
    summary and that action's fields, with the same weights for every action. The critic reads the rest only.

    ``read_from=k``: the actor's summary and the critic do not read the observation's first ``k`` entries. For
    ``observation="actions"`` that is the plain observation (``k = observation_size(rules, features, "plain")``): its
    one-hots of where each card lies let a network learn its training deals by heart, and without them the
    summary reads the features alone.
    """

    def __init__(self, obs_size: int, num_actions: int, hidden=(256, 256), obs_high=None, action_fields: int = 0,
                 scorer_hidden=(128, 128), read_from: int = 0):
        super().__init__()
        self.shape = {"obs_size": int(obs_size), "num_actions": int(num_actions), "hidden": list(hidden),
                      "action_fields": int(action_fields), "scorer_hidden": list(scorer_hidden),
                      "read_from": int(read_from)}
        self.table_size = int(obs_size) - int(num_actions) * int(action_fields)  # where the table ends
        if action_fields < 0 or self.table_size <= 0:
            raise ValueError(f"action_fields={action_fields} for {num_actions} actions does not fit an observation "
                             f"of {obs_size}")
        if not 0 <= read_from < self.table_size:
            raise ValueError(f"read_from={read_from} leaves nothing of the table's {self.table_size} entries to read")
        self.read_from = int(read_from)
        scale = np.ones(obs_size, dtype=np.float32)
        if obs_high is not None:
            high = np.asarray(obs_high, dtype=np.float32).reshape(-1)
            if high.shape != (obs_size,):
                raise ValueError(f"obs_high has {high.size} entries; the observation has {obs_size}")
            usable = np.isfinite(high) & (high > 0)
            scale[usable] = 1 / high[usable]
        self.register_buffer("obs_scale", torch.as_tensor(scale))  # saved with the weights
        self.action_fields = int(action_fields)
        if action_fields:
            self.actor = nn.Sequential(*self._mlp(self.table_size - read_from, hidden[:-1], hidden[-1], np.sqrt(2)),
                                       nn.Tanh())
            self.scorer = self._mlp(hidden[-1] + action_fields, scorer_hidden, 1, 0.01)
        else:
            # small: the first policy is near uniform
            self.actor = self._mlp(obs_size - read_from, hidden, num_actions, 0.01)
        self.critic = self._mlp(self.table_size - read_from, hidden, 1, 1.0)

    @staticmethod
    def _mlp(obs_size: int, hidden, last_size: int, last_gain: float) -> nn.Sequential:
        sizes = [obs_size, *hidden]
        layers = []
        for a, b in zip(sizes, sizes[1:]):
            layers += [_layer(a, b, np.sqrt(2)), nn.Tanh()]
        return nn.Sequential(*layers, _layer(sizes[-1], last_size, last_gain))

    def value(self, obs):
        return self.critic((obs * self.obs_scale)[:, self.read_from:self.table_size]).squeeze(-1)

    def logits(self, obs, mask):
        x = obs * self.obs_scale
        if not self.action_fields:
            return self.actor(x[:, self.read_from:]).masked_fill(~mask, -1e9)
        summary = self.actor(x[:, self.read_from:self.table_size])
        fields = x[:, self.table_size:].reshape(len(x), mask.shape[1], self.action_fields)
        rows, actions = mask.nonzero(as_tuple=True)  # the legal actions alone are scored: a few of the 33
        scores = self.scorer(torch.cat([summary[rows], fields[rows, actions]], dim=-1)).squeeze(-1)
        return torch.full(mask.shape, -1e9, dtype=scores.dtype).index_put((rows, actions), scores)

    def act(self, obs, mask, action=None):
        """(action, its log-probability, the entropy, the value); samples an action unless one is given."""
        distribution = torch.distributions.Categorical(logits=self.logits(obs, mask))
        if action is None:
            action = distribution.sample()
        return action, distribution.log_prob(action), distribution.entropy(), self.value(obs)


def save_policy(policy, path, record: dict) -> None:
    """The policy's weights, its shape and ``record`` (what it was trained on) in one file. The record is kept to
    plain JSON values, as a ``.npz`` policy's is: ``load_policy`` reads nothing else."""
    plain = json.loads(json.dumps(record, default=str))
    torch.save({"shape": policy.shape, "state_dict": policy.state_dict(), "record": plain}, path)


# What a saved policy's ``shape`` holds: MaskedPolicy's arguments, whole numbers or lists of them.
SHAPE_NUMBERS = ("obs_size", "num_actions", "action_fields", "read_from")
SHAPE_LISTS = ("hidden", "scorer_hidden")
MAX_OBSERVATION = 2**20  # entries of an observation or actions of a game, far above any game's


def load_policy(path):
    """(policy, record) from a file ``save_policy`` wrote. The file is read as data (tensors, numbers, text, lists
    and dicts) and never run: a pickle that would build anything else is refused. A ``BadFileError`` names the
    file and what is wrong with it."""
    path = existing_file(path, "policy")
    try:
        saved = torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as error:  # what torch's weights-only reader refuses to build
        named = re.search(r"GLOBAL (\S+)", str(error))  # what the file would have built, where torch names it
        if named:
            raise BadFileError(path, f"not a policy tabletop-gym train saved: it holds objects other than weights "
                                     f"and plain values ({named.group(1)}), and loading it would run code "
                                     f"(refused)") from None
        raise BadFileError(path, "not a policy tabletop-gym train saved: its pickle is damaged or holds more than "
                                 "weights and plain values (refused, not run)") from None
    except Exception as error:  # torch's reader fails in many ways on a damaged file; it ran nothing in it
        raise BadFileError(path, f"not a policy tabletop-gym train saved (damaged or of another kind): "
                                 f"{type(error).__name__}: {one_line(error).split('. ')[0][:200]}") from None
    shape, state, record = saved_parts(saved, path)
    with torch.device("meta"):  # the layers the shape declares, none allocated: they must be the file's
        expected = {key: tuple(value.shape) for key, value in built(shape, path).state_dict().items()}
    found = {key: tuple(value.shape) for key, value in state.items()}
    if found != expected:
        missing = sorted(set(expected) - set(found)) or sorted(key for key in found if found[key] != expected.get(key))
        raise BadFileError(path, f"its weights do not fit its shape {shape}: {', '.join(missing[:3])}")
    for key, value in state.items():
        if not value.is_floating_point() or not torch.isfinite(value).all():
            raise BadFileError(path, f"its {key} holds {value.dtype} numbers, some not finite or not floats")
    policy = built(shape, path)
    try:
        policy.load_state_dict(state)
    except RuntimeError as error:  # a tensor of another layout (sparse, quantized...)
        raise BadFileError(path, f"its weights do not load: {one_line(error)[:200]}") from None
    policy.eval()
    return policy, record


def saved_parts(saved, path):
    """(shape, state_dict, record) of what a policy file held; a ``BadFileError`` if it is not a dict of those
    three or they are not of their kinds."""
    if not isinstance(saved, dict) or not {"shape", "state_dict", "record"} <= set(saved):
        raise BadFileError(path, "not a policy tabletop-gym train saved: it holds no shape, state_dict and record")
    shape, state, record = saved["shape"], saved["state_dict"], saved["record"]
    numbers_ok = isinstance(shape, dict) and set(shape) == set(SHAPE_NUMBERS + SHAPE_LISTS) and all(
        type(shape[key]) is int and 0 <= shape[key] <= MAX_OBSERVATION for key in SHAPE_NUMBERS) and all(
        isinstance(shape[key], list) and all(type(width) is int and 0 < width <= MAX_LAYER_WIDTH
                                             for width in shape[key]) for key in SHAPE_LISTS)
    if not numbers_ok or not shape["hidden"]:
        raise BadFileError(path, f"its shape {repr(shape)[:200]} is not a policy's (sizes, and layer widths of "
                                 f"1 to {MAX_LAYER_WIDTH:,})")
    if not isinstance(state, dict) or not all(isinstance(value, torch.Tensor) for value in state.values()):
        raise BadFileError(path, "its state_dict is not a dict of tensors")
    check_record(record, path)
    return shape, state, record


def built(shape: dict, path) -> MaskedPolicy:
    """The MaskedPolicy of a saved ``shape``; a ``BadFileError`` if the shape does not make one."""
    try:
        return MaskedPolicy(**shape)
    except ValueError as error:
        raise BadFileError(path, f"its shape does not make a policy: {one_line(error)}") from None


SB3_MEMBERS = ("data", "policy.pth")  # what every model MaskablePPO saves holds: its settings (JSON) and weights


def check_sb3_model(path: str) -> None:
    """A ``BadFileError`` unless ``path`` (or ``path.zip``, as MaskablePPO names it) is a zip archive holding a
    MaskablePPO model's settings and weights. Its contents are not unpickled here: that is MaskablePPO's load."""
    file = Path(path)
    if not file.exists() and Path(path + ".zip").exists():
        file = Path(path + ".zip")
    if file.is_dir():
        raise BadFileError(file, "a folder, not a saved model (a run's model.pt, policy.npz or model.zip)")
    if not file.is_file():
        raise BadFileError(file, "no saved model at this path (no such file)")
    try:
        with zipfile.ZipFile(file) as archive:
            missing = [name for name in SB3_MEMBERS if name not in archive.namelist()]
            settings = None if missing else json.loads(archive.read("data"))
    except Exception as error:  # zipfile's ways of failing on a damaged archive, or JSON's
        raise BadFileError(file, f"not a saved model (.pt, .npz, or a MaskablePPO .zip): {one_line(error)}") from None
    if missing or not isinstance(settings, dict):
        raise BadFileError(file, f"not a MaskablePPO model: it holds no {' or '.join(missing) or 'settings'}")


class PPOAgent:
    """Plays a saved policy, always through the action mask: a ``.pt`` file of the project's own PPO or a
    MaskablePPO ``.zip``. ``deterministic`` plays the most likely legal action; otherwise one is sampled.

    The model is loaded lazily and not pickled, so the agent can be sent to evaluation workers by path. A ``.pt``
    file is read once when the agent is built as well, so that a file that is no policy, or a policy of another
    ``game`` than the one named, is refused at once rather than at the first move.
    """

    name = "ppo"

    def __init__(self, path, deterministic: bool = True, seed=None, game: str | None = None):
        self.path = str(path)
        self.own = self.path.endswith(".pt")
        if not self.own:
            check_sb3_model(self.path)
        self.deterministic = deterministic
        self._model = None
        self._generator = None
        self._seed = seed
        if self.own:
            check_trained_on(load_policy(self.path)[1], game, self.path)

    @property
    def model(self):
        if self._model is None:
            if self.own:
                torch.set_num_threads(1)  # one game's decision is a tiny product: threads only add waiting
                self._model, _ = load_policy(self.path)
            else:
                from sb3_contrib import MaskablePPO

                try:
                    self._model = MaskablePPO.load(self.path, device="cpu")
                except Exception as error:  # MaskablePPO's reader fails in many ways on a damaged file
                    raise BadFileError(self.path, f"not a MaskablePPO model (damaged or of another kind): "
                                                  f"{one_line(error)[:200]}") from None
        return self._model

    def reset(self, seed=None) -> None:
        if seed is None:
            return
        if self.own:
            self._generator = torch.Generator().manual_seed(int(seed))
        else:
            self.model.set_random_seed(seed)

    def act(self, observation, action_mask) -> int:
        if not self.own:
            action, _ = self.model.predict(np.asarray(observation), action_masks=np.asarray(action_mask, dtype=bool),
                                           deterministic=self.deterministic)
            return int(action)
        return int(self.act_batch(np.asarray(observation)[None], np.asarray(action_mask)[None])[0])

    def act_batch(self, observations, masks) -> np.ndarray:
        """One action per row (the project's own policies only)."""
        if not self.own:
            return np.array([self.act(o, m) for o, m in zip(observations, masks)])
        with torch.no_grad():
            logits = self.model.logits(torch.as_tensor(np.asarray(observations), dtype=torch.float32),
                                       torch.as_tensor(np.asarray(masks, dtype=bool)))
            if self.deterministic:
                return logits.argmax(dim=1).numpy()
            if self._generator is None:
                self._generator = torch.Generator().manual_seed(0 if self._seed is None else int(self._seed))
            return torch.multinomial(logits.softmax(dim=1), 1, generator=self._generator).squeeze(1).numpy()

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_model"] = None
        state["_generator"] = None
        return state
