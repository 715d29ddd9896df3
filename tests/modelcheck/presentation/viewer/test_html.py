"""The HTML viewer, driven in Debian's chromium through Playwright.

Each test opens the written file (file://), walks through every state with
the keyboard and with clicks, checks what each state shows against the trace
itself, and checks that the page logs no console error and asks the network
for nothing: the only request is the file itself.

The reading tests (labels, keyboard, layout at 1400 and 700 px, the record a
violation is about, epochs) keep their screenshots, named after the test and
the width, in the folder MODELCHECK_SCREENSHOTS names (to look at them), else
in pytest's temporary directory (``screenshots/`` under its basetemp): the
suite writes nothing into the repository.
"""

import json
import os
import shutil

import pytest

from support import ROOT, invoke
from modelcheck.presentation.viewer import load_view
from modelcheck.presentation.viewer.html import render_html, script_json, write_html

sync_api = pytest.importorskip("playwright.sync_api")

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
FIRST_TRY = os.path.join(ROOT, "traces", "kip320-first-try-StrongIsr.itf.json")
CONSUMER = os.path.join(ROOT, "tests", "fixtures", "tlc", "kip320-consumer-NoDivergentDelivery.json")
EPOCH3 = os.path.join(ROOT, "traces", "kip320-consumer-kip320-epoch3.itf.json")  # 20 states
LRS = os.path.join(ROOT, "traces", "kraft-3.5-last-replica-standing.itf.json")  # KRaft, 8 states
SCREENSHOTS: list[str] = []  # the folder the screenshots go to (set by the fixture below)
WIDTHS = (1400, 700)

pytestmark = pytest.mark.skipif(not shutil.which(CHROMIUM) and not os.path.exists(CHROMIUM),
                                reason="Debian's chromium is not installed (tests/install-deps.sh installs it)")


@pytest.fixture(scope="module", autouse=True)
def screenshots(tmp_path_factory):
    SCREENSHOTS[:] = [os.environ.get("MODELCHECK_SCREENSHOTS") or str(tmp_path_factory.getbasetemp() / "screenshots")]


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    profile = tmp_path_factory.mktemp("chromium-profile")
    with sync_api.sync_playwright() as p:
        context = p.chromium.launch_persistent_context(str(profile), executable_path=CHROMIUM, headless=True,
                                                       args=FLAGS, viewport={"width": 1280, "height": 900})
        yield context
        context.close()


class Page:
    """A page with everything it logs and requests recorded."""

    def __init__(self, context, path, width=None, height=900):
        self.url = "file://" + os.path.abspath(path)
        self.errors, self.requests = [], []
        self.page = context.new_page()
        if width:
            self.page.set_viewport_size({"width": width, "height": height})
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.goto(self.url)
        self.page.wait_for_selector("body[data-ready=yes]")

    def text(self, selector):
        return self.page.text_content(selector)

    def row_cell(self, row, cell):
        return self.page.locator(f'#groups [data-row="{row}"] [data-cell="{cell}"]')

    def value(self, row, cell):
        """A cell's value as shown (without the label a line item carries)."""
        return self.row_cell(row, cell).locator(":scope > span:not(.label)").text_content()

    def records(self, row, cell="log"):
        return self.row_cell(row, cell).locator(".rec").all_text_contents()

    def box(self, selector):
        return self.page.locator(selector).first.bounding_box()

    def js(self, expression):
        return self.page.evaluate(expression)

    def shot(self, name):
        os.makedirs(SCREENSHOTS[0], exist_ok=True)
        self.page.screenshot(path=os.path.join(SCREENSHOTS[0], name + ".png"), full_page=True)

    def close(self):
        assert self.errors == [] and self.requests == [self.url]
        self.page.close()


def expected_log(state: dict, replica: str) -> list[str]:
    """The records of ``replica`` in an ITF state, as the viewer writes them."""
    log = dict(state["replicaLog"]["#map"])[replica]
    end = int(log["endOffset"]["#bigint"])
    records = [record for _, record in log["records"]["#map"]][:end]
    return [f"id{r['id']['#bigint']}@{r['epoch']['#bigint']}" for r in records]


