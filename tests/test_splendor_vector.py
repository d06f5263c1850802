"""Splendor's native vector env plays exactly the single-agent view's games, opponents' moves included.

The vector env and N single envs (``Tabletop/Splendor-v0``) are played side by side (``helpers.SideBySide``):
observations, rewards, ends, masks, the outcome at each end and the full state of every game (deck order and
blind reservations included) must agree after every step, through autoresets. The runs cover 2, 3 and 4 players,
random and greedy opponents (and a list of both), a random learner seat, both reward modes, moves played one by
one, stacked decks, illegal actions in both modes and small ``max_rounds``. Every single env's step is played again
move by move through ``rules.apply`` (the learner's action, the opponents' moves its info logs, the forced moves)
and must reach its game; the rare branches those moves take (token returns, a choice between two nobles, buying a
reserved card, reserving from a deck, a deck running out, passes and the end when every player passed, the last
round, truncation) are counted and required. Positions play rarely reaches (a learner near two nobles, every player
stuck) are set by hand in both envs alike.

The last tests take tables from play and check the batched rules against ``rules.py`` on every legal action of
each (the vector env's compiled loops against the single-game functions), the greedy player of the compiled step
against ``players.greedy_action`` on every table's decision, and the compiled step with the opponents against the
rules and players played one move at a time.
"""

from collections import Counter

import gymnasium as gym
import numpy as np
import pytest
from numba.typed import List
from helpers import SideBySide, random_actions
from test_splendor_play import check_invariants
from test_splendor_rules import give_cards, give_reserved, give_tokens, ordered

from tabletop_gym.envs import IllegalActionError
from tabletop_gym.envs.core.vector import Batch
from tabletop_gym.envs.splendor import players, rules
from tabletop_gym.envs.splendor.cards import COLOR, POINTS, TIER_CARDS
from tabletop_gym.envs.splendor.vector import LearnerGames, SplendorVectorEnv

ENV_ID = "Tabletop/Splendor-v0"


@pytest.fixture
def counts():
    """The rare branches the games took, counted move by move as ``replay`` plays each step again."""
    return Counter()


def counted_apply(tally, s, action):
    """``rules.apply``, counting the rare branch the move takes in ``tally``."""
    choices = int(rules.legal_mask(s).sum())
    if s.phase == rules.RETURN:
        tally["token_return"] += 1
    elif s.phase == rules.NOBLE and choices >= 2:
        tally["noble_choice"] += 1
    elif rules.A_BUY_RESERVED <= action < rules.A_RETURN:
        tally["buy_reserved"] += 1
    elif rules.A_RESERVE_DECK <= action < rules.A_BUY:
        tally["reserve_from_deck"] += 1
    elif action == rules.A_PASS:
        tally["pass"] += 1
    # A face-up card taken (bought or reserved) or a deck's top reserved, from a tier whose deck is empty.
    drawn_tier = (action - rules.A_RESERVE) // rules.BOARD_SLOTS if rules.A_RESERVE <= action < rules.A_RESERVE_DECK \
        else action - rules.A_RESERVE_DECK if action < rules.A_BUY else (action - rules.A_BUY) // rules.BOARD_SLOTS
    if s.phase == rules.MAIN and rules.A_RESERVE <= action < rules.A_BUY_RESERVED and \
            rules.deck_size(s, drawn_tier) == 0:
        tally["deck_ran_out"] += 1
    after = rules.apply(s, action)
    if after.final_round and not s.final_round and after.phase != rules.OVER:
        tally["last_round_played"] += 1
    return after


def replay(s, action, single, tally):
    """A step of the single env ``single`` again, from its game ``s``, move by move through ``rules.apply`` (each
    move counted in ``tally``): the learner's ``action`` (a forfeit if illegal), the opponents' moves its
    ``opponent_moves()`` logs, and the learner's forced moves with ``skip_forced``. It must reach the single env's
    game."""
    seat = single.seat
    s = counted_apply(tally, s, int(action)) if rules.legal_mask(s)[action] else rules.forfeit(s, seat)
    logged = iter(single.opponent_moves())
    while True:
        mask = rules.legal_mask(s)
        if s.current != seat:
            if not mask.any():
                break
            opponent, name = next(logged)
            assert opponent == s.current
            s = counted_apply(tally, s, rules.ACTION_NAMES.index(name))
        elif single.skip_forced and np.count_nonzero(mask) == 1:
            s = counted_apply(tally, s, int(mask.argmax()))
        else:
            break
    assert next(logged, None) is None and s.equals(single.state)


