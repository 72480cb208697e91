"""The built site, as a reader's browser shows it: every page in the navigation, offline.

The session's build (the ``site`` fixture in ``tests/conftest.py``) is served on 127.0.0.1 and
opened in Debian's Chromium through Playwright, headless, never a browser Playwright downloads.
For each page listed in ``mkdocs.yml``'s ``nav`` (pages added later are covered automatically):

* no console error, no uncaught exception, no failed request, no HTTP error status, and no request
  to any host but the local server (such requests are blocked and reported);
* every ``<img>`` has loaded (``naturalWidth > 0``) and every image in a ``<figure>`` has alt text;
* the palette toggle switches the page to the dark scheme, where the ``#only-dark`` figures show
  and the ``#only-light`` ones hide (and the reverse before the switch);
* ``/`` puts the keyboard in the search box; and searching (one test for the whole site, in one
  tab) finds every page by the words of its title, whose last letter is typed with a real key
  press (Material searches when a key is released, and ignores ``fill()`` alone);
* a code block scrolled into view gets its copy button (blocks are set up lazily), and every
  code block's placeholder height (used while it is off screen) equals its real height;
* axe-core finds no accessibility violation, in either palette;
* at a 360 px viewport every display formula fits the column, every figure's smallest text is at
  least ``MIN_TEXT_PX`` (9 px, ``snippets/figure_style.py``) and a link opens it full size;
  printed (an A4 column) no code block or formula is cut, no Python line wraps and no code
  button shows;
* hovering the first glossary term (an ``<abbr>``, see tests/test_glossary.py) shows its
  definition in Material's tooltip;
* every link of the page's notebook download box downloads, from the local server, a notebook
  (or a zip holding one, or a data file);
* with ``BROWSER_SCREENSHOTS=1`` in the environment, a full-page screenshot in each palette lands
  in ``screenshots/<page>-{light,dark}.png`` in the run's temporary folder (the ``screenshots``
  fixture in ``tests/conftest.py``; the folder is named at the end of the run). They are for a
  contributor to look at, not checks, and encoding them took as long as all the checks of a
  long page together, so a plain ``pytest`` run takes none.

Each page is opened once and checked for all of the above; the pages are spread over the workers
of ``pytest -n``, each worker with its own Chromium, its own local server and one tab
(:class:`Reader`) that opens page after page, each finding the browser's storage empty.

Every test here is an audit (``python -m pytest -m audit``): each run opens every page.

Without Chromium at ``/usr/bin/chromium`` or the ``playwright`` package these tests are skipped,
with a reason saying how to install both; with ``REQUIRE_BROWSER=1`` in the environment (as
``.ci/run`` sets it) they fail instead, so CI cannot pass by skipping them.
"""

from __future__ import annotations

import functools
import io
import json
import re
import urllib.request
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlparse

import pytest

from scripts import ROOT
from scripts.checks.site import (
    html_of,
    nav_pages,
    page_slug,
    page_url_path,
    serve,
)
from snippets.figure_style import MIN_TEXT_PX, smallest_text_px

try:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
except ImportError:  # the `browser` fixture (tests/conftest.py) skips, saying how to install it
    PlaywrightTimeout = TimeoutError

pytestmark = pytest.mark.audit

PAGES = nav_pages()
#: Generous for a shared, busy CI machine; a healthy page needs well under a second.
TIMEOUT_MS = 30_000

#: Waits until every ``<img>`` has finished loading or failed, then describes each one.
#: Every image of the page: the shown ones are loaded first (a lazy one is made eager), and each
#: says whether the browser fetched its file (the resource timings, which name every request).
IMAGES_JS = """async () => {
  const imgs = [...document.images];
  const shown = imgs.filter(i => i.getClientRects().length > 0);
  shown.forEach(i => { if (i.loading === "lazy") i.loading = "eager"; });
  await Promise.all(shown.map(i => i.complete ? null : new Promise(r => {
    i.addEventListener("load", r, {once: true});
    i.addEventListener("error", r, {once: true});
  })));
  const fetched = new Set(performance.getEntriesByType("resource").map(e => e.name.split("#")[0]));
  return imgs.map(i => ({src: i.getAttribute("src"), width: i.naturalWidth,
                         alt: (i.getAttribute("alt") || "").trim(),
                         inFigure: i.closest("figure") !== null,
                         shown: shown.includes(i), fetched: fetched.has(i.src.split("#")[0])}));
}"""


#: Each shown figure image at the current viewport: its URL, its width on screen (CSS px) and
#: whether a link around it opens the SVG itself, full size.
#: Figure links (scripts/hooks/page_html.py) still displayed around an image the palette
#: hides: each would be an invisible stop for the keyboard.
STRAY_FIGURE_LINKS_JS = """() => [...document.querySelectorAll('a.figure-full')]
  .filter(a => getComputedStyle(a).display !== 'none'
               && getComputedStyle(a.querySelector('img')).display === 'none')
  .map(a => a.getAttribute('href'))"""


#: Off-screen blocks skip layout (``content-visibility: auto`` in extra.css) and would report
#: their placeholder's size, so every block is laid out while the figures are measured.
FIGURE_WIDTHS_JS = """() => {
  const all = document.createElement('style');
  all.textContent = '* { content-visibility: visible !important; }';
  document.head.append(all);
  const found = [...document.querySelectorAll('figure img')]
    .filter(i => i.getClientRects().length > 0 && i.src.split('#')[0].endsWith('.svg'))
    .map(i => ({src: i.getAttribute('src'), url: i.src.split('#')[0],
                width: i.getBoundingClientRect().width,
                link: i.closest('a') !== null
                      && i.closest('a').href.split('#')[0] === i.src.split('#')[0]}));
  all.remove();
  return found;
}"""


