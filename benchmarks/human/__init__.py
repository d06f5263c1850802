"""A person and the games: ``play`` at the terminal, ``replay`` an agent's game as pictures."""
