"""Learned policies played with numpy (agents/policy.py), the shipped ones (agents/models/), and Splendor's
self-play trainer (benchmarks/training/selfplay.py) on tiny budgets with illegal actions raising. No strength is asserted
here: that is measured in benchmarks/ and the README."""

import json

import gymnasium as gym
import numpy as np
import pytest
import torch

from tabletop_gym.agents import make_agent
from tabletop_gym.agents.policy import MODELS, PolicyAgent, export_policy, snapshot
from tabletop_gym.agents.network import MaskedPolicy
from tabletop_gym.benchmarks.training.ppo import Settings
from tabletop_gym.benchmarks.training.selfplay import League, SelfPlayVectorEnv, learn_by_self_play
from tabletop_gym.envs import GAMES

from helpers import play_steps

TINY = Settings(num_envs=4, num_steps=32, minibatch_size=64, update_epochs=2, hidden=(32,))
SHIPPED = sorted(path.stem for path in MODELS.glob("*.npz"))


def random_policy(env, seed=0, hidden=(64, 64)):
    torch.manual_seed(seed)
    policy = MaskedPolicy(env.observation_space.shape[0], env.action_space.n, hidden, env.observation_space.high)
    for layer in policy.actor:  # a spread-out policy, so that argmaxes are not ties
        if hasattr(layer, "weight"):
            torch.nn.init.normal_(layer.weight, std=0.5)
    return policy


def states_and_masks(env_id, steps=300, seed=0, **options):
    env = gym.make(env_id, **options)
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    observations, masks = [], []
    for _ in range(steps):
        observations.append(obs)
        masks.append(info["action_mask"].astype(bool))
        obs, _, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        if terminated or truncated:
            obs, info = env.reset()
    return np.array(observations), np.array(masks)


def test_the_numpy_export_plays_as_the_torch_policy_does(tmp_path):
    env = gym.make("Tabletop/RoyalAssassin-v0")
    policy = random_policy(env)
    path = export_policy(policy, tmp_path / "policy.npz", {"game": "Tabletop/RoyalAssassin-v0"})
    agent = PolicyAgent(path)
    observations, masks = states_and_masks("Tabletop/RoyalAssassin-v0")
    with torch.no_grad():
        expected = policy.logits(torch.as_tensor(observations), torch.as_tensor(masks)).argmax(dim=1).numpy()
    chosen = agent.act_batch(observations, masks)
    assert masks[np.arange(len(masks)), chosen].all()
    assert np.mean(chosen == expected) > 0.98  # float16 weights: the same moves but for near-ties
    assert agent.record == {"game": "Tabletop/RoyalAssassin-v0"} and path.stat().st_size < 200_000


def test_a_sampling_policy_agent_plays_legal_moves_and_its_seed_fixes_them(tmp_path):
    env = gym.make("Tabletop/DeadCenter-v0")
    path = export_policy(random_policy(env), tmp_path / "policy.npz", {})
    observations, masks = states_and_masks("Tabletop/DeadCenter-v0")
    first = PolicyAgent(path, deterministic=False, seed=3).act_batch(observations, masks)
    again = PolicyAgent(path, deterministic=False, seed=3).act_batch(observations, masks)
    assert masks[np.arange(len(masks)), first].all() and np.array_equal(first, again)
    assert len(set(first[masks.sum(axis=1) > 3])) > 3  # it does sample
    with pytest.raises(ValueError, match="no legal action"):
        PolicyAgent(path).act(observations[0], np.zeros_like(masks[0]))
    with pytest.raises(ValueError, match="no saved policy at"):
        PolicyAgent(tmp_path / "missing.npz")


@pytest.mark.parametrize("game", ["dead_center", "royal_assassin"])
def test_a_policy_that_learnt_from_features_plays_the_plain_env(game, tmp_path):
    env_id = GAMES[game].id
    featured = gym.make(env_id, observation="features")
    path = export_policy(random_policy(featured), tmp_path / "policy.npz",
                         {"game": env_id, "env_kwargs": {"observation": "features"}})
    agent = PolicyAgent(path)
    plain_obs, masks = states_and_masks(env_id, seed=1)
    featured_obs, featured_masks = states_and_masks(env_id, seed=1, observation="features")
    assert np.array_equal(masks, featured_masks)
    assert np.array_equal(agent.act_batch(plain_obs, masks), agent.act_batch(featured_obs, masks))