def random_play(rng, masks, observations):
    return random_actions(rng, masks)


def greedy_learner(rng, masks, observations):
    """The learner plays as the greedy player would in its seat."""
    return np.array([players.greedy_action(o, m) for o, m in zip(observations, masks)], dtype=np.int64)


def now_and_then_illegal(rng, masks, observations):
    """Random play that takes an illegal action (forfeiting the game) one time in forty."""
    actions = random_actions(rng, masks)
    wrong = rng.random(len(masks)) < 0.025
    actions[wrong] = random_actions(rng, ~masks[wrong].astype(bool))
    return actions


def set_table(both, i, change):
    """Change game i's table by hand in both envs alike (at its learner's decision): ``change(state)``."""
    single = both.singles[i]
    saved = single.get_state()
    change(saved["game"])
    single.set_state(saved)
    check_invariants(single.state)
    vector = both.vector
    vector.state.data[i] = single.state.data
    vector._mask[i] = rules.legal_mask(single.state)
    both.infos["action_mask"][i] = vector._mask[i]
    both.observations[i] = rules.observe(single.state, single.seat)


def play_side_by_side(num_envs, steps, seed, counts, policy=random_play, reset_options=None, new_table=None,
                      again=True, **options):
    """Step the vector env and num_envs single envs with the same actions; they must agree (``SideBySide``).
    ``new_table(s, seat)``, if given, changes every game's table at its first decision (``again``: the games
    started over too). Counts each result; the number of games ended."""
    both = SideBySide(ENV_ID, num_envs, seed, reset_options, **options)
    rng = np.random.default_rng(seed)
    endings = 0
    starting = np.ones(num_envs, dtype=bool)
    for step in range(steps):
        if new_table is not None and (again or step == 0):
            for i in np.flatnonzero(starting):
                set_table(both, i, lambda s, seat=both.singles[i].seat: new_table(s, seat))
        starting = both.starting_over.copy()
        before = {}
        ended = both.step(policy(rng, both.masks, both.observations),
                          before=lambda i, single, action: before.update({i: (single.state.copy(), action)}))
        for i, (s, action) in before.items():
            replay(s, action, both.singles[i], counts)
        for i, info in ended:
            result = rules.OUTCOME_RESULT_NAMES[info["result"]]
            counts["result_" + result] += 1
            counts["won" if info["won"] else "lost"] += 1
            counts[f"{result}_in_round_{both.singles[i].state.round}"] += 1
        endings += len(ended)
    return endings


# ------------------------------------------------------------------ random play, many seeds

@pytest.mark.parametrize("num_players", [2, 3, 4])
@pytest.mark.parametrize("opponent", ["random", "greedy"])
def test_vector_env_plays_the_single_envs_games(num_players, opponent, counts):
    assert play_side_by_side(32, 100, 100 * num_players, counts, num_players=num_players, opponent=opponent,
                             seat="random") > 10
    assert counts["result_finished"] and counts["lost"] and counts["last_round_played"]
    assert counts["won"] or opponent == "greedy"  # a random learner does not beat the greedy player
    assert counts["token_return"] and counts["buy_reserved"] and counts["reserve_from_deck"]
    if num_players > 2:
        assert counts["deck_ran_out"]


def test_rare_moves_of_random_play(counts):
    """Over the player counts: a choice between two nobles and passes also happen in plain random play."""
    for num_players in (2, 3, 4):
        play_side_by_side(32, 100, 7 * num_players, counts, num_players=num_players, opponent="random",
                          seat="random")
    assert counts["noble_choice"] and counts["pass"]


def test_a_list_of_opponents_for_score_move_by_move(counts):
    play_side_by_side(24, 120, 11, counts, num_players=4, opponent=["greedy", "random", "greedy"], seat="random",
                      skip_forced=False, reward="score")
    play_side_by_side(24, 60, 12, counts, num_players=3, opponent=["random", "greedy"], seat=1, reward="score")
    assert counts["result_finished"] and counts["token_return"]


def test_the_win_only_reward_pays_as_the_single_view(counts):
    play_side_by_side(32, 100, 13, counts, num_players=2, opponent="greedy", seat="random", reward="win_only")
    assert counts["result_finished"]


