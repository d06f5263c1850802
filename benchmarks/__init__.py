"""Evaluation, throughput and the ``tabletop-gym`` command line."""

from .evaluate import EvalResult, evaluate, wilson_interval

__all__ = ["EvalResult", "evaluate", "wilson_interval"]
