"""What several games share: card codes, errors, the state base and the env base."""

from .cards import card_code, card_label, parse_card, parse_deck
from .errors import BadFileError, EpisodeOverError, IllegalActionError

__all__ = ["card_code", "card_label", "parse_card", "parse_deck", "BadFileError", "EpisodeOverError", "IllegalActionError"]