def test_steps_through_the_whole_trace(browser, tmp_path):
    out = tmp_path / "first-try.html"
    view = load_view(FIRST_TRY)
    write_html(view, str(out))
    itf = json.load(open(FIRST_TRY))
    page = Page(browser, out)
    assert page.text("#title") == "kip320-first-try: StrongIsr violated in state 13"
    assert page.page.locator("#timeline-list li[data-index]").count() == 13
    for k, state in enumerate(itf["states"]):
        if k:
            page.page.keyboard.press("ArrowRight")
        label = "Init" if k == 0 else view.frames[k].label
        assert page.text("#step-title") == f"State {k + 1} of 13: {label}"
        assert page.page.locator("#timeline-list li[aria-current=step]").get_attribute("data-index") == str(k)
        for replica in ("r1", "r2", "r3"):
            assert page.records(replica) == expected_log(state, replica), (k, replica)
        assert state["#meta"]["action"] in label
    # the last state: r3's log was truncated (highlighted), the explanation is shown and marked as here
    assert "changed" in page.row_cell("r3", "log").get_attribute("class")
    assert page.row_cell("r1", "log").locator("[data-marker=hw]").count() == 1
    explanation = page.page.locator('.explanation[data-invariant="StrongIsr"]')
    assert explanation.locator(".text").text_content() == view.breakages[-1].explanation
    assert "(this state)" in explanation.locator("strong").text_content()
    assert page.page.locator("#timeline-list li.violation").count() == 1
    # quorum ISR membership as chips
    chips = page.page.locator('#groups [data-row="quorum"] [data-cell="isr"] .chip')
    assert chips.all_text_contents() == ["r1", "r2", "r3"]
    assert [c.get_attribute("data-member") for c in chips.all()] == ["yes", "no", "yes"]
    page.page.keyboard.press("ArrowRight")  # past the end: stays
    assert page.text("#step-title").startswith("State 13 of 13")
    page.page.screenshot(path=str(tmp_path / "first-try-last.png"), full_page=True)

    # back with the keys, the buttons and clicks on the timeline
    page.page.keyboard.press("ArrowLeft")
    assert page.text("#step-title").startswith("State 12 of 13: BecomeFollower(leader=r2, replica=r3")
    page.page.click("#prev")
    assert page.text("#step-title").startswith("State 11 of 13")
    page.page.click('#timeline-list li[data-index="7"]')
    assert page.text("#step-title") == "State 8 of 13: LeaderWrite(replica=r1)"
    assert page.records("r1") == ["id0@2"] and "changed" in page.row_cell("r1", "log").get_attribute("class")
    assert page.row_cell("r1", "log").get_attribute("title") == "was: | _ _"
    page.page.keyboard.press("Home")
    assert page.text("#step-title") == "State 1 of 13: Init"
    assert page.page.locator("#groups .changed").count() == 0
    page.page.click(".explanation")  # jumps to the state that breaks the invariant
    assert page.text("#step-title").startswith("State 13 of 13")

    assert page.errors == []
    assert page.requests == [page.url]


def test_the_consumer_row_and_its_explanation(browser, tmp_path):
    out = tmp_path / "consumer.html"
    view = load_view(CONSUMER, "kip320-consumer", ["TruncationCheck=FALSE"])
    write_html(view, str(out))
    page = Page(browser, out)
    page.page.keyboard.press("End")
    assert page.text("#step-title") == "State 17 of 17: ConsumerFetch(leader=r2)"
    assert page.records("consumer", "delivered") == ["id0@0", "id2@2"]
    assert page.value("consumer", "divergent") == "YES"
    assert page.records("r2") == ["id1@2", "id2@2"]  # offset 0 differs from what the consumer has
    assert "at offset 0 r2 has id1@2 where the consumer delivered id0@0" in page.text(".explanation .text")
    page.page.click('#timeline-list li[data-index="15"]')  # the stale-metadata refresh
    assert page.value("consumer", "leader") == "r2"
    assert page.value("consumer", "validation") == "done"
    page.page.screenshot(path=str(tmp_path / "consumer-last.png"), full_page=True)
    assert page.errors == [] and page.requests == [page.url]