def scoring_policy(env, seed=0, read_from=0):
    """A random policy that scores each action of an observation="actions" with one scorer."""
    torch.manual_seed(seed)
    fields = env.unwrapped.features.ACTION_FIELD_COUNT
    policy = MaskedPolicy(env.observation_space.shape[0], env.action_space.n, (64, 32), env.observation_space.high,
                          action_fields=fields, scorer_hidden=(32,), read_from=read_from)
    for layer in list(policy.actor) + list(policy.scorer):
        if hasattr(layer, "weight"):
            torch.nn.init.normal_(layer.weight, std=0.5)
    return policy


@pytest.mark.parametrize("game", ["dead_center", "royal_assassin", "splendor"])
def test_a_policy_that_scores_each_action_exports_and_plays_the_plain_env(game, tmp_path):
    env_id = GAMES[game].id
    env = gym.make(env_id, observation="actions")
    policy = scoring_policy(env)
    path = export_policy(policy, tmp_path / "policy.npz", {"game": env_id, "env_kwargs": {"observation": "actions"}})
    agent = PolicyAgent(path)
    assert agent.network.action_fields == env.unwrapped.features.ACTION_FIELD_COUNT
    assert agent.network.num_actions == env.action_space.n
    observations, masks = states_and_masks(env_id, seed=2, observation="actions")
    with torch.no_grad():
        expected = policy.logits(torch.as_tensor(observations), torch.as_tensor(masks)).numpy()
    logits = agent.network.logits(observations, masks)
    legal = masks.astype(bool)
    assert np.abs(logits[legal] - expected[legal]).max() < 0.05  # float16 weights
    chosen = agent.act_batch(observations, masks)
    assert legal[np.arange(len(masks)), chosen].all()
    assert np.mean(chosen == expected.argmax(axis=1)) > 0.98
    assert len(set(chosen[legal.sum(axis=1) > 3])) > 3  # the scorer tells actions apart
    plain_obs, plain_masks = states_and_masks(env_id, seed=2)
    assert np.array_equal(plain_masks, masks) and np.array_equal(agent.act_batch(plain_obs, masks), chosen)
    with pytest.raises(ValueError, match="does not fit an observation"):
        MaskedPolicy(10, 33, (8,), action_fields=1)


@pytest.mark.parametrize("game", ["dead_center", "royal_assassin"])
def test_a_policy_that_skips_the_plain_observation_never_reads_it(game, tmp_path):
    env_id = GAMES[game].id
    env = gym.make(env_id, observation="actions")
    plain_size = gym.make(env_id).observation_space.shape[0]
    policy = scoring_policy(env, read_from=plain_size)
    path = export_policy(policy, tmp_path / "policy.npz", {"game": env_id, "env_kwargs": {"observation": "actions"}})
    agent = PolicyAgent(path)
    assert agent.network.read_from == plain_size and agent.network.num_actions == env.action_space.n
    observations, masks = states_and_masks(env_id, seed=3, observation="actions")
    scrambled = observations.copy()
    scrambled[:, :plain_size] = np.random.default_rng(0).permutation(scrambled[:, :plain_size])
    legal = masks.astype(bool)
    with torch.no_grad():
        expected = policy.logits(torch.as_tensor(observations), torch.as_tensor(masks)).numpy()
        assert torch.equal(policy.logits(torch.as_tensor(scrambled), torch.as_tensor(masks)),
                           torch.as_tensor(expected))
        assert torch.equal(policy.value(torch.as_tensor(scrambled)), policy.value(torch.as_tensor(observations)))
    assert np.abs(agent.network.logits(observations, masks)[legal] - expected[legal]).max() < 0.05
    assert np.array_equal(agent.network.logits(scrambled, masks), agent.network.logits(observations, masks))
    assert len(set(agent.act_batch(observations, masks)[legal.sum(axis=1) > 3])) > 3
    table = env.observation_space.shape[0] - env.action_space.n * env.unwrapped.features.ACTION_FIELD_COUNT
    with pytest.raises(ValueError, match=f"read_from={table} leaves nothing of the table's {table} entries"):
        scoring_policy(env, read_from=table)


