"""Beyond one machine: the project on a Ray cluster (the ``ray`` extra: ``pip install 'tabletop-gym[ray]'``).

- ``tasks``: evaluation with each chunk of episodes a Ray task (``evaluate(..., backend="ray")``, and
  ``tabletop-gym eval`` and ``leaderboard`` with ``--backend ray [--address ADDR]``).
- ``rllib``: RLlib's PPO with action masking on the native vector envs (``tabletop-gym train <game> --algo rllib
  [--address ADDR] [--runners N]``): env creators, masking adapters, and ``RLlibAgent``, a checkpoint played
  through the agent protocol (``rllib:<checkpoint>``).

Nothing here imports Ray until it is used, so ``import tabletop_gym.cluster`` works without the extra.
"""
