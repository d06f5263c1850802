"""Every agent on every game: legal choices only, reproducible from its seed; the search agent never
uses what the player has not seen."""

import gymnasium as gym
import numpy as np
import pytest

from tabletop_gym.agents import AGENTS, PolicyAgent, committed_model, heuristic, make_agent
from tabletop_gym.agents.search import SearchAgent
from tabletop_gym.envs import GAMES

NAMES = list(GAMES)


def small_search(game, seed=None):
    """A search agent on a tiny budget (short playouts too), so that the tests stay quick."""
    return SearchAgent(simulations=3, rollout=heuristic(game), seed=seed, max_rollout_steps=15)


def agents_for(game, seed):
    return {"random": make_agent("random", game, seed), "heuristic": make_agent("heuristic", game, seed),
            "search": small_search(game, seed)}


def play(env, agent, seed, max_steps=400):
    """The actions an agent takes from reset(seed), checking each is legal."""
    if hasattr(agent, "attach"):
        agent.attach(env)
    agent.reset(seed=seed)
    obs, info = env.reset(seed=seed)
    actions = []
    for _ in range(max_steps):
        action = agent.act(obs, info["action_mask"])
        assert info["action_mask"][action], (type(agent).__name__, env.unwrapped.action_names[action])
        actions.append(action)
        obs, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            break
    return actions


@pytest.mark.parametrize("game", NAMES)
def test_agents_choose_only_legal_actions(game):
    env = gym.make(GAMES[game].id, illegal_action="raise")
    for kind, agent in agents_for(game, 0).items():
        for seed in range(2 if kind == "search" else 30):
            play(env, agent, seed, max_steps=15 if kind == "search" else 400)


@pytest.mark.parametrize("game", NAMES)
def test_agents_are_reproducible_from_their_seed(game):
    env = gym.make(GAMES[game].id)
    for kind in ("random", "heuristic", "search"):
        runs = [play(env, agents_for(game, 5)[kind], seed=3, max_steps=12) for _ in range(2)]
        assert runs[0] == runs[1], kind


def check_search_sees_only_what_the_player_sees(game, build_search, seeds):
    """Two worlds that look the same to the player (the hidden cards or dice differ) get the same choices."""
    env = gym.make(GAMES[game].id).unwrapped
    rng = np.random.default_rng(0)
    for seed in seeds:
        obs, info = env.reset(seed=seed)
        for _ in range(int(rng.integers(0, 5))):
            obs, _, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
            if terminated or truncated:
                obs, info = env.reset(seed=seed + 100)
        twin = env.determinize(np.random.default_rng(seed + 1000))
        twin_obs = twin.rules.observe(twin.state) if hasattr(twin, "rules") else None
        assert twin_obs is None or np.array_equal(twin_obs, obs)
        assert not twin.get_state()["game"].equals(env.get_state()["game"])  # the hidden part differs
        choices = []
        for world in (env, twin):
            agent = build_search(game)
            agent.attach(world)
            agent.reset(seed=seed)
            choices.append([agent.act(obs, info["action_mask"]) for _ in range(2)])
        assert choices[0] == choices[1]


@pytest.mark.parametrize("game", NAMES)
def test_search_sees_only_what_the_player_sees(game):
    check_search_sees_only_what_the_player_sees(game, small_search, seeds=range(4))


def test_one_card_dungeons_search_with_its_level_end_horizon_sees_only_what_the_player_sees():
    check_search_sees_only_what_the_player_sees("one_card_dungeon", lambda game: make_agent("search", game),
                                                seeds=range(2))


def test_unknown_agent_and_game_mismatches_are_clear_errors():
    with pytest.raises(ValueError, match="unknown agent"):
        make_agent("alphazero", "dungeon_solitaire")
    with pytest.raises(ValueError, match="plays splendor only"):
        make_agent("greedy", "dead_center")
    with pytest.raises(ValueError, match="name one"):
        make_agent("heuristic")
    with pytest.raises(ValueError, match="no saved model"):
        make_agent("ppo:/nonexistent/model.zip", "dead_center")
    assert {"random", "heuristic", "search"} <= set(AGENTS)


