"""Royal Assassin's value agent (a learned judge of tables, one card ahead) and the value trainer: the tables it
pictures, how their values combine, legal play, the trainer end to end on both its games (One Card Dungeon's value
agent is tested in test_one_card_dungeon_agent.py), and the value that ships."""

import json

import gymnasium as gym
import numpy as np
import pytest
from helpers import play_legally

from tabletop_gym.agents import make_agent
from tabletop_gym.agents.policy import ValueNetwork
from tabletop_gym.agents.search import vector_class
from tabletop_gym.agents.royal_assassin import (SHIPPED_VALUE, TABLE_FIELD_COUNT, TABLE_FIELDS, VALUE_SEARCH,
                                                 RoyalAssassinValueAgent, endings, fill_after_fields,
                                                 fill_table_fields, look_ahead, unseen_by_suit)
from tabletop_gym.envs.royal_assassin import features, rules
from tabletop_gym.envs.royal_assassin.rules import AT_RESULT, IS_FACE, NUM_ACTIONS, WON

ENV_ID = "Tabletop/RoyalAssassin-v0"
UNSEEN = np.array([rules.OBSERVATION_FIELDS.index((f"card_{rules.card_code(c)}_deck", 1))
                   for c in range(rules.NUM_CARDS)])


def random_value(seed=0, hidden=16):
    """A value network of random weights: the look-ahead's arithmetic does not depend on what was learned."""
    rng = np.random.default_rng(seed)
    return ValueNetwork({"weight_0": rng.normal(size=(hidden, TABLE_FIELD_COUNT)), "bias_0": rng.normal(size=hidden),
                         "weight_1": rng.normal(size=(1, hidden)), "bias_1": rng.normal(size=1),
                         "record": np.array("{}")})


def decisions_of(seeds, agent=None):
    """(observation, mask) of every decision with a choice, the heuristic (or ``agent``) playing."""
    agent = agent or make_agent("heuristic", "royal_assassin")
    env = gym.make(ENV_ID, illegal_action="raise")
    for seed in seeds:
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            mask = info["action_mask"]
            if mask.sum() > 1:
                yield np.asarray(obs, dtype=np.float32), mask.astype(bool)
            obs, _, terminated, truncated, info = env.step(agent.act(obs, mask))
            done = terminated or truncated


def test_the_table_fields_are_named_one_by_one():
    assert len(TABLE_FIELDS) == len(set(TABLE_FIELDS)) == TABLE_FIELD_COUNT


def test_the_look_ahead_pictures_every_unseen_card_after_every_ending():
    checked = 0
    for obs, mask in decisions_of(range(3)):
        fields, leaf_group, leaf_won, group_ending, ending_action, ending_won = look_ahead(obs, mask)
        unseen = np.flatnonzero(obs[UNSEEN] > 0)
        seen = np.empty(rules.State.SIZE, dtype=np.int64)
        features.fill_seen_game(obs, seen)
        expected_actions = [a for a in range(NUM_ACTIONS) if mask[a] for _ in endings(seen, a)]
        assert list(ending_action) == expected_actions
        assert fields.shape == (len(leaf_group), TABLE_FIELD_COUNT)
        for ending in range(len(ending_action)):
            groups = np.flatnonzero(group_ending == ending)
            if ending_won[ending] or len(unseen) == 0:
                assert len(groups) == 1 and np.sum(leaf_group == groups[0]) == 1
                continue
            assert len(groups) == len(unseen)  # a group per card that may turn next, in card order
            for group, card in zip(groups, unseen):
                leaves = np.sum(leaf_group == group)
                assert leaves == 1 if IS_FACE[card] else leaves >= 1
            checked += 1
    assert checked > 20


