"""A learned policy played with numpy alone: the actor of a policy ``tabletop-gym train`` learned, exported as a
``.npz`` file of its weights, so that playing it needs no torch.

Each game's best learned policy ships in ``agents/models/<game>.npz``; ``make_agent("ppo", game)`` plays it. The
policy PPO learns alone, from random weights with no cloning (pure reinforcement learning), ships beside it in
``agents/models/scratch/<game>.npz``; ``make_agent("ppo-scratch", game)`` plays that. ``make_agent("ppo:<path>")``
plays any other (``.npz``, or ``model.pt`` and ``model.zip`` through torch, or a run folder of ``tabletop-gym train``:
the model its ``result.json`` names). A file the loaders cannot use is a ``BadFileError`` naming it.

A policy file holds the observation's scale, the layers' weights and biases in order (``weight_0``, ``bias_0``, ...;
tanh between layers, none after the last), and ``record``: a JSON text of how the policy was trained (the game, its
options, the start, the steps, the seed, the command). A policy that scores each action
(``MaskedPolicy(action_fields=k)``) also holds ``action_fields`` and its scorer's layers (``score_weight_0``, ...);
its ``weight_`` layers are then the summary of the table, with tanh after the last as well. A policy that does not
read the observation's first entries (``MaskedPolicy(read_from=k)``) holds ``read_from``.
"""

from __future__ import annotations

import json
import zipfile
from importlib import import_module
from math import prod
from pathlib import Path

import numpy as np

from ..envs.core.env import observation_modes, observation_size, with_features
from ..envs.core.errors import BadFileError

MODELS = Path(__file__).parent / "models"
SCRATCH = "scratch"  # the folder in MODELS of the policies learned from scratch

# What a saved policy or value may be, checked before its arrays are read: a file declares each array's shape in
# its header, and numpy allocates what the header says. The shipped policies have layers of 256 units at most and
# arrays of under half a MB; these caps leave room for much larger trained ones and refuse a file that would make
# a load allocate gigabytes.
MAX_LAYER_WIDTH = 4096  # units in one layer: its weight's rows
MAX_SAVED_BYTES = 16 * 2**20  # what all of a file's arrays take in memory together (4M float32 numbers)


def committed_model(game: str, from_scratch: bool = False) -> Path:
    """The path of a game's shipped policy (short name), or of its policy learned from scratch; a ``ValueError``
    naming the games that have one."""
    folder = MODELS / SCRATCH if from_scratch else MODELS
    path = folder / f"{game}.npz"
    if not path.exists():
        shipped = sorted(p.stem for p in folder.glob("*.npz"))
        kind = "policy learned from scratch" if from_scratch else "learned policy"
        raise ValueError(f"no {kind} ships for {game}; the games that have one: {', '.join(shipped) or 'none'}")
    return path