#: Each visible code block whose placeholder height (``contain-intrinsic-size``, used while the
#: block is off screen, from ``--code-lines``) differs from its real height by over 1 px. The
#: placeholder is read from a never-shown copy, so no remembered size stands in for it; the real
#: height needs every block rendered (the screenshot's style rule, added before this runs).
PLACEHOLDER_JS = """() => {
  const blocks = [...document.querySelectorAll('.md-typeset .highlight')]
    .filter(block => block.offsetParent !== null);
  // Every copy is inserted before any is measured: one layout for the page, not one per block.
  const copies = blocks.map(block => {
    const copy = block.cloneNode(true);
    copy.style.setProperty('content-visibility', 'hidden', 'important');
    block.after(copy);
    return copy;
  });
  const sizes = blocks.map((block, i) => ({
    placeholder: copies[i].getBoundingClientRect().height,
    real: block.getBoundingClientRect().height,
    text: block.querySelector('pre').textContent.slice(0, 40),
  }));
  copies.forEach(copy => copy.remove());
  return sizes.filter(b => Math.abs(b.placeholder - b.real) > 1);
}"""


@pytest.fixture(scope="session")
def base_url(site):
    """The session's build, served on 127.0.0.1 at a free port for the whole session."""
    with serve(site) as url:
        yield url


@dataclass
class Visit:
    """One page opened by a :class:`Reader`, with everything that went wrong on it."""

    page: object  # playwright.sync_api.Page
    problems: list[str] = field(default_factory=list)


class Reader:
    """A reader's browser on one site: one light-scheme browser context and one tab, which opens
    page after page (:meth:`open`).

    A new context, or a new tab, costs Chromium more than the page it shows, so the pages of a
    worker share both; each document starts with empty local and session storage (an init
    script), so a page opens as in a fresh profile: light palette, first tab of each set.
    Requests to any origin other than ``base_url``'s are blocked and recorded as problems of the
    page being checked.
    """

    def __init__(self, browser, base_url: str) -> None:
        self.origin = base_url.rstrip("/")
        self.problems: list[str] = []
        self.context = browser.new_context(
            color_scheme="light",
            viewport={"width": 1280, "height": 900},
            service_workers="block",
        )
        self.context.set_default_timeout(TIMEOUT_MS)
        self.context.add_init_script("localStorage.clear(); sessionStorage.clear();")
        self.context.route("**/*", self._only_local)
        self.tab = self.context.new_page()
        self._listeners: list[tuple[str, object]] = []

    def _only_local(self, route) -> None:
        request_url = route.request.url
        if request_url == self.origin or request_url.startswith(self.origin + "/"):
            route.continue_()
        else:
            self.problems.append(f"request to another host (blocked): {request_url}")
            route.abort("blockedbyclient")

    def open(self, url: str) -> Visit:
        """Open ``url`` in the tab and record, until the next :meth:`open`, its console errors,
        uncaught exceptions, failed requests, responses with status >= 400 and blocked
        requests."""
        for event, listener in self._listeners:  # the previous page's, which is done
            self.tab.remove_listener(event, listener)
        visit = Visit(self.tab)
        self.problems = found = visit.problems
        self._listeners = [
            ("console", lambda m: m.type == "error" and found.append(f"console error: {m.text}")),
            ("pageerror", lambda exc: found.append(f"uncaught exception: {exc}")),
            ("requestfailed", lambda r: found.append(f"failed request: {r.url} ({r.failure})")),
            ("response", lambda r: r.status >= 400 and found.append(f"HTTP {r.status}: {r.url}")),
        ]
        for event, listener in self._listeners:
            self.tab.on(event, listener)
        response = self.tab.goto(url, wait_until="load")
        if response is None or not response.ok:
            found.append(f"opening {url} gave {response and response.status}")
        # No wait for the network to go quiet (Playwright's "networkidle" is half a second of
        # nothing per page): the listeners above stay on while the caller checks the page, and
        # check_images waits for every image, so a late request is still recorded.
        return visit

    def close(self) -> None:
        self.context.close()


@pytest.fixture(scope="session")
def reader(browser, base_url):
    """This worker's :class:`Reader` of the session's build."""
    profile = Reader(browser, base_url)
    yield profile
    profile.close()


#: What axe-core finds that Material's own script makes, and the site cannot fix in a template
#: override or its stylesheet: (rule id, CSS class of the element) -> why. No report of either
#: was found in Material's issue tracker (searched 2026-11-25).
THEME_VIOLATIONS: dict[tuple[str, str], str] = {
    # Material 9.8 adds a <nav class="md-code__nav"> holding the copy button to each code block
    # as the reader reaches it; the navs carry no label, so two of them are alike to a screen
    # reader (WCAG 1.3.1). The element exists only once the script has made it.
    ("landmark-unique", "md-code__nav"): "unlabelled <nav> of each code block's buttons",
    # The glossary tooltip (content.tooltips): the script appends it to <body>, outside every
    # landmark, while the pointer is on a term.
    ("region", "md-tooltip2"): "tooltip appended to <body> while shown",
}


@functools.cache
def svg_bytes(url: str) -> bytes:
    """The SVG served at ``url`` (the session's local server), read once per worker."""
    with urllib.request.urlopen(url) as response:
        return response.read()


