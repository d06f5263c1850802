"""Watch an agent play: one episode recorded as pictures, written as an animated GIF or an HTML page.

    from tabletop_gym.benchmarks.human.replay import replay
    replay(game, agent="heuristic", seed=3, out="game.gif")

or from the command line, ``tabletop-gym replay <game> --agent heuristic --seed 3 --out game.html``.
The episode is played as ``evaluate`` plays one (the same seed gives the same game); a game of several
players is played through its single-agent view, the agent at seat 0 unless ``env_kwargs`` says otherwise.
Each frame is the table after a step (the first one after ``reset``), with the name of the action that led
to it and the opponents' moves that followed.
The HTML page is self-contained: the frames are embedded as PNG, and it has no external script or style.
Pictures need Pillow (``pip install "tabletop-gym[render]"``).
"""

from __future__ import annotations

import base64
import html
import io
import json
from dataclasses import dataclass, field
from pathlib import Path

import gymnasium as gym
import numpy as np

from ...agents import make_agent
from ...envs import game_id
from ..outputs import check_output

FORMATS = (".gif", ".html")
DEFAULT_MAX_STEPS = 500
DEFAULT_FPS = 2.0
LONGEST_REPLAY_SECONDS = 60  # with no fps given, a long game is played faster so that it lasts at most this


@dataclass
class Replay:
    """A recorded episode: a frame per decision (and one for the start) and what led to each."""

    env_id: str
    agent: str
    seed: int
    frames: list = field(default_factory=list)    # uint8 arrays, all of one shape
    captions: list = field(default_factory=list)  # "start", then "step 3: delve" and so on
    won: bool = False
    score: float = 0.0
    finished: bool = False                        # False when cut at max_steps
    path: Path | None = None

    def __str__(self) -> str:
        end = f"won={self.won} score={self.score}" if self.finished else "cut before the end"
        where = f"{self.path}: " if self.path else ""
        return (f"{where}{len(self.frames)} frames of {self.agent} on {self.env_id} (seed {self.seed}), "
                f"{len(self.frames) - 1} steps, {end}")


def frame_rate(frames: int, fps: float | None = None) -> float:
    """``fps`` if given, else ``DEFAULT_FPS``, raised for a long game so that it plays in
    ``LONGEST_REPLAY_SECONDS``."""
    if fps is not None:
        if not fps > 0:
            raise ValueError(f"fps must be positive, got {fps}")
        return float(fps)
    return max(DEFAULT_FPS, frames / LONGEST_REPLAY_SECONDS)


def _opponent_moves(env) -> list:
    """The opponents' moves of the env's last reset or step (none in a solitaire)."""
    return env.opponent_moves() if hasattr(env, "opponent_moves") else []


def _caption(step: int, action_name: str, moves: list) -> str:
    text = f"step {step}: {action_name}"
    if moves:
        text += "; then " + ", ".join(f"player_{seat} {move}" for seat, move in moves)
    return text


def record(game: str, agent="random", seed: int = 0, max_steps: int | None = DEFAULT_MAX_STEPS,
           env_kwargs: dict | None = None) -> Replay:
    """Play one episode of ``agent`` (a name for ``make_agent`` or an agent object) and keep its pictures."""
    env_id = game_id(game)
    name = agent if isinstance(agent, str) else getattr(agent, "name", type(agent).__name__)
    if isinstance(agent, str):
        agent = make_agent(agent, env_id, seed)
    env = gym.make(env_id, render_mode="rgb_array", **(env_kwargs or {}))
    if hasattr(agent, "attach"):
        agent.attach(env)
    if hasattr(agent, "reset"):
        agent.reset(seed=seed)
    names = env.unwrapped.action_names
    observation, info = env.reset(seed=seed)
    result = Replay(env_id=env_id, agent=name, seed=seed)
    result.frames.append(env.render())
    moves = _opponent_moves(env.unwrapped)
    result.captions.append(_caption(0, "start", moves) if moves else "start")
    step = 0
    while max_steps is None or step < max_steps:
        action = int(agent.act(observation, info["action_mask"]))
        observation, _, terminated, truncated, info = env.step(action)
        step += 1
        result.frames.append(env.render())
        result.captions.append(_caption(step, names[action], _opponent_moves(env.unwrapped)))
        if terminated or truncated:
            result.finished = True
            result.won, result.score = bool(info.get("won", False)), float(info.get("score", 0.0))
            break
    env.close()
    return result


def write_gif(frames, path, fps: float = 2.0) -> None:
    """An animated GIF that loops forever, each frame shown ``1 / fps`` seconds."""
    from PIL import Image

    images = [Image.fromarray(np.asarray(frame, dtype=np.uint8)) for frame in frames]
    images[0].save(path, save_all=True, append_images=images[1:], duration=round(1000 / fps), loop=0)


