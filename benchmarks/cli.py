"""The ``tabletop-gym`` command: list, play, eval, leaderboard, ceiling, report, bench, train, curves, replay."""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import shlex
import sys
from pathlib import Path

from ..agents import AGENTS, VALUE_GAMES, games_with, make_agent
from ..envs import GAMES, BadFileError, Game, game
from ..envs.core.env import observation_modes
from .evaluation.evaluate import BACKENDS, WorkerDied
from .evaluation.leaderboard import AGENT_ORDER, LEADERBOARD_EPISODES, LEADERBOARD_SEARCH_EPISODES
from .human.replay import LONGEST_REPLAY_SECONDS
from .outputs import check_folder, check_output, package_version


# The optional extras, by the modules they bring (pyproject.toml's optional-dependencies).
EXTRA_OF_MODULE = {"sb3_contrib": "rl", "stable_baselines3": "rl", "torch": "rl", "matplotlib": "rl",
                   "PIL": "render", "pygame": "bench", "rlcard": "bench", "ray": "ray"}


def missing_extra(error: ImportError) -> str | None:
    """The extra that brings the module ``error`` could not import, or None when no extra does."""
    name = getattr(error, "name", None) or ""
    if not name and "No module named" in str(error):
        name = str(error).split("No module named", 1)[1].strip(" '\"")
    return EXTRA_OF_MODULE.get(name.split(".")[0])


def require(extra: str, *modules: str) -> None:
    """Fail before any work is done when a module of ``extra`` is missing (not after a whole evaluation)."""
    for module in modules:
        if importlib.util.find_spec(module) is None:
            raise ModuleNotFoundError(f"No module named {module!r}", name=module)


def cmd_list(args) -> None:
    print("games:")
    for entry in GAMES.values():
        print(f"  {entry.name:<20} {entry.id}")
    print("agents:")
    for name, what in AGENTS.items():
        print(f"  {name:<20} {what}")


def _table_options(args, entry: Game) -> dict:
    """The options of a game of several players: the opponents, the player count, the person's seat."""
    options = {name: getattr(args, name, None) for name in ("opponent", "players", "seat")}
    given = {name: value for name, value in options.items() if value is not None}
    if not entry.multiplayer:
        if given:
            raise ValueError(f"--{' --'.join(given)}: {entry.id} is a solitaire; these options are for "
                             f"{', '.join(g.name for g in table_games())}")
        return {}
    kwargs = {}
    if options["opponent"] is not None:
        names = [o.strip() for o in options["opponent"].split(",")]
        kwargs["opponent"] = [_opponent(o, entry) for o in names] if len(names) > 1 else _opponent(names[0], entry)
    if options["players"] is not None:
        kwargs["num_players"] = options["players"]
    if options["seat"] is not None:
        kwargs["seat"] = "random" if options["seat"] == "random" else int(options["seat"])
    return kwargs


def _opponent(name: str, entry: Game):
    """The env plays its built-in opponents itself; any other agent name is built here."""
    return name if name in entry.built_in_opponents else make_agent(name, entry.id)


def cmd_play(args, stdin=None) -> None:
    """A person plays in the terminal (benchmarks/human/play.py)."""
    from .human.play import play

    play(args.game, seed=args.seed, stdin=stdin, **_table_options(args, game(args.game)))


def cmd_eval(args) -> None:
    from .evaluation.evaluate import evaluate

    if args.agent.lower().startswith(("ppo:", "search-ppo:")) and not args.agent.endswith(".npz"):
        require("rl", "sb3_contrib")
    if args.record:
        check_output(args.record)
    result = evaluate(args.game, args.agent, episodes=args.episodes, seed=args.seed, workers=args.workers,
                      progress=not args.quiet, opponent=args.opponent, num_players=args.players,
                      record=args.record, resume=args.resume, **_backend(args))
    print(result)
    if args.record:
        print(f"wrote {args.record}")


