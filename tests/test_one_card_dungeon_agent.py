"""The One Card Dungeon heuristic: only legal actions, reproducible, and the documented choices."""

import copy

import gymnasium as gym
import numpy as np
import pytest
from helpers import place_in_dungeon as place
from helpers import play_legally

from tabletop_gym.agents import make_agent
from tabletop_gym.agents.one_card_dungeon import (HEALTH_KEPT, SHIPPED_VALUE, START_FIELD_COUNT, START_FIELDS,
                                                  OneCardDungeonHeuristic, OneCardDungeonValueAgent, Table,
                                                  level_end, level_up_fields, start_fields)
from tabletop_gym.agents.policy import ValueNetwork
from tabletop_gym.envs.one_card_dungeon import rules

ENV_ID = "Tabletop/OneCardDungeon-v0"


def start(rolls=(), level=1, **kwargs):
    env = gym.make(ENV_ID, skip_forced=False, illegal_action="raise", **kwargs).unwrapped
    env.reset(seed=0, options={"rolls": list(rolls), "level": level})
    return env


def choose(agent, env) -> str:
    """The agent's choice on the env's table, by name, checked legal."""
    action = agent.act(rules.observe(env.state), env.action_masks().astype(np.int8))
    assert env.action_masks()[action]
    return rules.ACTION_NAMES[action]


def play_turn(agent, env) -> list[str]:
    """Let the agent play from now until the dice of the next turn wait (or the level or game ends)."""
    names = []
    while True:
        name = choose(agent, env)
        names.append(name)
        env.step(rules.ACTION_NAMES.index(name))
        if env.state.phase != rules.ACT:
            return names


# ---------------------------------------------------------------- legal and reproducible

@pytest.mark.parametrize("skip_forced", [True, False])
def test_the_agent_only_chooses_legal_actions(skip_forced):
    # Short games (a few turns) from every level, so that every kind of table and the level-up come up;
    # an illegal action would raise.
    env = gym.make(ENV_ID, skip_forced=skip_forced, illegal_action="raise", max_turns=6)
    agent = OneCardDungeonHeuristic()
    phases, results = set(), set()
    for seed in range(48):
        agent.reset(seed=seed)
        observation, info = env.reset(seed=seed, options={"level": seed % 12 + 1})
        done = False
        while not done:
            mask = info["action_mask"]
            action = agent.act(observation, mask)
            assert mask[action], (seed, rules.ACTION_NAMES[action])
            phases.add(env.unwrapped.state.phase)
            observation, _, terminated, truncated, info = env.step(action)
            done = terminated or truncated
        results.add(rules.RESULT_NAMES[info["result"]])
    assert phases == {rules.ASSIGN, rules.ACT, rules.LEVEL_UP}
    assert {"lost", "truncated"} <= results


def test_the_agent_plays_whole_games_legally_in_the_default_mode():
    env = gym.make(ENV_ID)  # an illegal action would forfeit
    agent = OneCardDungeonHeuristic()
    for seed in range(3):
        agent.reset(seed=seed)
        observation, info = env.reset(seed=seed)
        done = False
        while not done:
            observation, _, terminated, truncated, info = env.step(agent.act(observation, info["action_mask"]))
            done = terminated or truncated
        assert rules.RESULT_NAMES[info["result"]] in ("won", "lost", "truncated")
        assert not info["illegal_action"]


def _actions(agent, seed, steps=120):
    env = gym.make(ENV_ID)
    agent.reset(seed=seed)
    observation, info = env.reset(seed=seed, options={"level": 1 + seed % 12})
    actions = []
    for _ in range(steps):
        action = agent.act(observation, info["action_mask"])
        actions.append(action)
        observation, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            break
    return actions


def test_the_agent_is_reproducible_from_its_seed():
    for seed in (0, 7):
        first = _actions(OneCardDungeonHeuristic(seed=seed), seed)
        again = _actions(OneCardDungeonHeuristic(seed=seed), seed)
        assert first == again
    # A used agent reset with a seed plays as a fresh one.
    agent = OneCardDungeonHeuristic(seed=1)
    _actions(agent, 3)
    assert _actions(agent, 5) == _actions(OneCardDungeonHeuristic(seed=5), 5)


# ---------------------------------------------------------------- the documented choices

def test_the_high_die_goes_to_attack_for_the_last_blow():
    # Level 1: one spider left with 1 health, orthogonally next to the adventurer. Dice 6 1 1: only the
    # 6 on Attack pays the spider's Defense 4, and the blow clears the level.
    env = start(rolls=[6, 1, 1])
    place(env, adventurer=(4, 0), monsters=[(4, 1), None], hp=[1, 0])
    agent = OneCardDungeonHeuristic()
    assert choose(agent, env) == "assign_MHL"
    env.step(rules.ACTION_NAMES.index("assign_MHL"))
    assert play_turn(agent, env) == ["attack_0"]
    assert env.state.phase == rules.LEVEL_UP


