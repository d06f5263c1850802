"""Every chart the commands draw leaves the caller's matplotlib backend as it was: a notebook that runs ``train`` keeps
its inline backend and shows its own charts."""

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")

from tabletop_gym.benchmarks.evaluation import leaderboard, throughput  # noqa: E402
from tabletop_gym.benchmarks.evaluation.evaluate import EvalResult  # noqa: E402
from tabletop_gym.benchmarks.training import curves, run  # noqa: E402

RESULT = EvalResult(game="Tabletop/RoyalAssassin-v0", agent="heuristic", episodes=10, wins=4, win_rate=0.4,
                    win_low=0.17, win_high=0.69, mean_score=0.4, mean_length=12.0)


def draw_curve(path):
    run.plot_curve([(100, 0.2), (200, 0.3)], RESULT, "a run", path)


def draw_leaderboard(path):
    leaderboard.chart([RESULT], path)


def draw_throughput(path):
    throughput.chart([throughput.Row(throughput.REFERENCE, 1000.0, 0.1),
                      throughput.Row("Tabletop/RoyalAssassin-v0", 5000.0, 0.1)], path)


def draw_curves(path):
    record = {"game": "Tabletop/RoyalAssassin-v0", "env_kwargs": {}, "evaluation": RESULT.as_dict()}
    runs = [{"folder": f"s{seed}", "record": record, "step": np.array([100, 200]),
             "win_rate": np.array([0.1, 0.2 + seed / 10]), "mean_score": np.array([0.1, 0.2])} for seed in range(2)]
    curves.chart(runs, path)


@pytest.fixture
def callers_backend():
    before = matplotlib.get_backend()
    matplotlib.use("svg")
    yield "svg"
    matplotlib.use(before)


@pytest.mark.parametrize("draw", [draw_curve, draw_leaderboard, draw_throughput, draw_curves])
def test_a_chart_keeps_the_callers_backend(draw, callers_backend, tmp_path):
    draw(tmp_path / "chart.png")
    assert (tmp_path / "chart.png").read_bytes().startswith(b"\x89PNG")
    assert matplotlib.get_backend() == callers_backend
