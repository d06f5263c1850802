"""The documentation site builds with no warning, every link and picture in it resolves, and each game's page
opens in a real browser with its picture drawn and no error.

The browser is Debian's ``chromium`` driven by Playwright; the committed ``docs/images/site_dungeon_solitaire.png``
is the screenshot ``screenshot`` takes of that game's page.
"""

from __future__ import annotations

import importlib.util
import inspect
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from tabletop_gym.envs import GAMES

DOCS = Path(__file__).resolve().parents[1] / "docs"

needs_sphinx = pytest.mark.skipif(
    not all(importlib.util.find_spec(name) for name in ("sphinx", "furo", "myst_nb")),
    reason="the docs extra (sphinx, furo, myst-nb) is not installed")


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The site built from docs/ into a temporary folder, warnings as errors."""
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
                           "-d", str(out / "doctrees"), str(DOCS), str(out / "html")],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return out / "html"


class Links(HTMLParser):
    """The links (``href``) and sources (``src``) of an HTML page, and the ids of its elements."""

    def __init__(self):
        super().__init__()
        self.targets, self.ids = [], set()

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("href", "src") and value:
                self.targets.append(value)
            elif name == "id" and value:
                self.ids.add(value)


def read_links(page: Path) -> Links:
    links = Links()
    links.feed(page.read_text(encoding="utf-8"))
    return links


@needs_sphinx
def test_the_site_builds_with_no_warning(site):
    pages = {page.relative_to(site).as_posix() for page in site.rglob("*.html")}
    assert {"index.html", "games/index.html", "api/agents.html", "leaderboard.html"} <= pages
    assert {f"games/{name}.html" for name in GAMES} <= pages
    assert {f"tutorials/{notebook.stem}.html" for notebook in (DOCS.parent / "notebooks").glob("*.ipynb")} <= pages


@needs_sphinx
def test_every_internal_link_and_picture_of_the_site_resolves(site):
    pages = {page: read_links(page) for page in site.rglob("*.html")}
    for page, links in pages.items():
        for target in links.targets:
            parts = urlsplit(target)
            if parts.scheme or target.startswith("//"):
                continue  # outside the site
            path = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            assert path.exists(), (page.relative_to(site), target)
            if parts.fragment and path.suffix == ".html":
                assert unquote(parts.fragment) in pages[path].ids, (page.relative_to(site), target)


def plain_headings(markdown: str) -> list:
    """The headings of a Markdown text (outside code blocks) that are plain words, shown as written in HTML (no
    markup, no quote that Sphinx makes curly)."""
    headings, in_code = [], False
    for line in markdown.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            in_code = not in_code
        elif not in_code and re.match(r"#+ ", line) and not re.search(r"[`*_\[\]<>&'\"]", line):
            headings.append(line.lstrip("#").strip())
    return headings


@needs_sphinx
def test_each_game_page_shows_its_env_docstring_and_its_rules(site):
    for name, entry in GAMES.items():
        text = (site / "games" / f"{name}.html").read_text(encoding="utf-8")
        rules = (Path(entry.module("rules").__file__).parent / "RULES.md").read_text(encoding="utf-8")
        sections = plain_headings(inspect.getdoc(entry.env_class)) + plain_headings(rules)
        assert "Action Space" in sections and "Rewards" in sections, name
        for section in sections:
            assert f">{section}<" in text, (name, section)


def test_the_python_examples_of_the_site_run_as_written():
    # (the libraries page's recipes need the libraries: tests/test_clients_recipes.py runs them where installed)
    pages = sorted(page for page in DOCS.glob("*.md") if page.name != "libraries.md")
    blocks = [(page, block) for page in pages
              for block in re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), flags=re.S)]
    assert blocks
    for page, block in blocks:
        exec(compile(block, f"{page.name} python block", "exec"), {})


def browser():
    """Playwright's Chromium launcher pointed at the system's chromium, or a skip saying what is missing."""
    if importlib.util.find_spec("playwright") is None:
        pytest.skip("playwright is not installed")
    executable = shutil.which("chromium")
    if executable is None:
        pytest.skip("no chromium on PATH (Debian: apt-get install chromium)")
    return executable


def screenshot(page, out: Path) -> None:
    """The page as a reader first sees it, at a laptop's width."""
    page.set_viewport_size({"width": 1280, "height": 1000})
    page.screenshot(path=str(out))


@needs_sphinx
def test_each_game_page_opens_in_a_browser_with_its_picture_and_no_error(site, tmp_path):
    executable = browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        try:
            for name in GAMES:
                page = chromium.new_page()
                errors = []
                page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
                page.on("pageerror", lambda error: errors.append(str(error)))
                page.goto((site / "games" / f"{name}.html").as_uri(), wait_until="load")
                picture = page.locator(f'article img[src$="{name}.png"]')
                assert picture.count() == 1, name
                assert picture.evaluate("img => img.complete && img.naturalWidth > 0"), name
                assert errors == [], (name, errors)
                screenshot(page, tmp_path / f"site_{name}.png")
                assert (tmp_path / f"site_{name}.png").stat().st_size > 0
                page.close()
        finally:
            chromium.close()
