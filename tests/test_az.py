"""The planning agent (``agents/az.py``): its tree search on positions whose best move is known, its fairness (it
plans on resampled deals, never on the hidden cards), the agent by name, and the trainer of its value."""

import json

import gymnasium as gym
import numpy as np
import pytest
from test_splendor_rules import FOURTEEN, edit, give_cards, give_tokens, play, start

import tabletop_gym.envs  # noqa: F401  (registers the ids)
from tabletop_gym.agents import make_agent
from tabletop_gym.agents.az import PlanningAgent
from tabletop_gym.agents.policy import ValueNetwork
from tabletop_gym.envs.splendor import rules

NAMES = list(rules.ACTION_NAMES)


class Fixed:
    """A stand-in for the networks: every position a chance of ``value`` for its mover (the rest shared by the
    others), the prior ``favour`` on one action where it is legal, the rest uniform."""

    def __init__(self, value=0.5, favoured=None, favour=0.6):
        self.value, self.favoured, self.favour = value, favoured, favour
        self.asked = 0

    def probabilities(self, observations, masks):
        priors = masks / masks.sum(axis=1, keepdims=True)
        if self.favoured is not None:
            has = masks[:, self.favoured]
            priors[has] *= (1 - self.favour)
            priors[has, self.favoured] += self.favour
        return priors

    def judge(self, observations, movers, masks):
        count, players = observations.shape[:2]
        self.asked += count
        chances = np.full((count, players), (1 - self.value) / (players - 1))
        chances[np.arange(count), movers] = self.value
        return self.probabilities(observations, masks), chances


def last_seat_can_win():
    """Seat 1 to move with 14 points and the tokens for card 7 (1 point): buying it ends the game, seat 1 the winner
    (seat 0 has no points)."""
    env = start(tier1=[7, 1, 2, 3])
    edit(env, give_cards(*FOURTEEN, seat=1), give_tokens(0, 0, 4, 0, 0, 0, seat=1))
    play(env, "take_WUR")
    return env.state_


def test_the_search_finds_the_winning_buy_against_its_prior():
    state = last_seat_can_win()
    assert rules.legal_mask(state)[NAMES.index("take_WUK")]
    network = Fixed(favoured=NAMES.index("take_WUK"))
    agent = PlanningAgent(rules, network, simulations=400, worlds=4, seed=0)
    visits = agent.search([rules.determinize(state, np.random.default_rng(k), 1) for k in range(4)])
    assert visits.sum() == 400 and not visits[~rules.legal_mask(state)].any()
    assert NAMES[int(np.argmax(visits))] == "buy_t1_0"
    # with two simulations a world the prior still leads: the search, not the prior, found the win
    few = PlanningAgent(rules, Fixed(favoured=NAMES.index("take_WUK")), simulations=8, worlds=4, seed=0)
    assert NAMES[int(np.argmax(few.search([state] * 4)))] == "take_WUK"


def test_the_opponents_moves_are_searched_for_the_opponent():
    """Seat 0 to move where seat 1 then wins at once by buying card 7, unless seat 0 reserves it first: a search
    that valued seat 1's replies for seat 0 would not see the threat."""
    env = start(tier1=[7, 1, 2, 3])
    edit(env, give_cards(*FOURTEEN, seat=1), give_tokens(0, 0, 4, 0, 0, 0, seat=1))
    state = env.state_
    assert int(state.current) == 0 and rules.legal_mask(state)[NAMES.index("take_WUR")]
    # (every one of seat 0's 21 moves needs about 21 simulations before seat 1's buy, its last legal move, is tried)
    agent = PlanningAgent(rules, Fixed(favoured=NAMES.index("take_WUR")), simulations=2000, worlds=2, seed=0)
    visits = agent.search([rules.determinize(state, np.random.default_rng(k), 0) for k in range(2)])
    assert NAMES[int(np.argmax(visits))] == "reserve_t1_0"


OWN_POINTS = [name for name, _ in rules.OBSERVATION_FIELDS].index("seat0_points")  # the observing seat's