def test_a_kill_comes_before_a_wound():
    # Level 1: two spiders next to the adventurer, one with 1 health and one with 2; dice 4 4 1: a 4 on
    # Attack pays one blow (1 + 4 >= Defense 4), the other 4 on Defense. The blow kills the wounded
    # spider (one striker less: 4 // 5 = no damage) rather than wound the other (8 // 5 = 1).
    env = start(rolls=[4, 4, 1])
    place(env, adventurer=(4, 1), monsters=[(4, 0), (4, 2)], hp=[2, 1])
    agent = OneCardDungeonHeuristic()
    name = choose(agent, env)
    env.step(rules.ACTION_NAMES.index(name))
    assert env.state.attack_left == 5
    assert "attack_1" in play_turn(agent, env)
    assert env.state.monster_pos[1] == -1 and env.state.monster_hp.tolist() == [2, 0, 0, 0]


def test_defense_takes_the_high_die_when_no_blow_or_step_is_possible():
    # Level 3: the adventurer in its corner, an ogre on each open side (the diagonal is a wall): no
    # step is possible and the 5 does not pay an ogre's Defense 7 (Attack 1). The 5 goes to Defense:
    # 14 // 6 = 2 damage instead of 14 // 4 = 3.
    env = start(rolls=[5, 3, 1], level=3)
    place(env, adventurer=(4, 0), monsters=[(3, 0), (4, 1)])
    agent = OneCardDungeonHeuristic()
    name = choose(agent, env)
    assert name in ("assign_MLH", "assign_LMH")
    env.step(rules.ACTION_NAMES.index(name))
    assert play_turn(agent, env) == ["end_turn"]
    assert env.state.health == 4


def test_hit_and_run_against_a_slow_ogre():
    # Level 3, one ogre (Speed 3, Range 2) orthogonally next to the adventurer; dice 6 6 1: a 6 on Attack
    # pays the blow (1 + 6 = Defense 7) and a 6 on Speed carries the adventurer out of the ogre's reach
    # after striking, so the blow costs no health.
    env = start(rolls=[6, 6, 1], level=3)
    place(env, adventurer=(2, 2), monsters=[(2, 3), None], hp=[5, 0])
    agent = OneCardDungeonHeuristic()
    name = choose(agent, env)
    env.step(rules.ACTION_NAMES.index(name))
    assert env.state.speed_left == 7 and env.state.attack_left == 7
    names = play_turn(agent, env)
    assert "attack_0" in names and names[-1] == "end_turn"
    assert names.index("attack_0") < len(names) - 2  # a step after the blow
    assert env.state.monster_hp[0] == 4 and env.state.health == 6


def test_no_lethal_plan_while_a_safe_one_exists():
    # Level 2, Health 1, dice 6 2 1, skeletons (Attack 5) at r0c4 and r3c2. Ending the turn where it
    # stands is fatal whatever the assignment; the one way out is the 6 on Defense (Defense 7) and the
    # step to r4c3, where only one skeleton gets a sight line: 5 // 7 = no damage.
    env = start(rolls=[6, 2, 1], level=2)
    place(env, adventurer=(4, 4), monsters=[(0, 4), (3, 2)], health=1)
    agent = OneCardDungeonHeuristic()
    name = choose(agent, env)
    assert name in ("assign_MLH", "assign_LMH")
    env.step(rules.ACTION_NAMES.index(name))
    assert play_turn(agent, env) == ["move_r4c3", "end_turn"]
    assert env.state.health == 1 and env.state.phase == rules.ASSIGN


@pytest.mark.parametrize("health, expected", [(3, "heal"), (1, "heal"), (4, "upgrade_attack"), (6, "upgrade_attack")])
def test_level_up_heals_when_low_else_raises_attack_first(health, expected):
    env = start(rolls=[6, 1, 1])
    place(env, adventurer=(4, 0), monsters=[(4, 1), None], hp=[1, 0], health=health)
    env.step(rules.ACTION_NAMES.index("assign_MHL"))
    env.step(rules.ACTION_NAMES.index("attack_0"))
    assert env.state.phase == rules.LEVEL_UP
    assert choose(OneCardDungeonHeuristic(), env) == expected