# ------------------------------------------------------------------ stacked decks

@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_stacked_decks_are_dealt_to_every_game_and_games_started_over_are_shuffled(num_players, counts):
    full = ordered(num_players, tier1=[7, 15, 23, 31], tier2=[45, 51, 57, 63], tier3=[70, 74, 78, 82],
                   nobles=range(9, 9 - num_players - 1, -1))
    short = {"tier1": [39, 38, 37], "tier3": [89], "nobles": list(range(num_players + 1))}
    for seed, deck in ((num_players, full), (10 + num_players, short)):
        for opponent in ("greedy", "random"):
            play_side_by_side(16, 70, seed, counts, reset_options={"deck": deck}, num_players=num_players,
                              opponent=opponent, seat="random")
    assert counts["result_finished"]


def test_a_bad_deck_is_refused_and_changes_nothing():
    vector = gym.make_vec(ENV_ID, num_envs=2, seat="random", opponent="random")
    vector.reset(seed=1)
    before = [vector.take(i) for i in range(2)]
    with pytest.raises(ValueError, match="not a tier-1 card"):
        vector.reset(options={"deck": {"tier1": [50]}})
    assert all(vector.take(i).equals(before[i]) for i in range(2))


# ------------------------------------------------------------------ positions set by hand

def near_two_nobles(s, seat):
    """The learner holds bonuses W3 U3 R3 G2 (cards from the tier-1 pile): one more green card brings nobles 5
    (W3 U3 G3) and 8 (U3 G3 R3) at once."""
    for color, count in enumerate((3, 3, 2, 3, 0)):
        pile = [int(c) for c in rules.draw_pile(s, 0) if COLOR[c] == color][:count]
        give_cards(*pile, seat=seat)(s)


@pytest.mark.parametrize("num_players, opponent", [(2, "random"), (3, "greedy")])
def test_a_choice_between_two_nobles(num_players, opponent, counts):
    nobles = [5, 8, 2, 0][:num_players + 1]
    for skip_forced in (True, False):
        play_side_by_side(24, 40, num_players, counts, reset_options={"deck": {"nobles": nobles}},
                          new_table=near_two_nobles, num_players=num_players, opponent=opponent, seat="random",
                          skip_forced=skip_forced)
    assert counts["noble_choice"] >= 10


def stuck(opponent_reserved):
    """RULES.md's deadlock (tests/test_splendor_rules.py): every gem in a hand, three unaffordable reservations
    each, an unaffordable board; the opponent at seat 1 holds ``opponent_reserved``."""
    def change(s, seat):
        assert seat == 0
        for step in (give_tokens(4, 4, 0, 0, 2, 0), give_tokens(0, 0, 4, 4, 2, 0, seat=1),
                     give_reserved(74, 75, 76), give_reserved(*opponent_reserved, seat=1), give_cards(39, seat=1)):
            step(s)
    return change


@pytest.mark.parametrize("skip_forced", [True, False])
@pytest.mark.parametrize("opponent", ["random", "greedy"])
def test_passes_and_the_end_when_every_player_passed(skip_forced, opponent, counts):
    deck = ordered(tier1=[3, 5, 6, 12], tier2=[41, 46, 47, 53])
    # Both stuck: the learner's pass, the opponent's forced pass, and the game is over.
    play_side_by_side(8, 30, 5, counts, reset_options={"deck": deck}, new_table=stuck((77, 78, 79)), again=False,
                      opponent=opponent, skip_forced=skip_forced)
    assert counts["result_all_passed"] >= 8 and counts["pass"] >= 16
    # The opponent may still reserve: a pass, then a move that resets the count.
    play_side_by_side(8, 30, 6, counts, reset_options={"deck": deck}, new_table=stuck((77, 78)), again=False,
                      opponent=opponent, skip_forced=skip_forced)


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_truncation_after_max_rounds(num_players, counts):
    for seed, max_rounds in ((0, 1), (1, 3), (2, 8)):
        play_side_by_side(16, 40, seed, counts, num_players=num_players, seat="random", max_rounds=max_rounds,
                          opponent="greedy" if seed % 2 else "random")
    assert counts["result_truncated"] >= 30