def test_text_from_the_trace_is_never_markup(browser, tmp_path):
    """A hostile trace: its last step is not legal, so the viewer shows the
    action the file names for it, which is HTML and script."""
    itf = json.load(open(FIRST_TRY))
    evil = '<img src=x onerror="document.title=\'pwned\'"></script><script>document.title="pwned"</script>'
    last = itf["states"][-1]
    last["#meta"] = {"action": evil, "parameters": {"why": evil}}
    last["nextRecordId"] = {"#bigint": "0"}  # no action takes the record counter back
    itf["#meta"]["description"] = evil
    path = tmp_path / "evil.itf.json"
    path.write_text(json.dumps(itf))
    out = tmp_path / "evil.html"
    view = load_view(str(path))
    assert view.illegal == [12] and view.frames[-1].label.startswith(evil)
    write_html(view, str(out))
    html = out.read_text()
    for block in html.split('<script type="application/json"')[1:]:
        assert "</script><script>" not in block.split("</script>")[0]
    page = Page(browser, out)
    page.page.keyboard.press("End")
    assert page.text("#step-title") == f"State 13 of 13: {evil}(why={evil})  [not a legal step of kip320-first-try]"
    assert evil in page.text('#timeline-list li[data-index="12"]')
    assert page.page.is_visible("#illegal")
    assert page.page.title() != "pwned" and page.page.locator("img").count() == 0
    assert page.errors == [] and page.requests == [page.url]


def test_script_json_cannot_close_its_element():
    text = script_json({"a": "</script><!-- & \u2028"})
    assert "<" not in text and ">" not in text and "&" not in text and "\u2028" not in text
    assert json.loads(text) == {"a": "</script><!-- & \u2028"}


def test_the_page_is_self_contained():
    html = render_html(load_view(FIRST_TRY))
    for needle in ("http://", "https://", "<link", " src="):
        assert needle not in html.split('<script type="application/json"')[0], needle
    assert "Content-Security-Policy" in html and "default-src 'none'" in html


# --- reading the page: labels, keys, layout, the story ---------------------------------

@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    """The first-try trace (13 states), the consumer trace from TLC (17) and the
    epoch-3 consumer trace (20), each written once."""
    out = tmp_path_factory.mktemp("pages")
    written = {}
    for name, view in (("first-try", load_view(FIRST_TRY)),
                       ("consumer", load_view(CONSUMER, "kip320-consumer", ["TruncationCheck=FALSE"])),
                       ("epoch3", load_view(EPOCH3))):
        write_html(view, str(out / f"{name}.html"))
        written[name] = (str(out / f"{name}.html"), view)
    return written


LINES_OF = """(node) => { const r = document.createRange(); r.selectNodeContents(node);
                              return new Set([...r.getClientRects()].map(b => Math.round(b.top))).size; }"""


@pytest.mark.parametrize("width", WIDTHS)
def test_timeline_labels_break_between_words_and_parameters(browser, pages, width):
    path, view = pages["epoch3"]
    page = Page(browser, path, width)
    items = page.page.locator("#timeline-list li[data-index]")
    assert items.count() == 20
    for k in range(20):
        item, frame = items.nth(k), view.frames[k]
        action, params = item.locator(".action"), item.locator(".param")
        assert action.text_content() == frame.label.split("(")[0]
        # the name breaks only between its words: no word is split over two lines
        words = action.evaluate("(a) => [...a.childNodes].filter(n => n.nodeType === 3)")
        assert len(words) >= 1
        for n in range(action.evaluate("(a) => [...a.childNodes].filter(n => n.nodeType === 3).length")):
            assert action.evaluate(f"(a) => ({LINES_OF})([...a.childNodes].filter(n => n.nodeType === 3)[{n}])") == 1
        if frame.label == "Init":
            continue
        # the parameters: on the line below the name, indented, each one whole on one line
        a, p = action.bounding_box(), params.first.bounding_box()
        assert p["y"] >= a["y"] + a["height"] - 1 and p["x"] >= a["x"] + 8  # a hanging indent
        texts = params.all_text_contents()
        assert ", ".join(t.rstrip(",") for t in texts) == frame.label[len(action.text_content()) + 1:-1]
        for n in range(params.count()):
            assert params.nth(n).evaluate(LINES_OF) == 1
    page.shot(f"timeline-labels-{width}")
    page.close()