def _backend(args) -> dict:
    """``--backend`` and ``--address`` as ``evaluate`` takes them; Ray checked for before any work."""
    if args.backend == "ray":
        require("ray", "ray")
    elif args.address is not None:
        raise ValueError("--address is a Ray cluster's: it goes with --backend ray")
    return {"backend": args.backend, "address": args.address}


def _backend_options(parser) -> None:
    parser.add_argument("--backend", choices=BACKENDS, default="local",
                        help="local: worker processes on this machine; ray: Ray tasks on a cluster (the ray extra)")
    parser.add_argument("--address", default=None,
                        help="--backend ray: the Ray cluster to connect to (default: a new local Ray instance)")


def _names(text: str | None) -> list | None:
    return [name.strip().lower().replace("-", "_") for name in text.split(",")] if text else None


def cmd_bench(args) -> None:
    from .evaluation.throughput import main as throughput

    require("bench", "pygame", "rlcard")
    for path in (args.out, args.png):
        if path:
            check_output(path)
    throughput(duration=args.duration, repeats=args.repeats, games=_names(args.games), out=args.out, png=args.png,
               progress=not args.quiet, command=args.command_line)


def cmd_leaderboard(args) -> None:
    from .evaluation.leaderboard import main as leaderboard

    ppo = None
    if args.ppo:
        pairs = [item.split("=", 1) for item in args.ppo.split(",")]
        if any(len(pair) != 2 for pair in pairs):
            raise ValueError(f"--ppo takes game=policy.npz pairs, got {args.ppo!r}")
        ppo = dict(pairs)
        if not all(path.endswith(".npz") for path in ppo.values()):
            require("rl", "sb3_contrib")
    leaderboard(episodes=args.episodes, seed=args.seed, workers=args.workers, games=_names(args.games),
                agents=[a.strip() for a in args.agents.split(",")], out=args.out, png=args.png, ppo_models=ppo,
                progress=not args.quiet, search_episodes=args.search_episodes, command=args.command_line,
                **_backend(args))


# The trainers of ``tabletop-gym train``, a file each in benchmarks/training/, and the flags that choose them.
TRAINERS = {"ppo": "the project's masked PPO", "clone": "behaviour cloning, then PPO (--start)",
            "selfplay": "self-play (--self-play)", "sb3": "sb3-contrib's MaskablePPO (--algo sb3)",
            "value": "the value trainer (--algo value)", "rllib": "RLlib's PPO (--backend rllib)",
            "az": "expert iteration for the planning agent (--algo az)"}
# --algo's choices; --start and --self-play go with ppo, --backend rllib with none
ALGOS = ("ppo", "sb3", "value", "az")
# Why a trainer other than the project's own PPO does not take --resume.
NOT_RESUMED = {"sb3": "MaskablePPO keeps SB3's own checkpoints, through its CheckpointCallback",
               "rllib": "RLlib keeps its own checkpoints, through Algorithm.save and restore",
               "selfplay": "the league's snapshots are not in a checkpoint",
               "value": "it keeps no checkpoint"}


def trainer_of(args) -> str:
    """The trainer the flags ask for."""
    if args.backend == "rllib":
        if args.algo != "ppo":
            raise ValueError("--backend rllib trains RLlib's PPO: leave --algo out")
        return "rllib"
    if args.runners is not None or args.address is not None:
        raise ValueError("--runners and --address are RLlib's: they go with --backend rllib")
    if args.algo != "ppo":
        return args.algo
    return "selfplay" if args.self_play else "clone" if args.start is not None else "ppo"


