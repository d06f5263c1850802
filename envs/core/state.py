"""The base of every game's state: plain numbers and fixed-shape numpy arrays."""

from __future__ import annotations

import numpy as np

_KINDS = (  # what a scalar field may hold, by the kind of its value in a new game
    ((bool, np.bool_), (bool, np.bool_), "True or False"),
    ((int, np.integer), (int, np.integer), "an integer"),
    ((float, np.floating), (int, float, np.integer, np.floating), "a number"),
)


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


class FlatState(ArrayState):
    """A game state held in one flat int64 array, ``data``: what the compiled rule functions take (one row of it per
    game in a vector env). Subclasses list their parts in ``PARTS`` and pass the class to ``lay_out``, which gives
    each part its offset and a named view: ``s.pile_top`` is that part of ``data`` (writes go through), ``s.top``
    the number at its place (read as a Python int). Other attributes (the options a game is played with) stay
    ordinary fields.

    ``PARTS`` holds ``(name, shape, low, high)``: shape 0 for a number, n for n numbers, a tuple for a table (its
    view has that shape; ``data`` holds it row by row), and the values the rules can hold there, which
    ``check_values`` enforces on a saved game (compiled code does not check its indices)."""

    PARTS: tuple = ()
    SIZE = 0

    def copy(self):
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)  # the other fields are numbers
        new.data = self.data.copy()
        return new

    def check_values(self) -> None:
        """Raise a ValueError naming the first part that holds a value the rules never give it."""
        for name, shape, low, high in self.PARTS:
            values = getattr(self, name) if shape else np.array([getattr(self, name)])
            bad = (values < low) | (values > high)
            if bad.any():
                raise ValueError(f"the saved game's {name} holds {values[bad][0]}, outside {low}..{high}: not a "
                                 f"state the rules reach")

    def __repr__(self):
        parts = ", ".join(f"{name}={getattr(self, name)!r}" for name, *_ in self.PARTS)
        others = "".join(f", {k}={v!r}" for k, v in vars(self).items() if k != "data")
        return f"{type(self).__name__}({parts}{others})"


def lay_out(cls: type) -> dict:
    """Give ``cls`` (a ``FlatState``) a view per part of ``cls.PARTS`` and its ``SIZE``; the offsets by name."""
    offsets, at = {}, 0
    for name, shape, _, _ in cls.PARTS:
        offsets[name] = at
        setattr(cls, name, _array_view(at, shape) if shape else _number_view(at))
        at += int(np.prod(shape)) if shape else 1
    cls.SIZE = at
    return offsets


def _array_view(at: int, shape) -> property:
    size = int(np.prod(shape))
    if isinstance(shape, tuple):
        def get(self):
            return self.data[at:at + size].reshape(shape)
    else:
        def get(self):
            return self.data[at:at + size]

    def put(self, values):
        get(self)[...] = values
    return property(get, put)


def _number_view(at: int) -> property:
    def get(self):
        return int(self.data[at])

    def put(self, value):
        self.data[at] = value
    return property(get, put)


def check_saved_game(game, template: ArrayState, option_fields=()) -> None:
    """Raise a TypeError or ValueError naming what is wrong unless ``game`` is a state of the same game as
    ``template`` (a new game of the env it is meant for): the same class, the same fields, each array of the same
    shape and dtype, each number of the same kind, and the fields ``option_fields`` (those the env's options fix,
    checked first: they say the most) equal."""
    kind = type(template)
    if type(game) is not kind:
        raise TypeError(f"the saved 'game' must be a {kind.__module__}.{kind.__name__} (as get_state() gives it "
                        f"for this game), got {type(game).__module__}.{type(game).__name__}")
    ours, theirs = vars(template), vars(game)
    if ours.keys() != theirs.keys():
        lacking, extra = sorted(ours.keys() - theirs.keys()), sorted(theirs.keys() - ours.keys())
        raise ValueError(f"the saved 'game' has other fields than a {kind.__name__}: "
                         f"lacking {lacking or 'none'}, extra {extra or 'none'}")
    fields = [name for name in option_fields if name in ours]
    for name in fields:
        _check_field(name, theirs[name], ours[name])
        _check_option(name, theirs[name], ours[name])
    for name, value in ours.items():
        _check_field(name, theirs[name], value)
    for name in option_fields:
        if name not in fields:  # a part of a FlatState's array, readable once the array is checked
            _check_option(name, getattr(game, name), getattr(template, name))


def _check_option(name: str, value, expected) -> None:
    if value != expected:
        raise ValueError(f"the saved game has {name}={value!r}, but this env was made with "
                         f"{name}={expected!r}: set_state takes a game of an env with the same options")


def _check_field(name: str, value, expected) -> None:
    if isinstance(expected, np.ndarray):
        if type(value) is not np.ndarray or value.shape != expected.shape or value.dtype != expected.dtype:
            got = (f"an array of shape {value.shape} and dtype {value.dtype}" if isinstance(value, np.ndarray)
                   else type(value).__name__)
            raise ValueError(f"the saved game's field {name!r} must be an array of shape {expected.shape} and "
                             f"dtype {expected.dtype}, got {got}")
        return
    for kinds, accepted, described in _KINDS:
        if isinstance(expected, kinds):
            bad_bool = kinds[0] is not bool and isinstance(value, (bool, np.bool_))
            if bad_bool or not isinstance(value, accepted):
                raise ValueError(f"the saved game's field {name!r} must be {described}, got {value!r}")
            return
    raise TypeError(f"{name!r} holds a {type(expected).__name__}: a game state holds numbers and arrays only")
