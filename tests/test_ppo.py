"""The project's own masked PPO (benchmarks/training/ppo.py) on tiny budgets: it trains on every game's native vector env
with illegal actions raising (so a mask bug fails loudly), saves a policy that plays through the agent protocol,
and writes its learning curve. No strength is asserted here: that is measured in benchmarks/."""

import csv

import gymnasium as gym
import numpy as np
import pytest
import torch

from tabletop_gym.agents import make_agent
from tabletop_gym.agents.network import MaskedPolicy, load_policy
from tabletop_gym.benchmarks.training.ppo import Settings, learn
from tabletop_gym.envs import GAMES

from helpers import play_steps

TINY = Settings(num_envs=4, num_steps=32, minibatch_size=64, update_epochs=2, hidden=(32,))


@pytest.mark.parametrize("game", list(GAMES))
def test_it_trains_on_every_game_and_the_policy_plays(game, tmp_path):
    env_id = GAMES[game].id
    envs = gym.make_vec(env_id, num_envs=4, vectorization_mode="vector_entry_point", illegal_action="raise")
    run = learn(envs, 256, TINY, seed=0, out=tmp_path, progress=False, record={"game": env_id})
    assert run["timesteps"] == 256 and len(run["curve"]) == 2
    with open(tmp_path / "learning_curve.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [int(r["step"]) for r in rows] == [128, 256]
    _, record = load_policy(tmp_path / "model.pt")
    assert record["game"] == env_id and record["timesteps"] == 256 and record["settings"]["num_steps"] == 32

    agent = make_agent(f"ppo:{tmp_path / 'model.pt'}", game)
    env = gym.make(env_id, illegal_action="raise")
    play_steps(env, agent, 40, seed=1)


def test_the_budget_is_whole_rollouts_just_covering_it():
    settings, updates = Settings(num_envs=64, num_steps=128).fitted(3000)
    assert (updates, settings.num_steps) == (1, 47) and settings.minibatch_size == 1024
    settings, updates = Settings(num_envs=64, num_steps=128).fitted(1_000_000)
    assert updates * 64 * settings.num_steps >= 1_000_000 and settings.num_steps <= 128
    assert updates * 64 * (settings.num_steps - 1) < 1_000_000
    with pytest.raises(ValueError, match="timesteps must be at least 1"):
        Settings().fitted(0)


class OneStepGames(gym.vector.VectorEnv):
    """A masked vector env of the Gymnasium API only: every game lasts one step and pays 1 for action 1, which is
    the only legal one; next-step autoreset, with the finished rows' masks all ones."""

    def __init__(self, n=4):
        self.num_envs = n
        self.single_observation_space = gym.spaces.Box(0, 1, (3,), np.float32)
        self.single_action_space = gym.spaces.Discrete(3)
        self.observation_space = gym.vector.utils.batch_space(self.single_observation_space, n)
        self.action_space = gym.vector.utils.batch_space(self.single_action_space, n)
        self.done = np.zeros(n, bool)
        self.resets_played = 0

    def _infos(self):
        mask = np.zeros((self.num_envs, 3), np.int8)
        mask[:, 1] = 1
        mask[self.done] = 1
        return {"action_mask": mask}

    def reset(self, *, seed=None, options=None):
        self.done[:] = False
        return np.zeros((self.num_envs, 3), np.float32), self._infos()

    def step(self, actions):
        playing = ~self.done
        assert (np.asarray(actions)[playing] == 1).all(), "an action the mask forbids"
        reward = np.where(playing, 1.0, 0.0)
        self.resets_played += int(self.done.sum())
        self.done = playing.copy()
        obs = np.repeat(self.done[:, None], 3, axis=1).astype(np.float32)
        infos = self._infos()
        infos["won"], infos["_won"] = self.done.copy(), self.done.copy()
        return obs, reward, self.done.copy(), np.zeros(self.num_envs, bool), infos


def test_any_masked_vector_env_of_the_gymnasium_api_trains_with_next_step_autoreset(tmp_path):
    envs = OneStepGames()
    run = learn(envs, 64, Settings(num_envs=4, num_steps=16, minibatch_size=16, hidden=(8,)), out=tmp_path,
                progress=False)
    assert envs.resets_played > 0  # the finished rows were stepped, with an all-ones mask
    assert run["curve"][-1]["win_rate"] == 1.0 and run["curve"][-1]["episodes"] == 32


class FreeChoiceGames(OneStepGames):
    """One-step games where every action is legal and none pays: only a teacher can say which to play."""

    def _infos(self):
        return {"action_mask": np.ones((self.num_envs, 3), np.int8)}

    def step(self, actions):
        obs, _, terminated, truncated, infos = super().step(np.ones(self.num_envs, np.int64))
        return obs, np.zeros(self.num_envs), terminated, truncated, infos


class InsistentTeacher:
    """Always names action 2; refuses a finished game's row (its observation is all ones)."""

    def __init__(self):
        self.asked = 0

    def act_batch(self, observations, masks):
        assert (observations == 0).all(), "the teacher was asked about a finished game"
        self.asked += len(observations)
        return np.full(len(observations), 2)


def test_kickstarting_teaches_the_teachers_moves_on_the_policys_own_positions(tmp_path):
    teacher = InsistentTeacher()
    settings = Settings(num_envs=4, num_steps=16, minibatch_size=16, hidden=(8,), learning_rate=0.01,
                        ent_coef=0.0, teacher_coef=1.0, teacher_decay=0.5)
    learn(FreeChoiceGames(), 640, settings, out=tmp_path, progress=False, teacher=teacher)
    # Ten updates of 64 steps, half of them games that reset; taught over the first five updates only.
    assert teacher.asked == 5 * 32
    policy, _ = load_policy(tmp_path / "model.pt")
    with torch.no_grad():
        chosen = policy.logits(torch.zeros(1, 3), torch.ones(1, 3, dtype=torch.bool)).softmax(dim=1)[0, 2]
    assert chosen > 0.75  # from a third: nothing but the teacher favours action 2

    with pytest.raises(ValueError, match="a teacher goes with settings.teacher_coef above 0"):
        learn(FreeChoiceGames(), 64, Settings(num_envs=4, num_steps=16), out=tmp_path, progress=False,
              teacher=teacher)
    with pytest.raises(ValueError, match="teacher_decay is a share"):
        learn(FreeChoiceGames(), 64, Settings(num_envs=4, teacher_coef=1.0, teacher_decay=0.0), out=tmp_path,
              progress=False, teacher=teacher)


def test_a_heuristic_kickstarts_a_game_with_illegal_actions_raising(tmp_path):
    import json

    from tabletop_gym.benchmarks import cli
    from tabletop_gym.benchmarks.training.ppo import train

    # Royal Assassin's heuristic chooses one game at a time and cannot read a finished game's row.
    train("royal_assassin", timesteps=256, n_envs=4, out=str(tmp_path), eval_episodes=2, workers=1, progress=False,
          teacher="heuristic", env_kwargs={"illegal_action": "raise"})
    record = json.loads((tmp_path / "result.json").read_text())["hyperparameters"]
    assert record["teacher"] == "heuristic" and record["teacher_coef"] == 1.0 and record["teacher_decay"] == 0.5
    with pytest.raises(ValueError, match="teacher_coef and teacher_decay go with a teacher"):
        train("royal_assassin", timesteps=64, out=str(tmp_path / "x"), settings={"teacher_coef": 1.0})
    # Kickstarting is the project's own PPO's: another trainer refuses the flag before anything is written.
    assert cli.main(["train", "royal_assassin", "--algo", "sb3", "--teacher", "heuristic", "--timesteps", "64",
                     "--out", str(tmp_path / "y")]) == 2
    assert not (tmp_path / "y").exists()


def test_masked_policy_never_picks_an_illegal_action():
    torch.manual_seed(0)
    policy = MaskedPolicy(5, 6, (16,))
    obs = torch.randn(500, 5)
    mask = torch.rand(500, 6) < 0.3
    mask[torch.arange(500), torch.randint(0, 6, (500,))] = True
    action, logprob, _, _ = policy.act(obs, mask)
    assert mask[torch.arange(500), action].all() and torch.isfinite(logprob).all()


def test_behaviour_cloning_learns_the_teachers_actions_and_the_returns():
    from tabletop_gym.benchmarks.training.clone import collect, fit

    teacher = make_agent("heuristic", "royal_assassin", seed=0)
    data = collect("Tabletop/RoyalAssassin-v0", teacher, episodes=150, seed=0, gamma=0.9, progress=False)
    n = len(data["actions"])
    assert data["observations"].shape[0] == data["masks"].shape[0] == n == len(data["returns"])
    assert data["masks"][np.arange(n), data["actions"]].all()  # every recorded action was legal
    paid = data["returns"][data["returns"] != 0]  # won games: 0.9 ** (decisions left after this one)
    steps_left = np.log(paid) / np.log(0.9)
    assert len(paid) and np.allclose(steps_left, np.round(steps_left), atol=1e-3) and (paid <= 1).all()
    torch.manual_seed(0)
    policy = MaskedPolicy(data["observations"].shape[1], data["masks"].shape[1], (128, 128))
    agreement = fit(policy, data, epochs=30, progress=False)
    assert agreement[-1] > agreement[0] and agreement[-1] > 0.8


def test_batched_collection_records_the_games_the_single_env_plays():
    from tabletop_gym.agents import heuristic
    from tabletop_gym.benchmarks.training.clone import collect, collect_batched

    teacher = heuristic("dead_center", lookahead=False)  # it chooses for a batch at once
    batched = collect_batched("Tabletop/DeadCenter-v0", teacher, episodes=8, seed=3, num_envs=8, progress=False)
    single = collect("Tabletop/DeadCenter-v0", teacher, episodes=8, seed=3, progress=False)
    n = len(batched["actions"])
    assert batched["masks"][np.arange(n), batched["actions"]].all()
    # The same eight deals, finished in another order: the same decisions, as a multiset.
    assert n == len(single["actions"]) and batched["win_rate"] == single["win_rate"]
    assert sorted(batched["actions"].tolist()) == sorted(single["actions"].tolist())
    assert np.isclose(batched["returns"].sum(), single["returns"].sum())


def test_the_teachers_games_shared_among_workers_are_the_same_decisions():
    from tabletop_gym.benchmarks.training.clone import collect

    env_id = GAMES["royal_assassin"].id
    alone = collect(env_id, make_agent("heuristic", env_id), 7, seed=5, progress=False,
                    env_kwargs={"observation": "actions"})
    shared = collect(env_id, make_agent("heuristic", env_id), 7, seed=5, progress=False,
                     env_kwargs={"observation": "actions"}, workers=2)
    assert alone.keys() == shared.keys() and alone["win_rate"] == shared["win_rate"]
    for key in ("observations", "masks", "actions", "returns"):
        assert np.array_equal(alone[key], shared[key]), key


def test_train_can_start_from_a_cloned_heuristic(tmp_path, capsys):
    import json

    from tabletop_gym.benchmarks import cli
    from tabletop_gym.benchmarks.training.clone import train

    train("dead_center", "heuristic", start_episodes=3, timesteps=256, n_envs=4, out=str(tmp_path), eval_episodes=2,
          workers=1, progress=False)
    record = json.loads((tmp_path / "result.json").read_text())["hyperparameters"]
    assert record["start"] == "heuristic" and record["start_episodes"] == 3 and 0 < record["cloned_agreement"] <= 1
    assert cli.main(["train", "dead_center", "--algo", "sb3", "--start", "heuristic", "--timesteps", "64",
                     "--out", str(tmp_path / "x")]) == 2
    assert "--start" in capsys.readouterr().err and not (tmp_path / "x").exists()


def test_a_run_from_a_cloned_start_is_reproduced_by_its_seed(tmp_path):
    """The documented commands are reproducible: the clone's first weights come from the seed too, not from
    whatever torch's generator held before."""
    from tabletop_gym.benchmarks.training.clone import train

    def weights(folder, seed):
        train("royal_assassin", "heuristic", start_episodes=3, timesteps=256, n_envs=4, out=str(tmp_path / folder),
              eval_episodes=2, workers=1, progress=False, seed=seed, env_kwargs={"observation": "actions"})
        return load_policy(tmp_path / folder / "model.pt")[0].state_dict()

    first, again, other = weights("a", 3), weights("b", 3), weights("c", 4)
    assert all(torch.equal(first[key], again[key]) for key in first)
    assert not all(torch.equal(first[key], other[key]) for key in first)


def test_train_can_start_from_the_search_on_a_saved_policy(tmp_path):
    """One step of expert iteration: the clone learns the games of the search agent on a policy file."""
    import json

    from tabletop_gym.agents import committed_model
    from tabletop_gym.benchmarks.training.clone import train

    teacher = f"search-ppo:{committed_model('dungeon_solitaire')}"
    train("dungeon_solitaire", teacher, start_episodes=3, timesteps=256, n_envs=4, out=str(tmp_path),
          eval_episodes=2, workers=1, progress=False, env_kwargs={"illegal_action": "raise"})
    record = json.loads((tmp_path / "result.json").read_text())["hyperparameters"]
    assert record["start"] == teacher and 0 < record["cloned_agreement"] <= 1


@pytest.mark.parametrize("game", ["dead_center", "royal_assassin", "splendor"])
def test_train_scores_each_action_on_the_actions_observation(game, tmp_path):
    import json

    from tabletop_gym.agents.policy import export_policy
    from tabletop_gym.benchmarks.training import ppo
    from tabletop_gym.benchmarks.training.clone import train

    env_id = GAMES[game].id
    train(game, "heuristic", start_episodes=2, timesteps=256, n_envs=4, out=str(tmp_path), eval_episodes=2,
          workers=1, progress=False, env_kwargs={"observation": "actions", "illegal_action": "raise"})
    record = json.loads((tmp_path / "result.json").read_text())
    fields = gym.make(env_id).unwrapped.features.ACTION_FIELD_COUNT
    assert record["hyperparameters"]["action_fields"] == fields and record["timesteps"] == 256
    assert record["hyperparameters"]["hidden"] == list(ppo.SUMMARY_HIDDEN)
    policy, saved = load_policy(record["model_path"])
    assert policy.action_fields == fields and saved["env_kwargs"]["observation"] == "actions"
    agent = make_agent(f"ppo:{record['model_path']}", game)
    play_steps(gym.make(env_id, illegal_action="raise", observation="actions"), agent, 60, seed=4)
    exported = export_policy(policy, tmp_path / "policy.npz", saved)  # the numpy export plays the plain env too
    play_steps(gym.make(env_id, illegal_action="raise"), make_agent(f"ppo:{exported}", game), 60, seed=4)
    with pytest.raises(ValueError, match=r"DungeonSolitaire-v0 has no observation='actions': its observations are"):
        ppo.train("dungeon_solitaire", timesteps=64, out=str(tmp_path / "x"), env_kwargs={"observation": "actions"})


def test_train_on_the_features_alone_skips_the_plain_observation(tmp_path, capsys):
    import json

    from tabletop_gym.benchmarks import cli
    from tabletop_gym.benchmarks.training import ppo
    from tabletop_gym.benchmarks.training.clone import train

    env_id = GAMES["royal_assassin"].id
    plain_size = gym.make(env_id).observation_space.shape[0]
    train("royal_assassin", "heuristic", start_episodes=2, timesteps=256, n_envs=4, out=str(tmp_path),
          eval_episodes=2, workers=1, progress=False, read_plain=False,
          env_kwargs={"observation": "actions", "illegal_action": "raise"})
    record = json.loads((tmp_path / "result.json").read_text())
    assert record["hyperparameters"]["read_from"] == plain_size
    policy, _ = load_policy(record["model_path"])
    assert policy.read_from == plain_size
    play_steps(gym.make(env_id, illegal_action="raise"), make_agent(f"ppo:{tmp_path / 'policy.npz'}"), 60, seed=5)
    from tabletop_gym.benchmarks.training import curves

    table = curves.markdown([curves.read_run(tmp_path)])
    assert "| observation=actions, illegal_action=raise, plain skipped |" in table
    with pytest.raises(ValueError, match="read_plain=False goes with the project's own PPO"):
        ppo.train("royal_assassin", timesteps=64, out=str(tmp_path / "x"), read_plain=False)
    assert cli.main(["train", "royal_assassin", "--algo", "sb3", "--observation", "features", "--skip-plain",
                     "--timesteps", "64", "--out", str(tmp_path / "x")]) == 2
    assert "--skip-plain" in capsys.readouterr().err and not (tmp_path / "x").exists()
