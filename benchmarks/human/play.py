"""A person plays a game in the terminal (``tabletop-gym play <game>``): the table, then the legal moves.

Every move the player did not choose is told once, in order, as it happens: a decision with a single legal
move is played here (the env is built with ``skip_forced=False``, so none is played out of sight), what a
move set off inside the env is read off the table before and after it (the cards a draw turned, the monsters
that moved and bit), and Splendor's opponents' moves come from ``info["opponent_moves"]`` of the step that
played them. ``?`` or ``help`` at the prompt shows the game's rules in short and what the move names mean.
"""

from __future__ import annotations

import sys
import textwrap
from importlib import resources

import gymnasium as gym
import numpy as np

from ...envs import GAMES, game_id
from ...envs.core.cards import SUIT_SYMBOLS, card_label, parse_card

WIDTH = 79           # what is written here fits an 80-column terminal; the tables stay within 100
LIST_ONE_A_LINE = 10  # up to this many legal moves are listed one a line; more are grouped by kind
QUIT = ("q", "quit", "exit")
HELP = ("?", "h", "help")


def play(game: str, seed: int | None = None, stdin=None, stdout=None, **table_options) -> dict | None:
    """Play ``game`` (short name or Gymnasium id) in the terminal; ``table_options`` go to the env
    (Splendor's ``opponent``, ``num_players``, ``seat``). Returns the outcome (``won``, ``score`` ...) of
    a finished game, or None when the player left it (``q``, Ctrl-D, Ctrl-C)."""
    env_id = game_id(game)
    name = next(short for short, (known, _) in GAMES.items() if known == env_id)
    env = gym.make(env_id, render_mode="ansi", skip_forced=False, **table_options).unwrapped
    table = Terminal(name, env, stdin or sys.stdin, stdout or sys.stdout)
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

    def say(self, text: str = "") -> None:
        print(text, file=self.stdout, flush=True)

    def run(self, seed):
        _, info = self.env.reset(seed=seed)
        deal = "a new deal" if seed is None else f"deal {seed}"
        if hasattr(self.env, "seat"):
            deal += f"; you are player_{self.env.seat}"
        self.say(wrapped(f"{TITLES[self.name]}, {deal}. Type ? at the prompt for the rules and what the moves "
                         "mean.", indent=0))
        self.tell_opponents(info, None)
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
            self.tell_opponents(info, before)
            if terminated or truncated:
                return self.finish(info)

    # ------------------------------------------------------------ asking

    def show(self, legal: list[int]) -> None:
        self.say()
        self.say(self.env.render())
        self.say("\n".join(move_lines([self.names[a] for a in legal])))

    def ask(self, legal: list[int]) -> int | None:
        """The player's move, or None when they leave."""
        self.show(legal)
        by_name = {self.names[a].lower(): a for a in legal}
        while True:
            print("your move (number or name; ? for help, q to quit): ", end="", file=self.stdout, flush=True)
            line = self.stdin.readline()
            if not line:  # Ctrl-D, or the end of piped input
                self.say()
                return None
            if not _interactive(self.stdin):  # a terminal echoes what is typed; piped moves are echoed here
                self.say(line.rstrip("\n"))
            answer = line.strip()
            key = answer.lower().replace(" ", "_")
            if not answer:
                continue
            if key in QUIT:
                self.say("you left the game")
                return None
            if key in HELP:
                self.say(help_text(self.name))
                self.show(legal)
            elif key in by_name:
                return by_name[key]
            elif answer.isdigit() and int(answer) < len(legal):
                return legal[int(answer)]
            else:
                shown = answer if len(answer) <= 20 else answer[:20] + "..."
                self.say(f"  '{shown}' is not one of the legal moves above: type its number or its name "
                         "(? shows what they mean)")

    # ------------------------------------------------------------ telling

    def tell(self, who: str, action: int, before) -> None:
        """The move and what it did that the table alone would not say."""
        changes = NARRATORS[self.name](self.env, before, self.env.state)
        if who == "you" and not changes:
            return
        head = f"  {'forced' if who == 'forced' else 'you play'} {self.names[action]}"
        self.say(wrapped(head + (": " + "; ".join(changes) if changes else ""), indent=6))

    def tell_opponents(self, info: dict, before) -> None:
        """Splendor's opponents' moves of the step just played (each step reports only its own)."""
        for seat, move in info.get("opponent_moves", []):
            self.say(wrapped(f"  player_{seat} plays {move}: {splendor_move(move, seat, before, self.env)}",
                             indent=6))

    def finish(self, info: dict) -> dict:
        self.say()
        self.say(self.env.render())
        self.say(wrapped(game_over(self.name, info, getattr(self.env, "seat", 0)), indent=2))
        return {key: value for key, value in info.items() if key not in ("action_mask", "opponent_moves")}