def until(condition, timeout: float = 10.0) -> None:
    """Wait for a condition read from Python. (Playwright's wait_for_function
    compiles its expression inside the page, which the viewer's
    Content-Security-Policy forbids once it has to poll.)"""
    import time
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the page never got there"
        time.sleep(0.05)


def test_keyboard_selects_scrolls_and_follows_the_address(browser, pages):
    path, _ = pages["first-try"]
    page = Page(browser, path, 1400, height=500)  # a short window, so the page can scroll
    title = lambda: page.text("#step-title")  # noqa: E731
    page.page.focus('#timeline-list li[data-index="4"]')
    page.page.keyboard.press("Enter")
    assert title().startswith("State 5 of 13: BecomeLeader")
    page.page.focus('#timeline-list li[data-index="7"]')
    page.page.keyboard.press(" ")
    assert title() == "State 8 of 13: LeaderWrite(replica=r1)"
    assert page.js("window.scrollY") == 0  # Space selected the step; it did not scroll the page
    # up and down are left to the page: they scroll, and the state stays
    page.page.focus("#next")
    page.page.keyboard.press("ArrowDown")
    page.page.keyboard.press("ArrowDown")
    until(lambda: page.js("window.scrollY") > 0)
    assert title() == "State 8 of 13: LeaderWrite(replica=r1)"
    page.page.keyboard.press("ArrowUp")
    assert title() == "State 8 of 13: LeaderWrite(replica=r1)"
    # a #state-N typed into an open tab is honoured
    page.js("location.hash = '#state-11'")
    until(lambda: title().startswith("State 11 of 13"))
    assert page.page.locator("#timeline-list li[aria-current=step]").get_attribute("data-index") == "10"
    page.close()


@pytest.mark.parametrize("name", ["first-try", "epoch3"])
def test_stepping_keeps_the_page_still(browser, pages, name):
    """Stepping through every state moves nothing but the highlight: the
    page does not scroll and the title stays where it is."""
    path, view = pages[name]
    page = Page(browser, path, 1400)
    first = page.box("#step-title")
    for k in range(1, len(view.frames)):
        page.page.keyboard.press("ArrowRight")
        assert page.js("window.scrollY") == 0, k
        assert page.box("#title")["y"] >= 0
        assert page.box("#step-title")["y"] == first["y"], k
        current = page.box("#timeline-list li[aria-current=step]")  # in view, inside the timeline
        nav = page.box("#timeline")
        assert nav["y"] <= current["y"] and current["y"] + current["height"] <= nav["y"] + nav["height"] + 1, k
    page.close()


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", ["first-try", "consumer"])
def test_the_layout_fits_the_window(browser, pages, name, width):
    """Nothing is cut off or scrolls sideways, at 1400 px and at 700 px; at
    1400 px the page has one scrollbar at most (the timeline fits beside it)."""
    path, view = pages[name]
    page = Page(browser, path, width)
    page.page.keyboard.press("End")
    assert page.js("document.documentElement.scrollWidth") <= width
    assert page.js("[...document.querySelectorAll('.table-wrap')].every(t => t.scrollWidth <= t.clientWidth)")
    title = page.page.locator("#title")
    assert title.evaluate("(h) => h.scrollWidth <= h.clientWidth")
    for lane in page.page.locator("#groups .lane").all():
        box = lane.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width
    if width == 1400:
        assert page.js("(() => { const n = document.getElementById('timeline'); "
                       "return n.scrollHeight <= n.clientHeight; })()")
        assert page.box("#timeline")["x"] < page.box("#state")["x"]  # side by side
    else:
        assert page.box("#timeline")["y"] < page.box("#state")["y"]  # stacked
    page.shot(f"layout-{name}-{width}")
    page.close()


