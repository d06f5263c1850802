"""Evaluation as Ray tasks: each chunk of an evaluation's episodes (seed, seat) played by a task, on whatever node
of the cluster Ray gives it, by the same function the local worker processes run (``_play_chunk``), so a result is
the local backend's for the same seeds, bit for bit.

A task imports ``tabletop_gym`` itself (the function it runs lives there), so every node needs the project
installed, as it needs Ray: ``pip install 'tabletop-gym[ray]'`` in the cluster's image or its ``runtime_env``. An
agent object travels to the tasks pickled; one whose class lives in a module the nodes cannot import (a script of
yours) needs that module sent along (``runtime_env={"py_modules": [...]}``) or pickled by value
(``ray.cloudpickle.register_pickle_by_value(module)``). An
exception raised in a task reaches the caller as Ray raises it: a ``RayTaskError`` that is also an instance of the
original exception's class, with the task's traceback in its message.
"""

from __future__ import annotations

from typing import Callable


def connect(address: str | None = None):
    """The ``ray`` module, connected: to a running Ray session when there is one in this process (``address`` must
    then be None or that session's), else to ``address`` (a cluster's, or ``"auto"``), else to a new local Ray
    instance using this machine's cores."""
    try:
        import ray
    except ImportError as error:
        raise ModuleNotFoundError("--backend ray needs Ray: pip install 'tabletop-gym[ray]'", name="ray") from error
    if not ray.is_initialized():
        ray.init(address=address, include_dashboard=False, log_to_driver=False)
    elif address is not None and address not in ("auto", ray.get_runtime_context().gcs_address):
        raise ValueError(f"Ray is already connected to {ray.get_runtime_context().gcs_address} in this process, "
                         f"not to {address!r}: ray.shutdown() first, or leave the address out")
    return ray


def cluster_cpus(address: str | None = None) -> int:
    """The CPUs of the cluster ``connect`` reaches: how many tasks run at once."""
    return max(1, int(connect(address).cluster_resources().get("CPU", 1)))


def play_chunks(play_chunk: Callable, env_id: str, env_kwargs: dict, agent, chunks: list, done: Callable,
                address: str | None = None) -> None:
    """``play_chunk(env_id, env_kwargs, agent, chunk)`` of every chunk as a Ray task, ``done(results)`` with each
    task's results as it finishes."""
    ray = connect(address)
    task = ray.remote(play_chunk)
    shared = ray.put(agent)  # to the object store once (a model can be large), not once a task
    pending = [task.remote(env_id, env_kwargs, shared, chunk) for chunk in chunks]
    while pending:
        ready, pending = ray.wait(pending, num_returns=1)
        for ref in ready:
            done(ray.get(ref))

