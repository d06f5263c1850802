"""Masked PPO on any tabletop-gym game, in one file read top to bottom as CleanRL writes its ``ppo.py``.

Run it as it is, naming the game by its Gymnasium id (``--help`` lists every hyperparameter)::

    python -m tabletop_gym.clients.cleanrl_ppo --env-id <an id of tabletop-gym list> --total-timesteps 200000

(the "Other RL libraries" page of the site shows a run and what it learns), or copy the file and change what you
like: it needs Gymnasium 1.x, numpy, torch and this package, nothing else. What it adds
to CleanRL's PPO is the mask: every env gives ``info["action_mask"]`` (the vector env stacks them into an (N, n_actions)
array), the actor's logits of illegal actions are pushed to a large negative number before sampling, and the same
masks are applied again in the update. A finished game's row is all ones, so no row is ever all illegal.

It prints ``global_step=..., episodic_return=..., episodic_length=...`` as each game finishes (the length counts the
player's decisions: the env plays forced moves itself) and, after each update, the losses and the steps per
second. Illegal actions raise by default (``--illegal-action raise``): with a masked policy one is a bug, to be seen
at once rather than scored as a lost game. With the same ``--seed`` a run is the same run, the same games, actions
and log, in any ``--vectorization-mode``.
"""

import argparse
import ast
import inspect
import json
import time
from dataclasses import MISSING, dataclass, fields

import gymnasium as gym
import numpy as np
import torch
from torch import nn, optim
from torch.distributions.categorical import Categorical

from tabletop_gym.envs import GAMES  # importing the package registers the games' ids with Gymnasium

# The logit given to an illegal action: so low that it is never sampled, yet finite, so a row with no legal action
# would still be a distribution (uniform) rather than NaN.
ILLEGAL_LOGIT = -1e8


@dataclass
class Args:
    env_id: str
    """the game's Gymnasium id"""
    seed: int = 1
    """seed of the experiment: the envs, torch and numpy; the same seed gives the same run"""
    torch_threads: int = 1
    """torch's threads: the agent runs on the CPU beside the envs, where more than one thread on a few busy cores
    makes its small matrix products many times slower"""
    save_model: str = ""
    """if given, the path where the agent's weights are saved at the end (torch.save of its state_dict)"""

    # Environment arguments
    illegal_action: str = "raise"
    """what an illegal action does: `raise` (an IllegalActionError, the default here: the policy is masked, so an
    illegal action is a bug to see at once) or `terminate` (the game ends as a loss)"""
    env_kwargs: str = "{}"
    """the game's other options as JSON, e.g. '{"reward": "score"}'"""
    vectorization_mode: str = "vector_entry_point"
    """`vector_entry_point` (the game's native vector env), `sync` or `async` (Gymnasium's own)"""

    # PPO's hyperparameters (CleanRL's names and, where they suit these games, its values)
    total_timesteps: int = 500000
    """env steps to train for, summed over the games played side by side"""
    learning_rate: float = 2.5e-4
    """Adam's step size"""
    num_envs: int = 16
    """games played side by side in the vector env"""
    num_steps: int = 128
    """steps of each game per rollout: a rollout, and so an update, holds num_envs x num_steps steps"""
    anneal_lr: bool = True
    """lower the learning rate linearly to 0 over the run"""
    gamma: float = 0.99
    """the discount"""
    gae_lambda: float = 0.95
    """lambda of the generalized advantage estimate"""
    num_minibatches: int = 4
    """minibatches each rollout is split into"""
    update_epochs: int = 4
    """passes over each rollout"""
    norm_adv: bool = True
    """normalize the advantages within each minibatch"""
    clip_coef: float = 0.2
    """how far the probability ratio (and the value, with clip_vloss) may move before its gradient is cut"""
    clip_vloss: bool = True
    """clip the value loss as the policy loss is clipped"""
    ent_coef: float = 0.01
    """weight of the entropy bonus"""
    vf_coef: float = 0.5
    """weight of the value loss"""
    max_grad_norm: float = 0.5
    """the gradient's norm is cut to this"""
    target_kl: float = -1.0
    """stop a rollout's epochs once the approximate KL divergence passes this (negative: never)"""
    hidden_size: int = 128
    """width of the two hidden layers of the actor and of the critic"""