def _png_uri(frame) -> str:
    from PIL import Image

    buffer = io.BytesIO()
    # A 256-colour palette keeps a frame about a quarter of its size, with no loss that shows on these flat tables.
    image = Image.fromarray(np.asarray(frame, dtype=np.uint8)).quantize(256, method=Image.Quantize.FASTOCTREE)
    image.save(buffer, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{title}</title>
<style>
  body {{ font-family: sans-serif; margin: 16px; background: #f4f4f0; color: #222; }}
  #frame {{ display: block; border: 1px solid #999; max-width: 100%; }}
  #controls {{ margin: 10px 0; display: flex; gap: 8px; align-items: center; }}
  #slider {{ flex: 1; max-width: 600px; }}
  #caption {{ font-family: monospace; font-size: 16px; min-height: 1.4em; }}
</style>
</head>
<body>
<h2>{title}</h2>
<p>{summary}</p>
<img id="frame" src="" alt="the table">
<div id="controls">
  <button id="prev" type="button">Prev</button>
  <button id="play" type="button">Play</button>
  <button id="next" type="button">Next</button>
  <input id="slider" type="range" min="0" max="{last}" value="0">
  <span id="counter"></span>
</div>
<div id="caption"></div>
<script>
const frames = {frames};
const captions = {captions};
const delay = {delay};
let index = 0;
let timer = null;
const image = document.getElementById("frame");
const slider = document.getElementById("slider");
const play = document.getElementById("play");
function show(i) {{
  index = Math.max(0, Math.min(frames.length - 1, i));
  image.src = frames[index];
  slider.value = index;
  document.getElementById("counter").textContent = "step " + index + " of " + (frames.length - 1);
  document.getElementById("caption").textContent = captions[index];
}}
function stop() {{ clearInterval(timer); timer = null; play.textContent = "Play"; }}
document.getElementById("prev").onclick = () => {{ stop(); show(index - 1); }};
document.getElementById("next").onclick = () => {{ stop(); show(index + 1); }};
slider.oninput = () => {{ stop(); show(Number(slider.value)); }};
play.onclick = () => {{
  if (timer) {{ stop(); return; }}
  if (index === frames.length - 1) show(0);
  play.textContent = "Pause";
  timer = setInterval(() => {{ if (index < frames.length - 1) show(index + 1); else stop(); }}, delay);
}};
document.addEventListener("keydown", (e) => {{
  if (e.key === "ArrowLeft") {{ stop(); show(index - 1); }}
  if (e.key === "ArrowRight") {{ stop(); show(index + 1); }}
}});
show(0);
</script>
</body>
</html>
"""


def _script_json(value) -> str:
    """JSON that is safe inside a <script> element."""
    return json.dumps(value).replace("</", "<\\/")


def write_html(result: Replay, path, fps: float = 2.0) -> None:
    """One self-contained page: the frames as embedded PNGs, Prev / Play / Next and a slider."""
    title = f"{result.agent} on {result.env_id}, seed {result.seed}"
    end = f"won: {result.won}, score: {result.score}" if result.finished else "cut before the end of the episode"
    page = _PAGE.format(title=html.escape(title), summary=html.escape(f"{len(result.frames) - 1} steps; {end}"),
                        last=len(result.frames) - 1, frames=_script_json([_png_uri(f) for f in result.frames]),
                        captions=_script_json(result.captions), delay=round(1000 / fps))
    Path(path).write_text(page, encoding="utf-8")


def replay(game: str, agent="random", seed: int = 0, out="replay.gif", fps: float | None = None,
           max_steps: int | None = DEFAULT_MAX_STEPS, env_kwargs: dict | None = None) -> Replay:
    """Play one episode of ``agent`` on ``game`` and write it to ``out`` (``.gif`` or ``.html``).

    ``fps``: frames per second when played (None: see ``frame_rate``); ``max_steps``: the episode is cut after
    this many decisions (None: never); ``env_kwargs``: options of the env (a multi-player game's
    ``opponent``, ``num_players``, ``seat``).
    """
    kind = check_output(out, FORMATS)
    frame_rate(1, fps)  # a bad fps is refused before the episode is played
    if max_steps is not None and max_steps < 1:
        raise ValueError(f"max_steps must be at least 1, got {max_steps}")
    result = record(game, agent, seed, max_steps, env_kwargs)
    fps = frame_rate(len(result.frames), fps)
    if kind == ".gif":
        write_gif(result.frames, out, fps)
    else:
        write_html(result, out, fps)
    result.path = Path(out)
    return result
