"""The distribution as a package index would take it: a wheel and an sdist that ``twine check`` accepts, holding
every game's rules, models and shipped verdicts; the changelog names every env id at its current version."""

import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tabletop_gym.envs import GAMES

ROOT = Path(__file__).resolve().parents[1]


def committed_files() -> list[str]:
    listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True)
    if listed.returncode != 0:
        pytest.skip("not a git checkout: the distribution is built from the committed files")
    return [name for name in listed.stdout.splitlines() if (ROOT / name).is_file()]


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    pytest.importorskip("build", reason="the test extra's build makes the distribution")
    source = tmp_path_factory.mktemp("source")
    for name in committed_files():  # a copy, so that the build writes nothing into the checkout
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, source / name)
    out = tmp_path_factory.mktemp("dist")
    built = subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(source)],
                           capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    # setuptools' warnings (a deprecated field, a data folder taken for a package) are failures; byte-compiling is
    # off where PYTHONDONTWRITEBYTECODE is set, which says nothing about the distribution.
    warnings = [line for line in (built.stdout + built.stderr).lower().splitlines()
                if "warning" in line and "byte-compiling is disabled" not in line]
    assert not warnings, warnings
    return out


def test_the_wheel_and_the_sdist_pass_twine_check(dist):
    pytest.importorskip("twine", reason="the test extra's twine checks the distribution")
    files = sorted(dist.iterdir())
    assert sorted(f.suffix for f in files) == [".gz", ".whl"]
    checked = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", *map(str, files)],
                             capture_output=True, text=True, timeout=120)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_the_wheel_holds_every_games_rules_models_and_verdicts(dist):
    names = set(zipfile.ZipFile(next(dist.glob("*.whl"))).namelist())
    for entry in GAMES.values():
        assert f"tabletop_gym/envs/{entry.name}/RULES.md" in names
        assert f"tabletop_gym/envs/{entry.name}/rules.py" in names
    assert any(n.startswith("tabletop_gym/agents/models/") and n.endswith(".npz") for n in names)
    assert any(n.startswith("tabletop_gym/benchmarks/ceiling/shipped/") for n in names)
    assert {"tabletop_gym/clients/__init__.py", "tabletop_gym/clients/cleanrl_ppo.py"} <= names  # the libraries' glue
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert not any(n.startswith(("tests/", "tabletop_gym/tests")) for n in names)


def test_the_changelog_names_every_env_id_at_its_version():
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    for entry in GAMES.values():
        name, version = entry.id.rsplit("-", 1)
        assert f"`{entry.id}` | {version} |" in changelog, entry.id
    listed = set(re.findall(r"`(Tabletop/[A-Za-z]+-v\d+)`", changelog))
    assert listed <= {entry.id for entry in GAMES.values()}, listed  # no id that is not registered