def _interactive(stream) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def wrapped(text: str, indent: int) -> str:
    return "\n".join(textwrap.wrap(text, WIDTH, subsequent_indent=" " * indent, break_long_words=False,
                                   break_on_hyphens=False))


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
    lines = ["", f"{TITLES[name]}: the rules in short", ""]
    lines += "\n\n".join(wrapped("  " + paragraph, indent=2) for paragraph in RULES[name]).splitlines()
    lines += ["", "the moves:"]
    for move, meaning in LEGENDS[name]:
        lines.append(wrapped(f"  {move:<16} {meaning}", indent=19))
    lines += ["", wrapped("  Type a move's number (in [ ]) or its name; ? or help shows this again, q quits.",
                          indent=2)]
    rules_page = resources.files(f"tabletop_gym.envs.{name}").joinpath("RULES.md")
    if rules_page.is_file():
        # The installed path can be longer than a line: the folder and the file go on lines of their own.
        lines += [wrapped("  The full rules, every ruling included, are RULES.md in the folder", indent=4),
                  f"  {rules_page.parent}" if len(str(rules_page.parent)) <= 98 else f"  tabletop_gym/envs/{name}/"]
    return "\n".join(lines)


# ---------------------------------------------------------------- what each game tells
# A narrator reads a step's consequences off the states before and after it. Each imports its own game's
# rules, so that playing one game loads no other (One Card Dungeon's sight tables take a quarter second).

def _labels(codes) -> str:
    return " ".join(card_label(parse_card(code)) if isinstance(code, str) else card_label(int(code))
                    for code in codes)


def _dungeon_solitaire(env, old, new) -> list[str]:
    from ...envs.dungeon_solitaire import rules

    said = []
    began = new.delve_turns > old.delve_turns or new.retreat_turns > old.retreat_turns
    if new.delve_turns > old.delve_turns:
        said.append(f"delve turn {new.delve_turns} begins")
    if new.retreat_turns > old.retreat_turns:
        said.append(f"retreat turn {new.retreat_turns} of {new.delve_turns - 1} begins")
    revealed = [int(c) for c in old.deck[old.top:new.top]]
    # The encounter may be over already (a queen came first): a new turn's first 2-10 of a suit still was it.
    encounter = new.encounter if new.encounter >= 0 and new.encounter != old.encounter else next(
        (c for c in revealed if began and rules.is_encounter_card(c)), -1)
    if revealed:
        said.append("revealed " + ", ".join(_dungeon_card(rules, c, new, encounter) for c in revealed))
    if new.scroll_used and not old.scroll_used:
        said.append("the Scroll of Light burns in place of the fourth torch")
    if new.hp != old.hp:
        said.append(f"HP {old.hp} -> {new.hp}")
    if new.pending_damage and not old.pending_damage:
        said.append(f"a blow of {new.pending_damage} damage is coming")
    if new.pending_discards and not old.pending_discards:
        said.append(f"the door stays shut: {new.pending_discards} cards to discard, or pick the lock")
    if new.step == rules.BETWEEN_TURNS and (old.step != rules.BETWEEN_TURNS or began):  # an escape too
        collected = [c for c in rules.cards_in(new, rules.HAND)
                     if old.place[c] != rules.HAND and rules.RANK[c] != rules.JACK]
        said.append("the turn ends" + (f": {_labels(collected)} to the hand" if collected else ""))
    if new.stage == rules.OVER and old.stage != rules.OVER:
        said.append({rules.ESCAPED: "you are out of the dungeon", rules.KILLED: "you are killed",
                     rules.LOST_IN_THE_DARK: "the last torch goes out: lost in the dark",
                     rules.FORFEITED: "forfeited"}[new.result])
    return said


