"""The calibration page in a real headless Chromium, served by waitress around a real desk:
drag a corner, learn the board, watch the progress, see the reading drawn over the picture,
save; and a refusal shown as its one line. Screenshots go to pytest's temporary folder."""

from __future__ import annotations

import json
import re
import time

import pytest

from calibration_frames import OPENING, QUICK, misreading_model, rendered
from vision.calibration_desk import CalibrationDesk
from web import serve
from web.calibration import create_calibration_app
from web_chromium import page_without_errors

pytestmark = pytest.mark.slow

TOKEN = "browser-token"
WAIT = 15_000  # ms; generous: the machine is shared
LEARN_WAIT = 180_000  # ms: learning this board, on a shared machine


@pytest.fixture(scope="module")
def opening():
    return rendered(OPENING)


@pytest.fixture()
def served(opening, tmp_path):
    # The top-left handle starts 45 px off its corner: learning from there is refused.
    start = opening.corners.copy()
    start[0] += (45, 30)
    # A network that misreads this board's stacks of five: the page shows it being taught.
    desk = CalibrationDesk(opening.image, tmp_path / "club" / "green.json", corners=start, learning=QUICK,
                           point_model=misreading_model(tmp_path))
    server = serve(create_calibration_app(desk, {"ACCESS_TOKEN": TOKEN}), "127.0.0.1", 0, threads=8)
    yield desk, server
    desk.wait(120)
    server.stop()
    assert not server.running


@pytest.fixture()
def page(browser, served):
    with page_without_errors(browser, viewport={"width": 1400, "height": 900}) as page:
        yield page


def _on_screen(page, x, y):
    """Where the picture's pixel (x, y) is on the screen."""
    return page.evaluate("([x, y]) => { const p = new DOMPoint(x, y).matrixTransform("
                         "document.getElementById('view').getScreenCTM()); return [p.x, p.y]; }", [x, y])


def _drag(page, handle, x, y):
    box = page.locator(handle).bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    tx, ty = _on_screen(page, x, y)
    page.mouse.move(tx, ty, steps=8)
    page.mouse.up()


def test_drag_learn_confirm_save(page, served, opening, tmp_path):
    desk, server = served
    page.goto(f"{server.url}/?token={TOKEN}")
    page.wait_for_selector("#view image", timeout=WAIT)
    assert page.get_attribute("#corners-source", "data-source") == "given"
    x, y = opening.corners[0]
    _drag(page, "#corner-0", x, y)
    assert float(page.get_attribute("#corner-0", "cx")) == pytest.approx(x, abs=2)
    assert float(page.get_attribute("#corner-0", "cy")) == pytest.approx(y, abs=2)
    assert page.get_attribute("#outline", "points").startswith(f"{float(page.get_attribute('#corner-0', 'cx'))},")
    page.click("#learn")
    page.wait_for_selector('#stage[data-state="learning"]', timeout=WAIT)
    assert page.locator("#learn").is_disabled()
    seen = set()  # what the progress line said while learning ran
    deadline = time.monotonic() + LEARN_WAIT / 1000
    # the state, the line and the bar read in one go: the page may move on between two reads
    read = ("() => { const s = document.querySelector('#stage');"
            " return [s.dataset.state, s.innerText, document.querySelector('#progress').getAttribute('value')]; }")
    while time.monotonic() < deadline:
        state, text, value = page.evaluate(read)
        if state != "learning":
            break
        seen.add((text, value))
        page.wait_for_timeout(50)
    page.wait_for_selector('#stage[data-state="learned"]', timeout=WAIT)
    stages = {text.rsplit(" ", 1)[0] for text, _ in seen}
    assert stages & {"composing this board", "reading the compositions", "learning this board"}, seen
    assert all(re.fullmatch(r"[a-z ]+ \d+%", text) for text, _ in seen), seen
    assert page.locator("#message").inner_text() == ""
    # The reading, drawn over the picture: one mark per point, the opening's counts.
    assert page.locator("#reading .mark").count() == 24
    for point, count in enumerate(OPENING, start=1):
        mark = page.locator(f"#read-{point}")
        assert mark.get_attribute("data-count") == str(abs(count)), point
        assert mark.get_attribute("data-colour") == ("" if count == 0 else "light" if count > 0 else "dark"), point
    assert page.locator("#confirm").is_visible() and "Learned in" in page.locator("#summary").inner_text()
    # the board's die-like places, drawn as squares and counted in the summary
    n = len(desk.state()["board_marks"])
    assert n >= 1 and page.locator("#reading .board-mark").count() == n
    assert f"{n} place{'s' if n > 1 else ''} of this board look" in page.locator("#summary").inner_text()
    page.screenshot(path=str(tmp_path / "calibration_learned.png"), full_page=True)
    page.click("#save")
    page.wait_for_selector("#saved:has-text('Profile written to')", timeout=WAIT)
    out = tmp_path / "club" / "green.json"
    data = json.loads(out.read_text())
    assert data["point_head"] == "green.points.npz" and (out.parent / "green.points.npz").is_file()
    assert data["corners"]["top_left"] == pytest.approx([x, y], abs=2)


