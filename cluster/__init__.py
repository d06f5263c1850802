"""Beyond one machine: the project on a Ray cluster (the ``ray`` extra: ``pip install 'tabletop-gym[ray]'``).

- ``tasks``: evaluation with each chunk of episodes a Ray task (``evaluate(..., backend="ray")``, and
  ``tabletop-gym eval`` and ``leaderboard`` with ``--backend ray [--address ADDR]``).

Nothing here imports Ray until it is used, so ``import tabletop_gym.cluster`` works without the extra.
"""