def _dungeon_card(rules, c: int, s, encounter: int) -> str:
    """A revealed card and what became of it."""
    label, rank = card_label(c), rules.RANK[c]
    if rank == rules.ACE:
        return f"{label} (a torch goes out)"
    if rank == rules.JACK:
        return f"{label} (to the hand)"
    if rank == rules.QUEEN:
        return f"{label} (divine favour)"
    if s.place[c] == rules.DISCARDS:
        return f"{label} (discarded)"
    if c == encounter:
        kind = {rules.SPADES: "a monster", rules.DIAMONDS: "a trap", rules.CLUBS: "a sealed door"}[rules.SUIT[c]]
        return f"{label} (the encounter: {kind})"
    return label


def _royal_assassin(env, old, new) -> list[str]:
    from ...envs.royal_assassin import rules

    said = []
    if old.joker < 0 <= new.joker:
        said.append(f"the joker goes on the {SUIT_SYMBOLS[new.joker]} column")
    continued = old.in_play if old.decision == rules.CONTINUE else -1
    defended = [int(c) for c in old.reserve[:old.reserve_size]
                if new.place[c] in (rules.DEFENSE, rules.DISCARD) and c != continued]
    if defended:
        said.append(f"the reserve defends with {_labels(defended)}")
    gone = [int(c) for c in new.discard[old.discard_size:new.discard_size]]
    for face in (c for c in gone if rules.IS_FACE[c]):
        said.append(f"{card_label(face)} dies")
    numbers = [c for c in gone if not rules.IS_FACE[c]]
    if numbers:
        wiped = not any(rules.IS_FACE[c] for c in gone)
        said.append(("the attack is wiped out: " if wiped else "") + f"{_labels(numbers)} to the discard")
    if old.joker >= 0 > new.joker:
        said.append("the joker is free again")
    if old.decision == rules.DRAW and new.place[old.in_play] == rules.RESERVE:
        said.append(f"{card_label(old.in_play)} goes onto the reserve")
    for c in (int(c) for c in old.deck[old.top:new.top]):
        if rules.IS_FACE[c]:
            said.append(f"turned {card_label(c)}: the new pretender of the {SUIT_SYMBOLS[rules.SUIT[c]]} column")
        else:
            said.append(f"drawn {card_label(c)}")
    if new.decision == rules.CONTINUE:
        said.append(f"the reserve's top {card_label(new.in_play)} may attack the {SUIT_SYMBOLS[new.target]} "
                    "column again")
    if new.result == rules.WON:
        said.append("no face card is left")
    elif new.result == rules.LOST:
        said.append("the deck is empty")
    return said


def _dead_center(env, old, new) -> list[str]:
    from ...envs.dead_center import rules

    before, after = rules.describe(old), rules.describe(new)
    said = []
    for slot, was in before["slots"].items():
        now = after["slots"][slot]
        if was == "down" and now != "down":
            said.append(f"the zombie at {slot} is {_labels([now])}")
        elif was not in ("down", None) and now is None:
            said.append(f"{_labels([was])} at {slot} is killed ({after['kills']} of 12)")
    for pile, (was, now) in enumerate(zip(before["cabin"], after["cabin"])):
        if was != now:
            said.append(f"{_labels([now])} on pile {pile}")
    if after["drawn"] is not None and (after["drawn"] != before["drawn"] or before["phase"] != "play"):
        said.append(f"drawn {_labels([after['drawn']])}")
    if after["result"] != before["result"]:
        said.append({"won": "every zombie is dead", "unplayable": "it fits no pile",
                     "deck_empty": "the draw pile is empty", "forfeited": "forfeited"}[after["result"]])
    return said


