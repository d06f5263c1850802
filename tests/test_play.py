"""The terminal game (``tabletop-gym play``): what it shows, what it tells, what it asks."""

import io
import random
import re
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

from tabletop_gym.agents import make_agent
from tabletop_gym.benchmarks.human.play import (game_over, help_text, move_lines, moves_by_ending, play,
                                                rules_in_short)
from tabletop_gym.envs import GAMES, BadFileError, game_module
from tabletop_gym.envs.core.cards import card_label

WIDEST = 100


def played(game, moves, **options):
    """The transcript and the result of a game played with ``moves`` (one answer a line) typed in."""
    out = io.StringIO()
    result = play(game, stdin=io.StringIO(moves), stdout=out, **options)
    return out.getvalue(), result


class Answers:
    """A player who types a small number at every prompt (some legal, some not), seeded."""

    def __init__(self, seed, first=()):
        self.rng, self.first = random.Random(seed), list(first)

    def readline(self):
        return self.first.pop(0) if self.first else f"{self.rng.randrange(4)}\n"


class Interrupted:
    """Ctrl-C at the prompt: the terminal raises KeyboardInterrupt from the read."""

    def readline(self):
        raise KeyboardInterrupt


def told(transcript, who="forced"):
    """The move names of the transcript's lines that tell a move, in order."""
    return re.findall(rf"^  {who} (\w+)", transcript, flags=re.MULTILINE)


# ------------------------------------------------------------------ moves and names

def test_play_lists_the_legal_moves_and_takes_numbers_or_names():
    out, result = played("dungeon_solitaire", "5\nnonsense\nRETREAT\n", seed=0)
    assert "[0] delve" in out and "[1] retreat" in out and "Dungeon Solitaire" in out and "HP" in out
    assert "'5' is not one of the legal moves above" in out
    assert "'nonsense' is not one of the legal moves above" in out
    assert result == {"won": False, "score": 9, "kings": 0, "result": "escaped"}


def test_a_number_picks_the_move_listed_with_it():
    out, _ = played("dead_center", "1\nq\n", seed=1)
    assert "reveal_ [0] T0  [1] T1  [2] T2" in out  # twelve moves: grouped by kind
    assert re.search(r"^  you play reveal_T1: the zombie at T1 is ", out, re.M)


def test_a_move_is_taken_by_what_the_list_shows_after_its_kind():
    out, _ = played("dead_center", "T1\nq\n", seed=1)
    assert "reveal_ [0] T0  [1] T1  [2] T2" in out
    assert re.search(r"^  you play reveal_T1: the zombie at T1 is ", out, re.M)
    assert played("dead_center", "reveal_ T1\nq\n", seed=1)[0].count("you play reveal_T1") == 1


def test_an_ending_several_moves_share_names_them_and_takes_neither():
    assert moves_by_ending({0: "reveal_B1", 1: "kill_B1", 2: "delve", 3: "kill_L0"}) == {"b1": [0, 1], "l0": [3]}


@pytest.mark.parametrize("game", GAMES)
def test_the_players_own_move_is_told_in_every_game(game):
    out, _ = played(game, "0\nq\n", seed=0)
    first = re.search(r"^  you play (\w+)", out, re.M)
    assert first and first.group(1) in gym.make(GAMES[game].id).unwrapped.action_names


def test_a_new_deal_says_its_seed_and_that_seed_plays_it_again():
    out, _ = played("royal_assassin", "0\n1\n0\nq\n")
    seed = int(re.search(r"^deal of seed (\d+): replay it with --seed \1$", out, re.M).group(1))
    again, _ = played("royal_assassin", "0\n1\n0\nq\n", seed=seed)
    assert "a new deal" in out and again.split("\n", 2)[2] == out.split("\n", 3)[3]


# ------------------------------------------------------------------ what the player did not choose