def check_phone_and_print(visit: Visit) -> None:
    """Record, on the page as it is open: a display formula wider than the text column of a
    360 px phone (a long one is written as several lines, ``\\\\`` in its fence) or a formula box
    that cannot take the keyboard's focus; a figure whose smallest text is under ``MIN_TEXT_PX``
    at the width it is shown there, or that no link opens full size; and, printed (print media,
    the width of an A4 page's text), a code block or formula cut at the margin, a Python line
    that would wrap (its indentation would restart at the margin), or printed code buttons. The
    tab's viewport and media are put back afterwards."""
    tab = visit.page
    size = tab.viewport_size
    try:
        tab.set_viewport_size({"width": 360, "height": 740})
        visit.problems += [
            f"wider than a phone's column: {w}" for w in tab.evaluate(OVERFLOWING_MATH_JS)
        ]
        for figure in tab.evaluate(FIGURE_WIDTHS_JS):
            px = smallest_text_px(svg_bytes(figure["url"]), figure["width"])
            if px < MIN_TEXT_PX:
                visit.problems.append(f"figure text {px:.1f} px at 360 px: {figure['src']}")
            if not figure["link"]:
                visit.problems.append(f"figure does not open full size: {figure['src']}")
        unfocusable = tab.locator(
            "div.arithmatex:not([tabindex='0']), div.arithmatex:not([aria-label])"
        ).count()
        if unfocusable:
            visit.problems.append(f"{unfocusable} formula box(es) without tabindex or label")
        tab.set_viewport_size({"width": PRINT_WIDTH, "height": 1000})
        tab.emulate_media(media="print")
        visit.problems += [f"printed: {p}" for p in tab.evaluate(PRINT_PROBLEMS_JS)]
    finally:
        tab.emulate_media(media="screen")
        tab.set_viewport_size(size)


def element_classes(element_html: str) -> list[str]:
    """The classes of the element whose HTML (as axe-core quotes it) starts ``element_html``."""
    opening = element_html.split(">", 1)[0]
    found = re.search(r'\sclass="([^"]*)"', opening)
    return found[1].split() if found else []


#: What one axe-core run checks: every rule but the two that read colours (the palette does not
#: change the others), or those two alone: colour contrast, and links told apart from the text
#: around them (``link-in-text-block``, which compares colours), once per palette. The code
#: blocks' token colours are checked once per palette by test_code_colours_have_contrast.
AXE_RUNS = {
    "structure": (
        {},
        {"rules": {"color-contrast": {"enabled": False}, "link-in-text-block": {"enabled": False}}},
    ),
    "colours": (
        {},
        {"runOnly": {"type": "rule", "values": ["color-contrast", "link-in-text-block"]}},
    ),
    "code contrast": (
        {"include": [["article pre"]]},
        {"runOnly": {"type": "rule", "values": ["color-contrast"]}},
    ),
}

#: Replaces each Pygments token of the page's code blocks (a ``<span>`` in ``pre > code`` whose
#: only attribute is its class, holding text only) with its text, and returns how many.
#: The tokens are nine in ten of a long page's elements and made axe-core six times slower, yet
#: no rule can fail on one that would not fail on the text alone: a token has no role, no ARIA
#: attribute, no id, and its colour pairs are checked once per palette, in
#: test_code_colours_have_contrast. A span with any other attribute or child (a code
#: annotation's marker) stays as it is; the text, and so the layout, is unchanged.
FLATTEN_CODE_TOKENS_JS = """() => {
  const tokens = [...document.querySelectorAll('pre > code span')].filter(s =>
    s.attributes.length === 1 && s.hasAttribute('class') && s.childElementCount === 0);
  for (const token of tokens) token.replaceWith(token.textContent);
  document.querySelectorAll('pre > code').forEach(code => code.normalize());
  return tokens.length;
}"""


@functools.cache
def axe_script() -> str:
    """axe-core's script, as ``axe-playwright-python`` (pinned in requirements.txt) bundles it."""
    from axe_playwright_python.sync_playwright import Axe

    return Axe().axe_script


#: Each animation still running on the page: its CSS name (or the transition's property), the
#: element it moves, and where it is in its timing.
RUNNING_ANIMATIONS_JS = """() => document.getAnimations().map(a => {
  const t = a.effect && a.effect.target;
  const timing = a.effect ? a.effect.getComputedTiming() : {};
  return {
    name: a.animationName || a.transitionProperty || a.constructor.name,
    target: !t ? '?' : t.tagName.toLowerCase()
      + (t.className ? '.' + String(t.className).trim().split(/\\s+/).join('.') : ''),
    state: a.playState, progress: timing.progress, iterations: String(timing.iterations),
    endless: !Number.isFinite(timing.iterations) || a.playState !== 'running',
    pseudo: a.effect && a.effect.pseudoElement || '',
  };
})"""