def test_action_scores_are_the_mean_over_next_cards_of_the_best_table_judged():
    """The agent's numbers, recomputed from the rules' own functions, table by table."""
    network = random_value()
    agent = RoyalAssassinValueAgent(network=network)
    for obs, mask in list(decisions_of([5]))[:6]:
        seen = np.empty(rules.State.SIZE, dtype=np.int64)
        features.fill_seen_game(obs, seen)
        unseen = np.flatnonzero(obs[UNSEEN] > 0)
        by_suit = unseen_by_suit(obs)
        row = np.empty(TABLE_FIELD_COUNT, dtype=np.float32)

        def judged(table, turned):
            if table[AT_RESULT] == WON:
                return 1.0
            fill_table_fields(obs, table, len(unseen) - (turned >= 0), by_suit, turned, row)
            return float(network(row[None])[0])

        expected = np.full(NUM_ACTIONS, -np.inf)
        for action in np.flatnonzero(mask):
            for end in endings(seen, action):
                if end[AT_RESULT] == WON:
                    worth = 2.0
                else:
                    per_card = []
                    for card in unseen:
                        table = end.copy()
                        rules.turn_card(table, card)
                        if IS_FACE[card]:
                            per_card.append(judged(table, card))
                            continue
                        next_mask = np.empty(NUM_ACTIONS, dtype=bool)
                        rules.fill_legal_mask(table, next_mask)
                        per_card.append(max(judged(reply_end, card) for reply in np.flatnonzero(next_mask)
                                            for reply_end in endings(table, reply)))
                    worth = np.mean(per_card)
                expected[action] = max(expected[action], worth)
        np.testing.assert_allclose(agent.action_scores(obs, mask), expected, rtol=1e-5)


def test_a_win_now_is_taken_whatever_the_value_says():
    agent = RoyalAssassinValueAgent(network=random_value(3))
    found = 0
    for obs, mask in decisions_of(range(40)):
        seen = np.empty(rules.State.SIZE, dtype=np.int64)
        features.fill_seen_game(obs, seen)
        winning = {a for a in np.flatnonzero(mask) for end in endings(seen, a) if end[AT_RESULT] == WON}
        if winning and len(winning) < mask.sum():
            assert agent.act(obs, mask) in winning
            found += 1
    assert found > 0


def test_without_look_ahead_each_action_is_worth_its_best_ending_judged():
    """The numbers of the value agent without look-ahead, recomputed ending by ending, and the batch's choices."""
    network = random_value(7)
    agent = RoyalAssassinValueAgent(network=network, lookahead=False)
    observations, masks = map(np.array, zip(*decisions_of(range(8))))
    scores = agent.scores_now(observations, masks)
    row = np.empty(TABLE_FIELD_COUNT, dtype=np.float32)
    for obs, mask, got in zip(observations, masks, scores):
        seen = np.empty(rules.State.SIZE, dtype=np.int64)
        features.fill_seen_game(obs, seen)
        expected = np.full(NUM_ACTIONS, -np.inf)
        for action in np.flatnonzero(mask):
            for end in endings(seen, action):
                fill_table_fields(obs, end, int((obs[UNSEEN] > 0).sum()), unseen_by_suit(obs), -1, row)
                worth = 2.0 if end[AT_RESULT] == WON else float(network(row[None])[0])
                expected[action] = max(expected[action], worth)
        np.testing.assert_allclose(got, expected, rtol=1e-5)
    choices = agent.act_batch(observations, masks)
    assert masks[np.arange(len(masks)), choices].all()
    # The first best, as act takes it: a choice may differ from act's only between tables valued alike to the last
    # bits (a product of many rows is not summed in the same order as a product of one).
    for obs, mask, choice, row_scores in zip(observations, masks, choices, scores):
        assert row_scores[choice] == row_scores.max()
        single = agent.action_scores(obs, mask)
        assert single[agent.act(obs, mask)] == pytest.approx(single[choice], abs=1e-5)
    ahead = RoyalAssassinValueAgent(network=network)  # with the look-ahead, the batch is played row by row
    assert list(ahead.act_batch(observations[:12], masks[:12])) == [ahead.act(o, m) for o, m in
                                                                    zip(observations[:12], masks[:12])]


def test_the_chance_of_a_table_is_its_best_choices_worth_and_a_win_is_certain():
    agent = RoyalAssassinValueAgent(network=random_value(5), lookahead=False)
    observations, masks = map(np.array, zip(*decisions_of(range(30))))
    scores = agent.scores_now(observations, masks)
    chances = agent.chances(observations, masks)
    wins = scores.max(axis=1) == 2.0
    assert wins.any() and not wins.all()
    np.testing.assert_array_equal(chances[wins], 1.0)
    np.testing.assert_array_equal(chances[~wins], scores[~wins].max(axis=1))
    assert ((chances[~wins] > 0) & (chances[~wins] < 1)).all()