def test_labels_sit_inside_their_cells_with_room(browser, pages):
    path, _ = pages["first-try"]
    page = Page(browser, path, 1400)
    page.page.click('#timeline-list li[data-index="10"]')  # r1's hw moves to 1
    for replica in ("r1", "r2", "r3"):
        td = page.row_cell(replica, "log").bounding_box()
        label = page.row_cell(replica, "log").locator(".marker-label").bounding_box()
        assert label["y"] >= td["y"] and label["y"] + label["height"] <= td["y"] + td["height"], replica
    hw = page.row_cell("r1", "hw")
    assert "changed" in hw.get_attribute("class")
    text = hw.locator("span").bounding_box()
    assert text["x"] - hw.bounding_box()["x"] >= 6  # not flush against the highlight's edge
    unchanged = page.row_cell("r2", "hw")
    assert unchanged.locator("span").bounding_box()["x"] - unchanged.bounding_box()["x"] >= 6  # nor moved by it
    # in a log, the changed slot (and the moved marker) carry the highlight, not the whole lane
    log = page.row_cell("r1", "log")
    assert log.locator(".slot.changed").count() == 0 and log.locator(".marker.changed").count() == 1
    page.page.click('#timeline-list li[data-index="12"]')
    truncated = page.row_cell("r3", "log")
    assert [s.get_attribute("data-offset") for s in truncated.locator(".slot.changed").all()] == ["0"]
    page.close()


@pytest.mark.parametrize("width", WIDTHS)
def test_the_lost_record_is_singled_out(browser, pages, width):
    path, view = pages["first-try"]
    page = Page(browser, path, width)
    page.page.keyboard.press("End")
    focus = page.page.locator("#groups .slot.focus")
    where = [(s.evaluate("(e) => e.closest('[data-row]').dataset.row"), s.get_attribute("data-offset"))
             for s in focus.all()]
    assert where == [("r1", "0"), ("r3", "0")]  # r1's committed id0@2 and the slot r3 truncated
    assert "a red outline marks the record it is about" in page.text("#legend")
    assert view.breakages[0].focus == (("r1", "log", 0), ("r3", "log", 0))
    page.shot(f"lost-record-first-try-{width}")
    page.page.keyboard.press("ArrowLeft")
    assert page.page.locator("#groups .slot.focus").count() == 0  # only on the state that breaks it
    page.close()

    path, _ = pages["consumer"]
    page = Page(browser, path, width)
    page.page.keyboard.press("End")
    where = [(s.evaluate("(e) => e.closest('[data-row]').dataset.row"),
              s.evaluate("(e) => e.closest('[data-cell]').dataset.cell"), s.get_attribute("data-offset"))
             for s in page.page.locator("#groups .slot.focus").all()]
    assert where == [("r2", "log", "0"), ("consumer", "delivered", "0")]
    page.shot(f"lost-record-consumer-{width}")
    page.close()


def test_a_long_trace_is_grouped_by_leader_epoch(browser, pages):
    path, view = pages["epoch3"]
    page = Page(browser, path, 1400)
    headings = page.page.locator("#timeline-list li.epoch-heading").all_text_contents()
    assert headings == ["before any leader epoch", "controller at leader epoch 0", "controller at leader epoch 1",
                        "controller at leader epoch 2", "controller at leader epoch 3"]
    # every step sits under the heading of the epoch the controller had reached in that state
    under = page.js("[...document.querySelectorAll('#timeline-list li')].reduce((acc, li) => {"
                    " if (li.classList.contains('epoch-heading')) acc.h = li.textContent;"
                    " else acc.out.push(acc.h); return acc; }, {h: null, out: []}).out")
    quorum = [next(c.text for r in f.rows if r.group == "quorum" for c in r.cells if c.key == "epoch")
              for f in view.frames]
    assert under == [("before any leader epoch" if e == "-1" else f"controller at leader epoch {e}") for e in quorum]
    assert page.page.locator("#timeline-list li.epoch-heading[tabindex]").count() == 0  # not a stop for Tab
    page.shot("epochs-epoch3-1400")
    page.close()


