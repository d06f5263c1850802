"""The tabletop-gym command line."""

import subprocess
import sys

from tabletop_gym.benchmarks import cli


def test_list_shows_games_and_agents(capsys):
    assert cli.main(["list"]) == 0
    out = capsys.readouterr().out
    assert "dungeon_solitaire" in out and "Tabletop/DungeonSolitaire-v0" in out and "random" in out


def test_eval_prints_the_win_rate(capsys):
    assert cli.main(["eval", "dungeon_solitaire", "--agent", "random", "--episodes", "20", "--workers", "1",
                     "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "win rate" in out and "95% CI" in out and "over 20 episodes" in out


def test_unknown_game_is_a_clear_error(capsys):
    assert cli.main(["eval", "chess", "--episodes", "1"]) == 2
    assert "unknown game 'chess'" in capsys.readouterr().err


def test_console_script_runs():
    out = subprocess.run([sys.executable, "-m", "tabletop_gym.benchmarks.cli", "list"], capture_output=True,
                         text=True, check=True).stdout
    assert "Tabletop/DungeonSolitaire-v0" in out