def parse_args() -> Args:
    """``Args`` from the command line, one ``--flag`` per field (``--no-flag`` for a false bool), its help the
    docstring under the field, as CleanRL's tyro builds it, here with argparse alone."""
    body = ast.parse(inspect.getsource(Args)).body[0].body
    docs = {field.target.id: " ".join(doc.value.value.split()) for field, doc in zip(body, body[1:])
            if isinstance(field, ast.AnnAssign) and isinstance(doc, ast.Expr)}
    docs["env_id"] += ": " + ", ".join(game.id for game in GAMES.values())
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for field in fields(Args):
        flag = "--" + field.name.replace("_", "-")
        if field.default is MISSING:
            parser.add_argument(flag, type=field.type, required=True, help=docs[field.name])
        else:
            kind = {"action": argparse.BooleanOptionalAction} if field.type is bool else {"type": field.type}
            parser.add_argument(flag, **kind, default=field.default,
                                help=f"{docs[field.name]} (default: {field.default!r})")
    return Args(**vars(parser.parse_args()))


def make_env(args: Args) -> gym.vector.VectorEnv:
    """``args.num_envs`` games of ``args.env_id`` in a vector env that records each finished game's return and length.

    The autoreset mode is SAME_STEP: a game that ends is dealt again within the same step, so the observation a step
    returns is always the one the next action is taken in, and every transition stored below is a real one, as
    CleanRL's loop and its GAE assume. With Gymnasium's default NEXT_STEP, the step after a game's end would only
    reset it, its action ignored and its reward 0: a transition across the reset that would have to be cut out of
    the loss. ``RecordEpisodeStatistics`` reads the mode from the env's metadata and counts each game's
    steps accordingly. The native vector env takes the mode as a keyword, Gymnasium's own in ``vector_kwargs``."""
    same_step = gym.vector.AutoresetMode.SAME_STEP
    options = {"illegal_action": args.illegal_action, **json.loads(args.env_kwargs)}
    if args.vectorization_mode == "vector_entry_point":
        envs = gym.make_vec(args.env_id, num_envs=args.num_envs, autoreset_mode=same_step, **options)
    else:
        envs = gym.make_vec(args.env_id, num_envs=args.num_envs, vectorization_mode=args.vectorization_mode,
                            vector_kwargs={"autoreset_mode": same_step}, **options)
    assert isinstance(envs.single_action_space, gym.spaces.Discrete), "only discrete action spaces are supported"
    return gym.wrappers.vector.RecordEpisodeStatistics(envs)


def linear(inputs: int, outputs: int, gain: float = np.sqrt(2)) -> nn.Linear:
    """A linear layer with orthogonal weights of the given gain and zero biases, as PPO's MLPs start."""
    layer = nn.Linear(inputs, outputs)
    nn.init.orthogonal_(layer.weight, gain)
    nn.init.zeros_(layer.bias)
    return layer