def test_a_snapshot_is_frozen():
    env = gym.make("Tabletop/Splendor-v0")
    policy = random_policy(env)
    frozen = snapshot(policy, "snapshot_1")
    observations, masks = states_and_masks("Tabletop/Splendor-v0", steps=100)
    before = frozen.act_batch(observations, masks)
    with torch.no_grad():
        for parameter in policy.actor.parameters():
            parameter.mul_(-1)
    assert np.array_equal(frozen.act_batch(observations, masks), before) and frozen.name == "snapshot_1"


@pytest.mark.parametrize("game", SHIPPED)
def test_a_shipped_policy_plays_its_game_through_the_agent_protocol(game):
    env_id = GAMES[game].id
    agent = make_agent("ppo", game, seed=0)
    assert agent.record["game"] == env_id and agent.record["timesteps"] > 0
    env = gym.make(env_id, illegal_action="raise")
    play_steps(env, agent, 200, seed=123)
    assert MODELS.joinpath(f"{game}.npz").stat().st_size < 1_000_000


@pytest.mark.parametrize("game", list(GAMES))
def test_every_game_ships_a_policy_learned_from_scratch_that_plays_through_the_agent_protocol(game):
    env_id = GAMES[game].id
    agent = make_agent("ppo-scratch", game, seed=0)
    assert agent.record["game"] == env_id and agent.record["timesteps"] > 0
    assert agent.record.get("start") is None  # pure reinforcement learning: no cloned games
    assert bool(agent.record.get("self_play")) == (game == "splendor")
    env = gym.make(env_id, illegal_action="raise")
    play_steps(env, agent, 200, seed=123)
    assert MODELS.joinpath("scratch", f"{game}.npz").stat().st_size < 1_000_000


def test_a_game_without_a_shipped_policy_says_which_have_one(monkeypatch, tmp_path):
    monkeypatch.setattr("tabletop_gym.agents.policy.MODELS", tmp_path)
    with pytest.raises(ValueError, match="no learned policy ships for dead_center; the games that have one: none"):
        make_agent("ppo", "dead_center")
    with pytest.raises(ValueError, match="no policy learned from scratch ships for dead_center; the games that have "
                                         "one: none"):
        make_agent("ppo-scratch", "dead_center")


def test_the_league_follows_its_curriculum():
    league = League("splendor", seed=0)
    assert league.weights() == {"random": 1.0, "greedy": 0.0, "self": 0.0}
    league.progress = 0.5
    assert league.weights() == {"random": 0.1, "greedy": 0.9, "self": 0.0}  # no snapshot yet
    league.add("me")
    assert league.weights() == {"random": 0.1, "greedy": 0.5, "self": 0.4}
    draws = [league.draw() for _ in range(400)]
    assert 100 < draws.count("me") < 220 and league.drawn["self"] == draws.count("me")
    for k in range(20):
        league.add(k)
    assert league.snapshots == list(range(10, 20))  # the last ten


@pytest.mark.parametrize("players", [2, 3])
def test_self_play_steps_the_learners_decisions_of_aec_games(players):
    envs = SelfPlayVectorEnv("splendor", 4, League("splendor", seed=0), num_players=players, illegal_action="raise")
    obs, infos = envs.reset(seed=7)
    rng = np.random.default_rng(0)
    seats, finished = set(), 0
    for _ in range(600):
        seats.update(envs.seats.tolist())
        actions = [int(rng.choice(np.flatnonzero(m))) for m in infos["action_mask"]]
        obs, rewards, terminated, truncated, infos = envs.step(np.array(actions))
        ended = terminated | truncated
        assert np.array_equal(rewards[terminated], np.where(infos["won"][terminated], 1.0, -1.0))
        assert (rewards[~ended] == 0).all() and (infos["action_mask"][ended] == 1).all()
        finished += int(ended.sum())
    assert finished > 10 and seats == set(range(players))