def trainer_options(args, env_kwargs: dict) -> tuple[dict, dict]:
    """The options the flags give, by the trainers' parameter names (a flag left at its default gives none), and
    the flags behind each."""
    table = [flag for flag in ("--opponent", "--players", "--seat", "--reward", "--observation")
             if getattr(args, flag[2:], None) is not None]
    settings = {key: value for key, value in (("learning_rate", args.learning_rate), ("ent_coef", args.ent_coef),
                                              ("teacher_coef", args.teacher_coef),
                                              ("teacher_decay", args.teacher_decay)) if value is not None}
    given = {"timesteps": (args.timesteps, "--timesteps"), "games": (args.games, "--games"),
             "rounds": (args.rounds, "--rounds"), "simulations": (args.simulations, "--simulations"),
             "n_envs": (args.envs, "--envs"), "start": (args.start, "--start"),
             "start_episodes": (args.start_episodes if args.start is not None else None, "--start-episodes"),
             "teacher": (args.teacher, "--teacher"), "runners": (args.runners, "--runners"),
             "address": (args.address, "--address"), "vector": (False if args.single_envs else None, "--single-envs"),
             "read_plain": (False if args.skip_plain else None, "--skip-plain"),
             "settings": (settings or None, ", ".join(f"--{key.replace('_', '-')}" for key in settings)),
             "env_kwargs": (env_kwargs or None, ", ".join(table)),
             "self_play": (True if args.self_play and args.backend == "rllib" else None, "--self-play"),
             "overwrite": (True if args.overwrite else None, "--overwrite"), "resume": (args.resume, "--resume"),
             "checkpoint_every": (args.checkpoint_every, "--checkpoint-every")}
    options = {key: value for key, (value, _) in given.items() if value is not None}
    return options, {key: given[key][1] for key in options}


def cmd_train(args) -> None:
    import inspect
    from importlib import import_module

    require("rl", "torch", "matplotlib", *(["sb3_contrib"] if args.algo == "sb3" else []))
    if args.observation is not None:
        check_observation(args.game, args.observation)
    trainer = trainer_of(args)
    check_folder(args.out)
    check_folder(args.resume)
    if trainer == "rllib":
        require("ray", "ray")
    if trainer == "value" and args.timesteps is not None:
        raise ValueError("--timesteps is PPO's budget: the value trainer's is --games")
    if trainer not in ("value", "az") and args.games is not None:
        raise ValueError("--games is the value trainer's budget (--algo value) and az's games a round: PPO's is "
                         "--timesteps")
    env_kwargs = _table_options(args, game(args.game))
    if args.reward is not None:
        env_kwargs["reward"] = args.reward
    if args.observation is not None:
        env_kwargs["observation"] = args.observation
    train = import_module(f".training.{trainer}", __package__).train
    options, flags = trainer_options(args, env_kwargs)
    refused = [flags[key] for key in options if key not in inspect.signature(train).parameters]
    if "--resume" in refused:
        raise ValueError(f"--resume goes with the project's own PPO and az; {TRAINERS[trainer]} does not resume a "
                         f"run: {NOT_RESUMED[trainer]}")
    if refused:
        raise ValueError(f"{', '.join(refused)}: not an option of {TRAINERS[trainer]}")
    result = train(args.game, seed=args.seed, out=args.out, eval_episodes=args.eval_episodes, workers=args.workers,
                   progress=not args.quiet, **options)
    algo = result.hyperparameters["algo"]
    settings = result.hyperparameters
    envs, steps = settings.get("num_envs", settings.get("n_envs")), settings.get("num_steps", settings.get("n_steps"))
    if algo == "value":
        print(f"learned from {2 * settings['games']:,} games ({result.timesteps:,} decisions) in "
              f"{result.seconds:.0f} s")
    elif algo == "az":
        print(f"played {settings['value_games']:,} games of the prior and {settings['rounds']} rounds of "
              f"{settings['games']:,} search games ({result.timesteps:,} decisions) in {result.seconds:.0f} s")
    elif algo == "rllib":
        print(f"trained {result.timesteps:,} steps ({result.timesteps_requested:,} asked: RLlib samples whole "
              f"batches of {settings['train_batch_size_per_learner']:,}) in {result.seconds:.0f} s")
    else:
        print(f"trained {result.timesteps:,} steps ({result.timesteps_requested:,} asked: PPO learns from whole "
              f"rollouts of {envs} envs x {steps} steps) in {result.seconds:.0f} s")
    print(f"wrote {result.model_path}, {result.curve_path} and {Path(result.model_path).parent / 'result.json'}")
    for against, evaluation in {None: result.evaluation, **result.other_evaluations}.items():
        print(f"final evaluation{f' against {against}' if against else ''}: win rate "
              f"{100 * evaluation['win_rate']:.2f}% (95% CI {100 * evaluation['win_low']:.2f}-"
              f"{100 * evaluation['win_high']:.2f}%), mean score {evaluation['mean_score']:.2f} over "
              f"{evaluation['episodes']} episodes")