def wait_for_animations(tab, timeout_s: float = 10) -> None:
    """Let every animation and transition on the page in ``tab`` (a Playwright page) end: wait
    up to ``timeout_s`` seconds (wall clock) for them to end on their own, then move each one
    still running to its end state (``Animation.finish()``), as a reader sees the page once its
    fades are over. On a loaded machine Chromium can fall far behind: a CI run once waited 30 s
    for the page's animations to end, and they had not.

    Raises:
        AssertionError: when an animation repeats forever or is paused (it has no end state to
            move to), naming each one (name, element, state): nothing on the site should.
    """
    try:
        tab.wait_for_function(
            "() => document.getAnimations().length === 0", timeout=timeout_s * 1000
        )
        return
    except PlaywrightTimeout:
        pass
    endless = [a for a in tab.evaluate(RUNNING_ANIMATIONS_JS) if a["endless"]]
    assert not endless, f"{len(endless)} animation(s) with no end state: " + "; ".join(
        f"{a['name']} on {a['target']}{a['pseudo']} ({a['state']}, progress {a['progress']}, "
        f"iterations {a['iterations']})"
        for a in endless
    )
    tab.evaluate("() => document.getAnimations().forEach(a => a.finish())")
    tab.wait_for_function("() => document.getAnimations().length === 0", timeout=5000)


def axe_violations(tab, run: str) -> list[str]:
    """Run axe-core (the copy ``axe-playwright-python`` bundles; pinned in requirements.txt) on
    the page as shown, the :data:`AXE_RUNS` part ``run``; return each violation with the first
    elements it names, leaving out the elements :data:`THEME_VIOLATIONS` lists for its rule."""
    # The pointer leaves whatever an earlier check hovered (a term, the palette toggle), and the
    # tooltips' fades end: mid-fade, a tooltip's text has a contrast no reader sees for long.
    tab.mouse.move(1, 1)
    wait_for_animations(tab)
    if not tab.evaluate("() => typeof window.axe === 'object'"):
        tab.evaluate(axe_script())  # once per page: the script is over half a megabyte
    context, options = AXE_RUNS[run]
    found = []
    result = tab.evaluate(
        "([context, options]) => axe.run(context || document, options)",
        [context or None, {"resultTypes": ["violations"], **options}],
    )
    for violation in result["violations"]:
        nodes = [
            n
            for n in violation["nodes"]
            if not any((violation["id"], c) in THEME_VIOLATIONS for c in element_classes(n["html"]))
        ]
        if nodes:
            targets = ", ".join(str(n["target"]) for n in nodes[:3])
            found.append(
                f"{violation['id']} ({violation['impact']}), {len(nodes)} element(s): {targets}"
            )
    return found


def check_accessibility(visit: Visit, palette: str) -> None:
    """Record axe-core's violations on the page in ``palette`` (``"light"`` or ``"dark"``):
    every rule in the light palette, the colour rules again in the dark one. The first call on a
    page flattens its code tokens (:data:`FLATTEN_CODE_TOKENS_JS`), so it comes after every
    check that reads them."""
    visit.page.evaluate(FLATTEN_CODE_TOKENS_JS)
    runs = ["structure", "colours"] if palette == "light" else ["colours"]
    for run in runs:
        visit.problems += [f"axe ({palette}): {v}" for v in axe_violations(visit.page, run)]


def displayed(image) -> bool:
    """Whether the palette's CSS shows ``image`` (a Playwright locator): not ``display: none``.
    Playwright's ``is_visible`` would also say no for a lazy image not loaded yet (no box)."""
    return image.evaluate("i => getComputedStyle(i).display !== 'none'")


def check_images(visit: Visit) -> list[dict]:
    """Record a shown image that did not load, a hidden one that was downloaded all the same (the
    other palette's figure, which ``{ loading=lazy }`` keeps from being fetched), or a figure
    image without alt text; return all images."""
    images = visit.page.evaluate(IMAGES_JS)
    for img in images:
        if img["shown"] and img["width"] <= 0:
            visit.problems.append(f"image did not load: {img['src']}")
        if not img["shown"] and img["fetched"]:  # the other palette's figure: a lazy image
            visit.problems.append(f"hidden image downloaded: {img['src']}")
        if img["inFigure"] and not img["alt"]:
            visit.problems.append(f"figure image without alt text: {img['src']}")
    return images


#: The title of each page at the given URLs, as the served page has it: the text of its
#: article's first ``<h1>``, else its ``<title>`` before the last " - " (fetched and parsed in
#: the tab: one request per page, no page opened).
PAGE_TITLES_JS = """urls => Promise.all(urls.map(async url => {
  const doc = new DOMParser().parseFromString(await (await fetch(url)).text(), 'text/html');
  const h1 = doc.querySelector('article h1');
  return h1 ? h1.textContent : doc.title.split(' - ').slice(0, -1).join(' - ');
}))"""


def search_terms(title: str) -> str:
    """A page's ``title`` as plain words to search for.

    Punctuation is dropped: the search's query language gives ``:`` and ``-`` meanings of their
    own (``Hands-on: …`` would search a field named "Hands-on"), and the heading's permalink
    adds a "¶".
    """
    return " ".join(re.findall(r"[^\W_]+", title))


def check_tooltip(tab, page: str) -> None:
    """Hovering the page's first glossary term shows its definition in Material's tooltip.

    Material (``content.tooltips``) moves an ``<abbr>``'s ``title`` into a tooltip element that
    it marks ``md-tooltip2--active`` while the pointer is on the term. Pages without a glossary
    term in their prose are skipped over.
    """
    terms = tab.locator("article abbr[title]")
    if not terms.count():
        return
    term = terms.first
    definition = term.get_attribute("title")
    term.scroll_into_view_if_needed()
    term.hover()
    tooltip = tab.locator(".md-tooltip2--active")
    try:
        tooltip.wait_for(state="visible")
    except PlaywrightTimeout:
        pytest.fail(f"{page}: hovering {term.inner_text()!r} showed no tooltip")
    assert tooltip.inner_text().strip() == definition, f"{page}: tooltip {tooltip.inner_text()!r}"
    tab.mouse.move(0, 0)
    tab.evaluate("window.scrollTo(0, 0)")


