"""The ``tabletop-gym`` command: list, play, eval, leaderboard, bench, train, replay."""

from __future__ import annotations

import argparse
import sys

import gymnasium as gym
import numpy as np

from ..agents import AGENTS, make_agent
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


def _table_options(args, env_id: str) -> dict:
    """The options of a multi-player game (Splendor): the opponents, the player count, the person's seat."""
    options = {name: getattr(args, name, None) for name in ("opponent", "players", "seat")}
    given = {name: value for name, value in options.items() if value is not None}
    if env_id != GAMES["splendor"][0]:
        if given:
            raise ValueError(f"--{' --'.join(given)}: {env_id} is a solitaire; these options are for splendor")
        return {}
    kwargs = {}
    if options["opponent"] is not None:
        names = [o.strip() for o in options["opponent"].split(",")]
        kwargs["opponent"] = [_opponent(o, env_id) for o in names] if len(names) > 1 else _opponent(names[0], env_id)
    if options["players"] is not None:
        kwargs["num_players"] = options["players"]
    if options["seat"] is not None:
        kwargs["seat"] = "random" if options["seat"] == "random" else int(options["seat"])
    return kwargs


def _opponent(name: str, env_id: str):
    """The env plays 'random' and 'greedy' itself; any other agent name is built here."""
    from ..envs.splendor.single import OPPONENTS

    return name if name in OPPONENTS else make_agent(name, env_id)


def cmd_play(args, stdin=None) -> None:
    """A person plays in the terminal: the table, then the legal actions by number and name."""
    stdin = stdin or sys.stdin
    env_id = game_id(args.game)
    env = gym.make(env_id, render_mode="ansi", **_table_options(args, env_id)).unwrapped
    _, info = env.reset(seed=args.seed)
    while True:
        for seat, move in info.get("opponent_moves", []):
            print(f"  player_{seat} plays {move}")
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
            for seat, move in info.get("opponent_moves", []):
                print(f"  player_{seat} plays {move}")
            print(env.render())
            print(f"game over: won={info.get('won')} score={info.get('score')} reward={reward}")
            return


def cmd_eval(args) -> None:
    from .evaluate import evaluate

    result = evaluate(args.game, args.agent, episodes=args.episodes, seed=args.seed, workers=args.workers,
                      progress=not args.quiet, opponent=args.opponent, num_players=args.players,
                      record=args.record)
    print(result)


def cmd_bench(args) -> None:
    from .throughput import main as throughput

    games = [g.strip().lower().replace("-", "_") for g in args.games.split(",")] if args.games else None
    throughput(duration=args.duration, repeats=args.repeats, games=games, out=args.out, png=args.png)


def cmd_leaderboard(args) -> None:
    from .leaderboard import main as leaderboard

    games = [g.strip().lower().replace("-", "_") for g in args.games.split(",")] if args.games else None
    agents = [a.strip() for a in args.agents.split(",")]
    ppo = dict(item.split("=", 1) for item in args.ppo.split(",")) if args.ppo else None
    leaderboard(episodes=args.episodes, seed=args.seed, workers=args.workers, games=games, agents=agents,
                out=args.out, png=args.png, ppo_models=ppo, progress=not args.quiet,
                search_episodes=args.search_episodes)


def cmd_train(args) -> None:
    from .train import train

    env_kwargs = _table_options(args, game_id(args.game))
    if args.reward is not None:
        env_kwargs["reward"] = args.reward
    result = train(args.game, timesteps=args.timesteps, seed=args.seed, n_envs=args.envs, out=args.out,
                   eval_episodes=args.eval_episodes, workers=args.workers, progress=not args.quiet,
                   env_kwargs=env_kwargs, vector=args.vector)
    print(f"model: {result.model_path}\nlearning curve: {result.curve_path}")
    evaluation = result.evaluation
    print(f"final evaluation: win rate {100 * evaluation['win_rate']:.2f}% "
          f"(95% CI {100 * evaluation['win_low']:.2f}-{100 * evaluation['win_high']:.2f}%), "
          f"mean score {evaluation['mean_score']:.2f} over {evaluation['episodes']} episodes")