@pytest.mark.parametrize("width", WIDTHS)
def test_steps_on_a_stale_epoch_are_marked(browser, pages, width):
    """The first-try story: the controller is on epoch 2 from state 4 on, but r2 takes the epoch-1
    request (5), and r3 follows r1 on epoch 0 (9, 10), then r2 on epoch 1, and truncates (12, 13).
    Each of those steps carries a chip naming the replica and its epoch, in that epoch's colour."""
    path, view = pages["first-try"]
    page = Page(browser, path, width)
    marked = page.page.locator("#timeline-list li.stale-step")
    assert [li.get_attribute("data-index") for li in marked.all()] == ["4", "8", "9", "11", "12"]
    chips = [(c.evaluate("(e) => e.closest('li').dataset.index"), c.text_content(), c.get_attribute("class"))
             for c in page.page.locator("#timeline-list .stale").all()]
    assert chips == [("4", "r2 on stale epoch 1", "stale epoch-1"), ("8", "r3 on stale epoch 0", "stale epoch-0"),
                     ("9", "r3 on stale epoch 0", "stale epoch-0"), ("11", "r3 on stale epoch 1", "stale epoch-1"),
                     ("12", "r3 on stale epoch 1", "stale epoch-1")]
    # every step under the heading of epoch 2 that is not marked acts on epoch 2 (or is the controller's)
    assert page.page.locator('#timeline-list li[data-index="5"]').get_attribute("aria-label") == \
        "state 6: BecomeLeader(leaderAndIsrRequest=2, leader=r1)"
    assert page.page.locator('#timeline-list li[data-index="8"]').get_attribute("aria-label").endswith(
        "(r3 on stale epoch 0)")
    # a chip has the colour of its epoch's records, and stays inside the timeline
    colour = "(e) => getComputedStyle(e).backgroundColor"
    page.page.keyboard.press("End")
    record = page.page.locator("#legend .slot.epoch-2").evaluate(colour)
    assert page.page.locator("#timeline-list .stale.epoch-1").first.evaluate(colour) != record
    nav = page.box("#timeline")
    for chip in page.page.locator("#timeline-list .stale").all():
        box = chip.bounding_box()
        assert nav["x"] <= box["x"] and box["x"] + box["width"] <= nav["x"] + nav["width"]
    assert page.js("document.documentElement.scrollWidth") <= width
    page.page.click('#timeline-list li[data-index="8"]')
    page.shot(f"stale-epochs-first-try-{width}")
    page.close()


@pytest.fixture(scope="module")
def lasso_pages(tmp_path_factory):
    """A lasso that cycles back via an action and one that stutters, from
    `modelcheck run --prop`, each as a page."""
    out = tmp_path_factory.mktemp("lassos")
    written = {}
    for name, prop, specification in (("cycle", "QuorumIsrStabilizes", "NoFairSpec"),
                                      ("stutter", "LeaderEventuallyElected", "Spec")):
        trace = str(out / f"{name}.itf.json")
        code, _, _ = invoke("run", "kip320", "--const", "Replicas=2", "--prop", prop, "--specification",
                            specification, "--trace-out", trace)
        assert code == 13
        view = load_view(trace)
        write_html(view, str(out / f"{name}.html"))
        written[name] = (str(out / f"{name}.html"), view)
    return written


