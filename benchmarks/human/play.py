"""A person plays a game in the terminal (``tabletop-gym play <game>``): the table, then the legal moves.

Every move the player did not choose is told once, in order, as it happens: a decision with a single legal
move is played here (the env is built with ``skip_forced=False``, so none is played out of sight), what a
move set off inside the env is read off the table before and after it (the cards a draw turned, the monsters
that moved and bit), and in a game of several players the others' moves come from the env's ``opponent_moves()``
after the step that played them. ``?`` or ``help`` at the prompt shows the game's rules in short and what the
move names mean: the ``## In short`` section of the game's RULES.md (paragraphs, then a ``| move | meaning |``
table), the one text the game's page shows too. What is said about a game is the game's own: its folder's
``narrate`` module gives its ``TITLE``, ``narrate(env, before, after)`` (what a step did, in words),
``ending(outcome, seat)`` (how the game ended, what its score counts) and, for a game with opponents,
``opponent_move(move, seat, before, env)``.
"""

from __future__ import annotations

import re
import secrets
import sys
import textwrap
from importlib import resources

import gymnasium as gym
import numpy as np

from ... import envs
from ...envs import BadFileError, game_module

WIDTH = 79           # what is written here fits an 80-column terminal; the tables stay within 100
LIST_ONE_A_LINE = 10  # up to this many legal moves are listed one a line; more are grouped by kind
NEW_DEALS = 1_000_000  # a new deal is one of this many seeds: short enough to type back with --seed
QUIT = ("q", "quit", "exit")
HELP = ("?", "h", "help")
IN_SHORT = "## In short"  # the section of a game's RULES.md that the help shows


def play(game: str, seed: int | None = None, stdin=None, stdout=None, **table_options) -> dict | None:
    """Play ``game`` (short name or Gymnasium id) in the terminal; ``table_options`` go to the env
    (a multi-player game's ``opponent``, ``num_players``, ``seat``). Returns the outcome (``won``, ``score`` ...)
    of a finished game, or None when the player left it (``q``, Ctrl-D, Ctrl-C)."""
    entry = envs.game(game)
    env = gym.make(entry.id, render_mode="ansi", skip_forced=False, **table_options).unwrapped
    table = Terminal(entry.name, env, stdin or sys.stdin, stdout or sys.stdout)
    try:
        return table.run(seed)
    except KeyboardInterrupt:
        table.say("\ninterrupted: the game is left unfinished")
        return None


