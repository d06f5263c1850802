"""AgileRL: its algorithms take the legal actions from ``info["action_mask"]``.

**One learner** (a solitaire, or a multi-player game against its built-in opponents; the Gymnasium ids): nothing to
add. Every info holds ``action_mask`` and AgileRL's own loops pass it to the agent (``collect_rollouts`` for PPO,
``train_off_policy`` for DQN, and their ``test``). The id names the module that registers it, for the worker
processes of AgileRL's vector env where they are spawned (macOS, Windows)::

    import tabletop_gym.envs
    from agilerl.algorithms import PPO
    from agilerl.rollouts import collect_rollouts
    from agilerl.utils.utils import make_vect_envs

    envs = make_vect_envs(f"tabletop_gym.envs:{env_id}", num_envs=8)  # env_id: an id of tabletop_gym.envs.GAMES
    agent = PPO(envs.single_observation_space, envs.single_action_space, num_envs=8, learn_step=1024)
    collect_rollouts(agent, envs)  # agent.get_action(obs, action_mask=info["action_mask"]) at every step
    agent.learn()

A loop of one's own does the same: ``agent.get_action(obs, action_mask=info["action_mask"])`` (DQN takes
``epsilon`` too).

**Every seat learning** (a multi-player game through PettingZoo): AgileRL's multi-agent algorithms refuse an
observation that holds the mask (``AgileRL requires action masks to be defined in the information dictionary``),
so :func:`parallel_env` moves each agent's mask from its observation into its info. MADDPG takes discrete masked
actions this way::

    from agilerl.algorithms import MADDPG
    from agilerl.utils.utils import make_multi_agent_vect_envs
    from tabletop_gym.clients.agilerl import parallel_env

    envs = make_multi_agent_vect_envs(parallel_env, num_envs=4, game=game, num_players=2)  # a game of players
    seats = envs.possible_agents
    agent = MADDPG([envs.single_observation_space(seat) for seat in seats],
                   [envs.single_action_space(seat) for seat in seats], agent_ids=seats)
    obs, infos = envs.reset()
    actions, raw_actions = agent.get_action(obs, infos)  # masked by infos[seat]["action_mask"]
    obs, rewards, terminations, truncations, infos = envs.step(actions)

Only the agent on turn is played: the others' actions are ignored, and their masks offer every action. IPPO reads
the same infos but, in AgileRL 2.58, cannot take array masks (``ValueError: The truth value of an array ... is
ambiguous`` in ``IPPO.extract_action_masks``).

AgileRL 2.58 imports ``peft`` and ``transformers`` with its algorithms (they belong to its LLM extras, though only
its LLM algorithms use them): install them beside it, at the versions those extras pin, ``pip install agilerl
peft==0.21.0 transformers==5.14.1``.
"""

from __future__ import annotations

from pettingzoo.utils.wrappers import BaseParallelWrapper

from tabletop_gym.envs import game as find_game


class MasksInInfos(BaseParallelWrapper):
    """A parallel env whose observations are dicts ``{"observation", "action_mask"}``, seen as AgileRL's
    multi-agent algorithms read them: the plain observation (its space the ``"observation"`` entry's), and each
    agent's mask in its info (``info["action_mask"]``, for every agent at every step, reset included)."""

    def observation_space(self, agent):
        return self.env.observation_space(agent)["observation"]

    def reset(self, seed=None, options=None):
        observations, infos = self.env.reset(seed=seed, options=options)
        return self.masks_into_infos(observations, infos)

    def step(self, actions):
        observations, rewards, terminations, truncations, infos = self.env.step(actions)
        observations, infos = self.masks_into_infos(observations, infos)
        return observations, rewards, terminations, truncations, infos

    @staticmethod
    def masks_into_infos(observations: dict, infos: dict) -> tuple[dict, dict]:
        plain = {agent: seen["observation"] for agent, seen in observations.items()}
        with_masks = {agent: {**infos[agent], "action_mask": seen["action_mask"]}
                      for agent, seen in observations.items()}
        return plain, with_masks


def parallel_env(game, **kwargs) -> MasksInInfos:
    """The multi-player ``game``'s turn-based parallel env, its masks in the infos (``kwargs`` go to the game's
    ``parallel_env``: ``num_players``, ``illegal_action``...)."""
    return MasksInInfos(find_game(game).aec_module().parallel_env(**kwargs))