def cmd_ceiling(args) -> None:
    from .ceiling.verdicts import main as ceiling

    ceiling(args.game, deals=args.deals, seed=args.seed, budget=args.budget, workers=args.workers,
            json_path=args.json, progress=not args.quiet, resume=args.resume)


def cmd_report(args) -> None:
    from .evaluation.report import main as report

    report(args.game, args.record, verdicts=args.verdicts, agent=args.agent, deal=args.deal)


def cmd_compare(args) -> None:
    from .evaluation.compare import main as compare

    compare(args.first, args.second)


def cmd_curves(args) -> None:
    from .training.curves import main as curves

    require("rl", "matplotlib")
    curves(args.runs, out=args.out, table=args.table, command=args.command_line)


def cmd_replay(args) -> None:
    from .human.replay import FORMATS, replay

    require("render", "PIL")
    check_output(args.out, FORMATS)  # before the episode is played
    result = replay(args.game, agent=args.agent, seed=args.seed, out=args.out, fps=args.fps,
                    max_steps=args.max_steps, env_kwargs=_table_options(args, game(args.game)))
    print(f"wrote {result}")


GAME_HELP = f"the game: {', '.join(GAMES)} (or its Gymnasium id)"


def _game(parser) -> None:
    parser.add_argument("game", help=GAME_HELP)


def table_games() -> list:
    """The games of several players: those the table options (--opponent, --players, --seat) are for."""
    return [entry for entry in GAMES.values() if entry.multiplayer]


def _either(items) -> str:
    """``a, b or c``, each item once."""
    items = [str(item) for item in dict.fromkeys(items)]
    return items[-1] if len(items) == 1 else f"{', '.join(items[:-1])} or {items[-1]}"


def _env_default(option: str) -> str:
    """The default of ``option`` (a keyword of their envs) in the games of several players."""
    return _either(inspect.signature(g.env_class).parameters[option].default for g in table_games())


def _table_help(text: str, default_of: str | None = None) -> str:
    """A table option's help: the games it is for, ``text``, and the default of their envs' ``default_of``."""
    default = "" if default_of is None else f" (default: {_env_default(default_of)})"
    return f"{', '.join(g.name for g in table_games())}: {text}{default}"


def _players() -> str:
    return f"{_either(n for g in table_games() for n in g.players)} players"


def _built_in_opponents() -> list:
    return [name for g in table_games() for name in g.built_in_opponents]


def _table(parser, seat: bool = False) -> None:
    opponents = _either([*_built_in_opponents(), "any agent"])
    parser.add_argument("--opponent", default=None, help=_table_help(
        f"the agent at the other seats ({opponents}; comma-separated for one each)", "opponent"))
    parser.add_argument("--players", type=int, default=None, help=_table_help(_players(), "num_players"))
    if seat:
        parser.add_argument("--seat", default=None, help=_table_help("your seat, 0 to players-1 or 'random'", "seat"))


def observation_choices(entry: Game) -> list:
    """What ``--observation`` may ask of a game: its env has the option only where its folder computes features
    (a game without them has its plain observation alone)."""
    features = entry.module("features", required=False)
    return [] if features is None else observation_modes(features)


