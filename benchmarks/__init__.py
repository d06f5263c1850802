"""The tools around the games, a room each by purpose, and the ``tabletop-gym`` command line (``cli.py``):

- ``training``: the project's masked PPO and the other ways a policy or a value is learned;
- ``evaluation``: playing agents on many deals, comparing them, the leaderboard, reports, throughput;
- ``ceiling``: the exact solver and the verdicts it gives on each deal;
- ``human``: a person playing at the terminal, and replays of a game as pictures.
"""

from .evaluation.evaluate import EvalResult, evaluate, wilson_interval

__all__ = ["EvalResult", "evaluate", "wilson_interval"]