def test_search_keeps_its_priors_choice_unless_beaten():
    """With an unreachable margin the search plays its prior's moves, whatever finishes the playouts."""
    env = gym.make(GAMES["royal_assassin"].id).unwrapped
    prior = heuristic("royal_assassin")
    agent = SearchAgent(simulations=4, rollout=make_agent("random", seed=0), prior=prior, margin=np.inf, seed=0)
    agent.attach(env)
    obs, info = env.reset(seed=0)
    for _ in range(10):
        action = agent.act(obs, info["action_mask"])
        assert action == prior.act(obs, info["action_mask"])
        obs, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            break


class PrefersHigh:
    """A prior that rates each legal action by its number (the highest most likely) yet chooses the lowest."""

    def act(self, observation, action_mask):
        return int(np.flatnonzero(action_mask)[0])

    def probabilities(self, observations, masks):
        weights = np.where(masks, np.arange(masks.shape[-1]) + 1.0, 0.0)
        return weights / weights.sum(axis=-1, keepdims=True)


class Watched(SearchAgent):
    """A search agent that keeps the actions and values of its last searched decision."""

    def _choose(self, legal, values, default):
        self.searched = legal.copy(), values.shape
        return super()._choose(legal, values, default)


def test_candidates_searches_the_priors_likeliest_actions_and_its_choice_on_more_worlds():
    env = gym.make(GAMES["splendor"].id).unwrapped
    obs, info = env.reset(seed=0)
    legal = np.flatnonzero(info["action_mask"])
    assert legal.size > 4
    agent = Watched(simulations=12, rollout=make_agent("random", seed=0), prior=PrefersHigh(), seed=0, candidates=3,
                    max_rollout_steps=5)
    agent.attach(env)
    action = agent.act(obs, info["action_mask"])
    searched, shape = agent.searched
    # The prior's own choice (the lowest) and its two likeliest (the highest), each on 12 // 3 worlds.
    assert searched.tolist() == [legal[0], legal[-2], legal[-1]] and shape == (4, 3)
    assert action in searched


def test_a_proposer_names_the_candidates_and_the_priors_choice_stays_among_them():
    env = gym.make(GAMES["splendor"].id).unwrapped
    obs, info = env.reset(seed=0)
    legal = np.flatnonzero(info["action_mask"])
    prior = heuristic("splendor")
    choice = prior.act(obs, info["action_mask"])
    agent = Watched(simulations=12, rollout=make_agent("random", seed=0), prior=prior, proposer=PrefersHigh(), seed=0,
                    candidates=3, max_rollout_steps=5)
    agent.attach(env)
    agent.act(obs, info["action_mask"])
    searched, shape = agent.searched
    # The prior's choice, and the proposer's likeliest others (the highest), each on 12 // 3 worlds.
    likeliest = [int(a) for a in legal[::-1] if a != choice][:2]
    assert searched.tolist() == sorted([choice] + likeliest) and shape == (4, 3)


@pytest.mark.parametrize("game, candidates", [("dead_center", 3), ("one_card_dungeon", 6)])
def test_search_ppo_keeps_the_heuristic_and_lets_the_policy_name_the_candidates(game, candidates):
    agent = make_agent("search-ppo", game, seed=0)
    search = make_agent("search", game, seed=0)
    assert isinstance(agent.proposer, PolicyAgent) and agent.candidates == candidates
    assert type(agent.prior) is type(search.prior) and type(agent.rollout) is type(search.rollout)
    # Dead Center's playouts are finished by the heuristic without its look-ahead, in both.
    assert getattr(agent.rollout, "lookahead", None) == getattr(search.rollout, "lookahead", None)
    assert (agent.simulations, agent.min_worlds, agent.horizon) == (search.simulations, search.min_worlds, search.horizon)
    assert search.candidates is None and search.proposer is search.prior


def test_splendors_search_ppo_searches_its_policys_likeliest_actions():
    agent = make_agent("search-ppo", "splendor", seed=0)
    assert agent.prior is agent.rollout and agent.candidates == 4 and agent.simulations == 32
    assert make_agent("search", "splendor").candidates is None