def test_dungeon_solitaire_tells_the_forced_moves_in_order():
    out, _ = played("dungeon_solitaire", "q\n", seed=1)
    assert told(out) == ["draw", "draw", "draw", "draw", "delve", "draw", "take_damage"]
    lines = [line for line in out.splitlines() if line.startswith("  forced ")]
    assert "revealed 3♦ (the encounter: a trap)" in lines[0]
    assert "revealed K♥" in lines[1] and "revealed K♦" in lines[2]
    assert "the turn ends: K♥ 3♦ K♦ to the hand" in lines[3]
    assert "a blow of 6 damage is coming" in lines[5] and "HP 9 -> 3" in lines[6]
    assert out.index(lines[-1]) < out.index("moves:")  # told before the table of the first decision


@pytest.mark.parametrize("game", GAMES)
def test_every_forced_move_is_told_once_in_order(game):
    """The transcript's forced moves are exactly those an env offering every decision meets on the same
    choices (the first legal move at every real decision)."""
    out, _ = played(game, "0\n" * 30 + "q\n", seed=2)
    env = gym.make(GAMES[game].id, skip_forced=False).unwrapped
    _, info = env.reset(seed=2)
    forced, choices = [], 0
    while choices <= 30:
        legal = np.flatnonzero(info["action_mask"])
        if len(legal) == 1:
            forced.append(env.action_names[legal[0]])
        else:
            choices += 1
            if choices > 30:
                break
        _, _, terminated, truncated, info = env.step(int(legal[0]))
        if terminated or truncated:
            break
    assert told(out) == forced


def test_one_card_dungeon_tells_the_monsters_moves_and_bites():
    out, _ = played("one_card_dungeon", "assign_HML\nmove_r1c0\nq\n", seed=1)
    line = out[out.index("  forced end_turn"):].split("\n\n")[0]
    assert "spider 0 moves r0c3 -> r0c1" in line and "spider 1 moves r2c4 -> r2c2" in line
    assert "the spiders hit you: health 6 -> 5" in line and "turn 2: dice 6 1 1" in line


def test_royal_assassin_tells_the_cards_the_deck_turns():
    out, _ = played("royal_assassin", "attack_C\nq\n", seed=1)
    assert "  you play attack_C: drawn 5♥" in out
    assert "  forced pass: 5♥ goes onto the reserve; drawn 7♥" in out
    assert "  forced pass: 7♥ goes onto the reserve; drawn 10♣" in out


def test_splendor_tells_each_opponent_move_once_even_after_a_rejected_answer():
    out, _ = played("splendor", "nonsense\n0\nnonsense\n?\nq\n", seed=1, seat=1)
    moves = re.findall(r"^  player_0 plays (\w+): (.*)$", out, flags=re.MULTILINE)
    assert moves == [("take_KK", "takes 2 black"), ("take_WGK", "takes white, green, black")]
    assert out.index("take_KK") < out.index("Splendor  round 1")  # played before the player's first turn


def test_splendor_names_the_card_an_opponent_bought():
    out, _ = played("splendor", "0\n0\nq\n", seed=1, seat=1)
    assert "  player_0 plays buy_t1_0: buys #9 U 0pt (3K)" in out


# ------------------------------------------------------------------ help

@pytest.mark.parametrize("game", GAMES)
def test_question_mark_and_help_show_the_rules_and_the_move_names(game):
    out, _ = played(game, "?\nhelp\nq\n", seed=0)
    assert "Type ? at the prompt" in out.splitlines()[0] and "your move (number or name; ? for help" in out
    assert out.count("the rules in short") == 2 and out.count("the moves:") == 2
    assert "RULES.md" in out
    assert "is not one of the legal moves" not in out
    env = gym.make(GAMES[game].id).unwrapped
    # Every kind of move the game has is explained (a kind: the name up to its last _).
    legend = out[out.index("the moves:"):out.index("Type a move's number")]
    kinds = {name.split("_")[0] for name in env.action_names}
    assert all(f"  {kind}" in legend for kind in kinds), sorted(k for k in kinds if f"  {k}" not in legend)


