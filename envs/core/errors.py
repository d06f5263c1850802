"""Errors every game raises the same way."""


class IllegalActionError(ValueError):
    """An action the rules do not allow at this point; the state is left as it was."""

    def __init__(self, action, legal_names):
        self.action = action
        self.legal_names = list(legal_names)
        super().__init__(f"illegal action {action}; legal now: {', '.join(self.legal_names) or 'none'}")


class EpisodeOverError(RuntimeError):
    """A step was asked of a game that has ended; reset() starts a new one."""