def check_downloads(visit: Visit, page: str) -> None:
    """Each link of the page's download box fetches its file from the local server: a notebook
    (``.ipynb``, nbformat 4 with code cells), a zip holding one, or a non-empty data file."""
    tab = visit.page
    for link in tab.locator(".nb-download a[download]").all():
        name = link.get_attribute("href")
        with tab.expect_download() as info:
            link.click()
        path = info.value.path()
        data = Path(path).read_bytes()
        if name.endswith(".zip"):
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                inner = [n for n in archive.namelist() if n.endswith(".ipynb")]
                assert len(inner) == 1, f"{page}: {name} holds {archive.namelist()}"
                data = archive.read(inner[0])
            name = inner[0]
        if name.endswith(".ipynb"):
            notebook = json.loads(data)
            assert notebook["nbformat"] == 4, f"{page}: {name} is not a notebook"
            assert any(c["cell_type"] == "code" for c in notebook["cells"]), f"{page}: {name}"
        else:
            assert data, f"{page}: {name} is empty"


#: The palette toggle's name in each language (mkdocs.yml: theme.palette, and the i18n plugin's
#: theme override for zh).
DARK_TOGGLE = {"en": "Switch to dark mode", "zh": "切换到深色模式"}


#: Every page in both languages: the Chinese site (zh/) has every page of nav, translated or
#: standing in (its English text, marked as English).
@pytest.mark.parametrize("page", [*PAGES, *(f"zh/{p}" for p in PAGES)])
def test_page_in_a_real_browser(page, site, reader, base_url, screenshots):
    visit = reader.open(base_url + page_url_path(page))
    tab = visit.page
    check_images(visit)
    light = tab.locator('img[src*="#only-light"]')
    dark = tab.locator('img[src*="#only-dark"]')
    assert light.count() == dark.count(), f"{page}: light and dark figures do not pair up"
    for i in range(light.count()):
        assert displayed(light.nth(i)), f"{page}: light figure {i} hidden in light mode"
        assert not displayed(dark.nth(i)), f"{page}: dark figure {i} shown in light mode"
    assert not tab.evaluate(STRAY_FIGURE_LINKS_JS), f"{page}: a hidden figure's link is shown"
    # Every code block gets Material's copy button ("content.code.copy"), except the ones
    # marked `no-copy` (notebook outputs).
    blocks = tab.locator(".md-typeset .highlight:not(.no-copy) pre").filter(visible=True)
    if blocks.count():
        blocks.last.scroll_into_view_if_needed()
        blocks.last.locator(".md-code__button").first.wait_for(state="attached")
        tab.evaluate("window.scrollTo(0, 0)")

    check_tooltip(tab, page)
    check_downloads(visit, page)
    check_phone_and_print(visit)

    # Off-screen code blocks skip rendering (content-visibility: auto in extra.css) until a
    # reader scrolls to them; a full-page screenshot scrolls nothing, so render them all.
    tab.add_style_tag(content="* { content-visibility: visible !important; }")
    # ...and while skipped, each held exactly its real height: the page never jumps.
    for wrong in tab.evaluate(PLACEHOLDER_JS):
        visit.problems.append(
            f"code block {wrong['text']!r}: placeholder {wrong['placeholder']:.1f} px, "
            f"real height {wrong['real']:.1f} px"
        )
    if screenshots is not None:
        tab.screenshot(path=screenshots / f"{page_slug(page)}-light.png", full_page=True)
    check_accessibility(visit, "light")

    # The toggle is a <label> for the palette radio; a reader clicks the moon icon.
    toggle = DARK_TOGGLE["zh" if page.startswith("zh/") else "en"]
    tab.locator(f'label[title="{toggle}"]').click()
    tab.wait_for_selector('body[data-md-color-scheme="slate"]')
    for i in range(dark.count()):
        assert displayed(dark.nth(i)), f"{page}: dark figure {i} hidden in dark mode"
        assert not displayed(light.nth(i)), f"{page}: light figure {i} shown in dark mode"
    assert not tab.evaluate(STRAY_FIGURE_LINKS_JS), f"{page}: a hidden figure's link is shown"
    if screenshots is not None:
        tab.screenshot(path=screenshots / f"{page_slug(page)}-dark.png", full_page=True)
    check_accessibility(visit, "dark")

    # "/" puts the keyboard in the search box (what a search finds: test_search_finds_...).
    tab.keyboard.press("/")
    assert tab.evaluate("document.activeElement.dataset.mdComponent") == "search-query"
    if visit.problems:
        pytest.fail(f"{page}:\n" + "\n".join(visit.problems))


def search_for(tab, text: str) -> None:
    """Search the site from the box of the page open in ``tab`` as a reader types: the box
    emptied (its results cleared), ``text`` entered and its last letter pressed (Material
    searches when a key is released, so typing every letter would run one search per letter,
    to check only the last). Returns once some result is listed; raises Playwright's
    ``TimeoutError`` when none is."""
    box = tab.locator('[data-md-component="search-query"]')
    if not tab.evaluate("document.activeElement.dataset.mdComponent === 'search-query'"):
        tab.keyboard.press("/")
    box.press("Control+a")
    box.press("Backspace")
    tab.wait_for_function("() => !document.querySelector('.md-search-result__item')")
    tab.keyboard.insert_text(text[:-1])
    tab.keyboard.press(text[-1])
    tab.wait_for_selector(".md-search-result__item")