def test_refusals_are_shown_in_one_line(page, served, opening):
    desk, server = served
    page.goto(f"{server.url}/?token={TOKEN}")
    page.wait_for_selector("#view image", timeout=WAIT)
    # Learning from the corners as they start (one 45 px off): the frame does not read as the opening.
    page.click("#learn")
    page.wait_for_selector('#stage[data-state="refused"]', timeout=LEARN_WAIT)
    message = page.locator("#message").inner_text()
    assert "opening position" in message and "want" in message and "\n" not in message
    assert page.locator("#reading .mark").count() == 0 and page.locator("#confirm").is_hidden()
    # Arrow keys move a handle too (shift: ten pixels).
    cx = float(page.get_attribute("#corner-1", "cx"))
    page.focus("#corner-1")
    page.keyboard.press("Shift+ArrowLeft")
    page.keyboard.press("ArrowLeft")
    assert float(page.get_attribute("#corner-1", "cx")) == pytest.approx(cx - 11)
    # The top-left handle dragged past the bottom-right one: no convex field, refused at once.
    bx, by = opening.corners[2]
    _drag(page, "#corner-0", bx + 20, by - 20)
    page.click("#learn")
    page.wait_for_selector("#message:has-text('convex')", timeout=WAIT)
    assert "\n" not in page.locator("#message").inner_text()
    assert desk.state()["state"] == "refused" and page.locator("#reading .mark").count() == 0


def test_viewing_without_the_token_cannot_learn(page, served):
    _desk, server = served
    page.goto(server.url + "/")
    page.wait_for_selector("#view image", timeout=WAIT)
    assert page.locator("#learn").is_disabled() and page.locator("#save").is_disabled()
    assert "Viewing only" in page.locator("#controls").inner_text()


def test_the_dice_shown_are_learned_with_the_board(browser, opening, tmp_path):
    """``companion calibrate --web --learn-dice``: travel dice lying beside the field are measured
    with the board, and the summary says so before the user saves."""
    import numpy as np

    from vision.dice_size import board_die_px
    from vision.registration import field_from_corners
    from vision.render_dice import DIE_STYLES, draw_die

    image = opening.image.copy()
    field = field_from_corners(opening.corners, (1280, 720))
    fw, fh = field.size
    for k, fy in enumerate((0.3, 0.7)):
        x, y = field.to_image(np.array([[1.05 * fw, fy * fh]]))[0]
        draw_die(image, (float(x), float(y)), 0.6 * board_die_px(field, image.shape), 3 + k, style=DIE_STYLES[0])
    desk = CalibrationDesk(image, tmp_path / "travel.json", corners=opening.corners, learning=QUICK, learn_dice=True)
    server = serve(create_calibration_app(desk, {"ACCESS_TOKEN": TOKEN}), "127.0.0.1", 0, threads=8)
    try:
        with page_without_errors(browser, viewport={"width": 1400, "height": 900}) as page:
            page.goto(f"{server.url}/?token={TOKEN}")
            page.wait_for_selector("#view image", timeout=WAIT)
            page.click("#learn")
            page.wait_for_selector('#stage[data-state="learned"]', timeout=LEARN_WAIT)
            summary = page.locator("#summary").inner_text()
            scale, own = desk.state()["dice"]["die_scale"], desk.state()["dice"]["own_size"]
            assert own, scale  # dice of 0.6 of the board's die
            assert f"Dice: {scale:.2f} times a tournament die, searched at their own size" in summary, summary
            assert "Whose dice are whose not learned" in summary, summary
            assert "The opening read right as shipped: nothing to learn" in summary, summary
            page.click("#save")
            page.wait_for_selector("#saved:has-text('Profile written to')", timeout=WAIT)
        assert json.loads((tmp_path / "travel.json").read_text())["die_scale"] == pytest.approx(scale, abs=1e-3)
    finally:
        desk.wait(120)
        server.stop()