def test_search_ppo_on_a_saved_policy_searches_with_it():
    path = str(committed_model("dungeon_solitaire"))
    agent = make_agent(f"search-ppo:{path}", "dungeon_solitaire", seed=0)
    shipped = make_agent("search-ppo", "dungeon_solitaire", seed=0)
    assert isinstance(agent, SearchAgent) and agent.prior is agent.rollout and agent.simulations == shipped.simulations
    env = gym.make(GAMES["dungeon_solitaire"].id).unwrapped
    observations = [env.reset(seed=seed)[0] for seed in range(20)]
    masks = [env.reset(seed=seed)[1]["action_mask"] for seed in range(20)]
    assert agent.prior.act_batch(np.array(observations), np.array(masks)).tolist() == \
        shipped.prior.act_batch(np.array(observations), np.array(masks)).tolist()
    with pytest.raises(ValueError, match="game"):
        make_agent(f"search-ppo:{path}")


def test_candidates_needs_a_prior_that_rates_actions_and_two_or_more():
    with pytest.raises(ValueError, match="probabilities"):
        SearchAgent(prior=heuristic("splendor"), candidates=3)
    with pytest.raises(ValueError, match="proposer"):
        SearchAgent(prior=PrefersHigh(), proposer=heuristic("splendor"), candidates=3)
    with pytest.raises(ValueError, match="at least 2"):
        SearchAgent(prior=PrefersHigh(), candidates=1)


def test_royal_assassins_search_keeps_the_full_heuristics_choices_and_rolls_out_the_fast_one():
    agent = make_agent("search", "royal_assassin", seed=0)
    assert agent.prior.lookahead and not agent.rollout.lookahead and agent.simulations == 256


class ObservationHash:
    """A policy that never draws a random number yet varies its play: the legal action picked by an integer hash
    of the observation, for one game (``act``) or many (``act_batch``)."""

    @staticmethod
    def _hashes(observations):
        o = np.round(np.asarray(observations, dtype=np.float64) * 8).astype(np.int64)
        return o @ (np.arange(o.shape[-1], dtype=np.int64) % 97 + 1)

    def act(self, observation, action_mask):
        return int(self.act_batch(np.asarray(observation)[None], np.asarray(action_mask)[None])[0])

    def act_batch(self, observations, masks):
        masks = np.asarray(masks, dtype=bool)
        picks = self._hashes(observations) % masks.sum(axis=1)
        return (masks.cumsum(axis=1) > picks[:, None]).argmax(axis=1)


class JudgeByMask:
    """A stand-in judge of cut playouts: a number that depends on where each stopped (exact in any batch); it counts
    the playouts it judged."""

    def __init__(self):
        self.judged = 0

    def __call__(self, observations, masks):
        self.judged += len(masks)
        return np.asarray(masks).sum(axis=1) / 4 + (np.asarray(observations)[:, 0] > 0)


@pytest.mark.parametrize("game", [name for name in NAMES if name != "splendor"])
@pytest.mark.parametrize("steps, judge", [(60, None), (2, JudgeByMask)])
def test_batched_playouts_give_each_world_and_action_the_value_a_single_playout_gives(game, steps, judge):
    """All of a decision's playouts on one vector env, against one playout at a time on clones: the same values,
    world by world and action by action (dice included: each playout copies its world's generator); playouts cut
    after two choices are judged alike."""
    env = gym.make(GAMES[game].id).unwrapped
    rollout = heuristic(game, lookahead=False) if game == "dead_center" else ObservationHash()
    leaf_value = judge() if judge else None
    agent = SearchAgent(simulations=2, rollout=rollout, seed=0, score_weight=0.25, max_rollout_steps=steps,
                        leaf_value=leaf_value)
    agent.attach(env)
    assert agent._vector_class is not None
    values = []
    for seed in range(6):
        obs, info = env.reset(seed=seed)
        for _ in range(seed):  # a few decisions in, so that some of the game is behind
            obs, _, terminated, truncated, info = env.step(ObservationHash().act(obs, info["action_mask"]))
            if terminated or truncated:
                obs, info = env.reset(seed=seed)
        legal = np.flatnonzero(info["action_mask"])
        worlds = [env.determinize(np.random.default_rng(seed * 10 + k)) for k in range(3)]
        before = leaf_value.judged if leaf_value else 0
        batched = agent._batched_values(legal, worlds)
        judged_together = leaf_value.judged - before if leaf_value else 0
        single = [[agent._playout(world.clone(), int(action), rollout) for action in legal] for world in worlds]
        np.testing.assert_array_equal(batched, single)
        if leaf_value is not None:  # both ways judged the same playouts
            assert leaf_value.judged - before == 2 * judged_together
        values.extend(batched.ravel())
    assert len(set(values)) > 1  # the playouts end in different places: the comparison has something to compare
    if leaf_value is not None:  # and some were cut
        assert leaf_value.judged > 0