def test_self_play_trains_a_tiny_budget_and_the_policy_plays_splendor(tmp_path):
    run = learn_by_self_play("splendor", 512, TINY, seed=0, out=tmp_path, snapshot_every=1, progress=False,
                             illegal_action="raise")
    assert run["timesteps"] == 512 and sum(run["league_draws"].values()) >= 4
    agent = make_agent(f"ppo:{tmp_path / 'policy.npz'}", "splendor")
    assert agent.record["self_play"] and agent.record["game"] == "Tabletop/Splendor-v0"
    env = gym.make("Tabletop/Splendor-v0", illegal_action="raise", opponent="random")
    play_steps(env, agent, 100, seed=0)
    saved = json.loads(str(np.load(tmp_path / "policy.npz")["record"]))
    assert saved["curriculum"][0][1]["random"] == 1.0


def test_train_self_play_evaluates_against_greedy_and_random(tmp_path):
    from tabletop_gym.benchmarks.training.selfplay import train

    result = train("splendor", timesteps=256, n_envs=4, out=str(tmp_path), eval_episodes=2, workers=1,
                   progress=False)
    assert result.evaluation["opponent"] == "greedy" and result.other_evaluations["random"]["episodes"] == 2
    with pytest.raises(ValueError, match="self-play needs a game of several players"):
        train("dead_center", timesteps=64, out=str(tmp_path / "x"))
    with pytest.raises(ValueError, match="self_play takes the option num_players only"):
        train("splendor", timesteps=64, env_kwargs={"opponent": "random"}, out=str(tmp_path / "y"))


def test_train_against_an_opponent_seats_the_learner_at_random_and_evaluates_every_seat(tmp_path):
    from tabletop_gym.benchmarks.training.clone import train

    result = train("splendor", "greedy", start_episodes=4, timesteps=256, n_envs=8, out=str(tmp_path),
                   eval_episodes=4, workers=1, progress=False, env_kwargs={"opponent": "random"})
    assert result.env_kwargs == {"opponent": "random", "seat": "random"}
    assert result.evaluation["opponent"] == "random" and len(result.evaluation["seat_win_rates"]) == 2
    assert list(result.other_evaluations) == ["greedy"] and result.other_evaluations["greedy"]["episodes"] == 4
    from tabletop_gym.benchmarks.training import curves

    against_greedy = 100 * result.other_evaluations["greedy"]["win_rate"]
    assert f"; {against_greedy:.1f}% against greedy over 4 |" in curves.markdown([curves.read_run(tmp_path)])
    with pytest.raises(ValueError, match="train seats the learner at random"):
        train("splendor", "greedy", timesteps=64, env_kwargs={"seat": 1}, out=str(tmp_path / "x"))


def test_curves_draw_the_mean_and_spread_of_runs_by_game(tmp_path, capsys):
    from tabletop_gym.benchmarks.training import curves
    from tabletop_gym.benchmarks.training.ppo import train

    folders = []
    for seed in (0, 1):
        folders.append(tmp_path / f"run{seed}")
        train("dungeon_solitaire", timesteps=512, n_envs=4, seed=seed, out=str(folders[-1]), eval_episodes=4,
              workers=1, progress=False)
    table = curves.main(folders, out=str(tmp_path / "curves.png"), table=str(tmp_path / "curves.md"))
    assert (tmp_path / "curves.png").read_bytes()[:4] == b"\x89PNG"
    rows = [line for line in table.splitlines() if line.startswith("| DungeonSolitaire-v0 |")]
    assert [row.split(" | ")[1] for row in rows] == ["0", "1"] and "| num_envs | 4 |" in table
    steps, mean, low, high = curves.band([curves.read_run(f) for f in folders], "win_rate")
    assert (low <= mean).all() and (mean <= high).all() and steps[-1] == 512
    with pytest.raises(ValueError, match="is not a training run: no learning_curve.csv"):
        curves.main([tmp_path], out=str(tmp_path / "x.png"))