def test_level_up_follows_the_upgrade_order_and_skips_capped_skills():
    agent = OneCardDungeonHeuristic(upgrade_order=("attack", "defense", "range"))
    env = start(rolls=[6, 1, 1])
    place(env, adventurer=(4, 0), monsters=[(4, 1), None], hp=[1, 0], attack=2)
    env.step(rules.ACTION_NAMES.index("assign_MHL"))
    env.step(rules.ACTION_NAMES.index("attack_0"))
    assert choose(agent, env) == "upgrade_defense"  # Attack already has its first upgrade
    place(env, attack=2, defense=2)
    assert choose(agent, env) == "upgrade_range"
    place(env, attack=6, defense=6, range=6)  # the order done and capped: the remaining skill
    assert choose(agent, env) == "upgrade_speed"


# ---------------------------------------------------------------- what the search agent uses

def test_what_is_worked_out_once_gives_the_choices_worked_out_afresh():
    """A long-lived agent plays three deals, then plays them again: the second time every dice decision comes
    from its stores, and each game goes exactly as the first time; every dice decision is a fresh agent's."""
    env = gym.make(ENV_ID).unwrapped
    agent = OneCardDungeonHeuristic()

    def play(seed):
        actions = []
        obs, info = env.reset(seed=seed)
        while env.state.level <= 4:
            action = agent.act(obs, info["action_mask"])
            if env.state.phase == rules.ASSIGN:
                assert action == OneCardDungeonHeuristic().act(obs, info["action_mask"])
            actions.append(action)
            obs, _, terminated, truncated, info = env.step(action)
            if terminated or truncated:
                break
        return actions

    first = [play(seed) for seed in range(3)]
    worked_out = len(agent._assigns)
    assert worked_out > 30
    assert [play(seed) for seed in range(3)] == first
    assert len(agent._assigns) == worked_out  # nothing new: every assignment came from the store


def test_a_copy_has_its_own_plan_and_shares_the_worked_out_plans():
    env = start(rolls=[6, 6, 1], level=3)
    place(env, adventurer=(2, 2), monsters=[(2, 3), None], hp=[5, 0])
    agent = OneCardDungeonHeuristic()
    choose(agent, env)
    twin = copy.deepcopy(agent)
    assert twin._plans is agent._plans and twin._plan == agent._plan and twin._plan is not agent._plan
    twin._plan.clear()
    assert agent._plan


def test_a_playout_ends_with_its_level_valued_by_the_levels_cleared_and_the_health_kept():
    env = start(rolls=[6, 1, 1])
    place(env, adventurer=(4, 0), monsters=[(4, 1), None], hp=[1, 0], health=4)
    before = env.describe()
    env.step(rules.ACTION_NAMES.index("assign_MHL"))
    assert level_end(before, env.describe()) is None  # the level goes on
    env.step(rules.ACTION_NAMES.index("attack_0"))
    assert level_end(before, env.describe()) == pytest.approx(1 + HEALTH_KEPT * 4)
    # From the level-up itself every choice ends the playout at once, worth the same.
    before = env.describe()
    values = set()
    for choice in ("heal", "upgrade_attack"):
        twin = env.clone()
        twin.step(rules.ACTION_NAMES.index(choice))
        values.add(level_end(before, twin.describe()))
    assert values == {1.0}


def test_a_playout_that_dies_is_worth_the_levels_cleared_before():
    # Level 3: cornered by two ogres, Health 1: the 14 // 6 = 2 damage kills.
    env = start(rolls=[5, 3, 1], level=3)
    place(env, adventurer=(4, 0), monsters=[(3, 0), (4, 1)], health=1)
    before = env.describe()
    env.step(rules.ACTION_NAMES.index("assign_MLH"))
    env.step(rules.ACTION_NAMES.index("end_turn"))
    assert env.state.result == rules.LOST
    assert level_end(before, env.describe()) == 2.0


def test_the_search_agent_plays_out_to_the_level_end_and_plays_a_level_legally():
    agent = make_agent("search", "one_card_dungeon", seed=0)
    assert agent.horizon is level_end and agent.min_worlds == 8 and agent.simulations == 48
    # Level 1 played through, every choice legal. The dice are searched (worlds sampled); a step with more than
    # six legal actions keeps the heuristic's choice without a world sampled.
    env = start()
    agent.attach(env)
    sampled, determinize = [0], env.determinize
    env.determinize = lambda rng: sampled.__setitem__(0, sampled[0] + 1) or determinize(rng)
    searched = set()  # (phase, more than six legal actions) of the decisions that sampled worlds, and of those not
    while env.state.level == 1 and not rules.is_over(env.state):
        before, key = sampled[0], (env.state.phase, int(env.action_masks().sum()) > 6)
        env.step(rules.ACTION_NAMES.index(choose(agent, env)))
        searched.add((key, sampled[0] > before))
    assert ((rules.ASSIGN, False), True) in searched
    assert ((rules.ACT, True), True) not in searched and ((rules.ACT, True), False) in searched


