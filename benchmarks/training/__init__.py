"""Learning a policy or a value: the masked PPO (``ppo.py``), behaviour cloning, the value trainer, self-play,
Stable-Baselines3 and RLlib; ``train.py`` runs one and writes its run folder."""