def test_every_seat_is_judged_from_its_own_view():
    """At a table of three, seat 0 can buy a point (card 7) while its prior favours taking gems, and the value is a
    seat's own points: each seat's chance is its value over the seats' sum, and the search finds the buy. (Judged
    as a remainder of the next mover's chance, seat 0's point would not show until seat 0 moved again.)"""
    from tabletop_gym.agents.az import Networks

    env = start(num_players=3, tier1=[7, 1, 2, 3])
    edit(env, give_cards(74, seat=1), give_tokens(0, 0, 4, 0, 0, 0, seat=0))  # seat 1 has 3 points
    state = env.state_
    networks = Networks(Fixed(favoured=NAMES.index("take_WUR")), lambda o: 0.2 + o[:, OWN_POINTS])
    seen = np.stack([[rules.observe(state, k) for k in range(3)]])
    priors, chances = networks.judge(seen, np.array([0]), rules.legal_mask(state)[None])
    assert np.allclose(chances, [[0.2 / 3.6, 3.2 / 3.6, 0.2 / 3.6]])
    assert priors[0, NAMES.index("take_WUR")] > 0.6 and priors[0, ~rules.legal_mask(state)].sum() == 0
    visits = PlanningAgent(rules, networks, simulations=300, seed=0).search([state])
    assert NAMES[int(np.argmax(visits))] == "buy_t1_0"


def test_the_agent_plans_on_resampled_deals_only():
    """Two games alike in all the seat sees, unlike in the draw piles: the same visits, the same move."""
    env = gym.make("Tabletop/Splendor-v0", opponent="greedy")
    obs, info = env.reset(seed=3)
    for _ in range(6):
        obs, _, _, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    twin = gym.make("Tabletop/Splendor-v0", opponent="greedy")
    twin.reset(seed=3)
    saved = env.unwrapped.get_state()
    saved["game"] = rules.determinize(env.unwrapped.state, np.random.default_rng(99), env.unwrapped.seat)
    twin.unwrapped.set_state(saved)
    assert not np.array_equal(twin.unwrapped.state.decks, env.unwrapped.state.decks)
    chosen = []
    for game in (env, twin):
        agent = PlanningAgent(rules, Fixed(value=0.4), simulations=64, worlds=4, seed=5)
        agent.attach(game)
        chosen.append((agent.act(obs, info["action_mask"]), agent.last_visits.tolist()))
    assert chosen[0] == chosen[1]


def test_each_table_is_judged_by_its_own_value():
    """The shipped values: one for three players, one for four, the default for two. A search at a table of three
    asks the value of three and no other."""
    from tabletop_gym.agents.az import Networks

    shipped = make_agent("az", "splendor").network
    assert sorted(shipped.tables) == [3, 4]
    asked = []

    def value_of(players):
        return lambda observations: asked.append(players) or np.full(len(observations), 0.5)

    uniform = type("Uniform", (), {"probabilities": staticmethod(lambda o, m: m / m.sum(axis=1, keepdims=True))})
    agent = PlanningAgent(rules, Networks(uniform, value_of(2), {3: value_of(3), 4: value_of(4)}), simulations=8,
                          worlds=1)
    agent.search([rules.new_game(np.random.default_rng(0), 3)])
    assert set(asked) == {3}
    asked.clear()
    agent.search([rules.new_game(np.random.default_rng(0), 2)])
    assert set(asked) == {2}


def test_a_budget_of_seconds_searches_until_the_time_is_up():
    agent = make_agent("az:0.05s", "splendor", seed=0)
    assert agent.seconds == 0.05
    visits = agent.search([rules.new_game(np.random.default_rng(0)) for _ in range(agent.worlds)])
    assert visits.sum() >= agent.worlds  # one round at least, however slow the machine


def test_the_shipped_agent_plays_whole_games_by_name():
    agent = make_agent("az:16", "splendor", seed=0)
    assert agent.simulations == 16 and make_agent("az", "splendor").simulations == 200
    env = gym.make("Tabletop/Splendor-v0", opponent="greedy", illegal_action="raise")
    obs, info = env.reset(seed=0)
    agent.attach(env)
    done = False
    while not done:
        obs, _, terminated, truncated, info = env.step(agent.act(obs, info["action_mask"]))
        done = terminated or truncated
    assert info["result"] != 0


def test_the_agent_crosses_to_worker_processes():
    """Evaluations pickle the agent to their workers: the copy plays as the original does."""
    import pickle

    env = gym.make("Tabletop/Splendor-v0", opponent="greedy")
    obs, info = env.reset(seed=4)
    original = make_agent("az:32", "splendor", seed=3)
    copy = pickle.loads(pickle.dumps(original))
    assert copy.rules is rules and copy.env is None
    for agent in (original, copy):
        agent.attach(env)
    assert original.act(obs, info["action_mask"]) == copy.act(obs, info["action_mask"])
    assert original.last_visits.tolist() == copy.last_visits.tolist()


@pytest.mark.parametrize("name, game, said", [
    ("az", "dead_center", "plays splendor only"), ("az:0", "splendor", "at least 1 simulation"),
    ("az:no/such/folder", "splendor", "neither a number of simulations, nor seconds"), ("az", None, "name the game"),
    ("az:0s", "splendor", "more than 0 and finite"), ("az:infs", "splendor", "more than 0 and finite")])
