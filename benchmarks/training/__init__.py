"""Learning a policy or a value, a file each, read top to bottom, each with its own ``train()`` (what
``tabletop-gym train`` runs): ``ppo`` (the project's masked PPO), ``clone`` (behaviour cloning, then PPO),
``selfplay`` (a game of several players against a league of the learner's snapshots), ``sb3`` (sb3-contrib's
MaskablePPO), ``value`` (a learned value for a game's value agent), ``rllib`` (RLlib's PPO), ``az`` (the planning
agent's policy and value by expert iteration). They share ``run.py`` alone: the run's folder, the final
evaluation, the learning curve and the record. ``curves`` draws several runs."""