def cmd_replay(args) -> None:
    from .replay import check_out, replay

    check_out(args.out)  # before the episode is played
    env_id = game_id(args.game)
    result = replay(args.game, agent=args.agent, seed=args.seed, out=args.out, fps=args.fps,
                    max_steps=args.max_steps, env_kwargs=_table_options(args, env_id))
    print(f"wrote {result}")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tabletop-gym", description="Tabletop games as RL environments.")
    commands = parser.add_subparsers(dest="command", required=True)

    commands.add_parser("list", help="the games and agents").set_defaults(run=cmd_list)

    play = commands.add_parser("play", help="play a game in the terminal")
    play.add_argument("game")
    play.add_argument("--seed", type=int, default=None)
    play.add_argument("--opponent", default=None,
                      help="splendor: the agent at the other seats (random, greedy; comma-separated for one each)")
    play.add_argument("--players", type=int, default=None, help="splendor: 2, 3 or 4 players (default 2)")
    play.add_argument("--seat", default=None, help="splendor: your seat, 0 to players-1 or 'random' (default 0)")
    play.set_defaults(run=cmd_play)

    evaluation = commands.add_parser("eval", help="win rate of an agent on a game")
    evaluation.add_argument("game")
    evaluation.add_argument("--agent", default="random")
    evaluation.add_argument("--episodes", type=int, default=1000)
    evaluation.add_argument("--seed", type=int, default=0)
    evaluation.add_argument("--workers", type=int, default=None)
    evaluation.add_argument("--quiet", action="store_true", help="no progress bar")
    evaluation.add_argument("--opponent", default=None,
                            help="splendor: the agent at the other seats (default greedy); seats rotate")
    evaluation.add_argument("--players", type=int, default=None, help="splendor: 2, 3 or 4 players (default 2)")
    evaluation.add_argument("--record", default=None, metavar="FILE",
                            help="write each episode's result here (JSON lines: seed, seat, won, score, length)")
    evaluation.set_defaults(run=cmd_eval)

    board = commands.add_parser("leaderboard", help="every agent on every game: markdown table and chart")
    board.add_argument("--episodes", type=int, default=100, help="episodes per row")
    board.add_argument("--search-episodes", type=int, default=5,
                       help="episodes of the (much slower) search agent's rows")
    board.add_argument("--seed", type=int, default=0)
    board.add_argument("--workers", type=int, default=None)
    board.add_argument("--games", default=None, help="comma-separated short names (default: all)")
    board.add_argument("--agents", default="random,heuristic,search", help="comma-separated agent names")
    board.add_argument("--ppo", default=None, help="game=model.zip pairs (comma-separated) to add as 'ppo' rows")
    board.add_argument("--out", default="leaderboard.md")
    board.add_argument("--png", default="leaderboard.png")
    board.add_argument("--quiet", action="store_true", help="no progress bars")
    board.set_defaults(run=cmd_leaderboard)

    training = commands.add_parser("train", help="train MaskablePPO on a game (needs the rl extra)")
    training.add_argument("game")
    training.add_argument("--timesteps", type=int, default=100_000)
    training.add_argument("--seed", type=int, default=0)
    training.add_argument("--envs", type=int, default=4, help="parallel training envs")
    training.add_argument("--out", default=None, help="output folder (default runs/<Game>-v0)")
    training.add_argument("--eval-episodes", type=int, default=500)
    training.add_argument("--workers", type=int, default=None)
    training.add_argument("--vector", action="store_true",
                          help="train on the game's native vector env (--envs games in one batch)")
    training.add_argument("--reward", choices=["win", "score"], default=None,
                          help="what the learner is paid: 1 for a win (default) or the game's score, a denser signal")
    training.add_argument("--opponent", default=None, help="splendor: the opponent to train against")
    training.add_argument("--players", type=int, default=None, help="splendor: 2, 3 or 4 players")
    training.add_argument("--quiet", action="store_true", help="no progress bar")
    training.set_defaults(run=cmd_train)

    bench = commands.add_parser("bench", help="random-play throughput against reference environments")
    bench.add_argument("--games", default=None, help="comma-separated short names (default: all)")
    bench.add_argument("--duration", type=float, default=2.0, help="seconds per measurement")
    bench.add_argument("--repeats", type=int, default=3)
    bench.add_argument("--out", default=None, help="also write the markdown table here")
    bench.add_argument("--png", default=None, help="also draw the chart here")
    bench.set_defaults(run=cmd_bench)

    replaying = commands.add_parser("replay", help="one episode of an agent as pictures: an animated GIF or an "
                                                   "HTML page (needs the render extra)")
    replaying.add_argument("game")
    replaying.add_argument("--agent", default="random")
    replaying.add_argument("--seed", type=int, default=0)
    replaying.add_argument("--out", default="replay.gif", help="file.gif or file.html (default replay.gif)")
    replaying.add_argument("--fps", type=float, default=2.0, help="frames per second when played")
    replaying.add_argument("--max-steps", type=int, default=500, help="cut the episode after this many steps")
    replaying.add_argument("--opponent", default=None,
                           help="splendor: the agent at the other seats (random, greedy; comma-separated for one each)")
    replaying.add_argument("--players", type=int, default=None, help="splendor: 2, 3 or 4 players (default 2)")
    replaying.set_defaults(run=cmd_replay)
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