def games_taking(mode: str) -> list:
    return [entry.name for entry in GAMES.values() if mode in observation_choices(entry)]


def check_observation(name: str, mode: str) -> None:
    """Refuses an observation the game's env does not take, in one line naming the games that take it."""
    if mode not in observation_choices(game(name)):
        raise ValueError(f"--observation {mode}: not an observation of {game(name).name}; the games that take it: "
                         f"{', '.join(games_taking(mode))}")


def _observation_help() -> str:
    """--observation's help: the games that take it, those whose env computes features, and those whose env adds
    what each action leaves."""
    return (f"the env's observation ({', '.join(games_taking('plain'))}): plain, or with the features its game "
            f"computes appended ({', '.join(games_taking('features'))}), or with those, where there are any, and what "
            f"each action leaves ({', '.join(games_taking('actions'))}: the policy then scores each action with one "
            "shared network); the learned policy computes them itself when it plays a plain env")


def _value_games_help() -> str:
    """--games' help: by default the value trainer's number of deals, or the one a game's value rows set."""
    own = ", ".join(f"{rows.settings['games']} for {name}" for name, rows in games_with("VALUE_ROWS").items()
                    if "games" in rows.settings)
    own = f", or the game's own: {own}" if own else ""
    return f"value: deals of each phase, the heuristic's and then the value agent's own (default: the trainer's{own})"


class HelpWithDefaults(argparse.HelpFormatter):
    """Every option's default in its help, unless the help already says it or there is none to say."""

    def _get_help_string(self, action):
        text = action.help or ""
        unsaid = action.default is None or action.default is False or action.default == argparse.SUPPRESS
        if "(default" in text or unsaid or not action.option_strings:
            return text
        return f"{text} (default: %(default)s)".lstrip()


