"""Errors every game raises the same way.

Each survives a pickle round trip with its message and attributes (``__reduce__`` gives its own arguments back),
so that it crosses process pools, Ray tasks and Gymnasium's async vector env as itself.
"""


class IllegalActionError(ValueError):
    """An action the rules do not allow at this point; the state is left as it was."""

    def __init__(self, action, legal_names):
        self.action = action
        self.legal_names = list(legal_names)
        super().__init__(f"illegal action {action}; legal now: {', '.join(self.legal_names) or 'none'}")

    def __reduce__(self):
        # Exception's own reduce calls the class with ``args`` (the one message), which __init__ cannot take.
        return type(self), (self.action, self.legal_names), self.__dict__


class EpisodeOverError(RuntimeError):
    """A step was asked of a game that has ended; reset() starts a new one."""


class BadFileError(ValueError):
    """A file the project reads (a saved policy, value or network, a record, verdicts, a run folder) that is not
    what it should be: missing, truncated, of another kind or another game. The message names the file and what is
    wrong, in one line; the commands print it as it is. A ValueError, so that code catching those still does."""

    def __init__(self, path, problem: str):
        self.path = str(path)
        self.problem = problem
        super().__init__(f"{self.path}: {problem}")

    def __reduce__(self):
        return type(self), (self.path, self.problem), self.__dict__
