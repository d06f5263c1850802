"""The base of every game's state: plain numbers and fixed-shape numpy arrays."""

from __future__ import annotations

import copy

import numpy as np


class ArrayState:
    """A game state whose fields are ints, bools and numpy arrays.

    ``copy()`` is cheap and independent (arrays are copied, numbers are immutable), which is
    what pure rule functions, search agents and ``get_state()`` need.
    """

    def copy(self):
        new = copy.copy(self)
        for name, value in vars(self).items():
            if isinstance(value, np.ndarray):
                setattr(new, name, value.copy())
        return new

    def equals(self, other) -> bool:
        """Field-by-field equality, arrays compared by value."""
        if type(self) is not type(other) or vars(self).keys() != vars(other).keys():
            return False
        for name, value in vars(self).items():
            theirs = getattr(other, name)
            if isinstance(value, np.ndarray):
                if not np.array_equal(value, theirs):
                    return False
            elif value != theirs:
                return False
        return True

    def __repr__(self):
        fields = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
        return f"{type(self).__name__}({fields})"
