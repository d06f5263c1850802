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