def test_search_finds_every_page_by_its_title(reader, base_url):
    """In one tab, as one reader searching again and again: the words of each page's title list
    that page (its title as its own page shows it, see :func:`search_terms`)."""
    visit = reader.open(base_url)
    titles = visit.page.evaluate(PAGE_TITLES_JS, [base_url + page_url_path(p) for p in PAGES])
    missed = []
    for page, title in zip(PAGES, map(search_terms, titles), strict=True):
        expected = urlparse(base_url + page_url_path(page)).path
        try:
            tab = visit.page
            search_for(tab, title)
            tab.wait_for_function(
                "path => [...document.querySelectorAll('.md-search-result__link')]"
                ".some(a => new URL(a.href).pathname === path)",
                arg=expected,
                timeout=5_000,
            )
        except PlaywrightTimeout:
            listed = tab.eval_on_selector_all(
                ".md-search-result__link", "as => as.map(a => new URL(a.href).pathname)"
            )
            missed.append(f"{page}: searching for {title!r} listed {listed}, not {expected}")
    assert not visit.problems, "\n".join(visit.problems)
    assert not missed, "\n".join(missed)


def test_the_browser_checks_catch_what_they_claim_to(browser, tmp_path):
    """A page that breaks every rule is flagged for each breach (so the checks above can fail)."""
    (tmp_path / "ok.svg").write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" '
        'height="10"/></svg>'
    )
    (tmp_path / "index.html").write_text(
        "<!doctype html><title>bad</title>"
        '<figure><img src="ok.svg"></figure>'
        '<img src="missing.png" alt="gone">'
        '<img src="https://example.com/remote.png" alt="remote">'
        '<img src="ok.svg?eager" alt="hidden" style="display: none">'
        '<img src="ok.svg?lazy" alt="hidden" style="display: none" loading="lazy">'
        "<script>console.error('deliberate')</script>"
        '<main><pre><code><span class="k">def</span> <span class="nf" aria-hidden="yes">f'
        "</span>():</code></pre></main>"
    )
    with serve(tmp_path) as url:
        profile = Reader(browser, url)
        try:
            visit = profile.open(url)
            check_images(visit)
            check_accessibility(visit, "light")
        finally:
            profile.close()
    text = "\n".join(visit.problems)
    for expected in [
        "figure image without alt text: ok.svg",
        "image did not load: missing.png",
        "HTTP 404: " + url + "missing.png",
        "request to another host (blocked): https://example.com/remote.png",
        "console error: deliberate",
        "hidden image downloaded: ok.svg?eager",
        "axe (light): image-alt (critical)",
        # A span of code with an attribute besides its class is no token: axe still sees it.
        "axe (light): aria-valid-attr-value (critical)",
    ]:
        assert expected in text, f"not flagged: {expected}\n{text}"
    assert "ok.svg?lazy" not in text, "a hidden lazy image is never fetched"


#: Display formulas wider than their box (the box scrolls) and the width of the widest line.
OVERFLOWING_MATH_JS = """() => [...document.querySelectorAll('div.arithmatex')]
  .filter(d => d.scrollWidth > d.clientWidth + 1)
  .map(d => `${d.getAttribute('aria-label').slice(0, 60)}: ${d.scrollWidth} px in ${d.clientWidth}`)
"""


#: In print: blocks cut at the margin, code blocks whose lines would wrap, shown code buttons.
PRINT_PROBLEMS_JS = """() => {
  const out = [];
  for (const code of document.querySelectorAll('.md-typeset pre > code')) {
    if (code.scrollWidth > code.clientWidth + 1) out.push(`cut: ${code.textContent.slice(0, 50)}`);
    if (!code.closest('.language-python')) continue;
    const wrapped = code.style.whiteSpace;
    code.style.whiteSpace = 'pre';  // would any line need to wrap?
    if (code.scrollWidth > code.clientWidth + 1)
      out.push(`wraps: ${code.textContent.slice(0, 50)}`);
    code.style.whiteSpace = wrapped;
  }
  for (const math of document.querySelectorAll('div.arithmatex'))
    if (math.scrollWidth > math.clientWidth + 1)
      out.push(`formula cut: ${math.getAttribute('aria-label')}`);
  for (const nav of document.querySelectorAll('.md-code__nav, .md-code__button'))
    if (getComputedStyle(nav).display !== 'none') { out.push('code buttons printed'); break; }
  return out;
}"""
#: A text column a little narrower than an A4 page's (794 CSS px wide) less Chromium's default
#: print margins, in CSS px: what fits here fits on A4 and, wider, on Letter.
PRINT_WIDTH = 700


#: A code block of the built site, and a class attribute inside one. The code's text is escaped
#: HTML, so a block ends at the first ``</pre>``.
PRE_BLOCK = re.compile(r"<pre\b.*?</pre>", re.S)
SPAN_CLASS = re.compile(r'<span class="([^"]+)"')


def code_token_classes(site: Path) -> list[str]:
    """Every Pygments token class (``k``, ``mi``, ``s2``, …) that a code block of the built
    site uses, sorted. (Read with two regular expressions: parsing every page whole took 2 s.)"""
    return sorted(
        {
            c
            for page in PAGES
            for block in PRE_BLOCK.findall(html_of(site, page).read_text(encoding="utf-8"))
            for classes in SPAN_CLASS.findall(block)
            for c in classes.split()
        }
    )