class Terminal:
    """One game at the terminal: what is shown, what is asked, what is told."""

    def __init__(self, name: str, env, stdin, stdout):
        self.name, self.env, self.stdin, self.stdout = name, env, stdin, stdout
        self.names = env.action_names
        self.words = game_module(name, "narrate")  # what the game says of itself
        self.help = help_text(name)  # read before the game starts: a RULES.md without its section fails at once

    def say(self, text: str = "") -> None:
        print(text, file=self.stdout, flush=True)

    def run(self, seed):
        new = seed is None
        if new:  # drawn here rather than by the env, so that the deal can be played again
            seed = secrets.randbelow(NEW_DEALS)
        _, info = self.env.reset(seed=seed)
        deal = "a new deal" if new else f"deal {seed}"
        if hasattr(self.env, "seat"):
            deal += f"; you are player_{self.env.seat}"
        self.say(wrapped(f"{self.words.TITLE}, {deal}. Type ? at the prompt for the rules and what the moves "
                         "mean.", indent=0))
        if new:
            self.say(f"deal of seed {seed}: replay it with --seed {seed}")
        self.tell_opponents(None)
        while True:
            legal = [int(a) for a in np.flatnonzero(info["action_mask"])]
            if len(legal) == 1:
                action, who = legal[0], "forced"
            else:
                action, who = self.ask(legal), "you"
                if action is None:
                    return None
            before = self.env.state.copy()
            _, _, terminated, truncated, info = self.env.step(action)
            self.tell(who, action, before)
            self.tell_opponents(before)
            if terminated or truncated:
                return self.finish()

    # ------------------------------------------------------------ asking

    def show(self, legal: list[int]) -> None:
        self.say()
        self.say(self.env.render())
        self.say("\n".join(move_lines([self.names[a] for a in legal])))

    def ask(self, legal: list[int]) -> int | None:
        """The player's move, or None when they leave."""
        self.show(legal)
        by_name = {self.names[a].lower(): a for a in legal}
        by_ending = moves_by_ending({a: self.names[a] for a in legal})
        while True:
            print("your move (number or name; ? for help, q to quit): ", end="", file=self.stdout, flush=True)
            line = self.stdin.readline()
            if not line:  # Ctrl-D, or the end of piped input
                self.say()
                return None
            if not _interactive(self.stdin):  # a terminal echoes what is typed; piped moves are echoed here
                self.say(line.rstrip("\n"))
            answer = line.strip()
            key = re.sub(r"[\s_]+", "_", answer.lower())  # "reveal_ B1", as the list shows it, is reveal_b1
            if not answer:
                continue
            if key in QUIT:
                self.say("you left the game")
                return None
            if key in HELP:
                self.say(self.help)
                self.show(legal)
            elif key in by_name:
                return by_name[key]
            elif answer.isdigit() and int(answer) < len(legal):
                return legal[int(answer)]
            elif len(by_ending.get(key, ())) == 1:
                return by_ending[key][0]
            elif key in by_ending:
                self.say(wrapped(f"  '{answer}' ends several moves ({', '.join(self.names[a] for a in by_ending[key])}"
                                 "): type its number or its whole name", indent=4))
            else:
                shown = answer if len(answer) <= 20 else answer[:20] + "..."
                self.say(f"  '{shown}' is not one of the legal moves above: type its number or its name "
                         "(? shows what they mean)")

    # ------------------------------------------------------------ telling

    def tell(self, who: str, action: int, before) -> None:
        """The move and what it did that the table alone would not say."""
        changes = self.words.narrate(self.env, before, self.env.state)
        head = f"  {'forced' if who == 'forced' else 'you play'} {self.names[action]}"
        self.say(wrapped(head + (": " + "; ".join(changes) if changes else ""), indent=6))

    def tell_opponents(self, before) -> None:
        """The opponents' moves of the step just played (each step reports only its own)."""
        for seat, move in self.env.opponent_moves() if hasattr(self.env, "opponent_moves") else []:
            said = self.words.opponent_move(move, seat, before, self.env)
            self.say(wrapped(f"  player_{seat} plays {move}: {said}", indent=6))

    def finish(self) -> dict:
        """The end told; the game's outcome (``result`` by name) returned."""
        outcome = self.env.outcome()
        self.say()
        self.say(self.env.render())
        self.say(wrapped(game_over(self.name, outcome, getattr(self.env, "seat", 0)), indent=2))
        return outcome


def _interactive(stream) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def wrapped(text: str, indent: int) -> str:
    return "\n".join(textwrap.wrap(text, WIDTH, subsequent_indent=" " * indent, break_long_words=False,
                                   break_on_hyphens=False))


def moves_by_ending(names: dict[int, str]) -> dict[str, list[int]]:
    """The moves (action: name) by the rest of their name after their kind, lower case, as ``move_lines`` lists a
    kind's moves (``reveal_ [6] B1``): what a player may type for one of them, where no other move ends so."""
    moves: dict[str, list[int]] = {}
    for action, name in names.items():
        kind, _, ending = name.rpartition("_")
        if kind:
            moves.setdefault(ending.lower(), []).append(action)
    return moves


