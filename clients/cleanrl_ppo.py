"""Masked PPO on any tabletop-gym game, in one file read top to bottom as CleanRL writes its ``ppo.py``.

Run it as it is, naming the game by its Gymnasium id (``--help`` lists every hyperparameter)::

    python -m tabletop_gym.clients.cleanrl_ppo --env-id Tabletop/DeadCenter-v0 --total-timesteps 200000

or copy the file and change what you like: it needs Gymnasium 1.x, numpy, torch and this package, nothing else.
What it adds to CleanRL's PPO is the mask: every env gives ``info["action_mask"]`` (the native vector env stacks
them into an (N, n_actions) array), the actor's logits of illegal actions are pushed to a large negative number, and
the same masks are used again in the update. A finished game's row is all ones, so no row is ever all illegal.

It prints ``global_step=..., episodic_return=..., episodic_length=...`` as each game finishes (the length counts the
player's decisions: forced moves are played by the env) and, after each update, the losses and the steps per
second. With the same ``--seed`` a run is the same run: the same games, the same actions, the same log.
"""

import argparse
import ast
import inspect
import json
import random
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
    torch_deterministic: bool = True
    """if toggled, `torch.backends.cudnn.deterministic=True`"""
    cuda: bool = False
    """if toggled and a GPU is there, the agent trains on it (the envs step on the CPU; small nets often run faster
    there too)"""
    torch_threads: int = 1
    """torch's CPU threads: with the envs stepping in the same process, more than one on a few busy cores makes the
    small matrix products many times slower"""
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

    # Algorithm specific arguments
    total_timesteps: int = 500000
    """total timesteps of the experiment"""
    learning_rate: float = 2.5e-4
    """the learning rate of the optimizer"""
    num_envs: int = 16
    """the number of games played side by side"""
    num_steps: int = 128
    """the number of steps to run in each environment per policy rollout"""
    anneal_lr: bool = True
    """toggle learning rate annealing"""
    gamma: float = 0.99
    """the discount factor gamma"""
    gae_lambda: float = 0.95
    """the lambda for the general advantage estimation"""
    num_minibatches: int = 4
    """the number of mini-batches"""
    update_epochs: int = 4
    """the K epochs to update the policy"""
    norm_adv: bool = True
    """toggles advantages normalization"""
    clip_coef: float = 0.2
    """the surrogate clipping coefficient"""
    clip_vloss: bool = True
    """toggles whether or not to use a clipped loss for the value function, as per the paper"""
    ent_coef: float = 0.01
    """coefficient of the entropy"""
    vf_coef: float = 0.5
    """coefficient of the value function"""
    max_grad_norm: float = 0.5
    """the maximum norm for the gradient clipping"""
    target_kl: float = -1.0
    """the target KL divergence threshold (a negative value: none)"""
    hidden_size: int = 128
    """the width of the actor's and the critic's two hidden layers"""


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
    returns is always the one the next action is taken in, and every transition stored below is a real one (the loop
    and its GAE are CleanRL's, written for that). With Gymnasium's default NEXT_STEP, the step after a game's end
    would only reset it, its action ignored and its reward 0: a transition across the reset that would have to be
    cut out of the loss. ``RecordEpisodeStatistics`` reads the mode from the env's metadata and counts each game's
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


def layer_init(layer, std=np.sqrt(2), bias_const=0.0):
    torch.nn.init.orthogonal_(layer.weight, std)
    torch.nn.init.constant_(layer.bias, bias_const)
    return layer


class Agent(nn.Module):
    """An MLP actor and critic over the flat observation, each entry divided by its bound (they run up to tens)."""

    def __init__(self, envs: gym.vector.VectorEnv, hidden_size: int = 128):
        super().__init__()
        space = envs.single_observation_space
        high = space.high.reshape(-1).astype(np.float32)
        self.register_buffer("scale", torch.as_tensor(1 / np.where(np.isfinite(high) & (high > 0), high, 1)))
        size = int(np.prod(space.shape))
        self.critic = nn.Sequential(
            layer_init(nn.Linear(size, hidden_size)), nn.Tanh(),
            layer_init(nn.Linear(hidden_size, hidden_size)), nn.Tanh(),
            layer_init(nn.Linear(hidden_size, 1), std=1.0),
        )
        self.actor = nn.Sequential(
            layer_init(nn.Linear(size, hidden_size)), nn.Tanh(),
            layer_init(nn.Linear(hidden_size, hidden_size)), nn.Tanh(),
            layer_init(nn.Linear(hidden_size, int(envs.single_action_space.n)), std=0.01),
        )

    def get_value(self, x):
        return self.critic(x.flatten(1) * self.scale)

    def masked_distribution(self, x, mask):
        """The actor's distribution over the actions, none of its mass on an action ``mask`` (bool) rules out."""
        logits = self.actor(x.flatten(1) * self.scale)
        return Categorical(logits=torch.where(mask, logits, ILLEGAL_LOGIT))

    def get_action_and_value(self, x, mask, action=None):
        probs = self.masked_distribution(x, mask)
        if action is None:
            action = probs.sample()
        return action, probs.log_prob(action), probs.entropy(), self.get_value(x)


if __name__ == "__main__":
    args = parse_args()
    batch_size = args.num_envs * args.num_steps
    minibatch_size = batch_size // args.num_minibatches
    num_iterations = max(1, args.total_timesteps // batch_size)

    # Seeding: the envs by their reset seed, torch's sampling and numpy's minibatch shuffles by theirs.
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.backends.cudnn.deterministic = args.torch_deterministic
    torch.set_num_threads(args.torch_threads)
    device = torch.device("cuda" if torch.cuda.is_available() and args.cuda else "cpu")

    envs = make_env(args)
    agent = Agent(envs, args.hidden_size).to(device)
    optimizer = optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)
    num_actions = int(envs.single_action_space.n)

    # Rollout storage. masks[t] is the mask obs[t] came with; dones[t] says obs[t] starts a new game.
    obs = torch.zeros((args.num_steps, args.num_envs) + envs.single_observation_space.shape).to(device)
    masks = torch.zeros((args.num_steps, args.num_envs, num_actions), dtype=torch.bool).to(device)
    actions = torch.zeros((args.num_steps, args.num_envs), dtype=torch.long).to(device)
    logprobs = torch.zeros((args.num_steps, args.num_envs)).to(device)
    rewards = torch.zeros((args.num_steps, args.num_envs)).to(device)
    dones = torch.zeros((args.num_steps, args.num_envs)).to(device)
    values = torch.zeros((args.num_steps, args.num_envs)).to(device)

    global_step = 0
    start_time = time.time()
    next_obs, infos = envs.reset(seed=args.seed)
    next_obs = torch.as_tensor(next_obs, dtype=torch.float32, device=device)
    next_mask = torch.as_tensor(infos["action_mask"], dtype=torch.bool, device=device)
    next_done = torch.zeros(args.num_envs).to(device)

    for iteration in range(1, num_iterations + 1):
        if args.anneal_lr:
            frac = 1.0 - (iteration - 1.0) / num_iterations
            optimizer.param_groups[0]["lr"] = frac * args.learning_rate

        for step in range(0, args.num_steps):
            global_step += args.num_envs
            obs[step], masks[step], dones[step] = next_obs, next_mask, next_done

            with torch.no_grad():
                action, logprob, _, value = agent.get_action_and_value(next_obs, next_mask)
                values[step] = value.flatten()
            actions[step] = action
            logprobs[step] = logprob

            next_obs, reward, terminations, truncations, infos = envs.step(action.cpu().numpy())
            reward = np.asarray(reward, dtype=np.float32)
            # A game cut short (truncated) is not lost: its last step is paid the critic's value of where it stopped,
            # which SAME_STEP keeps in infos["final_obs"] (next_obs is already the next game's deal).
            if truncations.any():
                final_obs = torch.as_tensor(np.stack(infos["final_obs"][truncations]), dtype=torch.float32)
                with torch.no_grad():
                    reward[truncations] += args.gamma * agent.get_value(final_obs.to(device)).cpu().numpy().flatten()
            rewards[step] = torch.as_tensor(reward, device=device)
            next_done = torch.as_tensor(np.logical_or(terminations, truncations), dtype=torch.float32, device=device)
            next_obs = torch.as_tensor(next_obs, dtype=torch.float32, device=device)
            next_mask = torch.as_tensor(infos["action_mask"], dtype=torch.bool, device=device)

            if "episode" in infos:
                for i in np.flatnonzero(infos["_episode"]):
                    print(f"global_step={global_step}, episodic_return={infos['episode']['r'][i]:g}, "
                          f"episodic_length={infos['episode']['l'][i]}", flush=True)

        # Bootstrap value if not done
        with torch.no_grad():
            next_value = agent.get_value(next_obs).reshape(1, -1)
            advantages = torch.zeros_like(rewards).to(device)
            lastgaelam = 0
            for t in reversed(range(args.num_steps)):
                if t == args.num_steps - 1:
                    nextnonterminal = 1.0 - next_done
                    nextvalues = next_value
                else:
                    nextnonterminal = 1.0 - dones[t + 1]
                    nextvalues = values[t + 1]
                delta = rewards[t] + args.gamma * nextvalues * nextnonterminal - values[t]
                advantages[t] = lastgaelam = delta + args.gamma * args.gae_lambda * nextnonterminal * lastgaelam
            returns = advantages + values

        # flatten the batch
        b_obs = obs.reshape((-1,) + envs.single_observation_space.shape)
        b_masks = masks.reshape(-1, num_actions)
        b_logprobs = logprobs.reshape(-1)
        b_actions = actions.reshape(-1)
        b_advantages = advantages.reshape(-1)
        b_returns = returns.reshape(-1)
        b_values = values.reshape(-1)

        # Optimizing the policy and value network
        b_inds = np.arange(batch_size)
        clipfracs = []
        for epoch in range(args.update_epochs):
            np.random.shuffle(b_inds)
            for start in range(0, batch_size, minibatch_size):
                mb_inds = b_inds[start:start + minibatch_size]

                _, newlogprob, entropy, newvalue = agent.get_action_and_value(
                    b_obs[mb_inds], b_masks[mb_inds], b_actions[mb_inds])
                logratio = newlogprob - b_logprobs[mb_inds]
                ratio = logratio.exp()

                with torch.no_grad():
                    # calculate approx_kl http://joschu.net/blog/kl-approx.html
                    approx_kl = ((ratio - 1) - logratio).mean()
                    clipfracs += [((ratio - 1.0).abs() > args.clip_coef).float().mean().item()]

                mb_advantages = b_advantages[mb_inds]
                if args.norm_adv:
                    mb_advantages = (mb_advantages - mb_advantages.mean()) / (mb_advantages.std() + 1e-8)

                # Policy loss
                pg_loss1 = -mb_advantages * ratio
                pg_loss2 = -mb_advantages * torch.clamp(ratio, 1 - args.clip_coef, 1 + args.clip_coef)
                pg_loss = torch.max(pg_loss1, pg_loss2).mean()

                # Value loss
                newvalue = newvalue.view(-1)
                if args.clip_vloss:
                    v_loss_unclipped = (newvalue - b_returns[mb_inds]) ** 2
                    v_clipped = b_values[mb_inds] + torch.clamp(
                        newvalue - b_values[mb_inds], -args.clip_coef, args.clip_coef)
                    v_loss_clipped = (v_clipped - b_returns[mb_inds]) ** 2
                    v_loss = 0.5 * torch.max(v_loss_unclipped, v_loss_clipped).mean()
                else:
                    v_loss = 0.5 * ((newvalue - b_returns[mb_inds]) ** 2).mean()

                entropy_loss = entropy.mean()
                loss = pg_loss - args.ent_coef * entropy_loss + v_loss * args.vf_coef

                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()

            if args.target_kl > 0 and approx_kl > args.target_kl:
                break

        y_pred, y_true = b_values.cpu().numpy(), b_returns.cpu().numpy()
        var_y = np.var(y_true)
        explained_var = np.nan if var_y == 0 else 1 - np.var(y_true - y_pred) / var_y
        print(f"iteration={iteration}/{num_iterations}, learning_rate={optimizer.param_groups[0]['lr']:.3g}, "
              f"value_loss={v_loss.item():.4f}, policy_loss={pg_loss.item():.4f}, entropy={entropy_loss.item():.4f}, "
              f"approx_kl={approx_kl.item():.4f}, clipfrac={np.mean(clipfracs):.4f}, "
              f"explained_variance={explained_var:.4f}", flush=True)
        print("SPS:", int(global_step / (time.time() - start_time)), flush=True)

    if args.save_model:
        torch.save(agent.state_dict(), args.save_model)
        print(f"model saved to {args.save_model}")
    envs.close()