def test_splendor_search_plays_its_worlds_out_one_at_a_time():
    """Splendor's view holds seats and opponents that a single state does not: no batch of its worlds."""
    env = gym.make(GAMES["splendor"].id).unwrapped
    agent = SearchAgent(simulations=2, rollout=make_agent("random", seed=0), seed=0)
    agent.attach(env)
    assert agent._vector_class is None
    obs, info = env.reset(seed=0)
    assert info["action_mask"][agent.act(obs, info["action_mask"])]


def test_the_random_agent_chooses_for_many_games_at_once_among_the_legal_actions():
    agent = make_agent("random", seed=0)
    masks = np.zeros((3, 5), dtype=bool)
    masks[0, [1, 3]] = masks[1, 4] = masks[2, :] = True
    picks = np.array([agent.act_batch(None, masks) for _ in range(400)])
    assert set(picks[:, 0]) == {1, 3} and set(picks[:, 1]) == {4} and set(picks[:, 2]) == set(range(5))
    with pytest.raises(ValueError, match="row 1"):
        agent.act_batch(None, np.array([[True, False], [False, False]]))


def test_dead_centers_search_keeps_the_full_heuristics_choices_and_rolls_out_the_quick_one():
    agent = make_agent("search", "dead_center", seed=0)
    assert agent.prior.lookahead and not agent.rollout.lookahead and agent.simulations == 256


class NeverAsked:
    """A rollout policy for searches whose playouts must never reach it."""

    def act(self, observation, action_mask):
        raise AssertionError("a playout reached the rollout policy")

    def act_batch(self, observations, masks):
        raise AssertionError("a playout reached the rollout policy")


def test_a_horizon_ends_each_playout_where_it_says_with_the_value_it_gives():
    """One Card Dungeon's dice: a horizon that stops right after the assignment, valuing the Speed it gave. The
    search takes an assignment with the most Speed, and no playout goes further."""
    env = gym.make(GAMES["one_card_dungeon"].id).unwrapped
    obs, info = env.reset(seed=0, options={"rolls": [5, 3, 1]})

    def speed_given(before, now):
        return float(now["speed_left"]) if now["phase"] == "act" else None

    agent = SearchAgent(simulations=30, rollout=NeverAsked(), prior=make_agent("random", seed=0), seed=0,
                        horizon=speed_given)
    agent.attach(env)
    action = agent.act(obs, info["action_mask"])
    assert env.unwrapped.action_names[action] in ("assign_HML", "assign_HLM")
    assert agent._vector_class is None  # a rollout that could play batches, but those have no horizon


def test_a_decision_with_too_few_worlds_for_each_action_keeps_the_priors_choice():
    env = gym.make(GAMES["one_card_dungeon"].id).unwrapped
    prior = heuristic("one_card_dungeon")
    obs, info = env.reset(seed=0, options={"rolls": [6, 6, 5]})
    obs, _, _, _, info = env.step(prior.act(obs, info["action_mask"]))  # Speed 7: many tiles in reach
    legal = int(info["action_mask"].sum())
    for simulations in (8 * legal - 1, 8 * legal):
        agent = SearchAgent(simulations=simulations, rollout=NeverAsked(), prior=prior, seed=0, min_worlds=8)
        agent.attach(env)
        if simulations < 8 * legal:
            assert agent.act(obs, info["action_mask"]) == prior.act(obs, info["action_mask"])
        else:  # eight worlds for each action: searched, so the playouts go on to the rollout policy
            with pytest.raises(AssertionError, match="reached the rollout"):
                agent.act(obs, info["action_mask"])