def fourteen_points(s, seat):
    """The learner has bought cards worth 14 points (from the draw piles, tier 3 first) and holds a gem of each
    colour and two gold: a point more wins."""
    points = 0
    for t in (2, 1, 0):
        for card in rules.draw_pile(s, t).tolist():
            if 0 < POINTS[card] <= 14 - points:
                give_cards(card, seat=seat)(s)
                points += int(POINTS[card])
    give_tokens(1, 1, 1, 1, 1, 2, seat=seat)(s)


def test_a_game_ending_in_its_last_allowed_round_is_scored(counts):
    """The round in which a player reached 15 is the last allowed one: terminated and scored, not truncated."""
    play_side_by_side(16, 30, 3, counts, new_table=fourteen_points, max_rounds=3, seat="random", opponent="random",
                      policy=greedy_learner)
    assert counts["finished_in_round_3"] and counts["truncated_in_round_4"] and counts["last_round_played"]


# ------------------------------------------------------------------ illegal actions and options

def test_illegal_actions_forfeit_the_learners_game_alike(counts):
    for num_players in (2, 4):
        play_side_by_side(32, 80, 20 + num_players, counts, policy=now_and_then_illegal, num_players=num_players,
                          seat="random")
    assert counts["result_forfeited"] >= 10


def test_an_illegal_action_raises_and_changes_nothing():
    both = SideBySide(ENV_ID, 6, 30, num_players=3, seat="random", opponent="random", illegal_action="raise")
    rng = np.random.default_rng(0)
    raised = 0
    for step in range(60):
        game = step % 6
        if step % 5 == 0 and not both.starting_over[game]:
            bad = random_actions(rng, both.masks)
            bad[game] = int(np.flatnonzero(~both.masks[game].astype(bool))[0])
            before = [both.vector.take(i) for i in range(6)]
            with pytest.raises(IllegalActionError, match=f"in game {game}"):
                both.vector.step(bad)
            with pytest.raises(IllegalActionError):
                both.singles[game].step(int(bad[game]))
            assert all(both.vector.take(i).equals(before[i]) for i in range(6))
            raised += 1
        both.step(random_actions(rng, both.masks))  # the games, generators included, go on as if nothing happened
    assert raised >= 8


def test_an_agent_opponent_is_refused_with_a_pointer_to_sync_vector_env():
    class Agent:
        def act(self, observation, action_mask):
            return int(np.flatnonzero(action_mask)[0])

    with pytest.raises(ValueError, match="SyncVectorEnv"):
        gym.make_vec(ENV_ID, num_envs=2, opponent=Agent())
    with pytest.raises(ValueError, match="SyncVectorEnv"):
        SplendorVectorEnv(num_envs=2, num_players=3, opponent=["greedy", Agent()])
    sync = gym.make_vec(ENV_ID, num_envs=2, vectorization_mode="sync", opponent=Agent())
    assert sync.reset(seed=0)[0].shape == (2, rules.OBSERVATION_SIZE)
    for kwargs, message in (({"opponent": "smart"}, "opponent"), ({"seat": 2}, "seat"),
                            ({"num_players": 5}, "num_players"), ({"max_rounds": 0}, "max_rounds")):
        with pytest.raises(ValueError, match=message):
            gym.make_vec(ENV_ID, num_envs=2, **kwargs)


def test_the_end_infos_are_numeric_and_hold_the_outcome_only_where_a_game_ended():
    vector = gym.make_vec(ENV_ID, num_envs=6, max_rounds=2, opponent="random", num_players=3)
    infos = vector.reset(seed=0)[1]
    keys = set(infos)
    rng = np.random.default_rng(0)
    truncated = np.zeros(6, dtype=bool)
    while not truncated.any():
        _, rewards, terminated, truncated, infos = vector.step(random_actions(rng, infos["action_mask"]))
        assert set(infos) == keys and all(values.dtype != object for values in infos.values())
    ended = terminated | truncated
    assert infos["_result"].tolist() == ended.tolist() and "opponent_moves" not in infos
    assert infos["points"].shape == infos["winners"].shape == (6, 3) and infos["winners"].dtype == bool
    assert {vector.RESULT_NAMES[code] for code in infos["result"][truncated]} == {"truncated"}
    assert not rewards[truncated].any()
    for i in range(6):
        if ended[i]:
            info = vector.info_of(infos, i)
            assert len(info["points"]) == 3 and info["score"] == info["points"][vector.seats[i]]
            assert np.array_equal(info["winners"], infos["winners"][i])
            assert info["won"] == info["winners"][vector.seats[i]]
        else:
            assert not infos["points"][i].any() and not infos["winners"][i].any()
            assert not any(vector.info_of(infos, i)[key].any() for key in ("won", "score", "points", "winners"))


