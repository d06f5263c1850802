"""How many deals of a solitaire can be won at all: the exact solver over the game's compiled turn, and the
verdicts it gives (those of the committed runs ship in ``shipped/``)."""