class Agent(nn.Module):
    """An MLP actor and critic over the flat observation, each entry divided by its bound (they run up to tens)."""

    def __init__(self, envs: gym.vector.VectorEnv, hidden_size: int = 128):
        super().__init__()
        space = envs.single_observation_space
        high = space.high.reshape(-1).astype(np.float32)
        self.register_buffer("scale", torch.as_tensor(1 / np.where(np.isfinite(high) & (high > 0), high, 1)))
        size = int(np.prod(space.shape))
        # The actor's last layer starts near zero, so the first policy is near uniform over the legal actions.
        self.critic = nn.Sequential(linear(size, hidden_size), nn.Tanh(), linear(hidden_size, hidden_size), nn.Tanh(),
                                    linear(hidden_size, 1, gain=1.0))
        self.actor = nn.Sequential(linear(size, hidden_size), nn.Tanh(), linear(hidden_size, hidden_size), nn.Tanh(),
                                   linear(hidden_size, int(envs.single_action_space.n), gain=0.01))

    def get_value(self, x):
        return self.critic(x.flatten(1) * self.scale)

    def masked_distribution(self, x, mask):
        """The actor's distribution over the actions, none of its mass on an action ``mask`` (bool) rules out."""
        logits = self.actor(x.flatten(1) * self.scale)
        return Categorical(logits=torch.where(mask, logits, ILLEGAL_LOGIT))

    def get_action_and_value(self, x, mask, action=None):
        distribution = self.masked_distribution(x, mask)
        if action is None:
            action = distribution.sample()
        return action, distribution.log_prob(action), distribution.entropy(), self.get_value(x)


