"""The CleanRL-style masked PPO file, ``tabletop_gym.clients.cleanrl_ppo``, run as its users run it: ``python -m``
in a process of its own, for a few hundred steps with illegal actions raising, its log read back."""

import os
import re
import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest
import torch

from tabletop_gym.clients.cleanrl_ppo import Agent
from tabletop_gym.envs import GAMES

SOLITAIRE = next(entry.id for entry in GAMES.values() if not entry.multiplayer)
MULTIPLAYER = next(entry.id for entry in GAMES.values() if entry.multiplayer)  # its single-agent id
# The solitaire a random player wins most often (7% of its deals), where a short run shows learning.
EASIEST_SOLITAIRE = "Tabletop/RoyalAssassin-v0"
# A few hundred steps: two updates of 4 games x 64 steps.
SHORT = ["--num-envs", "4", "--num-steps", "64", "--total-timesteps", "512"]
EPISODE = re.compile(r"^global_step=(\d+), episodic_return=(\S+), episodic_length=(\d+)$", re.MULTILINE)


def run_ppo(env_id: str, *flags: str) -> str:
    """The file's output, run as ``python -m`` with this process's import path, illegal actions raising."""
    done = subprocess.run([sys.executable, "-m", "tabletop_gym.clients.cleanrl_ppo", "--env-id", env_id,
                           "--illegal-action", "raise", *flags], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert done.returncode == 0, done.stderr
    return done.stdout


def episodes(log: str) -> list[tuple[int, float, int]]:
    """The finished games the log printed: (global step, return, length)."""
    return [(int(step), float(ret), int(length)) for step, ret, length in EPISODE.findall(log)]


def without_speed(log: str) -> list[str]:
    """The log less its steps-per-second lines, the only ones that depend on the machine's load."""
    return [line for line in log.splitlines() if not line.startswith("SPS:")]


@pytest.fixture(scope="module")
def solitaire_log() -> str:
    return run_ppo(SOLITAIRE, *SHORT)


@pytest.mark.parametrize("env_id", [SOLITAIRE, MULTIPLAYER])
def test_it_trains_and_logs_every_finished_game_with_its_return(env_id, solitaire_log):
    log = solitaire_log if env_id == SOLITAIRE else run_ppo(env_id, *SHORT)
    finished = episodes(log)
    assert finished, log
    # With the default reward a solitaire pays 1 for a win and 0 otherwise; a game of players +1, -1 or 0.
    low = -1.0 if env_id == MULTIPLAYER else 0.0
    assert all(low <= ret <= 1.0 and length >= 1 and step <= 512 for step, ret, length in finished)
    assert "iteration=2/2" in log


def test_games_cut_short_are_logged_and_paid_their_value():
    # The multi-player game stops after max_rounds rounds: a truncation, whose last step the file pays the critic's
    # value of the position in infos["final_obs"].
    finished = episodes(run_ppo(MULTIPLAYER, "--num-envs", "4", "--num-steps", "32", "--total-timesteps", "128",
                                "--env-kwargs", '{"max_rounds": 3}'))
    assert finished and all(ret == 0 for _, ret, _ in finished)


def test_the_same_seed_gives_the_same_log_in_every_vectorization_mode(solitaire_log):
    assert without_speed(run_ppo(SOLITAIRE, *SHORT)) == without_speed(solitaire_log)
    # Gymnasium's own vector env over the single envs plays the same games (their last mask is all ones too).
    assert without_speed(run_ppo(SOLITAIRE, *SHORT, "--vectorization-mode", "sync")) == without_speed(solitaire_log)


@pytest.mark.parametrize("env_id", [SOLITAIRE, MULTIPLAYER])
def test_the_masked_distribution_puts_no_mass_on_illegal_actions(env_id):
    torch.manual_seed(0)
    envs = gym.make_vec(env_id, num_envs=8, illegal_action="raise")
    agent = Agent(envs)
    obs, infos = envs.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(30):  # positions further into the games, some of them finished (their rows all ones)
        legal = infos["action_mask"].astype(bool)
        obs, _, _, _, infos = envs.step((rng.random(legal.shape) * legal).argmax(axis=1))
    masks = infos["action_mask"].astype(bool)
    masks[0] = True                                   # a finished game's row
    masks[1] = False
    masks[1, np.flatnonzero(infos["action_mask"][1])[0]] = True  # a single legal action
    obs, masks = torch.as_tensor(obs, dtype=torch.float32), torch.as_tensor(masks)
    with torch.no_grad():
        distribution = agent.masked_distribution(obs, masks)
        samples = distribution.sample((2000,))
    probs = distribution.probs
    assert not probs.isnan().any() and not distribution.entropy().isnan().any()
    assert (probs[~masks] == 0).all() and torch.allclose(probs.sum(dim=1), torch.ones(len(masks)))
    assert (probs[0] > 0).all() and probs[1].max() == 1
    assert masks.gather(1, samples.T).all()
    envs.close()


def test_a_short_run_learns_the_easiest_solitaire():
    finished = episodes(run_ppo(EASIEST_SOLITAIRE, "--total-timesteps", "20000"))
    first, last = np.mean([ret for _, ret, _ in finished[:150]]), np.mean([ret for _, ret, _ in finished[-150:]])
    assert last > first + 0.1, (first, last)
