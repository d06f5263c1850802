"""The envs through AgileRL itself (``pip install agilerl``; `.ci/run`'s clients job), every action checked by the
env (``illegal_action="raise"``: an action the mask does not offer raises):

* one learner, on every id: AgileRL's PPO (its ``collect_rollouts``) and DQN (its ``train_off_policy``) read
  ``info["action_mask"]`` from AgileRL's vector env and learn, across finished games. No glue: these guard the
  recipe, the mask AgileRL reads and the infos its vector envs stack;
* every seat learning, on each multi-player game: AgileRL's MADDPG through ``tabletop_gym.clients.agilerl``'s
  ``parallel_env``. Without it AgileRL refuses the observations (``AssertionError: AgileRL requires action masks to
  be defined in the information dictionary``), as the last test shows.

Skipped, with the reason, where AgileRL is not installed."""

import math

import numpy as np
import pytest
import torch

pytest.importorskip("agilerl", reason="AgileRL is not installed (the clients job installs it)")
# AgileRL 2.58 imports peft and transformers with its algorithms (its LLM extra), though only its LLM algorithms use
# them: the clients job installs them beside it.
pytest.importorskip("transformers", reason="AgileRL's algorithms import transformers and peft (install them beside it)")
pytest.importorskip("peft", reason="AgileRL's algorithms import transformers and peft (install them beside it)")

from agilerl.algorithms import DQN, MADDPG, PPO  # noqa: E402
from agilerl.components.data import MultiAgentTransition, transition_to_tensordict  # noqa: E402
from agilerl.components.replay_buffer import ReplayBuffer  # noqa: E402
from agilerl.rollouts import collect_rollouts  # noqa: E402
from agilerl.training.train_off_policy import train_off_policy  # noqa: E402
from agilerl.utils.utils import make_multi_agent_vect_envs, make_vect_envs  # noqa: E402

from tabletop_gym.clients.agilerl import parallel_env  # noqa: E402
from tabletop_gym.envs import GAMES  # noqa: E402

torch.set_num_threads(1)  # two busy cores: torch's default threads only slow these small networks down

GAME_IDS = [game.id for game in GAMES.values()]
SEATINGS = [(game.name, players) for game in GAMES.values() if game.multiplayer
            for players in game.players if players <= 3]


# ------------------------------------------------------------------ one learner: the Gymnasium ids

def masked_ppo_rollout(env_id: str, asynchronous: bool) -> None:
    """PPO's rollout of 100 steps in 4 envs, every action drawn under ``info["action_mask"]``, then one update."""
    envs = make_vect_envs(env_id, num_envs=4, should_async_vector=asynchronous, illegal_action="raise")
    agent = PPO(envs.single_observation_space, envs.single_action_space, num_envs=4, learn_step=400,
                batch_size=100, update_epochs=1)
    finished_scores, *_ = collect_rollouts(agent, envs)
    envs.close()
    assert len(finished_scores) >= 1  # games ended, and the finished games' masks went by the sampler too
    assert math.isfinite(agent.learn())


@pytest.mark.parametrize("env_id", GAME_IDS)
def test_agilerls_ppo_samples_under_the_infos_masks_across_finished_games_and_learns(env_id):
    masked_ppo_rollout(env_id, asynchronous=False)


def test_agilerls_ppo_in_its_default_vector_env_of_worker_processes():
    """Each worker makes its env by the id with the module that registers it: a spawned process (macOS, Windows,
    or once something has set the start method, as TorchRL's import does) has not imported the package."""
    masked_ppo_rollout(f"tabletop_gym.envs:{GAME_IDS[0]}", asynchronous=True)


@pytest.mark.parametrize("env_id", GAME_IDS)
def test_agilerls_dqn_trains_through_train_off_policy_under_the_infos_masks(env_id):
    """AgileRL's own loop: 400 steps in 4 envs (the masked epsilon-greedy action, a learning step every 4 steps),
    then its evaluation, greedy under the mask."""
    envs = make_vect_envs(env_id, num_envs=4, should_async_vector=False, illegal_action="raise")
    agent = DQN(envs.single_observation_space, envs.single_action_space, batch_size=64, learn_step=4)
    memory = ReplayBuffer(max_size=1000)
    train_off_policy(envs, env_id, "DQN", [agent], memory, max_steps=400, evo_steps=400, eval_steps=100,
                     verbose=False)
    envs.close()
    assert memory.storage["done"][:len(memory)].sum() >= 1  # finished games in the replay buffer
    assert math.isfinite(agent.learn(memory.sample(64)))


# ------------------------------------------------------------------ every seat learning: PettingZoo

@pytest.mark.parametrize(("game", "players"), SEATINGS)
def test_agilerls_maddpg_plays_every_seat_under_the_infos_masks_and_learns(game, players):
    """AgileRL's vector env of worker processes (each resets its game when every agent is done), 300 steps in 2
    envs of MADDPG's masked actions for every agent, stored as its training loop stores them, then one update."""
    envs = make_multi_agent_vect_envs(parallel_env, num_envs=2, game=game, num_players=players,
                                      illegal_action="raise")
    seats = envs.possible_agents
    agent = MADDPG([envs.single_observation_space(seat) for seat in seats],
                   [envs.single_action_space(seat) for seat in seats], agent_ids=seats, batch_size=64)
    memory = ReplayBuffer(max_size=1000)
    obs, infos = envs.reset(seed=players)
    finished = 0
    for _ in range(300):
        assert all(infos[seat]["action_mask"].any(axis=1).all() for seat in seats)  # a mask for every agent
        actions, raw_actions = agent.get_action(obs, infos)
        next_obs, rewards, terminations, truncations, infos = envs.step(actions)
        transition = transition_to_tensordict(MultiAgentTransition(obs=obs, action=raw_actions, reward=rewards,
                                                                   next_obs=next_obs, done=terminations))
        transition.batch_size = torch.Size([2])
        memory.add(transition)
        finished += int(np.logical_or(terminations[seats[0]], truncations[seats[0]]).sum())
        obs = next_obs
    envs.close()
    assert finished >= 1
    losses = agent.learn(memory.sample(64))
    assert all(math.isfinite(loss) for pair in losses.values() for loss in pair)


@pytest.mark.parametrize("game", sorted({game for game, _ in SEATINGS}))
def test_without_the_wrapper_agilerl_refuses_the_observations_holding_the_mask(game):
    env = GAMES[game].aec_module().parallel_env(num_players=2, illegal_action="raise")
    seats = env.possible_agents
    agent = MADDPG([env.observation_space(seat) for seat in seats], [env.action_space(seat) for seat in seats],
                   agent_ids=seats)
    obs, infos = env.reset(seed=0)
    with pytest.raises(AssertionError, match="action masks to be defined in the information dictionary"):
        agent.get_action(obs, infos)