@pytest.mark.parametrize("game", GAMES)
def test_the_help_is_the_in_short_section_of_the_games_rules_page(game):
    rules_page = Path(game_module(game, "narrate").__file__).with_name("RULES.md")
    paragraphs, legend = rules_in_short(rules_page)
    shown = " ".join(help_text(game).split())  # the help as words, its wrapping undone
    assert paragraphs and all(paragraph in shown for paragraph in paragraphs)
    assert legend and all(f"{move} {meaning}" in shown for move, meaning in legend)


def test_a_rules_page_without_its_in_short_section_is_refused_in_one_line_naming_it(tmp_path):
    page = tmp_path / "RULES.md"
    for text in ("# A game\n\n## Setup\n\nDeal.\n", "# A game\n\n## In short\n\nWin.\n\n## Setup\n",
                 "# A game\n\n## In short\n\nWin.\n\n| move | what |\n| --- | --- |\n| go | go on |\n"):
        page.write_text(text)
        with pytest.raises(BadFileError, match="## In short") as refused:
            rules_in_short(page)
        assert str(page) in str(refused.value) and "\n" not in str(refused.value)
    with pytest.raises(BadFileError, match="missing"):
        rules_in_short(tmp_path / "nothing" / "RULES.md")


def test_splendor_spells_out_its_colours():
    out, _ = played("splendor", "?\nq\n", seed=0)
    table = out[out.index("Splendor  round 1"):]
    assert "W white, U blue, G green, R red, K black, Y gold" in table
    assert "W white, U blue, G green, R red, K black; Y gold" in out[out.index("the moves:"):]


# ------------------------------------------------------------------ leaving

@pytest.mark.parametrize("game", GAMES)
def test_ctrl_d_ends_with_a_newline(game):
    out, result = played(game, "", seed=0)
    assert result is None and out.endswith("q to quit): \n")


@pytest.mark.parametrize("game", GAMES)
def test_ctrl_c_ends_cleanly_with_a_message(game):
    out = io.StringIO()
    assert play(game, seed=0, stdin=Interrupted(), stdout=out) is None
    assert out.getvalue().endswith("\ninterrupted: the game is left unfinished\n")


def test_q_leaves_the_game():
    out, result = played("royal_assassin", "q\n", seed=0)
    assert result is None and out.endswith("you left the game\n")


# ------------------------------------------------------------------ the screen

@pytest.mark.parametrize("game", GAMES)
def test_every_line_fits_in_100_columns(game):
    for seed in range(4):
        options = {"num_players": 2 + seed % 3} if game == "splendor" else {}
        out = io.StringIO()
        play(game, seed=seed, stdin=Answers(seed, first=["?\n"]), stdout=out, **options)
        widest = max(out.getvalue().splitlines(), key=len)
        assert len(widest) <= WIDEST, widest


@pytest.mark.parametrize("game", GAMES)
def test_the_tables_fit_in_100_columns_over_random_play(game):
    for seed in range(15):
        options = {"num_players": 2 + seed % 3} if game == "splendor" else {}
        env = gym.make(GAMES[game].id, render_mode="ansi", **options)
        rng = np.random.default_rng(seed)
        _, info = env.reset(seed=seed)
        for _ in range(300):
            widest = max(env.render().splitlines(), key=len)
            assert len(widest) <= WIDEST, widest
            _, _, terminated, truncated, info = env.step(rng.choice(np.flatnonzero(info["action_mask"])))
            if terminated or truncated:
                break
        assert max(len(line) for line in env.render().splitlines()) <= WIDEST


def test_splendor_moves_fit_an_80_by_24_terminal():
    for seed in range(12):
        env = gym.make("Tabletop/Splendor-v0", num_players=2 + seed % 3).unwrapped
        rng = np.random.default_rng(seed)
        _, info = env.reset(seed=seed)
        for _ in range(200):
            legal = np.flatnonzero(info["action_mask"])
            lines = move_lines([env.action_names[a] for a in legal])
            assert len(lines) + 1 < 24 and max(len(line) for line in lines) < 80  # and the prompt
            _, _, terminated, truncated, info = env.step(rng.choice(legal))
            if terminated or truncated:
                break