# ------------------------------------------------------------------ the batched rules, table by table

def tables_from_play(seed: int, games: int) -> list:
    """Tables met in games of 2-4 players (random and greedy moves mixed), some with a player near nobles."""
    rng = np.random.default_rng(seed)
    tables = []
    for g in range(games):
        n = 2 + g % 3
        s = rules.new_game(rng, n, max_rounds=int(rng.integers(5, 40)))
        if g % 4 == 0:
            near_two_nobles(s, 0)
        while not rules.is_over(s):
            mask = rules.legal_mask(s)
            if not mask.any():
                break
            tables.append(s)
            if rng.random() < 0.5:
                action = players.greedy_action(rules.observe(s, s.current), mask)
            else:
                action = players.random_action(mask, rng)
            s = rules.apply(s, action)
        tables.append(s)  # over or truncated
        tables.append(rules.forfeit(s, int(rng.integers(n))))
    return tables


def stuck_tables() -> list:
    """RULES.md's deadlock, before and after the first pass, with the opponent stuck too or free to reserve."""
    tables = []
    for opponent_reserved in ((77, 78, 79), (77, 78)):
        s = rules.new_game(np.random.default_rng(0), 2, deck=ordered(tier1=[3, 5, 6, 12], tier2=[41, 46, 47, 53]))
        stuck(opponent_reserved)(s, 0)
        tables += [s, rules.apply(s, rules.A_PASS)]
    return tables


def batch_of(tables) -> Batch:
    b = Batch(tables[0], len(tables))
    b.put_many(np.arange(len(tables)), tables)
    return b


def test_every_legal_action_on_tables_from_play_agrees_with_the_rules():
    tables = tables_from_play(0, 16) + stuck_tables()
    b = batch_of(tables)
    batch = LearnerGames(np.zeros(len(tables), dtype=np.int64))
    masks = batch.legal_masks(b)
    assert np.array_equal(masks, [rules.legal_mask(s) for s in tables])
    for seat in range(rules.MAX_PLAYERS):  # every seat's view (an absent seat sees as seat 0)
        seats = np.array([seat % s.num_players for s in tables])
        batch.seats[:] = seats
        assert np.array_equal(batch.observe(b), [rules.observe(s, k) for s, k in zip(tables, seats)])
        everyone = np.ones(len(tables), dtype=bool)
        # (the compiled loops take one player count: the outcome is compared per player count)
        for n in (2, 3, 4):
            rows = everyone & (np.array([s.num_players for s in tables]) == n)
            expected = [rules.outcome(s, k) for s, k, r in zip(tables, seats, rows) if r]
            for e in expected:  # as the infos hold them: a bool per seat
                e["winners"] = [k in e["winners"] for k in range(n)]
                e["result"] = rules.OUTCOME_RESULT_NAMES.index(e["result"])
            for key, values in batch.outcome(b, rows).items():
                assert values.tolist() == [e[key] for e in expected], key
    assert np.array_equal(batch.is_over(b), [rules.is_over(s) for s in tables])
    assert np.array_equal(batch.is_truncated(b), [rules.is_truncated(s) for s in tables])
    # Every legal action of every table, each from a copy of its table.
    table, action = np.nonzero(masks)
    plays = batch_of([tables[t] for t in table])
    batch.apply(plays, action, np.ones(len(table), dtype=bool))
    for i, (t, a) in enumerate(zip(table.tolist(), action.tolist())):
        assert plays.take(i).equals(rules.apply(tables[t], a)), (rules.ACTION_NAMES[a], tables[t])
    kinds = Counter(rules.ACTION_NAMES[a].rsplit("_", 1)[0] for a in action.tolist())
    assert {"return", "noble", "buy_reserved", "reserve_t1", "pass"} <= set(kinds), kinds


def test_the_batched_greedy_player_chooses_as_the_scalar_one_ties_included():
    tables = [s for s in tables_from_play(1, 40) if rules.legal_mask(s).sum() > 1]
    b = batch_of(tables)
    batch = LearnerGames(np.array([s.current for s in tables], dtype=np.int64))
    observations = batch.observe(b)
    masks = batch.legal_masks(b)
    chosen = np.array([players.greedy_choice(o, m) for o, m in zip(observations, masks)])  # as the compiled step asks
    expected = [players.greedy_action(rules.observe(s, s.current), rules.legal_mask(s).astype(np.int8))
                for s in tables]
    assert chosen.tolist() == expected
    phases = Counter(int(s.phase) for s in tables)
    assert phases[rules.RETURN] and phases[rules.NOBLE], phases


