"""Replays: an episode of an agent written as an animated GIF or a self-contained HTML page, and the
``tabletop-gym replay`` command."""

import base64
import io
import re

import pytest
from PIL import Image, ImageSequence

from tabletop_gym.benchmarks import cli
from tabletop_gym.benchmarks.human.replay import record, replay

DEAD_CENTER = (600, 640, 3)
SPLENDOR = (610, 1000, 3)


def test_a_gif_has_a_frame_per_step_of_the_games_size_and_loops(tmp_path):
    out = tmp_path / "dead_center.gif"
    result = replay("dead_center", agent="heuristic", seed=1, out=out, fps=4)
    assert result.path == out and result.finished and len(result.frames) == len(result.captions)
    assert all(frame.shape == DEAD_CENTER for frame in result.frames)
    with Image.open(out) as gif:
        assert gif.format == "GIF" and gif.n_frames > 1 and gif.info["loop"] == 0
        assert gif.info["duration"] == 250
        assert all(frame.size == (DEAD_CENTER[1], DEAD_CENTER[0]) for frame in ImageSequence.Iterator(gif))


def test_an_html_page_embeds_every_frame_and_names_every_action(tmp_path):
    out = tmp_path / "splendor.html"
    result = replay("splendor", agent="greedy", seed=2, out=out, max_steps=12,
                    env_kwargs={"num_players": 3, "opponent": "random"})
    page = out.read_text(encoding="utf-8")
    frames = re.findall(r"data:image/png;base64,([A-Za-z0-9+/=]+)", page)
    assert len(frames) == len(result.frames) == 13 and not result.finished
    first = Image.open(io.BytesIO(base64.b64decode(frames[0])))
    assert first.format == "PNG" and first.size == (SPLENDOR[1], SPLENDOR[0])
    for caption in result.captions[1:]:
        assert caption in page
        assert re.match(r"step \d+: (take|reserve|buy|return|noble|pass)", caption)
    assert "player_1" in result.captions[1]  # the opponents' moves after each step
    for control in ("Prev", "Next", "Play", 'type="range"'):
        assert control in page
    # Self-contained: nothing is fetched from elsewhere.
    assert "<link" not in page and "src=\"http" not in page and "<script src" not in page


def test_the_same_seed_replays_the_same_episode():
    one = record("dungeon_solitaire", agent="random", seed=4)
    two = record("dungeon_solitaire", agent="random", seed=4)
    assert one.captions == two.captions and len(one.frames) == len(two.frames)
    assert all((a == b).all() for a, b in zip(one.frames, two.frames))
    assert one.captions[0] == "start" and one.finished


def test_an_agent_that_plans_on_the_env_is_attached(tmp_path):
    result = replay("dungeon_solitaire", agent="search", seed=0, out=tmp_path / "search.gif", max_steps=3)
    assert 2 <= len(result.frames) <= 4


def test_a_bad_extension_is_refused_before_anything_is_played(tmp_path):
    with pytest.raises(ValueError, match=r"out must end in \.gif or \.html, got .*replay\.png"):
        replay("dead_center", out=tmp_path / "replay.png")
    assert not list(tmp_path.iterdir())


def test_the_cli_writes_a_replay(tmp_path, capsys):
    out = tmp_path / "game.gif"
    assert cli.main(["replay", "royal_assassin", "--agent", "heuristic", "--seed", "3", "--out", str(out),
                     "--fps", "5", "--max-steps", "6"]) == 0
    assert f"wrote {out}" in capsys.readouterr().out
    with Image.open(out) as gif:
        assert gif.n_frames > 1 and gif.size == (1000, 610) and gif.info["duration"] == 200


def test_the_cli_plays_splendor_with_its_table_options(tmp_path, capsys):
    out = tmp_path / "splendor.html"
    assert cli.main(["replay", "splendor", "--players", "4", "--opponent", "random", "--out", str(out),
                     "--max-steps", "3"]) == 0
    assert "Tabletop/Splendor-v0" in capsys.readouterr().out
    assert "player_3" in out.read_text(encoding="utf-8")


def test_the_cli_names_the_accepted_extensions(tmp_path, capsys):
    assert cli.main(["replay", "dead_center", "--out", str(tmp_path / "replay.mp4")]) == 2
    assert ".gif or .html" in capsys.readouterr().err
