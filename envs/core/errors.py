"""Errors every game raises the same way.

Each rebuilds from its message alone (``IllegalActionError(message)``): Gymnasium's async vector env re-raises a
worker's error as ``type(error)(message)``, and unpickling calls the class with the message before it puts the
attributes back. So each crosses process pools, Ray tasks and Gymnasium's async vector env as itself, with its
message, and a pickle round trip keeps its attributes too.
"""


class IllegalActionError(ValueError):
    """An action the rules do not allow at this point; the state is left as it was.

    ``IllegalActionError(action, legal_names)`` names the action and the legal ones in its message and keeps them as
    attributes; built from its message alone, ``action`` and ``legal_names`` are None (the message has them)."""

    def __init__(self, action, legal_names=None):
        if legal_names is None:
            self.action, self.legal_names = None, None
            super().__init__(action)
            return
        self.action = action
        self.legal_names = list(legal_names)
        super().__init__(f"illegal action {action}; legal now: {', '.join(self.legal_names) or 'none'}")


class EpisodeOverError(RuntimeError):
    """A step was asked of a game that has ended; reset() starts a new one."""


class BadFileError(ValueError):
    """A file the project reads (a saved policy, value or network, a record, verdicts, a run folder) that is not
    what it should be: missing, truncated, of another kind or another game. The message names the file and what is
    wrong, in one line; the commands print it as it is. A ValueError, so that code catching those still does.

    ``BadFileError(path, problem)`` keeps both as attributes; built from its message alone, they are None."""

    def __init__(self, path, problem: str | None = None):
        if problem is None:
            self.path, self.problem = None, None
            super().__init__(path)
            return
        self.path = str(path)
        self.problem = problem
        super().__init__(f"{self.path}: {problem}")