def test_the_batched_random_player_draws_as_the_scalar_one():
    masks = LearnerGames.legal_masks(batch_of(tables_from_play(2, 6)))
    masks = masks[masks.any(axis=1)]
    rows = np.arange(len(masks))
    # The vector env draws a random opponent's choice in Python, with each game's generator, as the single env does.
    rngs = [np.random.default_rng(int(i)) for i in rows]
    chosen = np.array([players.random_action(m, rngs[i]) for i, m in zip(rows, masks)])
    assert chosen.tolist() == [players.random_action(m, np.random.default_rng(int(i))) for i, m in zip(rows, masks)]
    assert masks[rows, chosen].all() and len(set(chosen.tolist())) > 20


def test_batched_deals_shuffle_as_new_game_does():
    rows = np.arange(5)
    for n in (2, 3, 4):
        vector = SplendorVectorEnv(5, num_players=n, seat=0)  # the learner first: no move before its decision
        vector.reset(seed=0)
        for i in rows:
            assert vector.state.take(i).equals(rules.new_game(np.random.default_rng(int(i)), n))
    assert TIER_CARDS[0].dtype == np.int8


@pytest.mark.parametrize("n", [2, 3, 4])
def test_the_compiled_deal_draws_what_the_python_deal_draws(n):
    """``deal_rows`` (numba's shuffle and permutation, which an unstacked ``deal`` is too) against a stacked deal
    that stacks nothing (numpy's shuffle and permutation), three deals in a row on some games and all: the same
    tables, and every generator left in the same state."""
    games = 40
    compiled, single, python = (np.zeros((games, rules.State.SIZE), dtype=np.int64) for _ in range(3))
    compiled_rngs, single_rngs, python_rngs = ([np.random.default_rng(s) for s in range(games)] for _ in range(3))
    nothing_stacked = {"tier1": [], "tier2": [], "tier3": []}
    for rows in (np.arange(games), np.arange(0, games, 3), np.arange(games)):
        rules.deal_rows(compiled, rows, List(compiled_rngs), rules.new_table(n, 9))
        for i in rows:
            rules.deal(single[i], single_rngs[i], n, 9, {})
            rules.deal(python[i], python_rngs[i], n, 9, nothing_stacked)
        assert np.array_equal(compiled, python) and np.array_equal(single, python)
    states = [[r.bit_generator.state for r in rngs] for rngs in (compiled_rngs, single_rngs, python_rngs)]
    assert states[0] == states[1] == states[2]


def test_the_throughput_benchmark_times_the_view_natively_beside_sync(tmp_path):
    from tabletop_gym.benchmarks.evaluation import throughput

    table = throughput.main(duration=0.02, repeats=1, games=["splendor"], out=str(tmp_path / "t.md"))
    for n in throughput.VECTOR_SIZES:
        assert f"| {ENV_ID} vector N={n} |" in table
    assert f"| {ENV_ID} SyncVectorEnv N=64 |" in table and f"| {ENV_ID} (random opponent) |" in table
    assert f"| {ENV_ID} (random opponent) vector N={throughput.COMPARED_SIZE} |" in table
    assert f"\n| {ENV_ID} | " in table.split("vs Sync |")[1]  # its row in the table of vector envs


# ------------------------------------------------------------------ the compiled loops against one game's functions

def tables_met_in_play(rng, games: int = 40) -> list:
    """400 states met in play, over the player counts, over and truncated ones included."""
    tables = []
    for g in range(games):
        n = 2 + g % 3
        s = rules.new_game(rng, n, max_rounds=int(rng.integers(3, 40)))
        while True:
            tables.append(s)
            mask = rules.legal_mask(s)
            if not mask.any():
                break
            legal = np.flatnonzero(mask)
            s = rules.apply(s, int(legal[rng.integers(legal.size)]))
    return [tables[i] for i in rng.choice(len(tables), 400, replace=False)]