def build_parser() -> argparse.ArgumentParser:
    formatter = HelpWithDefaults
    parser = argparse.ArgumentParser(prog="tabletop-gym", description="Tabletop games as RL environments.",
                                     formatter_class=formatter)
    parser.add_argument("--version", action="version", version=f"%(prog)s {package_version()}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, help: str, run) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=help, description=help, formatter_class=formatter)
        sub.set_defaults(run=run)
        return sub

    command("list", "the games and agents", cmd_list)

    play = command("play", "play a game in the terminal (? at the prompt for help)", cmd_play)
    _game(play)
    play.add_argument("--seed", type=int, default=None, help="the deal (default: a new one each time)")
    _table(play, seat=True)

    agent_help = f"the agent: {', '.join(AGENTS)}"
    evaluation = command("eval", "win rate of an agent on a game", cmd_eval)
    _game(evaluation)
    evaluation.add_argument("--agent", default="random", help=agent_help)
    evaluation.add_argument("--episodes", type=int, default=1000, help="deals to play")
    evaluation.add_argument("--seed", type=int, default=0, help="episode i is dealt from seed + i")
    evaluation.add_argument("--workers", type=int, default=None, help="worker processes (default: one per CPU)")
    evaluation.add_argument("--quiet", action="store_true", help="no progress bar")
    evaluation.add_argument("--opponent", default=None,
                            help=_table_help("the agent at the other seats; seats rotate", "opponent"))
    evaluation.add_argument("--players", type=int, default=None, help=_table_help(_players(), "num_players"))
    evaluation.add_argument("--record", default=None, metavar="FILE",
                            help="write each episode's result here (JSON lines: game, agent, the opponent and "
                                 "players of a game of several players, seed, seat, won, score, length), to set "
                                 "agents side by side with compare; written as episodes finish, to FILE.partial until "
                                 "the run ends")
    evaluation.add_argument("--resume", action="store_true",
                            help="with --record: keep the episodes FILE.partial (or FILE) holds from a run of the same "
                                 "game, agent and table, and play only the missing seeds")
    _backend_options(evaluation)

    board = command("leaderboard", "every agent on every game: markdown table and chart", cmd_leaderboard)
    board.add_argument("--episodes", type=int, default=LEADERBOARD_EPISODES, help="episodes per row")
    board.add_argument("--search-episodes", type=int, default=None,
                       help="episodes of the (much slower) search agent's rows (default: "
                            + ", ".join(f"{n} on {g}" for g, n in LEADERBOARD_SEARCH_EPISODES.items()) + ")")
    board.add_argument("--seed", type=int, default=0, help="episode i of every row is dealt from seed + i")
    board.add_argument("--workers", type=int, default=None, help="worker processes (default: one per CPU)")
    board.add_argument("--games", default=None, help=f"comma-separated, of {', '.join(GAMES)} (default: all)")
    board.add_argument("--agents", default=",".join(AGENT_ORDER),
                       help=f"comma-separated agent names (default: {', '.join(AGENT_ORDER)}; the search agents play "
                            "--search-episodes)")
    board.add_argument("--ppo", default=None,
                       help="game=policy.npz pairs (or model.pt, a MaskablePPO .zip), comma-separated: the learned "
                            "policy the ppo and search-ppo rows play, in place of the game's shipped one")
    board.add_argument("--out", default="leaderboard.md", help="the markdown table")
    board.add_argument("--png", default="leaderboard.png", help="the chart (needs the rl extra's matplotlib)")
    board.add_argument("--quiet", action="store_true", help="no progress line")
    _backend_options(board)

    training = command("train", "train an agent on a game: masked PPO, or another --algo (needs the rl extra)",
                       cmd_train)
    _game(training)
    training.add_argument("--backend", choices=("local", "rllib"), default="local",
                          help="rllib: RLlib's PPO with action masking on a Ray cluster (the ray extra)")
    training.add_argument("--runners", type=int, default=None,
                          help="--backend rllib: remote env runners, each of --envs games (default 2)")
    training.add_argument("--address", default=None,
                          help="--backend rllib: the Ray cluster to connect to (default: a new local Ray instance)")
    training.add_argument("--algo", choices=ALGOS, default="ppo",
                          help="ppo: the project's own masked PPO on the native vector env; sb3: sb3-contrib's "
                               f"MaskablePPO; value ({', '.join(VALUE_GAMES)}): a learned value that the game's "
                               "value agent plays where its heuristic has a rule of thumb; az "
                               f"({', '.join(games_with('PLANNING'))}): the planning agent's policy and value by "
                               "expert iteration, the search playing itself")
    training.add_argument("--rounds", type=int, default=None,
                          help="az: rounds of the search's self-play after round 0 (default 1)")
    training.add_argument("--simulations", type=int, default=None,
                          help="az: the search's simulations a move in self-play (default 64)")
    training.add_argument("--timesteps", type=int, default=None,
                          help="ppo, sb3: the budget, rounded up to whole rollouts (the run's record gives the "
                               "count) (default: 100000)")
    training.add_argument("--games", type=int, default=None,
                          help=_value_games_help() + "; az: the search's games a round (default 200)")
    training.add_argument("--seed", type=int, default=0, help="the training run's seed")
    training.add_argument("--start", default=None, metavar="AGENT",
                          help="ppo: first learn to play as this agent does (heuristic, search...) by behaviour "
                               "cloning, then PPO")
    training.add_argument("--start-episodes", type=int, default=2000, help="--start: the agent's games to learn from")
    training.add_argument("--teacher", default=None, metavar="AGENT",
                          help="ppo: kickstart from this agent (heuristic...): it names its move on every position "
                               "the policy reaches in training, and the loss adds the policy's cross-entropy to it, "
                               "with a weight that falls to 0")
    training.add_argument("--teacher-coef", type=float, default=None,
                          help="--teacher: the cross-entropy's first weight (default 1.0)")
    training.add_argument("--teacher-decay", type=float, default=None,
                          help="--teacher: the share of the training over which that weight falls to 0 (default 0.5)")
    training.add_argument("--envs", type=int, default=None,
                          help="games played at once (default: 64 for ppo, 256 for sb3, 4 for sb3 --single-envs)")
    training.add_argument("--out", default=None,
                          help="output folder (default: runs/<Game>-v0); one that holds another run is refused")
    training.add_argument("--overwrite", action="store_true",
                          help="replace the run in --out: its files are removed before the new run writes")
    training.add_argument("--resume", default=None, metavar="DIR",
                          help="ppo: go on with the run in DIR from its last checkpoint, exactly as if it had never "
                               "stopped; az: from its last games written (--rounds may be more); give the options "
                               "it was started with (a Ctrl-C leaves a checkpoint and says so)")
    training.add_argument("--checkpoint-every", type=float, default=None, metavar="SECONDS",
                          help="ppo: seconds between checkpoints of the run (default 300; one after the last update "
                               "and on a Ctrl-C too; removed once the run is finished)")
    training.add_argument("--eval-episodes", type=int, default=500, help="episodes of the final evaluation")
    training.add_argument("--workers", type=int, default=None,
                          help="worker processes of the --start teacher's games, of az's games and of the final "
                               "evaluation (default: one per CPU)")
    training.add_argument("--single-envs", action="store_true",
                          help="sb3: train on --envs single envs (SB3's DummyVecEnv) at SB3's own defaults, instead "
                               "of the native vector env at the fast configuration (256 games, 64-step rollouts, "
                               "2,048-sample minibatches, 4 epochs)")
    training.add_argument("--learning-rate", type=float, default=None,
                          help="ppo: Adam's step size, annealed to 0 (default 2.5e-4; lower keeps more of a cloned start)")
    training.add_argument("--ent-coef", type=float, default=None, help="ppo: the entropy bonus (default 0.01)")
    training.add_argument("--self-play", action="store_true",
                          help=_table_help("train on the AEC env against a league of the learner's snapshots, "
                                           "the random player and the heuristic (the final evaluation: against "
                                           f"{' and '.join(_built_in_opponents())})"))
    training.add_argument("--observation", choices=["plain", "features", "actions"], default=None,
                          help=_observation_help())
    training.add_argument("--skip-plain", action="store_true",
                          help="ppo, with --observation features or actions: the policy reads the features alone, "
                               "not the plain observation before them (its one-hots of where each card lies let a "
                               "network learn the training deals by heart)")
    training.add_argument("--reward", choices=["win", "score"], default=None,
                          help="what the learner is paid: for a win (default) or the game's score, a denser signal")
    training.add_argument("--opponent", default=None, help=_table_help("the opponent to train against"))
    training.add_argument("--players", type=int, default=None, help=_table_help(_players()))
    training.add_argument("--quiet", action="store_true", help="no progress bars")

    ceil = command("ceiling", "how many deals of a card solitaire can be won at all: an exact search with the "
                              "whole deck known, deal by deal", cmd_ceiling)
    _game(ceil)
    ceil.add_argument("--deals", type=int, default=100, help="deals to solve")
    ceil.add_argument("--seed", type=int, default=0, help="deal i is the env's deal of seed + i")
    ceil.add_argument("--budget", type=float, default=10.0,
                      help="seconds of search a deal, after which it counts as unknown")
    ceil.add_argument("--workers", type=int, default=None, help="worker processes (default: one per CPU)")
    ceil.add_argument("--json", default=None, metavar="FILE",
                      help="write every deal's verdict, line and search size here (gzipped if FILE ends in .gz); "
                           "written as deals are solved, to FILE.partial until the run ends")
    ceil.add_argument("--resume", action="store_true",
                      help="with --json: keep the verdicts FILE.partial (or FILE) holds from a run of the same game "
                           "and budget, and solve only the missing deals")
    ceil.add_argument("--quiet", action="store_true", help="no progress bar")

    reporting = command("report", "an eval --record file against the ceiling's verdicts: the winnable deals the "
                                  "agent lost, and one of them beside its winning line", cmd_report)
    _game(reporting)
    reporting.add_argument("record", help="the JSON lines file of tabletop-gym eval --record (or the FILE.partial of "
                                          "a run that did not finish)")
    reporting.add_argument("--verdicts", default=None, metavar="FILE",
                           help="a tabletop-gym ceiling --json file (default: the verdicts that ship, if they "
                                "cover the record's deals)")
    reporting.add_argument("--agent", default=None,
                           help="the agent of the record: replays its game on --deal beside the winning line "
                                "(default: the agent the record names)")
    reporting.add_argument("--deal", type=int, default=None,
                           help="the deal to replay (default: the first winnable deal it lost)")

    comparing = command("compare", "two eval --record files deal by deal: the deals won by one agent alone and by "
                                   "the other alone, with a sign test, and the scores' mean difference", cmd_compare)
    comparing.add_argument("first", help="the JSON lines file of tabletop-gym eval --record (several, "
                                         "comma-separated: one evaluation run in pieces; a FILE.partial is read as "
                                         "far as it goes)")
    comparing.add_argument("second", help="the other agent's, on the same deals (the same --seed)")

    curving = command("curves", "learning curves of several training runs, by game: the mean over seeds and the "
                                "spread (needs the rl extra)", cmd_curves)
    curving.add_argument("runs", nargs="+", help="the run folders tabletop-gym train wrote")
    curving.add_argument("--out", default="learning_curves.png", help="the chart")
    curving.add_argument("--table", default=None, help="also write the markdown table of the runs here")

    bench = command("bench", "random-play throughput against reference environments (needs the bench extra)",
                    cmd_bench)
    bench.add_argument("--games", default=None, help=f"comma-separated, of {', '.join(GAMES)} (default: all)")
    bench.add_argument("--duration", type=float, default=2.0, help="seconds per measurement")
    bench.add_argument("--repeats", type=int, default=3, help="measurements of each environment (the median counts)")
    bench.add_argument("--out", default=None, help="also write the markdown table here")
    bench.add_argument("--png", default=None, help="also draw the chart here")
    bench.add_argument("--quiet", action="store_true", help="no progress line")

    replaying = command("replay", "one episode of an agent as pictures: an animated GIF or an HTML page (needs "
                                  "the render extra)", cmd_replay)
    _game(replaying)
    replaying.add_argument("--agent", default="random", help=agent_help)
    replaying.add_argument("--seed", type=int, default=0, help="the deal")
    replaying.add_argument("--out", default="replay.gif", help="file.gif or file.html")
    replaying.add_argument("--fps", type=float, default=None,
                           help="frames per second when played (default: 2, faster for a long game so that it "
                                f"plays in at most {LONGEST_REPLAY_SECONDS} s)")
    replaying.add_argument("--max-steps", type=int, default=500, help="cut the episode after this many steps")
    _table(replaying)
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    # The command line as typed, which the pages a command writes begin with.
    args.command_line = shlex.join(["tabletop-gym", *(sys.argv[1:] if argv is None else argv)])
    try:
        args.run(args)
    except ValueError as error:
        # A bad file's message is one line whatever the reader that failed said (some say it over several).
        message = " ".join(str(error).split()) if isinstance(error, BadFileError) else error
        print(f"tabletop-gym: {message}", file=sys.stderr)
        return 2
    except ImportError as error:
        extra = missing_extra(error)
        if extra is None:
            raise
        print(f"tabletop-gym {args.command}: {error} (pip install 'tabletop-gym[{extra}]' brings it)",
              file=sys.stderr)
        return 3
    except WorkerDied as error:
        print(f"tabletop-gym {args.command}: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt as error:
        print(f"\n{str(error) or 'interrupted'}", file=sys.stderr)  # a command may say how to go on
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