def test_search_value_keeps_the_value_agents_choice_and_judges_short_playouts_by_the_value():
    agent = make_agent("search-value", "royal_assassin", seed=0)
    assert isinstance(agent.prior, RoyalAssassinValueAgent) and agent.prior.lookahead
    assert isinstance(agent.rollout, RoyalAssassinValueAgent) and not agent.rollout.lookahead
    assert agent.leaf_value == agent.rollout.chances and agent.max_rollout_steps == VALUE_SEARCH["max_rollout_steps"]
    env = gym.make(ENV_ID, illegal_action="raise")
    obs, info = env.reset(seed=3)
    agent.attach(env)
    agent.reset(seed=3)
    done = False
    while not done:
        obs, _, terminated, truncated, info = env.step(agent.act(obs, info["action_mask"]))
        done = terminated or truncated
    assert vector_class(env.unwrapped) is not None  # so the playouts ran side by side on the vector env


def test_search_value_takes_a_saved_value_on_both_games(tmp_path):
    from tabletop_gym.agents.one_card_dungeon import SHIPPED_VALUE as DUNGEON_VALUE

    for game, shipped in (("royal_assassin", SHIPPED_VALUE), ("one_card_dungeon", DUNGEON_VALUE)):
        saved = tmp_path / f"{game}.npz"
        saved.write_bytes(shipped.read_bytes())
        agent = make_agent(f"search-value:{saved}", game, seed=0)
        assert agent.prior.path == str(saved)
        assert game != "royal_assassin" or agent.rollout.path == str(saved)  # its playouts' value too
        assert type(agent.prior) is type(make_agent("search-value", game, seed=0).prior)
    with pytest.raises(ValueError, match="no saved value"):
        make_agent("search-value:/nonexistent/value.npz", "one_card_dungeon")


def test_the_fields_after_a_move_count_the_unseen_cards():
    row = np.empty(TABLE_FIELD_COUNT, dtype=np.float32)
    at = {name: i for i, name in enumerate(TABLE_FIELDS)}
    for obs, mask in list(decisions_of([11]))[:10]:
        for action in np.flatnonzero(mask):
            fill_after_fields(obs, action, row)
            unseen = int((obs[UNSEEN] > 0).sum())
            assert row[at["unseen_cards"]] * 49 == pytest.approx(unseen)
            counted = sum(row[at[f"unseen_{t}_number_cards"]] * 10 + row[at[f"unseen_{t}_faces"]] * 3
                          for t in rules.SUITS)
            assert counted == pytest.approx(unseen)


@pytest.mark.parametrize("skip_forced", [True, False])
def test_the_shipped_value_agent_plays_only_legal_moves(skip_forced):
    agent = make_agent("value", "royal_assassin")
    env = gym.make(ENV_ID, skip_forced=skip_forced, illegal_action="raise")
    won = [play_legally(env, agent, seed)["won"] for seed in range(40)]
    assert any(won) and not all(won)


def test_the_shipped_value_says_how_it_was_made():
    agent = make_agent("value", "royal_assassin")
    assert agent.path == str(SHIPPED_VALUE)
    assert agent.record["command"].startswith("tabletop-gym train royal_assassin --algo value")
    assert agent.record["decisions"] > 0 and agent.record["seconds"] > 0


def test_the_value_agent_plays_royal_assassin_and_one_card_dungeon_only():
    with pytest.raises(ValueError, match="royal_assassin and one_card_dungeon only, not dungeon_solitaire"):
        make_agent("value", "dungeon_solitaire")
    with pytest.raises(ValueError, match="only, not dead_center"):
        make_agent("search-value", "dead_center")
    with pytest.raises(ValueError, match="royal_assassin and one_card_dungeon only: name the game"):
        make_agent("value")
    with pytest.raises(ValueError, match="no saved value"):
        make_agent("value:/nonexistent/value.npz", "royal_assassin")


