"""The search agents' settings have one account, read from the games' agent modules: ``search_settings_table()``."""

import inspect

import pytest

from tabletop_gym.agents import agent_module, search_settings_table
from tabletop_gym.agents.search import SearchAgent
from tabletop_gym.envs import GAMES


def said(value) -> str:
    """A setting's value as the agent module writes it: a function by its name."""
    return value.__name__ if callable(value) else repr(value)


def row_of(game: str) -> list:
    """The game's row of the table, by column: game, search, search-ppo, search-value."""
    rows = [line for line in search_settings_table().splitlines() if line.startswith(f"| {GAMES[game].label} |")]
    assert len(rows) == 1, rows
    return [cell.strip() for cell in rows[0].strip("|").split("|")]


@pytest.mark.parametrize("game", GAMES)
def test_the_table_lists_every_setting_of_each_game(game):
    module = agent_module(game)
    _, search, learned_search, value_search = row_of(game)
    for settings, cell in ((getattr(module, "SEARCH", {}), search),
                           (getattr(module, "LEARNED_SEARCH", {}), learned_search),
                           (getattr(module, "VALUE_SEARCH", {}), value_search)):
        assert all(f"`{key}={said(value)}`" in cell for key, value in settings.items()), (settings, cell)
        assert cell.count("`") == 2 * len(settings)  # and nothing else
    assert (value_search == "no value agent") == (not hasattr(module, "VALUE_AGENT"))


def test_the_table_has_a_row_for_each_game_and_says_the_defaults():
    table = search_settings_table()
    rows = [line for line in table.splitlines() if line.startswith("| ") and "---" not in line][1:]
    assert [row.split(" | ")[0] for row in rows] == [f"| {entry.label}" for entry in GAMES.values()]
    default = inspect.signature(SearchAgent).parameters["simulations"].default
    assert f"`simulations={default}`" in table.splitlines()[0]  # SearchAgent's own, where a game names none