class PolicyNetwork:
    """The actor MLP of a saved policy: masked logits from observations, batched. ``arrays`` are a saved file's
    (``policy_arrays``), or a path to one."""

    def __init__(self, arrays):
        source = "the saved policy" if isinstance(arrays, dict) else str(arrays)
        arrays = saved_arrays(arrays, "policy")
        self.obs_scale = finite(saved_array(arrays, "obs_scale", source), "obs_scale", source).reshape(-1)
        self.layers = mlp_layers(arrays, "", source)
        self.action_fields = saved_count(arrays, "action_fields", source)
        self.scorer = mlp_layers(arrays, "score_", source) if self.action_fields else []
        self.read_from = saved_count(arrays, "read_from", source)
        self.record = saved_record(arrays, source)
        self.obs_size = len(self.obs_scale)
        self.table_size = self.read_from + self.layers[0][0].shape[1]  # where the table ends
        self.num_actions = ((self.obs_size - self.table_size) // self.action_fields if self.action_fields
                            else self.layers[-1][0].shape[0])
        self.check_shapes(source)

    def check_shapes(self, source: str) -> None:
        """A ``BadFileError`` naming ``source`` unless the layers fit the observation and one another."""
        fields = self.obs_size - self.table_size  # the observation's entries after the table: each action's fields
        if self.read_from < 0 or fields < 0 or (fields and not self.action_fields):
            raise BadFileError(source, f"its first layer reads {self.layers[0][0].shape[1]} entries from entry "
                                       f"{self.read_from}; its observation has {self.obs_size}")
        if not self.action_fields:
            return
        if self.action_fields < 0 or fields % self.action_fields:
            raise BadFileError(source, f"it scores actions of {self.action_fields} fields; its observation has "
                                       f"{fields} after the table")
        reads, summary = self.scorer[0][0].shape[1], self.layers[-1][0].shape[0]
        if reads != summary + self.action_fields or self.scorer[-1][0].shape[0] != 1:
            raise BadFileError(source, f"its scorer reads {reads} entries and gives {self.scorer[-1][0].shape[0]}; "
                                       f"it takes the summary's {summary} and an action's {self.action_fields}, "
                                       f"and gives 1")

    def logits(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        x = np.asarray(observations, dtype=np.float32).reshape(-1, self.obs_size) * self.obs_scale
        masks = np.asarray(masks, dtype=bool).reshape(len(x), self.num_actions)
        if not self.action_fields:
            return np.where(masks, mlp_forward(self.layers, x[:, self.read_from:]), -1e9)
        summary = np.tanh(mlp_forward(self.layers, x[:, self.read_from:self.table_size]))
        fields = x[:, self.table_size:].reshape(len(x), self.num_actions, self.action_fields)
        rows, actions = np.nonzero(masks)  # the legal actions alone are scored
        logits = np.full(masks.shape, -1e9, dtype=np.float32)
        logits[rows, actions] = mlp_forward(self.scorer, np.concatenate([summary[rows], fields[rows, actions]],
                                                                     axis=-1))[:, 0]
        return logits


def saved_arrays(arrays, kind: str = "policy or value") -> dict:
    """The arrays of a saved ``.npz`` file given by its path (or already loaded: returned as they are); a
    ``BadFileError`` naming the file if it is missing, no ``.npz``, damaged, or declares more than
    ``MAX_SAVED_BYTES``, before any array is read."""
    if isinstance(arrays, dict):
        return arrays
    path = existing_file(arrays, kind)
    declared = declared_bytes(path)
    if declared > MAX_SAVED_BYTES:
        raise BadFileError(path, f"declares arrays of {declared:,} bytes; a saved policy or value holds at most "
                                 f"{MAX_SAVED_BYTES:,}")
    try:
        with np.load(path, allow_pickle=False) as saved:
            return {key: saved[key] for key in saved.files}
    except Exception as error:  # see declared_bytes
        raise BadFileError(path, f"a damaged .npz: {one_line(error)}") from None


def one_line(error: Exception) -> str:
    """An error's message on one line (some readers' messages span several)."""
    return " ".join(str(error).split()) or type(error).__name__


def existing_file(path, kind: str) -> Path:
    """``path`` as a ``Path``; a ``BadFileError`` if nothing is there or it is a folder (``kind``: what should be
    saved there, for the message)."""
    path = Path(path)
    if path.is_dir():
        raise BadFileError(path, f"a folder, not a saved {kind}")
    if not path.is_file():
        raise BadFileError(path, f"no saved {kind} at this path (no such file)")
    return path


HEADER_READERS = {(1, 0): np.lib.format.read_array_header_1_0, (2, 0): np.lib.format.read_array_header_2_0}


def declared_bytes(path) -> int:
    """The bytes that the arrays of the ``.npz`` at ``path`` take once loaded, as their headers declare them."""
    total = 0
    try:
        with zipfile.ZipFile(path) as archive:
            for name in archive.namelist():
                with archive.open(name) as member:
                    version = np.lib.format.read_magic(member)
                    if version not in HEADER_READERS:
                        raise ValueError(f"{name} is an .npy of version {version}")
                    shape, _, dtype = HEADER_READERS[version](member)
                total += prod(shape) * dtype.itemsize
    # zipfile, zlib and numpy's header parser fail in many ways on altered bytes (a bad directory, a failed CRC, a
    # broken deflate stream, an early end, a header that does not parse...): each is the file's fault, and with
    # no pickles allowed nothing in the file ran to raise it.
    except Exception as error:
        raise BadFileError(path, f"not a saved policy or value (.npz): {one_line(error)}") from None
    return total


def saved_array(arrays: dict, key: str, source, kinds: str = "fiu") -> np.ndarray:
    """The saved array ``key``; a ``BadFileError`` naming ``source`` if there is none or its numbers are not of
    ``kinds`` (numpy's dtype kinds: float, signed and unsigned integer by default)."""
    if key not in arrays:
        raise BadFileError(source, f"it has no {key}")
    array = np.asarray(arrays[key])
    if array.dtype.kind not in kinds:
        raise BadFileError(source, f"its {key} holds {array.dtype} values, not numbers")
    return array


def finite(array: np.ndarray, key: str, source) -> np.ndarray:
    """``array`` as float32; a ``BadFileError`` naming ``source`` if an entry is NaN or infinite."""
    array = array.astype(np.float32)
    if not np.isfinite(array).all():
        raise BadFileError(source, f"its {key} holds NaN or infinite numbers")
    return array


def saved_count(arrays: dict, key: str, source) -> int:
    """The whole number saved as ``key`` (0 if none is)."""
    if key not in arrays:
        return 0
    count = saved_array(arrays, key, source, kinds="iu")
    if count.shape != ():
        raise BadFileError(source, f"its {key} has shape {count.shape}; it is one number")
    return int(count)


def saved_record(arrays: dict, source) -> dict:
    """The record saved as ``record``: a JSON object, whose ``game`` is a text and whose ``env_kwargs``, where it
    has them, are an object with a text ``observation``."""
    if "record" not in arrays:
        raise BadFileError(source, "it has no record")
    text = np.asarray(arrays["record"])
    if text.dtype.kind != "U" or text.shape != ():
        raise BadFileError(source, f"its record is an array of {text.dtype} of shape {text.shape}, not a text")
    try:
        record = json.loads(str(text))
    except ValueError as error:
        raise BadFileError(source, f"its record is not JSON: {one_line(error)}") from None
    return check_record(record, source)


def check_record(record, source) -> dict:
    """``record``, a saved model's record, if it is a dict whose ``game`` is a text and whose ``env_kwargs``, where
    it has them, are a dict with a text ``observation``; else a ``BadFileError`` naming ``source``."""
    if not isinstance(record, dict):
        raise BadFileError(source, f"its record is a {type(record).__name__}, not an object")
    options = record.get("env_kwargs", {})
    if not isinstance(record.get("game", ""), str) or not isinstance(options, dict) \
            or not isinstance(options.get("observation", ""), str):
        raise BadFileError(source, "its record's game, env_kwargs or observation is of the wrong type")
    return record


class ValueNetwork:
    """A learned value played with numpy: the chance of a win from the fields describing a position, an MLP saved
    as a policy's layers are (``weight_0``, ``bias_0``, ...; tanh between layers) with a sigmoid after its one
    output, and ``record`` (how it was trained). ``arrays`` are a saved file's, or a path to one."""

    def __init__(self, arrays):
        source = "the saved value" if isinstance(arrays, dict) else str(arrays)
        arrays = saved_arrays(arrays, "value")
        self.layers = mlp_layers(arrays, "", source)
        if self.layers[-1][0].shape[0] != 1:
            raise BadFileError(source, f"its last layer gives {self.layers[-1][0].shape[0]} outputs; a value gives 1")
        self.record = saved_record(arrays, source)
        self.field_count = self.layers[0][0].shape[1]

    def __call__(self, fields: np.ndarray) -> np.ndarray:
        """The value of each row of ``fields`` (rows, ``field_count``), in [0, 1]."""
        z = mlp_forward(self.layers, np.asarray(fields, dtype=np.float32))[:, 0]
        return 1 / (1 + np.exp(-z))


def saved_value(path: str, network: ValueNetwork | None, field_count: int, fields_of: str) -> ValueNetwork:
    """``network``, or else the value saved at ``path``, checked to read ``field_count`` fields (of ``fields_of``, for
    the error: what a game's value reads)."""
    if network is None:
        network = ValueNetwork(path)
    if network.field_count != field_count:
        raise BadFileError(path, f"the value reads {network.field_count} fields; {fields_of} have {field_count}")
    return network


def mlp_layers(arrays: dict, prefix: str = "", source="the saved arrays") -> list:
    """The (weight, bias) pairs of a saved MLP, in order: ``{prefix}weight_0``, ``{prefix}bias_0``, ...; a
    ``BadFileError`` naming ``source`` (the file) where a layer is missing, holds no numbers or NaN, does not read
    what the layer before it gives, or is wider than ``MAX_LAYER_WIDTH``."""
    count = sum(1 for key in arrays if key.startswith(prefix + "weight_"))
    layers = []
    for i in range(count):
        name = f"{prefix}weight_{i}"
        if name not in arrays or f"{prefix}bias_{i}" not in arrays:
            raise BadFileError(source, f"it has no {name} or {prefix}bias_{i}: its layers are not numbered 0 to "
                                       f"{count - 1}")
        weight, bias = saved_array(arrays, name, source), saved_array(arrays, f"{prefix}bias_{i}", source)
        if weight.ndim != 2 or bias.shape != weight.shape[:1]:
            raise BadFileError(source, f"its {name} has shape {weight.shape} and its bias {bias.shape}: not a layer")
        if weight.shape[0] > MAX_LAYER_WIDTH:
            raise BadFileError(source, f"its {name} has {weight.shape[0]:,} units; a layer has at most "
                                       f"{MAX_LAYER_WIDTH:,}")
        if layers and weight.shape[1] != layers[-1][0].shape[0]:
            raise BadFileError(source, f"its {name} reads {weight.shape[1]} entries; the layer before gives "
                                       f"{layers[-1][0].shape[0]}")
        if 0 in weight.shape:
            raise BadFileError(source, f"its {name} has shape {weight.shape}: an empty layer")
        layers.append((finite(weight, name, source), finite(bias, f"{prefix}bias_{i}", source)))
    if not layers:
        raise BadFileError(source, f"it has no {prefix}weight_0: no layers")
    return layers


def mlp_forward(layers, x: np.ndarray) -> np.ndarray:
    """An MLP's output: tanh between the layers, none after the last."""
    for i, (weight, bias) in enumerate(layers):
        x = x @ weight.T + bias
        if i < len(layers) - 1:
            x = np.tanh(x)
    return x


class PolicyAgent:
    """Plays a ``.npz`` policy through the action mask: the most likely legal action (``deterministic``), or one
    sampled from the policy's probabilities with the agent's own generator."""

    name = "ppo"

    def __init__(self, path, deterministic: bool = True, seed: int | None = None, network: PolicyNetwork = None,
                 game: str | None = None):
        self.path = str(path)
        self.network = network or PolicyNetwork(self.path)
        self.record = self.network.record
        check_trained_on(self.record, game, self.path)
        self.feature_module = _feature_module(self.record, self.network.obs_size, self.path)
        self._features = None  # that features module, found at the first use (not pickled)
        self.deterministic = deterministic
        self.rng = np.random.default_rng(seed)

    def __getstate__(self):
        return {**self.__dict__, "_features": None}

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def _logits(self, observations, masks) -> np.ndarray:
        observations = np.asarray(observations, dtype=np.float32)
        if self.feature_module is not None and observations.shape[-1] != self.network.obs_size:
            # A plain env: add the features the policy learnt from.
            if self._features is None:
                self._features = import_module(self.feature_module)
            observations = with_features(self._features, self.record["env_kwargs"]["observation"], observations)
        return self.network.logits(observations, masks)

    def probabilities(self, observations, masks) -> np.ndarray:
        logits = self._logits(observations, masks)
        weights = np.exp(logits - logits.max(axis=1, keepdims=True))
        return weights / weights.sum(axis=1, keepdims=True)

    def act_batch(self, observations, masks) -> np.ndarray:
        """One action per row."""
        masks = np.asarray(masks, dtype=bool)
        if not masks.any(axis=-1).all():
            raise ValueError("no legal action to choose from")
        if self.deterministic:
            return self._logits(observations, masks).argmax(axis=1)
        cumulative = self.probabilities(observations, masks).cumsum(axis=1)
        picks = self.rng.random(len(cumulative))[:, None] * cumulative[:, -1:]
        return np.minimum((cumulative <= picks).sum(axis=1), masks.shape[-1] - 1)

    def act(self, observation, action_mask) -> int:
        return int(self.act_batch(np.asarray(observation)[None], np.asarray(action_mask)[None])[0])


def check_trained_on(record: dict, game: str | None, path: str) -> None:
    """A ``BadFileError`` naming both games if the policy at ``path`` was trained on another game than ``game`` (by
    its ``record``); nothing if no game is named or the record names none."""
    if game is None or "game" not in record:
        return
    from ..envs import game as game_entry

    trained_on, playing = recorded_game(record, path), game_entry(game)
    if trained_on.name != playing.name:
        raise BadFileError(path, f"the policy was trained on {trained_on.name}; it cannot play {playing.name}")


def recorded_game(record: dict, path: str):
    """The ``Game`` a saved policy's ``record`` names; a ``BadFileError`` if it names none listed."""
    from ..envs import game

    try:
        return game(record["game"])
    except (KeyError, ValueError):
        raise BadFileError(path, f"its record names no game listed here ({record.get('game')!r})") from None


def _feature_module(record: dict, obs_size: int, path: str) -> str | None:
    """For a policy trained with ``observation="features"`` or ``"actions"``: the name of the game's features
    module, which turns the game's plain observations into the ones it learnt from, so that it plays the plain env
    as well (a name, so that the agent pickles to evaluation workers). None for a plain policy."""
    mode = record.get("env_kwargs", {}).get("observation", "plain")
    if mode == "plain":
        return None
    entry = recorded_game(record, path)
    rules, features = entry.module("rules"), entry.module("features", required=False)
    if mode not in observation_modes(features):
        raise BadFileError(path, f"the policy was trained with observation={mode!r}; {entry.name} has only "
                                 f"{', '.join(map(repr, observation_modes(features)))}")
    if observation_size(rules, features, mode) != obs_size:
        raise BadFileError(path, f"the policy takes {obs_size} observations; {record['game']}'s with "
                                 f"observation={mode!r} are {observation_size(rules, features, mode)}")
    return features.__name__


def policy_arrays(policy, record: dict) -> dict:
    """The actor of a torch ``MaskedPolicy`` as the arrays of a ``.npz`` policy (float16 weights: half the size,
    and the same moves to within rounding)."""
    arrays = {"obs_scale": policy.obs_scale.detach().numpy().astype(np.float32),
              "record": np.array(json.dumps(record, default=str))}
    parts = [("", policy.actor)]
    if getattr(policy, "action_fields", 0):
        arrays["action_fields"] = np.array(policy.action_fields)
        parts.append(("score_", policy.scorer))
    if getattr(policy, "read_from", 0):
        arrays["read_from"] = np.array(policy.read_from)
    for prefix, mlp in parts:
        arrays.update(layer_arrays(mlp, prefix))
    return arrays


def layer_arrays(mlp, prefix: str = "", weight_dtype=np.float16) -> dict:
    """The linear layers of a torch ``nn.Sequential`` as saved arrays (``{prefix}weight_0``, ...), which
    ``mlp_layers`` reads back."""
    arrays = {}
    for i, layer in enumerate(layer for layer in mlp if hasattr(layer, "weight")):
        arrays[f"{prefix}weight_{i}"] = layer.weight.detach().numpy().astype(weight_dtype)
        arrays[f"{prefix}bias_{i}"] = layer.bias.detach().numpy().astype(np.float32)
    return arrays


def export_policy(policy, path, record: dict) -> Path:
    """Write the actor of a torch ``MaskedPolicy`` as a ``.npz`` file ``PolicyAgent`` plays."""
    path = Path(path)
    np.savez_compressed(path, **policy_arrays(policy, record))
    return path


def snapshot(policy, name: str = "snapshot", record: dict | None = None) -> PolicyAgent:
    """A frozen copy of a torch ``MaskedPolicy`` as it is now, played with numpy: a self-play opponent."""
    agent = PolicyAgent(name, network=PolicyNetwork(policy_arrays(policy, record or {})))
    agent.name = name
    return agent