@pytest.mark.parametrize("palette", ["light", "dark"])
def test_code_colours_have_contrast(browser, base_url, site, palette):
    """Every colour the site's code is highlighted in has a contrast of 4.5:1 with the code
    background (axe-core's color-contrast), in ``palette``: one token of each class that some
    code block uses, in one code block added to the glossary page, under the site's styles."""
    classes = code_token_classes(site)
    assert len(classes) > 15, classes
    context = browser.new_context(
        viewport={"width": 1280, "height": 900}, color_scheme=palette, service_workers="block"
    )
    try:
        tab = context.new_page()  # the palette follows prefers-color-scheme (mkdocs.yml)
        tab.goto(base_url + page_url_path("glossary.md"), wait_until="load")
        scheme = "default" if palette == "light" else "slate"
        tab.wait_for_selector(f'body[data-md-color-scheme="{scheme}"]')
        tab.evaluate(
            """classes => {
          const code = document.createElement('code');
          for (const name of classes) {
            const token = document.createElement('span');
            token.className = name;
            token.textContent = `token_${name} `;
            code.append(token, '\\n');
          }
          const block = document.createElement('div');
          block.className = 'language-python highlight';
          block.append(document.createElement('pre'));
          block.firstChild.append(code);
          document.querySelector('article').append(block);
        }""",
            classes,
        )
        problems = axe_violations(tab, "code contrast")
        assert not problems, "\n".join(problems)
    finally:
        context.close()


#: A phone's first screen (CSS px): the short answer of every article and of the home page ends
#: within it.
PHONE = {"width": 360, "height": 780}


#: The pages with a short answer, and those of them translated into Chinese (``zh/``).
ANSWERED = ["index.md", *nav_pages("Articles")]


ANSWERED_ZH = [f"zh/{p}" for p in ANSWERED if (ROOT / "docs" / p).with_suffix(".zh.md").is_file()]


@pytest.mark.parametrize("page", [*ANSWERED, *ANSWERED_ZH])
def test_the_short_answer_ends_on_a_phones_first_screen(browser, base_url, page):
    """At 360 × 780, the page opened at its top: the first paragraph after the title (the short
    answer, or the home page's answer; the facts line is not it) ends at most :data:`PHONE`'s
    height from the top of the viewport, header included."""
    context = browser.new_context(viewport=PHONE, color_scheme="light", service_workers="block")
    try:
        tab = context.new_page()
        tab.goto(base_url + page_url_path(page), wait_until="load")
        answer = tab.locator("article h1 ~ p:not(.page-facts)").first  # wherever the facts are
        assert answer.count(), f"{page}: no paragraph after the title"
        text = answer.inner_text()
        bottom = answer.evaluate("p => p.getBoundingClientRect().bottom + window.scrollY")
        assert bottom <= PHONE["height"], (
            f"{page}: the answer ends at {bottom:.0f} px, below the first {PHONE['height']} px "
            f"of a 360 px phone: {text[:120]!r}"
        )
    finally:
        context.close()


#: The most phone screens (:data:`PHONE`'s height, every collapsed note closed) an article may
#: take: a learner on a CPU reads it to the end; GPU and precision corners go into notes (issue 49).
MAX_SCREENS = 22

#: The page's height (CSS px) as a reader first gets it: every ``<details>`` (``??? note``,
#: solutions, the torch-matrix list) closed, every code block laid out at its real height.
CLOSED_HEIGHT_JS = """() => {
  document.querySelectorAll('details[open]').forEach(d => { d.open = false; });
  return document.documentElement.scrollHeight;
}"""


def phone_screens(browser, url: str) -> float:
    """The height of the page at ``url`` on a 360 × 780 phone, with its notes closed, in
    screens (:data:`PHONE`'s height)."""
    context = browser.new_context(viewport=PHONE, color_scheme="light", service_workers="block")
    try:
        tab = context.new_page()
        tab.goto(url, wait_until="load")
        tab.add_style_tag(content="* { content-visibility: visible !important; }")
        return tab.evaluate(CLOSED_HEIGHT_JS) / PHONE["height"]
    finally:
        context.close()


@pytest.mark.parametrize("page", nav_pages("Articles"))
def test_an_article_fits_22_phone_screens_with_its_notes_closed(browser, base_url, page):
    """At 360 × 780 with every note closed, an article is at most :data:`MAX_SCREENS` screens
    long, header, facts line and footer included."""
    screens = phone_screens(browser, base_url + page_url_path(page))
    assert screens <= MAX_SCREENS, (
        f"{page}: {screens:.1f} phone screens with its notes closed (at most {MAX_SCREENS}): "
        "move what only a GPU or a reduced precision needs into a collapsed note"
    )


def test_the_screen_count_sees_an_open_note_and_a_long_page(browser, tmp_path):
    """The measure counts what a reader scrolls: a closed note adds its title only, the same
    text outside a note adds its height, so a page of 30 screens fails."""
    body = "<p>" + "word " * 20_000 + "</p>"
    (tmp_path / "long.html").write_text(f"<html><body>{body}</body></html>", encoding="utf-8")
    note = f"<details open><summary>A note</summary>{body}</details>"
    (tmp_path / "note.html").write_text(f"<html><body>{note}</body></html>", encoding="utf-8")
    with serve(tmp_path) as url:
        assert phone_screens(browser, url + "long.html") > MAX_SCREENS
        assert phone_screens(browser, url + "note.html") <= 1  # the viewport is the least


