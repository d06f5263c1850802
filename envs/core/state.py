"""The base of every game's state: plain numbers and fixed-shape numpy arrays."""

from __future__ import annotations

import numpy as np


class ArrayState:
    """A game state whose fields are ints, bools and numpy arrays.

    ``copy()`` is cheap and independent (arrays are copied, numbers are immutable), which is
    what pure rule functions, search agents and ``get_state()`` need.
    """

    def copy(self):
        fields = self.__dict__.copy()
        for name, value in fields.items():
            if type(value) is np.ndarray:
                fields[name] = value.copy()
        new = object.__new__(type(self))
        new.__dict__ = fields
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