def test_dead_center_grid_numbers_the_piles_the_play_moves_name():
    env = gym.make("Tabletop/DeadCenter-v0", render_mode="ansi").unwrapped
    rng = np.random.default_rng(0)
    checked = 0
    for seed in range(5):
        _, info = env.reset(seed=seed)
        while True:
            legal = np.flatnonzero(info["action_mask"])
            grid = env.render().splitlines()[3:6]
            for name in (env.action_names[a] for a in legal if env.action_names[a].startswith("play_")):
                pile = int(name[len("play_"):])
                top = card_label(int(env.state.pile_top[pile]))
                assert grid[pile // 3].split()[pile % 3 + 2] == f"{pile}:{top}"  # after L0 and its slot
                checked += 1
            _, _, terminated, truncated, info = env.step(rng.choice(legal))
            if terminated or truncated:
                break
    assert checked > 100


# ------------------------------------------------------------------ the end

def test_dungeon_solitaire_last_screen_says_the_game_is_over_and_how():
    out, _ = played("dungeon_solitaire", "retreat\n", seed=0)
    last = out[out.rindex("Dungeon Solitaire  "):]
    assert last.startswith("Dungeon Solitaire  over: escaped after 2 delve turns and 1 retreat turn\n")
    assert "game over: you lost. You escaped with 0 of the 4 kings (a win needs all four). Score 9: your " \
           "points of treasure." in " ".join(last.split())
    out, _ = played("dungeon_solitaire", "0\n" * 30, seed=1)
    last = out[out.rindex("Dungeon Solitaire  "):]
    assert last.startswith("Dungeon Solitaire  over: killed on delve turn ")
    assert "game over: you lost. You were killed. Score 0: only an escape scores." in " ".join(last.split())


def final_info(game, agent, seeds, won):
    """The outcome at the end of the first of ``seeds`` that ``agent`` wins (``won=True``) or loses."""
    for seed in seeds:
        env = gym.make(GAMES[game].id)
        player = make_agent(agent, game, seed=seed)
        obs, info = env.reset(seed=seed)
        while True:
            obs, _, terminated, truncated, info = env.step(player.act(obs, info["action_mask"]))
            if terminated or truncated:
                break
        if info["won"] == won:
            return env.unwrapped.outcome()
    raise AssertionError(f"no deal among {seeds} ended with won={won}")


def test_the_game_over_line_says_won_or_lost_and_the_score_in_words():
    info = final_info("royal_assassin", "heuristic", range(20), won=True)
    assert game_over("royal_assassin", info) == (f"game over: you won. Every face card is dead. Score "
                                                 f"{info['score']}: the cards left in the deck.")
    info = final_info("dead_center", "heuristic", range(20), won=True)
    assert game_over("dead_center", info) == (f"game over: you won. All 12 zombies are dead. Score "
                                              f"{info['score']}: the cards left in the draw pile.")
    info = final_info("one_card_dungeon", "random", range(5), won=False)
    assert game_over("one_card_dungeon", info) == "game over: you lost. Your health ran out. Score 0: no level " \
                                                  "cleared."
    info = final_info("splendor", "random", range(5), won=False)
    assert game_over("splendor", info).startswith("game over: you lost. Won by player_1. Score ")
    assert f"your prestige points (player_0 (you) {info['points'][0]}, player_1" in game_over("splendor", info)


def test_a_game_cut_at_its_turn_limit_says_so():
    out, result = played("one_card_dungeon", "0\n" * 20, seed=0, max_turns=1)  # an option of the env
    assert result["result"] == "truncated"
    assert " ".join(out.split()).endswith("game over: the game was cut short. The turn limit was reached. "
                                          "Score 0: no level cleared.")