def move_lines(names: list[str]) -> list[str]:
    """The legal moves by number: one a line when they are few, else one line (or more) per kind, a kind
    being the name up to its last ``_`` (``reserve_t1_`` [15] 0 is ``reserve_t1_0``)."""
    if len(names) <= LIST_ONE_A_LINE:
        return ["moves:"] + [f"  [{number}] {name}" for number, name in enumerate(names)]
    groups: dict[str, list[tuple[int, str]]] = {}
    for number, name in enumerate(names):
        kind, _, ending = name.rpartition("_")
        groups.setdefault(kind + "_" if kind else name, []).append((number, ending if kind else name))
    label_width = max((len(kind) for kind, members in groups.items() if len(members) > 1), default=0) + 1
    lines = ["moves (a kind, then each move's number and the rest of its name):"]
    for kind, members in groups.items():
        if len(members) == 1:
            number, _ = members[0]
            lines.append(f"  [{number}] {names[number]}")
            continue
        line = "  " + kind.ljust(label_width)
        for number, ending in members:
            item = f"[{number}] {ending}"
            if len(line) + len(item) > WIDTH:
                lines.append(line.rstrip())
                line = " " * (2 + label_width)
            line += item + "  "
        lines.append(line.rstrip())
    return lines


def help_text(name: str) -> str:
    """The game's rules in short, the legend of its move names, and where the full rules are."""
    words = game_module(name, "narrate")
    rules_page = resources.files(words.__package__).joinpath("RULES.md")
    paragraphs, legend = rules_in_short(rules_page)
    lines = ["", f"{words.TITLE}: the rules in short", ""]
    lines += "\n\n".join(wrapped("  " + paragraph, indent=2) for paragraph in paragraphs).splitlines()
    lines += ["", "the moves:"]
    for move, meaning in legend:
        lines.append(wrapped(f"  {move:<16} {meaning}", indent=19))
    lines += ["", wrapped("  Type a move's number (in [ ]), its name, or what the list shows after its kind (B1 for "
                          "reveal_ [6] B1) where no other move ends so; ? or help shows this again, q quits.",
                          indent=2)]
    # The installed path can be longer than a line: the folder and the file go on lines of their own.
    lines += [wrapped("  The full rules, every ruling included, are RULES.md in the folder", indent=4),
              f"  {rules_page.parent}" if len(str(rules_page.parent)) <= 98 else f"  tabletop_gym/envs/{name}/"]
    return "\n".join(lines)


def rules_in_short(rules_page) -> tuple[list[str], list[tuple[str, str]]]:
    """The ``## In short`` section of a game's RULES.md: its paragraphs (each joined into one line) and the rows
    of its ``| move | meaning |`` table, as plain text (Markdown's code marks dropped)."""
    if not rules_page.is_file():
        raise BadFileError(rules_page, "missing: every game's folder holds its RULES.md")
    section = "\n".join(markdown_section(rules_page.read_text(encoding="utf-8"), IN_SHORT)).replace("`", "")
    blocks = [block.strip().splitlines() for block in section.split("\n\n") if block.strip()]
    paragraphs = [" ".join(line.strip() for line in block) for block in blocks if not block[0].startswith("|")]
    rows = [tuple(cell.strip() for cell in line.strip().strip("|").split("|"))
            for block in blocks if block[0].startswith("|") for line in block]
    head, legend = rows[:2], rows[2:]
    table_is_right = head == [("move", "meaning"), ("---", "---")] and legend and all(len(row) == 2 for row in legend)
    if not (paragraphs and table_is_right):
        raise BadFileError(rules_page, f"no '{IN_SHORT}' section of paragraphs then a '| move | meaning |' table, "
                                       "which tabletop-gym play shows as the game's help")
    return paragraphs, legend


def markdown_section(text: str, heading: str) -> list[str]:
    """The lines under ``heading`` up to the next heading (none when the heading is not there)."""
    lines = text.splitlines()
    if heading not in lines:
        return []
    start = lines.index(heading) + 1
    end = next((k for k in range(start, len(lines)) if re.match(r"#+ ", lines[k])), len(lines))
    return lines[start:end]


def game_over(name: str, outcome: dict, seat: int = 0) -> str:
    """Won or lost, how, and the score in words, from the env's ``outcome()`` (``seat``: the player's, in a game
    of several players)."""
    how, points = game_module(name, "narrate").ending(outcome, seat)
    result = outcome.get("result")
    verdict = "you won" if outcome.get("won") else "the game was cut short" if result == "truncated" else "you lost"
    return f"game over: {verdict}. {how} Score {outcome.get('score', 0)}: {points}."