@pytest.mark.parametrize("width", WIDTHS)
def test_a_lasso_page_says_what_fails_and_how_the_loop_closes(browser, lasso_pages, width):
    path, view = lasso_pages["cycle"]
    page = Page(browser, path, width)
    closing = "FencedLeaderExpandIsr(leader=r2, follower=r1)"
    assert page.text("#title") == "kip320: QuorumIsrStabilizes violated under NoFairSpec"
    assert page.page.title() == "kip320: QuorumIsrStabilizes violated under NoFairSpec"
    box = page.page.locator(".explanation.lasso strong")
    assert box.text_content() == (f"QuorumIsrStabilizes is violated under NoFairSpec: after state 6, {closing} "
                                  f"leads back to state 5, and states 5 to 6 repeat forever.")
    assert "The behaviour back" not in page.text("body")
    # the timeline's last line names the action that closes the loop, as the steps name theirs
    loop = page.page.locator("#timeline-list li.loop")
    assert loop.locator(".back").text_content() == "back to state 5 via"
    assert loop.locator(".action").text_content() == "FencedLeaderExpandIsr"
    assert loop.locator(".param").all_text_contents() == ["leader=r2,", "follower=r1"]
    assert loop.get_attribute("aria-label") == f"back to state 5 via {closing}"
    for n in range(loop.locator(".param").count()):
        assert loop.locator(".param").nth(n).evaluate(LINES_OF) == 1
    nav, last = page.box("#timeline"), loop.bounding_box()
    assert nav["x"] <= last["x"] and last["x"] + last["width"] <= nav["x"] + nav["width"] + 1
    assert page.js("document.documentElement.scrollWidth") <= width
    page.shot(f"lasso-cycle-{width}")
    loop.click()
    assert page.text("#step-title").startswith("State 5 of 6")
    assert box.text_content().endswith("repeat forever. The cycle starts at this state.")
    page.close()

    path, view = lasso_pages["stutter"]
    page = Page(browser, path, width)
    assert page.text("#title") == "kip320: LeaderEventuallyElected violated under Spec"
    assert page.text("#subtitle").split(" · ")[-2] == "1 state"
    assert page.page.locator(".explanation.lasso strong").text_content() == (
        "LeaderEventuallyElected is violated under Spec: from state 1 on, nothing changes; the behaviour stays "
        "in state 1 forever. This is that state.")
    assert page.page.locator("#timeline-list li.loop").text_content() == "\u21bastutters forever from state 1"
    assert "runs 1 states" not in page.text("body")
    # fairness and the property's form in words; their TLA+ forms are for --json and the docs
    body = page.js("document.body.innerText")  # what is shown, not the page's script
    assert "weak fairness on BecomeLeader:" in body and "strong fairness on LeaderWrite:" in body, body
    assert "Its form, eventually: its condition holds at some point." in body, body
    assert not [n for n in ("_vars", "~>", "<>", "[]", "/\\", "step condition") if n in body], body
    page.shot(f"lasso-stutter-{width}")


# --- a KRaft trace: the layout its spec declares ---------------------------------------------

