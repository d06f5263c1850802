"""The packages are found, not listed: every folder with an ``__init__.py`` under envs/, agents/, benchmarks/ and clients/,
each top folder a package of the one import namespace ``tabletop_gym`` (a new game's folder needs no line here).
Everything else about the distribution is in pyproject.toml."""

from setuptools import find_packages, setup

TOP_FOLDERS = ("envs", "agents", "benchmarks", "clients")

setup(
    packages=[f"tabletop_gym.{package}" for package in
              find_packages(include=[pattern for top in TOP_FOLDERS for pattern in (top, f"{top}.*")])],
    package_dir={f"tabletop_gym.{top}": top for top in TOP_FOLDERS},
)
