"""Learning curves over seeds: the mean and the spread of several ``tabletop-gym train`` runs of each game.

    tabletop-gym curves runs/<game>_s0 runs/<game>_s1 runs/<game>_s2 ... --out curves.png

Each run folder holds the ``learning_curve.csv`` and ``result.json`` that ``train`` writes. Runs are grouped by
game; a game's curve is the mean over its runs of the win rate of the last 100 training episodes (the mean score
for a game whose runs were paid by score, such as levels cleared), with the band from the lowest to the
highest run, against training steps; each run's final evaluation is a point at its last step. The markdown table
gives each game's runs: seed, steps, minutes, the final evaluation, and the hyperparameters they share.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np

from ..outputs import check_output, provenance, python_call


def read_run(folder) -> dict:
    """A run's curve (steps, win rate, mean score per update) and its record."""
    folder = Path(folder)
    for name in ("learning_curve.csv", "result.json"):
        if not (folder / name).is_file():
            raise ValueError(f"{folder} is not a training run: no {name} (tabletop-gym train writes both)")
    with open(folder / "learning_curve.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    record = json.loads((folder / "result.json").read_text())
    return {"folder": str(folder), "record": record,
            "step": np.array([int(r["step"]) for r in rows]),
            "win_rate": np.array([float(r["win_rate"]) for r in rows]),
            "mean_score": np.array([float(r["mean_score"]) for r in rows])}


def measure_of(record: dict) -> str:
    """What a run's curve shows: the mean score where it was paid by score, else the win rate."""
    return "mean_score" if record["env_kwargs"].get("reward") == "score" else "win_rate"


def by_game(runs: list) -> dict:
    games = {}
    for run in runs:
        games.setdefault(run["record"]["game"], []).append(run)
    return games


def band(runs: list, measure: str, points: int = 100):
    """(steps, mean, low, high) of the runs' curves, each interpolated onto common steps."""
    last = min(run["step"][-1] for run in runs)
    steps = np.linspace(min(run["step"][0] for run in runs), last, points)
    values = np.array([np.interp(steps, run["step"], run[measure]) for run in runs])
    return steps, values.mean(axis=0), values.min(axis=0), values.max(axis=0)


def chart(runs: list, path) -> None:
    # The object API draws without pyplot, so a caller's backend (a notebook's inline one) stays as it was.
    from matplotlib.figure import Figure

    games = by_game(runs)
    fig = Figure(figsize=(4.2 * len(games), 3.6))
    axes = fig.subplots(1, len(games), squeeze=False)
    for ax, (game, group) in zip(axes[0], games.items()):
        measure = measure_of(group[0]["record"])
        scale = 100 if measure == "win_rate" else 1
        steps, mean, low, high = band(group, measure)
        ax.plot(steps, mean * scale, color="#2ca02c", label=f"training, mean of {len(group)} seeds")
        ax.fill_between(steps, low * scale, high * scale, color="#2ca02c", alpha=0.25, label="lowest to highest")
        final = [run["record"]["evaluation"]["win_rate" if measure == "win_rate" else "mean_score"] * scale
                 for run in group]
        ax.scatter([run["step"][-1] for run in group], final, color="black", zorder=3, s=14,
                   label="final evaluation (deterministic)")
        ax.set_title(game.split("/")[-1], fontsize=10)
        ax.set_xlabel("training steps")
        ax.set_ylabel("win rate (%)" if measure == "win_rate" else "mean score")
        ax.legend(fontsize=7, loc="best")
    fig.tight_layout()
    fig.savefig(path, dpi=100)


SHARED = ("num_envs", "num_steps", "learning_rate", "anneal_lr", "gamma", "gae_lambda", "minibatch_size",
          "update_epochs", "clip_coef", "ent_coef", "vf_coef", "max_grad_norm", "hidden")


def markdown(runs: list) -> str:
    lines = ["| game | seed | steps | minutes | start | options | learning rate | final evaluation |",
             "| --- | ---: | ---: | ---: | --- | --- | ---: | --- |"]
    for game, group in by_game(runs).items():
        for run in sorted(group, key=lambda r: r["record"]["seed"]):
            record, evaluation = run["record"], run["record"]["evaluation"]
            measure = measure_of(record)
            result = (f"{evaluation['mean_score']:.2f} mean score" if measure == "mean_score" else
                      f"{100 * evaluation['win_rate']:.1f}% ({100 * evaluation['win_low']:.1f}–"
                      f"{100 * evaluation['win_high']:.1f}%)")
            for opponent, other in record.get("other_evaluations", {}).items():
                result += f"; {100 * other['win_rate']:.1f}% against {opponent}"
            settings = record["hyperparameters"]
            start = f"{settings['start']} ({settings['start_episodes']:,} deals)" if settings.get("start") else "scratch"
            options = ", ".join(f"{k}={v}" for k, v in record["env_kwargs"].items()) or "-"
            if settings.get("self_play"):
                options = "self-play" + (f", {options}" if options != "-" else "")
            if settings.get("read_from"):
                options += ", plain skipped"
            lines.append(f"| {game.split('/')[-1]} | {record['seed']} | {record['timesteps']:,} "
                         f"| {record['seconds'] / 60:.1f} | {start} | {options} | {settings.get('learning_rate', '-')} "
                         f"| {result} over {evaluation['episodes']} |")
    settings = [run["record"]["hyperparameters"] for run in runs]
    shared = {key: settings[0].get(key) for key in SHARED
              if key in settings[0] and all(s.get(key) == settings[0][key] for s in settings)}
    lines += ["", "| hyperparameter | value |", "| --- | --- |"]
    lines += [f"| {key} | {value} |" for key, value in shared.items()]
    return "\n".join(lines) + "\n"


def main(folders, out: str = "learning_curves.png", table: str | None = None, command: str | None = None) -> str:
    """Draw the curves of the runs in ``folders`` to ``out``, print their page of tables and write it to ``table``.
    The page begins with ``command`` (the command line that asked for it; by default this call)."""
    command = command or python_call(main, locals())
    for path in (out, table):
        if path:
            check_output(path)
    runs = [read_run(folder) for folder in folders]
    if not runs:
        raise ValueError("name at least one run folder")
    chart(runs, out)
    text = provenance(command) + "\n\n" + markdown(runs)
    print(text)
    if table:
        Path(table).write_text(text, encoding="utf-8")
    print(f"wrote {out}" + (f" and {table}" if table else ""))
    return text
