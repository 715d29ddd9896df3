"""The HTML viewer, driven in Debian's chromium through Playwright.

Each test opens the written file (file://), walks through every state with
the keyboard and with clicks, checks what each state shows against the trace
itself, and checks that the page logs no console error and asks the network
for nothing: the only request is the file itself.
"""

import json
import os
import shutil

import pytest

from support import ROOT
from modelcheck.viewer import load_view
from modelcheck.viewer.html import render_html, script_json, write_html

sync_api = pytest.importorskip("playwright.sync_api")

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
FIRST_TRY = os.path.join(ROOT, "traces", "kip320-first-try-StrongIsr.itf.json")
CONSUMER = os.path.join(ROOT, "tests", "fixtures", "tlc", "kip320-consumer-NoDivergentDelivery.json")

pytestmark = pytest.mark.skipif(not shutil.which(CHROMIUM) and not os.path.exists(CHROMIUM),
                                reason="Debian's chromium is not installed (tests/install-deps.sh installs it)")


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

    def __init__(self, context, path):
        self.url = "file://" + os.path.abspath(path)
        self.errors, self.requests = [], []
        self.page = context.new_page()
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.goto(self.url)
        self.page.wait_for_selector("body[data-ready=yes]")

    def text(self, selector):
        return self.page.text_content(selector)

    def row_cell(self, row, cell):
        return self.page.locator(f'#groups [data-row="{row}"] [data-cell="{cell}"]')

    def records(self, row, cell="log"):
        return self.row_cell(row, cell).locator(".rec").all_text_contents()


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
    assert page.page.locator("#timeline-list li").count() == 13
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
    assert page.row_cell("consumer", "divergent").text_content() == "YES"
    assert page.records("r2") == ["id1@2", "id2@2"]  # offset 0 differs from what the consumer has
    assert "at offset 0 r2 has id1@2 where the consumer delivered id0@0" in page.text(".explanation .text")
    page.page.click('#timeline-list li[data-index="15"]')  # the stale-metadata refresh
    assert page.row_cell("consumer", "leader").text_content() == "r2"
    assert page.row_cell("consumer", "validation").text_content() == "done"
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