def test_the_vector_loops_are_the_single_game_functions():
    rng = np.random.default_rng(7)
    tables = tables_met_in_play(rng)
    data = np.stack([s.data for s in tables])
    masks = np.empty((len(tables), rules.NUM_ACTIONS), dtype=bool)
    rules.fill_legal_masks(data, masks)
    assert np.array_equal(masks, [rules.legal_mask(s) for s in tables])
    seats = np.array([int(rng.integers(s.num_players)) for s in tables], dtype=np.int64)
    observations = np.empty((len(tables), rules.OBSERVATION_SIZE), dtype=np.float32)
    rules.fill_observations(data, seats, observations)
    assert np.array_equal(observations, [rules.observe(s, k) for s, k in zip(tables, seats)])
    rows = masks.any(axis=1) & (rng.random(len(tables)) < 0.8)
    actions = np.array([int(rng.choice(np.flatnonzero(m))) if r else 0 for m, r in zip(masks, rows)], dtype=np.int64)
    played = data.copy()
    rules.take_actions(played, actions, rows)
    for i, s in enumerate(tables):
        expected = rules.apply(s, int(actions[i])).data if rows[i] else s.data
        assert np.array_equal(played[i], expected), i
    forced = data.copy()
    rules.play_forced_rows(forced, rows)
    for i, s in enumerate(tables):
        expected = s.copy()
        if rows[i]:
            mask = rules.legal_mask(expected)
            while mask.sum() == 1:
                expected = rules.apply(expected, int(mask.argmax()))
                mask = rules.legal_mask(expected)
        assert np.array_equal(forced[i], expected.data), i
    forfeited = data.copy()
    rules.forfeit_rows(forfeited, rows, seats)
    for i, s in enumerate(tables):
        assert np.array_equal(forfeited[i], rules.forfeit(s, int(seats[i])).data if rows[i] else s.data), i


def test_the_compiled_step_plays_the_opponents_as_one_move_at_a_time():
    """``players.play_rows_until_learner`` (greedy and random opponents inside, each game's generator drawn as
    ``random_action`` draws it) and ``players.play_until_learner`` on one game (stopping at a random opponent's
    choice), against the rules and players played move by move."""
    rng = np.random.default_rng(3)
    tables = tables_met_in_play(rng)
    data = np.stack([s.data for s in tables])
    learners = np.array([int(rng.integers(s.num_players)) for s in tables], dtype=np.int64)
    greedy = rng.random((len(tables), rules.MAX_PLAYERS)) < 0.6
    rows = np.ones(len(tables), dtype=bool)
    rngs = [np.random.default_rng(i) for i in range(len(tables))]
    players.play_rows_until_learner(data, rows, learners, greedy, True, List(rngs))
    for i, s in enumerate(tables):
        o = s.copy()
        # Played to the learner's decision (the rows), and to the first random choice (one game, logged).
        first_stop = None
        row_rng = np.random.default_rng(i)
        moves = []
        while True:
            mask = rules.legal_mask(o)
            if o.current != learners[i]:
                if not mask.any():
                    break
                if mask.sum() == 1:
                    action = int(mask.argmax())
                elif greedy[i, o.current]:
                    action = players.greedy_action(rules.observe(o, o.current), mask)
                else:
                    if first_stop is None:
                        first_stop = o, list(moves), mask
                    action = players.random_action(mask, row_rng)
                if first_stop is None:
                    moves.append([int(o.current), action])
            elif mask.sum() == 1:
                action = int(mask.argmax())
            else:
                break
            o = rules.apply(o, action)
        got = rules.State.__new__(rules.State)
        got.data = data[i]
        assert got.equals(o) and rngs[i].bit_generator.state == row_rng.bit_generator.state, i
        why = players.PLAYED if first_stop is None else players.RANDOM_TO_CHOOSE
        if first_stop is not None:
            o, moves, _ = first_stop
        one = s.copy()
        log = np.zeros((4, 2), dtype=np.int64)  # a small log: the moves come in parts
        logged = []
        mask = np.empty(rules.NUM_ACTIONS, dtype=bool)
        obs = np.empty(rules.OBSERVATION_SIZE, dtype=np.float32)
        while True:
            log[0, 0] = 0
            stop = players.play_until_learner(one.data, learners[i], greedy[i], True, mask, obs, log)
            logged += log[1:log[0, 0] + 1].tolist()
            if stop != players.LOG_FULL:
                break
        assert stop == why and one.equals(o) and logged == moves, i
        assert np.array_equal(mask, rules.legal_mask(o)), i
