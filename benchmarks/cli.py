"""The ``tabletop-gym`` command: list, play, eval, bench."""

from __future__ import annotations

import argparse
import sys

import gymnasium as gym
import numpy as np

from ..agents import AGENTS
from ..envs import GAMES, game_id


def cmd_list(args) -> None:
    print("games:")
    for name, (env_id, _) in GAMES.items():
        print(f"  {name:<20} {env_id}")
    print("agents:")
    for name, what in AGENTS.items():
        print(f"  {name:<20} {what}")


def _ask(prompt: str, stdin) -> str | None:
    print(prompt, end="", flush=True)
    line = stdin.readline()
    return line.strip() if line else None


def cmd_play(args, stdin=None) -> None:
    """A person plays in the terminal: the table, then the legal actions by number and name."""
    stdin = stdin or sys.stdin
    env = gym.make(game_id(args.game), render_mode="ansi").unwrapped
    _, info = env.reset(seed=args.seed)
    while True:
        print(env.render())
        legal = np.flatnonzero(info["action_mask"])
        for number, action in enumerate(legal):
            print(f"  [{number}] {env.action_names[action]}")
        answer = _ask("your move (number or name, q to quit): ", stdin)
        if answer is None or answer.lower() in ("q", "quit"):
            return
        names = {env.action_names[a]: a for a in legal}
        if answer in names:
            action = names[answer]
        elif answer.isdigit() and int(answer) < len(legal):
            action = legal[int(answer)]
        else:
            print(f"  '{answer}' is not one of the legal moves above")
            continue
        _, reward, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            print(env.render())
            print(f"game over: won={info.get('won')} score={info.get('score')} reward={reward}")
            return


def cmd_eval(args) -> None:
    from .evaluate import evaluate

    result = evaluate(args.game, args.agent, episodes=args.episodes, seed=args.seed, workers=args.workers,
                      progress=not args.quiet)
    print(result)


def cmd_bench(args) -> None:
    from .throughput import main as throughput

    games = [g.strip().lower().replace("-", "_") for g in args.games.split(",")] if args.games else None
    throughput(duration=args.duration, repeats=args.repeats, games=games, out=args.out)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tabletop-gym", description="Tabletop games as RL environments.")
    commands = parser.add_subparsers(dest="command", required=True)

    commands.add_parser("list", help="the games and agents").set_defaults(run=cmd_list)

    play = commands.add_parser("play", help="play a game in the terminal")
    play.add_argument("game")
    play.add_argument("--seed", type=int, default=None)
    play.set_defaults(run=cmd_play)

    evaluation = commands.add_parser("eval", help="win rate of an agent on a game")
    evaluation.add_argument("game")
    evaluation.add_argument("--agent", default="random")
    evaluation.add_argument("--episodes", type=int, default=1000)
    evaluation.add_argument("--seed", type=int, default=0)
    evaluation.add_argument("--workers", type=int, default=None)
    evaluation.add_argument("--quiet", action="store_true", help="no progress bar")
    evaluation.set_defaults(run=cmd_eval)

    bench = commands.add_parser("bench", help="random-play throughput against reference environments")
    bench.add_argument("--games", default=None, help="comma-separated short names (default: all)")
    bench.add_argument("--duration", type=float, default=2.0, help="seconds per measurement")
    bench.add_argument("--repeats", type=int, default=3)
    bench.add_argument("--out", default=None, help="also write the markdown table here")
    bench.set_defaults(run=cmd_bench)
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        args.run(args)
    except ValueError as error:
        print(f"tabletop-gym: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