def _one_card_dungeon(env, old, new) -> list[str]:
    from ...envs.one_card_dungeon import rules

    before, after = rules.describe(old), rules.describe(new)
    kind = after["monster_type"]["name"].lower()
    said = []
    if after["level"] == before["level"]:
        for k, (was, now) in enumerate(zip(before["monsters"], after["monsters"])):
            if was is None:
                continue
            if now is None:
                said.append(f"{kind} {k} dies")
                continue
            if now["pos"] != was["pos"]:
                said.append(f"{kind} {k} moves {_tile(was['pos'])} -> {_tile(now['pos'])}")
            if now["hp"] != was["hp"]:
                said.append(f"{kind} {k} health {was['hp']} -> {now['hp']}")
    else:
        monster = after["monster_type"]
        said.append(f"level {after['level']}: {len(after['monsters'])} {kind}s (health {monster['hp']}, speed "
                    f"{monster['speed']}, attack {monster['attack']}, defense {monster['defense']}, range "
                    f"{monster['range']})")
    health = before["adventurer"]["health"], after["adventurer"]["health"]
    if health[1] < health[0]:
        said.append(f"the {kind}s hit you: health {health[0]} -> {health[1]}")
    elif health[1] > health[0]:
        said.append(f"health {health[0]} -> {health[1]}")
    if after["phase"] == "level_up" and before["phase"] != "level_up":
        said.append(f"level {after['level']} cleared: choose an upgrade or heal")
    if after["turn"] > before["turn"]:
        said.append(f"turn {after['turn']}: dice {' '.join(map(str, after['dice']))}")
    if after["result"] != before["result"]:
        said.append({"won": "the last level is cleared", "lost": "your health is gone",
                     "truncated": f"the turn limit ({after['max_turns']}) is reached",
                     "forfeited": "forfeited"}[after["result"]])
    return said


def _tile(pos) -> str:
    return f"r{pos[0]}c{pos[1]}"


def _splendor(env, old, new) -> list[str]:
    from ...envs.splendor import rules

    before, after = rules.describe(old, env.seat), rules.describe(new, env.seat)
    mine_before, mine_after = before["players"][env.seat], after["players"][env.seat]
    return [f"noble N{n} visits you (3 points)" for n in mine_after["nobles"] if n not in mine_before["nobles"]]


_GEM_WORDS = dict(zip("WUGRKY", ("white", "blue", "green", "red", "black", "gold")))


def splendor_move(move: str, seat: int, before, env) -> str:
    """An opponent's move in words, with the card it bought or reserved read off the table."""
    from ...envs.splendor import rules
    from ...envs.splendor.cards import card_text

    kind, _, what = move.partition("_")
    if kind == "take":
        if len(what) == 2 and what[0] == what[1]:
            return f"takes 2 {_GEM_WORDS[what[0]]}"
        return "takes " + ", ".join(_GEM_WORDS[c] for c in what)
    if kind == "return":
        return f"returns a {_GEM_WORDS[what]} token"
    if kind == "pass":
        return "passes"
    now = rules.describe(env.state, env.seat)["players"][seat]
    was = rules.describe(before, env.seat)["players"][seat] if before is not None else {
        "purchased": [], "reserved": [], "nobles": []}
    if kind == "noble":
        new = [n for n in now["nobles"] if n not in was["nobles"]]
        return f"noble N{new[0]} visits (3 points)" if new else "a noble visits (3 points)"
    if kind == "reserve":
        new = [r for r in now["reserved"] if r not in was["reserved"]] or ["a card"]
        shown = card_text(new[0]) if isinstance(new[0], int) else f"a face-down tier-{what[1]} card"
        return f"reserves {shown}"
    bought = [c for c in now["purchased"] if c not in was["purchased"]]
    return f"buys {card_text(bought[0])}" if bought else "buys a card"


NARRATORS = {"dungeon_solitaire": _dungeon_solitaire, "royal_assassin": _royal_assassin,
             "dead_center": _dead_center, "one_card_dungeon": _one_card_dungeon, "splendor": _splendor}


def game_over(name: str, info: dict, seat: int = 0) -> str:
    """Won or lost, how, and the score in words."""
    result, score, kills = info.get("result"), info.get("score", 0), info.get("kills", 0)
    if name == "dungeon_solitaire":
        kings = info.get("kings", 0)
        how = {"escaped": f"You escaped with {kings} of the 4 kings" + ("." if kings == 4 else " (a win needs "
                                                                                              "all four)."),
               "killed": "You were killed.", "lost_in_the_dark": "The last torch went out: lost in the dark.",
               "forfeited": "An illegal move forfeits."}[result]
        points = "your points of treasure" if result == "escaped" else "only an escape scores"
    elif name == "royal_assassin":
        how = {"won": "Every face card is dead.", "lost": f"The deck ran out after {kills} kills.",
               "forfeited": "An illegal move forfeits."}[result]
        points = "the cards left in the deck" if info.get("won") else "only a win scores"
    elif name == "dead_center":
        how = {"won": "All 12 zombies are dead.", "unplayable": f"The drawn card fit no pile, after {kills} kills.",
               "deck_empty": f"The draw pile ran out, after {kills} kills.",
               "forfeited": "An illegal move forfeits."}[result]
        points = "the cards left in the draw pile" if info.get("won") else "only a win scores"
    elif name == "one_card_dungeon":
        how = {"won": "All 12 levels are cleared.", "lost": "Your health ran out.",
               "truncated": "The turn limit was reached.", "forfeited": "An illegal move forfeits."}[result]
        points = {0: "no level cleared", 1: "1 level cleared"}.get(score, f"{score} levels cleared")
    else:
        winners = " and ".join(f"player_{k}" for k in info.get("winners", [])) or "nobody"
        how = {"finished": f"Won by {winners}.", "all_passed": f"Everybody passed; won by {winners}.",
               "truncated": "Cut at the round limit: no winner.", "forfeited": "An illegal move forfeits."}[result]
        points = "your prestige points (" + ", ".join(
            f"player_{k}{' (you)' if k == seat else ''} {p}" for k, p in enumerate(info.get("points", []))) + ")"
    verdict = "you won" if info.get("won") else "the game was cut short" if result == "truncated" else "you lost"
    return f"game over: {verdict}. {how} Score {score}: {points}."