#: The links of the navigation drawer (the sidebar, on a wide screen), and how many are drawn
#: (``checkVisibility``: false inside a ``content-visibility: hidden`` subtree, extra.css).
DRAWER_LINK = ".md-sidebar--primary .md-nav__link[href]"
DRAWER_DRAWN_JS = f"""() => [...document.querySelectorAll('{DRAWER_LINK}')]
  .filter(a => a.checkVisibility()).length"""
#: How many of the drawer's links take the keyboard's focus.
DRAWER_FOCUSABLE_JS = f"""() => [...document.querySelectorAll('{DRAWER_LINK}')]
  .filter(a => {{ a.focus(); return document.activeElement === a; }}).length"""


@pytest.mark.parametrize("page", ["index.md", "zh/index.md"])
def test_the_phone_drawer_is_drawn_only_while_open(browser, base_url, page):
    """On a phone the closed navigation drawer is skipped (extra.css): not drawn, no keyboard
    stop; the menu button opens it drawn, and its links work. On a wide screen, where it is the
    sidebar, it is drawn and its links take the focus."""
    context = browser.new_context(viewport=PHONE, service_workers="block")
    try:
        tab = context.new_page()
        tab.goto(base_url + page_url_path(page), wait_until="load")
        assert tab.evaluate(DRAWER_DRAWN_JS) == 0, f"{page}: the closed drawer is drawn"
        assert tab.evaluate(DRAWER_FOCUSABLE_JS) == 0, f"{page}: closed drawer takes the focus"
        tab.locator('label.md-header__button[for="__drawer"]').click()
        link = tab.locator(DRAWER_LINK).last
        link.wait_for(state="visible")
        href = link.evaluate("a => a.href")
        link.click()
        tab.wait_for_url(href)
        tab.set_viewport_size({"width": 1300, "height": 900})
        assert tab.evaluate(DRAWER_DRAWN_JS) > 0, f"{page}: the wide screen's sidebar is hidden"
        assert tab.evaluate(DRAWER_FOCUSABLE_JS) > 0, f"{page}: the sidebar's links take no focus"
    finally:
        context.close()


#: Chinese words a reader searches for on the Chinese site (the term list's 查找表 and 稀疏梯度).
ZH_QUERIES = ["查找表", "稀疏梯度"]


@pytest.mark.parametrize("query", ZH_QUERIES)
def test_chinese_search_finds_chinese_pages_only(reader, base_url, site, query):
    """On a Chinese page, searching a Chinese term lists the Chinese pages whose text holds it
    (the Chinese index, segmented by jieba with the site's terms kept whole), and nothing else:
    no English page, no English page standing in at /zh/."""
    holding = sorted(
        p.name.removesuffix(".zh.md")
        for p in (ROOT / "docs").glob("*.zh.md")
        if query in p.read_text(encoding="utf-8")
    )
    if not holding:
        pytest.skip(f"no Chinese page uses {query} yet")
    expected = {urlparse(f"{base_url}zh/" + page_url_path(f"{name}.md")).path for name in holding}
    visit = reader.open(base_url + "zh/")
    tab = visit.page
    # As an input method enters it: the whole word at once (no key press per character).
    box = tab.locator('[data-md-component="search-query"]')
    if not tab.evaluate("document.activeElement.dataset.mdComponent === 'search-query'"):
        tab.keyboard.press("/")
    box.fill(query)
    box.press("End")  # Material searches on a key event, which fill() alone does not send
    tab.wait_for_selector(".md-search-result__item")
    listed = set(
        tab.eval_on_selector_all(
            ".md-search-result__link", "as => as.map(a => new URL(a.href).pathname)"
        )
    )
    assert not visit.problems, "\n".join(visit.problems)
    assert listed and all(path.startswith("/zh/") for path in listed), listed
    assert expected & listed, f"searching {query!r} listed {sorted(listed)}, none of {expected}"


#: Two pages of each language that share a linked tab label (content.tabs.link): the label, the
#: page where the reader picks it, and the next page, where it must already be picked.
LINKED_TABS = [
    ("nn.Linear on one-hot", "lookup-tables.md", "static-vs-contextual.md"),
    ("作用于独热的 nn.Linear", "zh/lookup-tables.md", "zh/static-vs-contextual.md"),
]


@pytest.mark.parametrize(("label", "first", "second"), LINKED_TABS)
def test_a_tab_picked_on_one_page_is_picked_on_the_next(browser, base_url, label, first, second):
    """Material's linked tabs remember the label a reader picks (in local storage) and pick it on
    every page that has a tab of that label: both languages' pages, so one Chinese form per
    label (tests/test_zh_voice.py) keeps the Chinese tabs in step. Material finds the label by
    its rendered text, so a set skipped by ``content-visibility`` (extra.css) or inside a closed
    note is not followed: the second page's set is an open one."""
    context = browser.new_context(color_scheme="light", service_workers="block")
    try:
        tab = context.new_page()
        tab.goto(base_url + page_url_path(first), wait_until="load")
        tab.locator(".tabbed-labels label", has_text=label).first.click()
        tab.goto(base_url + page_url_path(second), wait_until="load")
        chosen = tab.evaluate(
            """label => [...document.querySelectorAll('.tabbed-set')].some(set => {
                 const input = set.querySelector(':scope > input:checked');
                 const labels = set.querySelectorAll(':scope > .tabbed-labels > label');
                 return [...labels].some(
                   l => l.htmlFor === input?.id && l.textContent.trim() === label);
               })""",
            label,
        )
        assert chosen, f"{second}: the tab {label!r} picked on {first} is not picked here"
    finally:
        context.close()
