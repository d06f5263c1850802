"""Every exception type of the project crosses process boundaries as itself: a pickle round trip (what a process
pool or a Ray task does to an error) keeps its type, message and attributes, and each rebuilds from its message
alone (what Gymnasium's async vector env does: it re-raises ``type(error)(message)``)."""

import importlib
import inspect
import pickle
import pkgutil

import gymnasium as gym
import numpy as np
import pytest

import tabletop_gym.agents
import tabletop_gym.benchmarks
import tabletop_gym.envs
from tabletop_gym.benchmarks.evaluation.evaluate import WorkerDied
from tabletop_gym.envs import BadFileError, EpisodeOverError, IllegalActionError

# One instance of each exception class the project defines, made as the code makes it.
EXAMPLES = {
    IllegalActionError: lambda: IllegalActionError("3 (take_WUG)", ["pass", "take_W"]),
    EpisodeOverError: lambda: EpisodeOverError("the episode is over; call reset() to start a new one"),
    BadFileError: lambda: BadFileError("runs/x/policy.npz", "not a saved policy (no 'weights' in it)"),
    WorkerDied: lambda: WorkerDied("a worker died twice before its chunks were done"),
}


def project_exception_classes() -> set:
    """Every exception class defined in a module of tabletop_gym.envs, .agents or .benchmarks."""
    found = set()
    for package in (tabletop_gym.envs, tabletop_gym.agents, tabletop_gym.benchmarks):
        for module_info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            module = importlib.import_module(module_info.name)
            for _, value in inspect.getmembers(module, inspect.isclass):
                if issubclass(value, BaseException) and value.__module__.startswith("tabletop_gym."):
                    found.add(value)
    return found


def test_every_exception_class_of_the_project_has_an_example_here():
    assert project_exception_classes() == set(EXAMPLES)


@pytest.mark.parametrize("kind", list(EXAMPLES), ids=lambda kind: kind.__name__)
def test_an_exception_survives_a_pickle_round_trip(kind):
    error = EXAMPLES[kind]()
    error.extra = "kept"  # attributes set after construction travel too
    again = pickle.loads(pickle.dumps(error))
    assert type(again) is kind and str(again) == str(error) and again.args == error.args
    assert vars(again) == vars(error)


@pytest.mark.parametrize("kind", list(EXAMPLES), ids=lambda kind: kind.__name__)
def test_an_exception_rebuilds_from_its_message_alone(kind):
    error = EXAMPLES[kind]()
    again = kind(str(error))  # what Gymnasium's async vector env raises in the caller
    assert type(again) is kind and str(again) == str(error) and again.args == error.args
    assert isinstance(again, type(error).__mro__[1])  # still the ValueError / RuntimeError it is


@pytest.mark.filterwarnings("ignore:.*(Received the following error|Raising the last exception|Traceback)")
def test_the_illegal_action_error_crosses_gymnasiums_async_vector_env():
    envs = gym.make_vec("Tabletop/RoyalAssassin-v0", num_envs=2, vectorization_mode="async", illegal_action="raise")
    try:
        _, infos = envs.reset(seed=0)
        illegal = [int(np.flatnonzero(mask == 0)[0]) for mask in infos["action_mask"]]
        with pytest.raises(IllegalActionError, match="illegal action .*; legal now: ") as caught:
            envs.step(np.array(illegal))
        assert caught.value.action is None and caught.value.legal_names is None  # the message carries them
    finally:
        envs.close()


def test_the_illegal_action_error_an_env_raises_crosses_a_process_pool():
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(max_workers=1) as pool:
        with pytest.raises(IllegalActionError, match="legal now") as caught:
            pool.submit(_step_illegally).result()
    assert isinstance(caught.value.action, str) and caught.value.legal_names


def _step_illegally():
    env = gym.make("Tabletop/RoyalAssassin-v0", illegal_action="raise").unwrapped
    env.reset(seed=0)
    mask = env.action_masks()
    env.step(int(np.flatnonzero(~mask)[0]) if not mask[0] else len(mask))