# ---------------------------------------------------------------- the value agent: a learned judge of the level-ups

def at_level_up(health=4, attack=1, level=1):
    """A table at the level-up after ``level``: the last monster struck down with Health ``health`` kept."""
    env = start(rolls=[6, 1, 1], level=level)
    place(env, adventurer=(4, 0), monsters=[(4, 1), None], hp=[1, 0], health=health, attack=attack)
    env.step(rules.ACTION_NAMES.index("assign_MHL"))
    env.step(rules.ACTION_NAMES.index("attack_0"))
    assert env.state.phase == rules.LEVEL_UP
    return env


def judge(**weights):
    """A value of one linear layer (then the sigmoid) with these weights on the named start fields."""
    weight = np.zeros((1, START_FIELD_COUNT))
    for name, w in weights.items():
        weight[0, START_FIELDS.index(name)] = w
    return ValueNetwork({"weight_0": weight, "bias_0": np.zeros(1), "record": np.array("{}")})


def test_the_start_fields_after_a_level_up_are_the_next_level_with_the_heal_or_the_skill_raised():
    env = at_level_up(health=4, attack=2)
    t = Table(rules.observe(env.state))
    assert START_FIELDS[:2] == ["level_1", "level_2"] and START_FIELDS[-5:] == ["health", *rules.UPGRADES]
    np.testing.assert_allclose(level_up_fields(t, rules.A_HEAL), start_fields(2, 6, (1, 2, 1, 2)))
    np.testing.assert_allclose(level_up_fields(t, rules.A_UPGRADE + 2), start_fields(2, 4, (1, 2, 2, 2)))
    fields = start_fields(2, 4, (1, 2, 2, 2))
    assert fields[1] == 1 and fields.sum() == pytest.approx(1 + (4 + 1 + 2 + 2 + 2) / 6)


@pytest.mark.parametrize("weights, expected", [({"health": 1.0}, "heal"), ({"health": 1.0, "attack": 3.0},
                                                                          "upgrade_attack"),
                                               ({}, "upgrade_attack"), ({"health": -1.0}, "upgrade_attack")])
def test_the_value_agent_heals_or_takes_the_next_upgrade_as_its_value_rates_the_next_start(weights, expected):
    # Health 4 of 6: a heal adds 2/6 to the health field, the next upgrade (Attack) 1/6 to the attack field. The
    # heuristic's rule would take the upgrade; a tie keeps it too.
    agent = OneCardDungeonValueAgent(network=judge(**weights))
    assert choose(agent, at_level_up(health=4)) == expected
    assert choose(OneCardDungeonHeuristic(), at_level_up(health=4)) == "upgrade_attack"


def test_the_value_agent_weighs_only_the_heal_and_the_upgrade_the_heuristic_has_next():
    # Attack already raised once: Defense is next in the order. Range weighs most, but is not a choice.
    agent = OneCardDungeonValueAgent(network=judge(range=5.0, defense=1.0, health=0.5))
    assert choose(agent, at_level_up(health=5, attack=2)) == "upgrade_defense"
    agent = OneCardDungeonValueAgent(network=judge(range=5.0, health=1.0))
    assert choose(agent, at_level_up(health=5, attack=2)) == "heal"


def test_the_value_agent_turns_away_a_value_of_the_wrong_size():
    wrong = ValueNetwork({"weight_0": np.zeros((1, 5)), "bias_0": np.zeros(1), "record": np.array("{}")})
    with pytest.raises(ValueError, match="reads 5 fields; One Card Dungeon's levels' starts have 17"):
        OneCardDungeonValueAgent(network=wrong)


def test_the_shipped_value_plays_legally_and_says_how_it_was_made():
    agent = make_agent("value", "one_card_dungeon")
    assert isinstance(agent, OneCardDungeonValueAgent) and agent.path == str(SHIPPED_VALUE)
    assert agent.record["command"].startswith("tabletop-gym train one_card_dungeon --algo value")
    env = gym.make(ENV_ID, illegal_action="raise")
    scores = [play_legally(env, agent, seed)["score"] for seed in range(12)]
    assert max(scores) > 1


def test_search_value_keeps_the_value_agents_level_up_and_searches_as_the_search_agent():
    agent = make_agent("search-value", "one_card_dungeon", seed=0)
    assert isinstance(agent.prior, OneCardDungeonValueAgent)
    assert type(agent.rollout) is OneCardDungeonHeuristic and agent.horizon is level_end
    assert (agent.simulations, agent.min_worlds) == (48, 8)
    for health in (2, 5):
        env = at_level_up(health=health)
        agent.attach(env)
        assert choose(agent, env) == choose(agent.prior, env)