def test_the_training_curve_reads_the_last_games_every_so_many():
    from tabletop_gym.benchmarks.training.value import training_curve

    # five games of 2, 1, 3, 1 and 2 decisions: won, lost, won, won, lost; scores 10 to 14
    deal = np.array([7, 7, 8, 9, 9, 9, 10, 11, 11])
    won = np.array([1, 1, 0, 1, 1, 1, 1, 0, 0], dtype=bool)
    score = np.array([10, 10, 11, 12, 12, 12, 13, 14, 14], dtype=np.float32)
    rows = training_curve({"deal": deal, "won": won, "score": score}, every=2, window=2)
    assert rows == [{"step": 3, "win_rate": 0.5, "mean_score": 10.5}, {"step": 7, "win_rate": 1.0, "mean_score": 12.5},
                    {"step": 9, "win_rate": 0.5, "mean_score": 13.5}]


def test_td_targets_mix_the_next_value_and_the_next_target():
    from tabletop_gym.benchmarks.training.value import td_targets

    values = np.array([0.2, 0.6, 0.4, 0.9, 0.5], dtype=np.float32)
    won = np.array([1, 1, 1, 0, 0], dtype=np.float32)  # two games: three decisions won, two lost
    last = np.array([False, False, True, False, True])
    targets = td_targets(values, won, last, 0.5)
    second = 0.5 * 0.4 + 0.5 * 1.0
    np.testing.assert_allclose(targets, [0.5 * 0.6 + 0.5 * second, second, 1.0, 0.5 * 0.5 + 0.5 * 0.0, 0.0])


def test_the_trainer_has_rows_for_every_game_a_value_agent_plays():
    from tabletop_gym.agents import VALUE_GAMES
    from tabletop_gym.benchmarks.training.value import GAME_ROWS

    from tabletop_gym.envs import game_id

    assert set(GAME_ROWS) == set(VALUE_GAMES)
    assert all(rows.env_id == game_id(game) for game, rows in GAME_ROWS.items())


def test_the_games_are_the_same_however_many_workers_play_them():
    from tabletop_gym.benchmarks.training.value import GAME_ROWS, games_of, play_games

    game = GAME_ROWS["royal_assassin"]
    teacher = make_agent("heuristic", "royal_assassin")
    whole = games_of(game, teacher, 40_000_000, 6, 0.3, workers=1, progress=False, desc="")
    parts = [play_games(game, teacher, 0.3, (40_000_000, 2)), play_games(game, teacher, 0.3, (40_000_002, 4))]
    for key in ("fields", "deal", "outcome", "won"):
        np.testing.assert_array_equal(whole[key], np.concatenate([p[key] for p in parts]))
    assert sorted(set(whole["deal"])) == list(range(40_000_000, 40_000_006))


def test_train_value_runs_a_tiny_budget_end_to_end(tmp_path):
    pytest.importorskip("matplotlib")
    from tabletop_gym.benchmarks.training.value import train

    tiny = {"hidden": 8, "outcome_epochs": 1, "td_rounds": 2, "td_epochs": 1}
    result = train("royal_assassin", games=6, seed=1, out=str(tmp_path), eval_episodes=4, workers=1,
                   progress=False, value_settings=tiny)
    saved = json.loads((tmp_path / "result.json").read_text())
    assert saved["hyperparameters"]["algo"] == "value" and saved["hyperparameters"]["games"] == 6
    assert saved["evaluation"]["episodes"] == 4 and result.timesteps == saved["timesteps"] > 12
    from tabletop_gym.benchmarks.training.curves import read_run

    run = read_run(tmp_path)  # as tabletop-gym curves reads it
    assert list(run["step"]) == [result.timesteps] and 0 <= run["win_rate"][0] <= 1
    agent = make_agent(f"value:{tmp_path / 'value.npz'}", "royal_assassin")
    assert len(agent.record["validation"]) == 2 * (1 + 2)  # two fits, each the outcomes then two rounds
    assert agent.record["deals"] == [41_000_000, 41_000_011]
    assert agent.record["decisions"] == result.timesteps
    assert [len(layer[1]) for layer in agent.network.layers] == [8, 8, 1]
    obs, info = gym.make(ENV_ID).reset(seed=0)
    assert info["action_mask"][agent.act(obs, info["action_mask"])]


