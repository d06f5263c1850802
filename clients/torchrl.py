"""TorchRL: the envs as TorchRL environments, each info key read into a spec and the action mask applied to the
action spec.

TorchRL wraps a Gymnasium env as it is (``GymEnv(id)``, with ``auto_register_info_dict()`` for the infos); what it
does not do by itself is read ``info["action_mask"]`` as the mask of the action spec. ``make_env`` does the two
together, for one game or for the native vector env::

    from tabletop_gym.clients.torchrl import make_env

    env = make_env(game, num_envs=64, illegal_action="raise")  # game: a short name or id of GAMES
    rollout = env.rollout(200, break_when_any_done=False)      # random legal moves: env.action_spec is masked
    rollout["next", "action_mask"]                              # bool; rollout["next", "won"], every info key

A policy masks its logits with the same key: TorchRL's ``ProbabilisticActor`` with ``MaskedCategorical`` and
``in_keys={"logits": "logits", "mask": "action_mask"}``. Actions are integers, as the env's ``Discrete`` space has them.
``make_env`` takes a game's short name or its id, and the env's own keyword arguments (``illegal_action``,
``skip_forced``, a game's options). The vector env resets finished rows as TorchRL asks (Gymnasium's
``AutoresetMode.DISABLED``, the mode TorchRL prefers; with ``SAME_STEP`` TorchRL's own check of the final
observations fails whenever the last step of its check ended no game, on Gymnasium's vector envs as on these).

A game of several players, through TorchRL's own PettingZoo wrapper (``pettingzoo_env``): the AEC env, or the
turn-based parallel view, each agent a group of its own, its mask read from its observation::

    from tabletop_gym.clients.torchrl import pettingzoo_env

    env = pettingzoo_env(game, num_players=2, parallel=True, illegal_action="raise")   # a game of players
    rollout = env.rollout(100, break_when_any_done=False)
    rollout["player_0", "action_mask"]
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import torch
from torchrl.data import Binary, Composite, Unbounded
from torchrl.envs import ActionMask, Compose, DTypeCastTransform, GymWrapper, PettingZooWrapper, TransformedEnv
from torchrl.envs.gym_like import default_info_dict_reader

from tabletop_gym.envs import game as find_game

MASK = "action_mask"


def make_env(game: str, num_envs: int | None = None, *, device: str | torch.device = "cpu",
             **kwargs) -> TransformedEnv:
    """The game as a TorchRL env: one game (``num_envs=None``) or the native vector env of ``num_envs`` rows; every
    info key a spec (``info_reader``), the mask cast to bools (what TorchRL's masks take), the action spec masked
    by it (TorchRL's ``ActionMask``). ``kwargs`` go to ``gym.make`` / ``gym.make_vec`` (the env's own arguments)."""
    env_id = find_game(game).id
    if num_envs is None:
        gym_env = gym.make(env_id, **kwargs)
    else:
        gym_env = gym.make_vec(env_id, num_envs=num_envs, autoreset_mode=gym.vector.AutoresetMode.DISABLED,
                               **kwargs)
    wrapped = GymWrapper(gym_env, categorical_action_encoding=True, device=device)
    wrapped.set_info_dict_reader(info_reader(gym_env))
    as_bools = DTypeCastTransform(torch.int8, torch.bool, in_keys=[MASK])
    return TransformedEnv(wrapped, Compose(as_bools, ActionMask(mask_key=MASK)))


def info_reader(gym_env: gym.Env | gym.vector.VectorEnv) -> default_info_dict_reader:
    """TorchRL's info reader with a spec per info key, found from a reset's info (every key is there from reset
    on, numeric, with one shape): the mask a ``Binary`` of int8, the others unbounded of their own dtype. A vector
    env's keys with a leading underscore (which rows hold a key) are left out, as TorchRL leaves them."""
    _, info = gym_env.reset()
    specs = {}
    for key, value in info.items():
        if key.startswith("_"):
            continue
        value = np.asarray(value)
        dtype = torch.from_numpy(np.zeros((), value.dtype)).dtype
        if key == MASK:
            specs[key] = Binary(n=value.shape[-1], shape=value.shape, dtype=dtype)
        else:
            specs[key] = Unbounded(shape=value.shape, dtype=dtype)
    return default_info_dict_reader(list(specs), spec=Composite(specs, shape=()))


def pettingzoo_env(game: str, *, parallel: bool = False, device: str | torch.device = "cpu",
                   **kwargs) -> PettingZooWrapper:
    """A game of several players through TorchRL's ``PettingZooWrapper``: its AEC env (``parallel=False``) or its
    turn-based parallel view, each agent its own group (the seats are not interchangeable: each sees the table
    from its own seat), its action mask applied (``use_mask``), actions as integers. ``kwargs`` go to the game's
    ``env`` / ``parallel_env`` (``num_players``, ``illegal_action``...)."""
    module = find_game(game).aec_module()
    pettingzoo = module.parallel_env(**kwargs) if parallel else module.env(**kwargs)
    return PettingZooWrapper(pettingzoo, use_mask=True, categorical_actions=True,
                             group_map={agent: [agent] for agent in pettingzoo.possible_agents}, device=device)
