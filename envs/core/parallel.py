"""The turn-based parallel view of a game of several players: PettingZoo's own conversion, with infos that keep one
set of numeric keys from reset on.

PettingZoo's ``turn_based_aec_to_parallel`` adds ``infos[agent]["active_agent"]``, the name of the agent on turn (a
string), from the first step on; libraries that stack infos into arrays (TorchRL's PettingZoo wrapper, Tianshou's
buffers) stop at a string and at a key that appears late. Here each agent's info says ``on_turn`` instead: a bool,
there from reset on, True for the one agent whose action the next step plays."""

from __future__ import annotations

from pettingzoo.utils.conversions import turn_based_aec_to_parallel_wrapper


class TurnBasedParallelEnv(turn_based_aec_to_parallel_wrapper):
    """The parallel view of an AEC env: one agent acts per step, the others' actions are ignored."""

    def reset(self, seed=None, options=None):
        observations, infos = super().reset(seed=seed, options=options)
        return observations, self.mark_turn(infos)

    def step(self, actions):
        if not self.agents:  # PettingZoo's view answers a step after the end with four empty dicts; so does this
            return super().step(actions)
        observations, rewards, terminations, truncations, infos = super().step(actions)
        return observations, rewards, terminations, truncations, self.mark_turn(infos)

    def mark_turn(self, infos: dict) -> dict:
        """Each agent's info as a new dict (the AEC env's own stay as they are), ``active_agent`` replaced by
        ``on_turn``."""
        on_turn = self.aec_env.agent_selection if self.aec_env.agents else None
        marked = {}
        for agent, info in infos.items():
            info = {key: value for key, value in info.items() if key != "active_agent"}
            info["on_turn"] = agent == on_turn
            marked[agent] = info
        return marked