# ---------------------------------------------------------------- the help texts

TITLES = {"dungeon_solitaire": "Dungeon Solitaire: Tomb of Four Kings", "royal_assassin": "Royal Assassin",
          "dead_center": "Dead Center", "one_card_dungeon": "One Card Dungeon", "splendor": "Splendor"}

RULES = {
    "dungeon_solitaire": [
        "Delve into the tomb turn by turn, collect the four kings and get out alive. A turn reveals cards up to "
        "its encounter, the first 2-10 of spades (a monster), diamonds (a trap) or clubs (a sealed door). Each "
        "draw then reveals an action card: one at least the encounter's value wins the turn and its treasure "
        "(diamonds, kings, the joker) goes to the hand.",
        "A monster hits for the difference and fights on; a trap hits once and the turn is lost; a door that "
        "stays shut costs cards from the deck. A queen wins the encounter (divine favour); jacks are skills "
        "kept in the hand; every ace is a torch going out, and the fourth loses the game (unless the joker, "
        "the Scroll of Light, is in the hand). HP 0 loses too.",
        "After two delve turns you may retreat: the way back has one turn fewer than the way in. Escaping "
        "scores your treasure; escaping with all four kings wins.",
    ],
    "royal_assassin": [
        "Kill every face card. Each suit's jacks, queens and kings stand in that suit's column; the newest is "
        "its pretender. You turn the deck one card at a time: a face card joins its column, a number card "
        "(2-10, ace 11) may attack the pretender of a column of the other colour, or pass onto the reserve.",
        "A pretender dies when the attack on it minus its defence reaches its value (J 11, Q 12, K 13). After "
        "each attack, reserve cards of the pretender's suit defend it from the top of the reserve; when the "
        "defence reaches the attack, the attack is wiped out. A reserve top of the attacking suit may attack "
        "again. A column under attack is locked to the attacking suit.",
        "The joker, the Royal Assassin, can go on a column of two or more face cards with an attack: when that "
        "pretender dies the whole column dies. You win when no face card is left (score: the cards left in the "
        "deck) and lose when the deck runs out.",
    ],
    "dead_center": [
        "Kill the 12 zombies (J, Q, K) that lie face down around the cabin, a 3x3 grid of piles numbered 0-8 "
        "row by row. Each turn: reveal a zombie (while any is face down), draw a card and play it on a pile, "
        "then perhaps kill.",
        "A card goes on a pile whose top card is of the same value, or of the same colour and higher, or of "
        "the other colour and lower; a joker goes anywhere and takes anything. If the card fits no pile, you "
        "lose.",
        "After a play, a face-up zombie in a slot next to that pile dies if the two other top cards in its line "
        "(its supports) sum to 10 or more: a king needs both of its suit, a queen both of its colour, a jack "
        "any. One kill a turn. Kill all 12 to win (score: the cards left in the draw pile); an empty draw "
        "pile loses.",
    ],
    "one_card_dungeon": [
        "Clear 12 levels of monsters on a 5x5 grid (row 0 the far edge). Each turn you roll three dice and "
        "give one to each of Speed, Attack and Defense (skill + die is this turn's total).",
        "Then move and attack in any order: a step costs 2 Speed orthogonally, 3 diagonally; an attack on a "
        "monster in your range and sight costs its Defense in Attack and takes 1 Health. Ending the turn "
        "lets the monsters move; then those in range and sight of you attack: their Attack summed, divided "
        "by your Defense total (rounded down), is the damage you take.",
        "Killing a level's last monster lets you raise a skill or heal to 6, then the next level begins. "
        "Health 0 loses; the score is the levels cleared; clearing level 12 wins.",
    ],
    "splendor": [
        "Be the first to 15 prestige points. Gems come in five colours, W white, U blue, G green, R red, "
        "K black, and gold Y is wild. On your turn, take 3 gems of different colours, or 2 of one colour "
        "(when the bank holds 4 of it), or reserve a card (and take a gold), or buy a card.",
        "A card costs gems; every card you own is a permanent gem of its colour (a bonus) that pays for later "
        "cards, and many give points. A noble visits (3 points) at the end of a turn in which your bonuses "
        "meet its requirement. You may hold 10 tokens at most and return the rest.",
        "When someone reaches 15 points the round is played out; the most points wins (a tie: fewer cards "
        "bought). Cards read #23 G 1pt (4K): card 23, a green bonus, 1 point, costs 4 black.",
    ],
}