if __name__ == "__main__":
    args = parse_args()
    batch_size = args.num_envs * args.num_steps
    minibatch_size = batch_size // args.num_minibatches
    num_iterations = max(1, args.total_timesteps // batch_size)

    # Every source of chance is seeded: the deals by the envs' reset, the actions sampled by torch, the minibatches
    # shuffled by numpy.
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.torch_threads)

    envs = make_env(args)
    agent = Agent(envs, args.hidden_size)
    optimizer = optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)
    obs_shape, num_actions = envs.single_observation_space.shape, int(envs.single_action_space.n)

    # The rollout, a row per step and a column per game: obs[t] is what the policy saw, masks[t] its legal actions,
    # dones[t] whether obs[t] is a new deal (the game before it ended at t - 1).
    obs = torch.zeros((args.num_steps, args.num_envs) + obs_shape)
    masks = torch.zeros((args.num_steps, args.num_envs, num_actions), dtype=torch.bool)
    actions = torch.zeros((args.num_steps, args.num_envs), dtype=torch.long)
    logprobs = torch.zeros((args.num_steps, args.num_envs))
    rewards = torch.zeros((args.num_steps, args.num_envs))
    dones = torch.zeros((args.num_steps, args.num_envs))
    values = torch.zeros((args.num_steps, args.num_envs))

    global_step = 0
    start_time = time.time()
    next_obs, infos = envs.reset(seed=args.seed)
    next_obs = torch.as_tensor(next_obs, dtype=torch.float32)
    next_mask = torch.as_tensor(infos["action_mask"], dtype=torch.bool)
    next_done = torch.zeros(args.num_envs)

    for iteration in range(1, num_iterations + 1):
        if args.anneal_lr:
            optimizer.param_groups[0]["lr"] = args.learning_rate * (1 - (iteration - 1) / num_iterations)

        # 1. Play num_steps steps of every game with the current policy.
        for step in range(args.num_steps):
            global_step += args.num_envs
            obs[step], masks[step], dones[step] = next_obs, next_mask, next_done
            with torch.no_grad():
                action, logprob, _, value = agent.get_action_and_value(next_obs, next_mask)
            actions[step], logprobs[step], values[step] = action, logprob, value.flatten()

            next_obs, reward, terminations, truncations, infos = envs.step(action.numpy())
            reward = np.asarray(reward, dtype=np.float32)
            # A game cut short (truncated) is not lost: its last step is paid the critic's value of where it stopped,
            # which SAME_STEP keeps in infos["final_obs"] (next_obs is already the next game's deal).
            if truncations.any():
                stopped = torch.as_tensor(np.stack(infos["final_obs"][truncations]), dtype=torch.float32)
                with torch.no_grad():
                    reward[truncations] += args.gamma * agent.get_value(stopped).flatten().numpy()
            rewards[step] = torch.as_tensor(reward)
            next_obs = torch.as_tensor(next_obs, dtype=torch.float32)
            next_mask = torch.as_tensor(infos["action_mask"], dtype=torch.bool)
            next_done = torch.as_tensor(terminations | truncations, dtype=torch.float32)

            # RecordEpisodeStatistics puts each game that ended in this step into infos["episode"].
            if "episode" in infos:
                for i in np.flatnonzero(infos["_episode"]):
                    print(f"global_step={global_step}, episodic_return={infos['episode']['r'][i]:g}, "
                          f"episodic_length={infos['episode']['l'][i]}", flush=True)

        # 2. Advantages by GAE, backwards through the rollout; nothing flows back across the end of a game.
        with torch.no_grad():
            advantages = torch.zeros_like(rewards)
            gae = torch.zeros(args.num_envs)
            for t in reversed(range(args.num_steps)):
                if t == args.num_steps - 1:
                    following, goes_on = agent.get_value(next_obs).flatten(), 1 - next_done
                else:
                    following, goes_on = values[t + 1], 1 - dones[t + 1]
                delta = rewards[t] + args.gamma * following * goes_on - values[t]
                advantages[t] = gae = delta + args.gamma * args.gae_lambda * goes_on * gae
            returns = advantages + values

        # 3. Update on the rollout, every game's steps in one batch: the clipped surrogate, the value loss and the
        #    entropy bonus, the actor's logits masked as they were when the actions were chosen.
        b_obs, b_masks = obs.reshape((-1,) + obs_shape), masks.reshape(-1, num_actions)
        b_actions, b_logprobs, b_values = actions.reshape(-1), logprobs.reshape(-1), values.reshape(-1)
        b_advantages, b_returns = advantages.reshape(-1), returns.reshape(-1)
        clipped_shares = []
        for epoch in range(args.update_epochs):
            order = np.random.permutation(batch_size)
            for start in range(0, batch_size, minibatch_size):
                batch = order[start:start + minibatch_size]
                _, logprob, entropy, value = agent.get_action_and_value(b_obs[batch], b_masks[batch], b_actions[batch])
                log_ratio = logprob - b_logprobs[batch]
                ratio = log_ratio.exp()
                with torch.no_grad():  # how far the policy moved: the k3 estimate of the KL divergence
                    approx_kl = (ratio - 1 - log_ratio).mean()
                    clipped_shares.append(((ratio - 1).abs() > args.clip_coef).float().mean().item())

                advantage = b_advantages[batch]
                if args.norm_adv:
                    advantage = (advantage - advantage.mean()) / (advantage.std() + 1e-8)
                policy_loss = torch.max(-advantage * ratio,
                                        -advantage * ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef)).mean()

                value = value.flatten()
                value_loss = (value - b_returns[batch]) ** 2
                if args.clip_vloss:
                    moved = b_values[batch] + (value - b_values[batch]).clamp(-args.clip_coef, args.clip_coef)
                    value_loss = torch.max(value_loss, (moved - b_returns[batch]) ** 2)
                value_loss = 0.5 * value_loss.mean()

                loss = policy_loss + args.vf_coef * value_loss - args.ent_coef * entropy.mean()
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()
            if 0 < args.target_kl < approx_kl:
                break

        # 4. The update's numbers, and the speed (the only line that differs between two runs of the same seed).
        unexplained = np.var((b_returns - b_values).numpy()) / max(np.var(b_returns.numpy()), 1e-8)
        print(f"iteration={iteration}/{num_iterations}, learning_rate={optimizer.param_groups[0]['lr']:.3g}, "
              f"value_loss={value_loss.item():.4f}, policy_loss={policy_loss.item():.4f}, "
              f"entropy={entropy.mean().item():.4f}, approx_kl={approx_kl.item():.4f}, "
              f"clipfrac={np.mean(clipped_shares):.4f}, explained_variance={1 - unexplained:.4f}", flush=True)
        print("SPS:", int(global_step / (time.time() - start_time)), flush=True)

    if args.save_model:
        torch.save(agent.state_dict(), args.save_model)
        print(f"model saved to {args.save_model}")
    envs.close()
