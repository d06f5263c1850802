"""Agents on many deals: ``evaluate`` (local worker processes or Ray tasks), ``compare`` (two records deal by deal),
the leaderboard, reports against the ceiling, and the throughput of the envs."""