def test_the_agent_by_name_refuses_clearly(name, game, said):
    with pytest.raises(ValueError, match=said):
        make_agent(name, game)


def test_the_search_improves_its_prior_by_the_values_it_found():
    from tabletop_gym.agents.az import improved_policy

    prior = np.array([0.5, 0.3, 0.2])
    same = improved_policy(prior, np.array([6.0, 2.0, 0.0]), np.array([3.0, 1.0, 0.0]), 0.5)
    assert np.allclose(same, prior)  # every action worth the root's value: the prior stands
    better = improved_policy(prior, np.array([6.0, 2.0, 0.0]), np.array([1.2, 2.0, 0.0]), 0.5)
    assert better[1] > 0.9 and better[0] < prior[0] and np.isclose(better.sum(), 1.0)
    # the action never searched is valued as the root's mix: between the network's value and the searched ones'
    unsearched = improved_policy(prior, np.array([4.0, 0.0, 0.0]), np.array([4.0, 0.0, 0.0]), 0.0)
    assert unsearched[0] > prior[0] and np.isclose(unsearched[1] / unsearched[2], 1.5)


def test_bad_search_settings_are_refused():
    with pytest.raises(ValueError, match="at least 1"):
        PlanningAgent(rules, Fixed(), simulations=0)
    with pytest.raises(RuntimeError, match="attach"):
        PlanningAgent(rules, Fixed()).act(np.zeros(rules.OBSERVATION_SIZE), np.ones(rules.NUM_ACTIONS))


def test_the_value_trainer_labels_each_decision_with_its_seats_result():
    from tabletop_gym.agents import PolicyAgent, committed_model
    from tabletop_gym.benchmarks.training import az

    policy = PolicyAgent(committed_model("splendor"))
    games = az.self_play(rules, policy, 0, 6, 2, np.random.default_rng(0))
    won, deals = games["won"], games["deal"]
    assert len(games["observations"]) == len(won) == len(deals) > 6 * 20 and set(np.unique(won)) <= {0.0, 1.0}
    assert sorted(set(deals.tolist())) == list(range(6))
    fields = [name for name, _ in rules.OBSERVATION_FIELDS]
    observations = games["observations"]
    viewer = observations[:, fields.index("my_seat_0"):fields.index("my_seat_0") + 2].argmax(axis=1)
    to_move = observations[:, fields.index("to_play_seat0")] == 1
    assert to_move.any() and not to_move.all()  # the position as the seat to move sees it, or as the other does
    for deal in range(6):  # each game: its winner's views and its loser's, never a win for both
        labels = {seat: set(won[(deals == deal) & (viewer == seat)].tolist()) for seat in (0, 1)}
        assert sorted(labels.values(), key=min) == [{0.0}, {1.0}]
    fitted, kept = az.held_out_split(deals, az.Settings(held_out=3))
    assert set(deals[kept.numpy()]) == {0, 3} and not set(deals[fitted.numpy()]) & {0, 3}


TINY = {"value_games": 24, "batch": 12, "value_epochs": 1, "games": 4, "chunk": 2, "simulations": 8, "epochs": 1}


def tiny_run(folder, rounds: int = 1, settings: dict | None = None, **options):
    from tabletop_gym.benchmarks.training import az

    return az.train("splendor", rounds=rounds, out=None if "resume" in options else folder, seed=1, eval_episodes=2,
                    workers=1, progress=False, settings={**TINY, **(settings or {})}, **options)


def test_expert_iteration_writes_its_rounds_and_the_run(tmp_path):
    result = tiny_run(tmp_path)
    rounds = tmp_path / "rounds"
    value = ValueNetwork(rounds / "round_0" / "value.npz")
    assert value.field_count == rules.OBSERVATION_SIZE and value.record["positions"] > 24 * 20
    record = ValueNetwork(rounds / "round_1" / "value.npz").record
    assert record["round"] == 1 and record["decisions"] > 0 and 0 <= record["win_rate"] <= 1
    trained = make_agent(f"ppo:{rounds / 'round_1' / 'policy.npz'}", "splendor")
    assert trained.record["az"]["policy_losses"] == record["policy_losses"]
    agent = make_agent(f"az:{tmp_path}", "splendor")  # the run's networks: its last round's
    assert agent.network.value.record == record and agent.network.policy.record == trained.record
    assert result.hyperparameters["algo"] == "az" and result.hyperparameters["rounds"] == 1
    assert result.evaluation["episodes"] == 2 and result.evaluation["opponent"] == "greedy"
    assert result.timesteps == value.record["positions"] + record["decisions"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "learning_curve.csv", "learning_curve.png", "policy.npz", "result.json", "rounds", "value.npz"]
    assert sorted(p.name for p in rounds.iterdir()) == [
        "curve.json", "decisions_0.npz", "decisions_1.npz", "round_0", "round_1"]  # nothing half written
    curve = json.loads((rounds / "curve.json").read_text())
    assert [row["round"] for row in curve] == [0, 1] and all(row["game_seconds"] > 0 for row in curve)
    with pytest.raises(ValueError, match="holds another run"):
        tiny_run(tmp_path)