LEGENDS = {
    "dungeon_solitaire": [
        ("draw", "reveal the next card: starts a turn, or plays on against the encounter"),
        ("delve", "start the next delve turn"),
        ("retreat", "turn back (possible after two delve turns)"),
        ("berserk", "monster: use J♠ (Go Berserk) and win the encounter"),
        ("disarm", "trap: use J♦ (Disarm Mechanism) and win the encounter"),
        ("pick_lock", "door: use J♣ (Pick Lock) and win the encounter"),
        ("discard", "a door stayed shut: discard the cards it costs from the deck"),
        ("dodge", "spend J♥ (Dodge Blow): the coming blow does nothing"),
        ("take_damage", "take the coming blow"),
        ("drop_7D", "buy off a monster with a treasure from the hand worth at least its value (7D 7♦, KS K♠, "
                    "JK the joker); the turn is lost"),
    ],
    "royal_assassin": [
        ("attack_S", "attack the ♠ column's pretender with the card in play (H ♥, D ♦, C ♣)"),
        ("assassin_S", "the same attack, and the joker goes on that column"),
        ("pass", "put the drawn card on the reserve, or stop continuing an attack"),
    ],
    "dead_center": [
        ("reveal_T0", "turn the zombie at slot T0 face up: T top, R right, B bottom, L left, 0-2 along its side"),
        ("play_3", "play the drawn card on pile 3 (3:10♠ on the grid is pile 3, its top card 10♠)"),
        ("kill_T0", "kill the zombie at slot T0"),
    ],
    "one_card_dungeon": [
        ("assign_HML", "the dice sorted High, Mid, Low go to Speed, Attack, Defense in the order of the "
                       "letters (assign_LHM: Low to Speed, High to Attack, Mid to Defense)"),
        ("move_r1c2", "walk to row 1, column 2 by the cheapest path"),
        ("attack_0", "attack monster 0 (on the grid 0s2: monster 0, a spider with 2 Health)"),
        ("end_turn", "end your moves: the monsters move and attack"),
        ("upgrade_speed", "after a level: +1 Speed (or attack, defense, range)"),
        ("heal", "after a level: Health back to 6"),
        ("grid", "@ you, ## a wall, S and E the stairs, . floor"),
    ],
    "splendor": [
        ("colours", "W white, U blue, G green, R red, K black; Y gold (wild)"),
        ("take_WUG", "take 3 gems of different colours: white, blue, green"),
        ("take_WW", "take 2 white gems (the bank must hold 4 white)"),
        ("take_WU, take_W", "take fewer, when fewer than 3 colours are left in the bank"),
        ("reserve_t1_2", "reserve the tier 1 card in slot [2] and take a gold; you may hold 3"),
        ("reserve_t1_deck", "reserve the top card of the tier 1 deck, unseen by the others"),
        ("buy_t1_2", "buy the tier 1 card in slot [2]"),
        ("buy_reserved_0", "buy your reserved card [0]"),
        ("return_W", "give a white token back (over 10 tokens)"),
        ("noble_0", "choose noble [0] when more than one can visit"),
        ("pass", "only when no other move is legal"),
    ],
}