def test_train_value_refuses_other_games_and_options(tmp_path, capsys):
    from tabletop_gym.benchmarks import cli
    from tabletop_gym.benchmarks.training.value import train

    with pytest.raises(ValueError, match="the value trainer learns the values of royal_assassin and one_card_dungeon"):
        train("dead_center", games=2, out=str(tmp_path))
    # The value agent plays the plain env: the trainer takes no env options.
    assert cli.main(["train", "royal_assassin", "--algo", "value", "--games", "2", "--observation", "features",
                     "--out", str(tmp_path)]) == 2
    assert "--observation" in capsys.readouterr().err
    with pytest.raises(ValueError, match="seed is 0 to 9"):
        train("royal_assassin", games=2, seed=10, out=str(tmp_path))
    with pytest.raises(ValueError, match="games must be at least 2"):
        train("royal_assassin", games=1, out=str(tmp_path))
    assert not any(tmp_path.iterdir())


def test_the_command_line_keeps_each_trainers_budget_apart(tmp_path, capsys):
    from tabletop_gym.benchmarks import cli

    assert cli.main(["train", "royal_assassin", "--algo", "value", "--timesteps", "5", "--out", str(tmp_path)]) == 2
    assert "--games" in capsys.readouterr().err
    assert cli.main(["train", "royal_assassin", "--games", "5", "--out", str(tmp_path)]) == 2
    assert "--timesteps" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


def test_one_card_dungeons_rows_are_the_games_start_and_each_levels_start_with_the_levels_cleared():
    from tabletop_gym.agents.one_card_dungeon import START_FIELDS, start_fields
    from tabletop_gym.benchmarks.training.value import GAME_ROWS, play_games

    teacher = make_agent("heuristic", "one_card_dungeon")
    at = {name: i for i, name in enumerate(START_FIELDS)}
    skills = [at[name] for name in ("speed", "attack", "defense", "range")]
    plain = play_games(GAME_ROWS["one_card_dungeon"], teacher, 0.0, (40_000_000, 6))
    explored = play_games(GAME_ROWS["one_card_dungeon"], teacher, 1.0, (40_000_000, 6))
    for data in (plain, explored):
        for deal in range(40_000_000, 40_000_006):
            rows = data["fields"][data["deal"] == deal]
            score = data["score"][data["deal"] == deal][0]
            assert len(rows) == 1 + min(score, 11)  # a level-up after each level cleared but the last
            np.testing.assert_array_equal(rows[0], start_fields(1, 6, (1, 1, 1, 2)))
            assert list(np.argmax(rows[:, :12], axis=1)) == list(range(len(rows)))
            # each level-up heals to full or raises one skill by one
            raised = np.rint((rows[1:, skills] - rows[:-1, skills]) * 6).sum(axis=1)
            healed = rows[1:, at["health"]] == 1.0
            assert ((raised == 1) | ((raised == 0) & healed)).all()
            np.testing.assert_allclose(data["outcome"][data["deal"] == deal], score / 12)
    assert not np.array_equal(plain["fields"], explored["fields"])  # the random choices are taken


def test_train_value_runs_a_tiny_budget_on_one_card_dungeon(tmp_path):
    pytest.importorskip("matplotlib")
    from tabletop_gym.agents.one_card_dungeon import OneCardDungeonValueAgent
    from tabletop_gym.benchmarks.training.value import train

    tiny = {"hidden": 8, "outcome_epochs": 1, "td_rounds": 1, "td_epochs": 1}
    result = train("one_card_dungeon", games=3, seed=2, out=str(tmp_path), eval_episodes=2,
                   workers=1, progress=False, value_settings=tiny)
    agent = make_agent(f"value:{tmp_path / 'value.npz'}", "one_card_dungeon")
    assert isinstance(agent, OneCardDungeonValueAgent)
    assert agent.record["deals"] == [42_000_000, 42_000_005] and agent.record["decisions"] == result.timesteps >= 6
    assert agent.record["command"] == "tabletop-gym train one_card_dungeon --algo value --games 3 --seed 2"
    assert agent.record["settings"]["hidden"] == 8 and agent.record["settings"]["batch_size"] == 256
    assert [len(layer[1]) for layer in agent.network.layers] == [8, 8, 1]