def test_a_stopped_run_goes_on_from_the_games_it_wrote(tmp_path, monkeypatch):
    """A Ctrl-C during round 1's second task: the first task's games are kept, and ``resume`` plays only the rest,
    to the same decisions as a run never stopped."""
    from tabletop_gym.benchmarks.training import az

    whole = tiny_run(tmp_path / "whole")
    league_games, played = az.league_games, []

    def stopped_once(task, settings):
        played.append(task.index)
        if played == [0, 1]:  # round 1's second task, the first time it is played
            raise KeyboardInterrupt
        return league_games(task, settings)

    monkeypatch.setattr(az, "league_games", stopped_once)
    with pytest.raises(KeyboardInterrupt, match="--resume"):
        tiny_run(tmp_path / "stopped")
    rounds = tmp_path / "stopped" / "rounds"
    assert sorted(p.name for p in (rounds / "games_1").iterdir()) == ["task_0.npz"]
    assert not (tmp_path / "stopped" / "result.json").exists()
    with pytest.raises(ValueError, match="checkpoint of another run: its seed differ"):
        az.train("splendor", rounds=1, seed=2, resume=tmp_path / "stopped", settings=TINY, progress=False)
    assert sorted(p.name for p in (rounds / "games_1").iterdir()) == ["task_0.npz"]
    played.clear()
    # on another machine: where it computes is not what it learns
    resumed = tiny_run(tmp_path / "stopped", resume=tmp_path / "stopped", settings={"torch_threads": 2})
    assert played == [1]  # the stopped task alone
    for key in ("observations", "policy", "value", "won", "deal"):
        assert np.array_equal(np.load(rounds / "decisions_1.npz")[key],
                              np.load(tmp_path / "whole" / "rounds" / "decisions_1.npz")[key])
    assert resumed.timesteps == whole.timesteps
    # the round's cost counts the task played before the stop as well as the one after
    seconds = np.load(rounds / "decisions_1.npz")["seconds"]
    assert len(seconds) == 2 and (seconds > 0).all()
    assert json.loads((rounds / "curve.json").read_text())[1]["game_seconds"] == round(float(seconds.sum()), 1)


@pytest.mark.parametrize("argv, said", [
    ("train dead_center --algo az", "plays splendor only"),
    ("train splendor --algo az --opponent random", "opponent: not options of --algo az"),
    ("train splendor --algo az --timesteps 100", "--timesteps: not an option of expert iteration"),
    ("train splendor --algo az --rounds -1", "--rounds must be 0 or more"),
    ("train splendor --algo ppo --rounds 2", "--rounds: not an option of the project's masked PPO")])
def test_the_training_command_refuses_what_az_does_not_take(argv, said, tmp_path, capsys):
    from tabletop_gym.benchmarks.cli import main

    assert main([*argv.split(), "--out", str(tmp_path / "run")]) == 2
    assert said in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


def test_a_shipped_policy_goes_on_training_from_the_moves_it_plays():
    """``policy_from_file``: the torch policy built from a ``.npz`` gives the numpy policy's logits."""
    import torch

    from tabletop_gym.agents import PolicyAgent, committed_model
    from tabletop_gym.benchmarks.training import az
    from tabletop_gym.envs.core.env import with_features
    from tabletop_gym.envs.splendor import features

    numpy_policy = PolicyAgent(committed_model("splendor"))
    observations = az.self_play(rules, numpy_policy, 7, 2, 2, np.random.default_rng(1))["observations"]
    masks = np.ones((len(observations), rules.NUM_ACTIONS), dtype=bool)
    masks[:, ::3] = False
    torch_policy = az.policy_from_file(committed_model("splendor"))
    with torch.no_grad():
        logits = torch_policy.logits(torch.as_tensor(with_features(features, "actions", observations)),
                                     torch.as_tensor(masks)).numpy()
    expected = numpy_policy._logits(observations, masks)
    assert np.allclose(logits[masks], expected[masks], atol=1e-3)