@pytest.mark.parametrize("width", WIDTHS)
def test_last_replica_standing_reads_as_kafka(browser, tmp_path, width):
    """Kafka 3.5's Last Replica Standing: the steps grouped by the
    controller's leader epoch, each told in words; broker 1's log, the
    controller's leader and the messages in flight as they change; nothing
    wider than the window."""
    out = tmp_path / "lrs.html"
    write_html(load_view(LRS), str(out))
    page = Page(browser, out, width)
    assert page.text("#title") == "kraft-3.5: LeaderCompletenessProperty violated in state 8"
    # the constants set away from the spec's defaults in the subtitle; all 25, folded, below it
    assert (" · BrokerCount=2 InitReplicationFactor=2 MinISR=1 InitIsrSize=1 FenceBrokerLimit=0 "
            "AvoidLastReplicaStanding=FALSE · 8 states · ") in page.text("#subtitle")
    assert "IsrJoinChecksBrokerEpoch=TRUE" in page.text("#constants")
    assert not page.page.locator("#constants").evaluate("(d) => d.open")
    assert page.page.locator("#timeline-list li.epoch-heading").all_text_contents() == [
        "controller at leader epoch 1", "controller at leader epoch 2", "controller at leader epoch 3"]
    notes = lambda: page.page.locator("#notes li").all_text_contents()  # noqa: E731
    replica_log = page.page.locator('#groups [data-group="replicas"] [data-row="broker 1"] [data-cell="log"]')
    page.page.click('#timeline-list li[data-index="3"]')
    assert replica_log.locator(".rec").all_text_contents() == ["A@1"]
    assert replica_log.locator(".offset").all_text_contents() == ["@1"]  # KRaft's offsets start at 1
    assert notes() == ["broker 1 advances its high watermark to 2: A@1 at offset 1 committed (its ISR: {1})",
                       "the producer's write of A is acknowledged"]
    page.page.keyboard.press("ArrowRight")  # the unclean shutdown
    assert notes()[0] == "broker 1 shuts down uncleanly and loses its log: A@1 at offset 1"
    assert replica_log.locator(".rec").count() == 0
    assert [s.get_attribute("data-offset") for s in replica_log.locator(".slot.changed").all()] == ["0"]
    status = page.page.locator('#groups [data-group="brokers"] [data-row="broker 1"] [data-cell="status"]')
    assert status.text_content() == "shut down uncleanly" and "changed" in status.get_attribute("class")
    assert page.value("controller", "leader") == "none"
    gone = page.page.locator('#groups [data-group="network"] .line.removed')
    assert gone.locator(".label").all_text_contents() == ["Fetch response 1 → 2"]
    assert page.text('#groups [data-group="network"] .empty-note') == "no message in flight"
    page.page.keyboard.press("ArrowRight")
    page.page.keyboard.press("ArrowRight")  # the controller elects broker 1 again
    assert notes()[1:] == ["the controller elects broker 1 as leader in leader epoch 3 (isr {1})",
                           "the new leader, broker 1, does not have committed A@1 at offset 1"]
    assert page.value("controller", "leader") == "1"
    assert "changed" in page.row_cell("controller", "leader").get_attribute("class")
    assert page.page.locator('#groups [data-group="metadata"] tbody tr').count() == 3
    page.page.keyboard.press("End")
    assert page.page.locator('.explanation[data-invariant="LeaderCompletenessProperty"]').count() == 1
    # the committed record the new leader lacks: broker 1's empty slot at offset 1, outlined in red
    focus = page.page.locator("#groups .slot.focus")
    assert [(s.evaluate("(e) => e.closest('[data-group]').dataset.group"),
             s.evaluate("(e) => e.closest('[data-row]').dataset.row"), s.get_attribute("data-offset"))
            for s in focus.all()] == [("replicas", "broker 1", "0")]
    assert "a red outline marks the record it is about" in page.text("#legend")
    assert page.js("document.documentElement.scrollWidth") <= width
    assert page.js("[...document.querySelectorAll('.table-wrap')].every(t => t.scrollWidth <= t.clientWidth)")
    page.page.click('#timeline-list li[data-index="4"]')
    page.shot(f"kraft-last-replica-standing-{width}")
    page.close()


def test_a_kip966_check_off_trace_outlines_the_missing_record(browser, tmp_path):
    """KIP-966 with IsrJoinRequiresEpochStart off (22 states): the KRaft
    layout with the ELR, and on the last state broker 1's empty slot and the
    record brokers 2 and 3 hold at offset 1, outlined in red."""
    out = tmp_path / "kip966.html"
    write_html(load_view(os.path.join(ROOT, "traces", "kraft-kip966-no-isr-join-epoch-start-check.itf.json")),
               str(out))
    page = Page(browser, out, 1400)
    assert page.text("#title") == "kraft-kip966: LeaderCandidateCompletenessProperty violated in state 22"
    page.page.keyboard.press("End")
    focus = page.page.locator('#groups [data-group="replicas"] .slot.focus')
    assert [(s.evaluate("(e) => e.closest('[data-row]').dataset.row"), s.get_attribute("data-offset"))
            for s in focus.all()] == [("broker 1", "0"), ("broker 2", "0"), ("broker 3", "0")]
    assert page.row_cell("controller", "elr").count() == 1  # KIP-966's ELR, drawn as a row of broker chips
    assert page.page.locator("#notes li").all_text_contents()[-1] == \
        "broker 1 joins the ISR without committed A@1 at offset 1"
    assert not page.errors and page.requests == [page.url]
    page.close()
