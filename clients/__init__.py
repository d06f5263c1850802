"""Glue for the RL libraries users bring: a module per library, each the smallest thing its users need beyond
what the envs already give through Gymnasium and PettingZoo (numeric infos with one set of keys from reset on,
``info["action_mask"]``, all-ones masks on finished games and on seats not on turn).

    tabletop_gym.clients.sb3          Stable-Baselines3: the native vector env as its VecEnv, for MaskablePPO
    tabletop_gym.clients.rllib        RLlib: env creators its remote runners can call, the observation its masking reads
    tabletop_gym.clients.torchrl      TorchRL: the info reader with its specs, the mask transform; vector and PettingZoo
    tabletop_gym.clients.tianshou     Tianshou: the masked observation its policies read; MARL on a game of players
    tabletop_gym.clients.agilerl      AgileRL: masks read from infos, single and multi-agent
    tabletop_gym.clients.pufferlib    PufferLib: a native PufferEnv over the native vector env, mask in the observation
    tabletop_gym.clients.cleanrl_ppo  a masked PPO written as CleanRL writes one file, runnable as is

Each module imports its library, so it needs that library installed (none is a dependency of the package). The
documentation site's "Other RL libraries" page shows each with a recipe.
"""
