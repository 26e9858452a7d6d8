"""The example notebook in a real JupyterLab, run with Run All in headless Chromium.

The 3-D view is read back from the screen: on first display, with no user input, it must
show the body (many distinct colours, the body's blue near the centre), not the background
alone; after the notebook's live run its pixels must have changed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from playwright.sync_api import Browser, Locator, Page
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from support.pagekit import REPO, SHOTS, decode_png, free_port

pytest.importorskip("jupyterlab")
pytest.importorskip("pythreejs")

BACKGROUND = np.array([0xE8, 0xED, 0xF2])


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """A JupyterLab server on a loopback port, its own config, the example notebook."""
    root = tmp_path_factory.mktemp("lab")
    shutil.copy(REPO / "examples" / "tennis_racket.ipynb", root)
    token = uuid.uuid4().hex
    port = free_port()
    env = {
        **os.environ,
        "JUPYTER_CONFIG_DIR": str(root / ".config"),
        "JUPYTER_RUNTIME_DIR": str(root / ".runtime"),
        "JUPYTERLAB_SETTINGS_DIR": str(root / ".settings"),
        "JUPYTERLAB_WORKSPACES_DIR": str(root / ".workspaces"),
    }
    # Every cell attached and drawn wherever the notebook is scrolled: in its windowed modes
    # JupyterLab defers or skips the cells out of view, and whether Run All leaves the first
    # cell's 3-D view or the last cell's text in view depends on timing (under load, either
    # was seen missing for minutes).
    tracker = root / ".settings" / "@jupyterlab" / "notebook-extension"
    tracker.mkdir(parents=True)
    # The notebook's own kernel is started without asking: JupyterLab shows its "Select
    # Kernel" dialog when the kernel specs are not loaded in time (seen under load), and a CI
    # run's dialog stayed open for minutes after being accepted.
    (tracker / "tracker.jupyterlab-settings").write_text(
        '{"windowingMode": "none", "autoStartDefaultKernel": true}'
    )
    log = (root / "lab.log").open("wb")
    cmd = [
        sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root",
        "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}",
        f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
        "--LabApp.news_url=", "--ServerApp.port_retries=0",
    ]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=root)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    try:
        while True:
            if proc.poll() is not None:
                raise RuntimeError((root / "lab.log").read_text()[-3000:])
            try:
                with urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=1) as r:
                    if r.status == 200:
                        break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError("JupyterLab did not start in 60 s") from None
                time.sleep(0.2)  # polling the server's own readiness
        yield url, token
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def canvas_pixels(canvas: Locator) -> np.ndarray:
    """What the canvas shows on screen, (H, W, 3) uint8."""
    return decode_png(canvas.screenshot())[..., :3]


def colours(img: np.ndarray) -> int:
    return len(np.unique(img.reshape(-1, 3) // 8, axis=0))


def blue_share(img: np.ndarray) -> float:
    """Share of pixels of the middle half that are the body's blue (Simple/Blue, lit)."""
    h, w, _ = img.shape
    mid = img[h // 4 : 3 * h // 4, w // 4 : 3 * w // 4].reshape(-1, 3).astype(int)
    blue = (mid[:, 2] - mid[:, 0] > 60) & (mid[:, 2] - mid[:, 1] > 30)
    return float(blue.mean())


def answer_kernel_dialog(page: Page) -> None:
    """If JupyterLab asks which kernel to start (the session's kernel was not up in time, seen
    on a loaded machine), accept its default, the notebook's own python3: once, then until
    it has gone (each accept starts a kernel and stops the one before, and a dialog still
    closing was accepted again every poll: a CI run's log showed seven kernels started in two
    seconds), at most three times (a CI run's dialog stayed 30 s after one accept)."""
    dialog = page.locator(".jp-Dialog", has_text="Select Kernel")
    if not dialog.is_visible():
        return
    for _ in range(3):
        dialog.locator("button.jp-mod-accept").click()
        try:
            dialog.wait_for(state="hidden", timeout=20_000)
            return
        except PlaywrightTimeoutError:
            continue


def wait_answering_kernel_dialogs(page: Page, condition: str, seconds: float) -> None:
    """Wait until `condition` holds, answering JupyterLab's kernel dialog meanwhile."""
    deadline = time.monotonic() + seconds
    while not page.evaluate(condition):
        answer_kernel_dialog(page)
        if time.monotonic() > deadline:
            raise TimeoutError(f"not within {seconds} s: {condition}")
        page.wait_for_timeout(250)  # polling the condition


FINISHED = (  # the last cell waits for the notebook's own live run, then prints this
    "() => [...document.querySelectorAll('.jp-OutputArea-output')]"
    ".some((e) => /running: False/.test(e.textContent))"
)
WIDGET_LOST = (  # JupyterLab's widget manager missed the view's model (see below)
    "() => [...document.querySelectorAll('.jp-OutputArea-output')]"
    ".some((e) => /Error displaying widget/.test(e.textContent))"
)
LAST_COUNT = (  # the execution count of the last code cell, 0 if it has none
    "() => { const p = [...document.querySelectorAll('.jp-CodeCell .jp-InputArea-prompt')];"
    " const m = /\\[(\\d+)\\]/.exec(p.at(-1)?.textContent ?? ''); return m ? +m[1] : 0; }"
)
QUEUED = (  # some cell is running or waiting to run
    "() => [...document.querySelectorAll('.jp-InputArea-prompt')]"
    ".some((e) => /\\[\\*\\]/.test(e.textContent))"
)


def run_all_to_the_end(page: Page, seconds: float) -> None:
    """Run ▸ Run All Cells, as a user would, and wait until the last cell has printed; again
    if for 10 s no cell is queued and the last has not printed. On a loaded machine JupyterLab
    was seen dropping a Run All given while the kernel was connecting, and starting a second
    kernel at open and shutting the first, which clears the queue it held (every prompt back
    to [ ] and nothing running, a CI run waited 240 s for that)."""
    deadline = time.monotonic() + seconds
    for _ in range(3):
        answer_kernel_dialog(page)  # open, it would take the click (seen beside busy work)
        count_before = page.evaluate(LAST_COUNT)
        page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
        page.locator("li[data-command='runmenu:run-all']").click()
        idle_since = time.monotonic()
        while time.monotonic() - idle_since < 10:
            if page.evaluate(QUEUED):
                idle_since = time.monotonic()
            elif page.evaluate(LAST_COUNT) > count_before and page.evaluate(FINISHED):
                return  # this Run All is through
            answer_kernel_dialog(page)
            if time.monotonic() > deadline:
                raise TimeoutError(f"the notebook did not run to its end in {seconds} s")
            page.wait_for_timeout(250)  # polling the notebook's prompts
    raise TimeoutError("three Run Alls did not run the notebook to its end")


def open_notebook(page: Page) -> None:
    """Wait until the notebook is shown and its kernel idle."""
    page.locator(".jp-Notebook").wait_for(timeout=60_000)
    wait_answering_kernel_dialogs(
        page,
        "() => document.querySelector('.jp-Notebook-ExecutionIndicator')"
        "?.getAttribute('data-status') === 'idle'",
        60,
    )


def show_the_view(page: Page) -> Locator:
    """The first cell's 3-D view, brought back into view and drawn; the notebook is run once
    more if JupyterLab's widget manager lost the view's model. Under load, jupyter_server was
    seen failing the page's first kernel websocket (500, a race in its select_subprotocol), and
    the widget manager, listening on that connection, then shows "Error displaying widget:
    model not found" (ipywidgets#3823) although the kernel made the model, for every later
    run on that page too: as a user would, the page is reloaded (it joins the same kernel on a
    fresh connection) and the notebook run again."""
    for attempt in range(2):
        # Run All leaves the notebook scrolled to its last cell, and JupyterLab does not render
        # the outputs of cells far out of view: the view's cell is brought back first (a CI
        # run waited 120 s for a canvas that was scrolled away)
        view_cell = page.locator(".jp-CodeCell", has_text="view = BodyView(").first
        view_cell.scroll_into_view_if_needed()
        canvas = page.locator(".jp-OutputArea-output canvas").first
        # the widget's view comes after the cell's text: under load it took over 30 s in CI
        lost = view_cell.locator(".jp-OutputArea-output", has_text="Error displaying widget")
        canvas.or_(lost).first.wait_for(state="visible", timeout=120_000)
        if not lost.count():
            return canvas
        if attempt == 0:
            page.reload()
            open_notebook(page)
            run_all_to_the_end(page, 240)
    raise AssertionError("JupyterLab could not display the view twice: model not found")


@pytest.mark.timeout(600)  # a second Run All (see show_the_view) under load
def test_the_notebook_shows_the_body_on_first_display_and_moves_live(
    lab: tuple[str, str], browser: Browser
) -> None:
    url, token = lab
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    try:
        page.goto(f"{url}/lab/tree/tennis_racket.ipynb?token={token}")
        open_notebook(page)
        run_all_to_the_end(page, 240)
        canvas = show_the_view(page)
        # no click, no drag: wait only until WebGL has drawn the frame
        deadline = time.monotonic() + 30
        first = canvas_pixels(canvas)
        while colours(first) < 40 and time.monotonic() < deadline:
            page.wait_for_timeout(200)  # polling the canvas until it is drawn
            first = canvas_pixels(canvas)
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "jupyterlab_first.png"))
        assert colours(first) >= 40, "the 3-D view shows little more than its background"
        assert blue_share(first) > 0.01, "the blue T-handle is not near the middle of the view"
        # run the live cell again: reset, then 1 s live; read the view while it runs
        cell = page.locator(".jp-CodeCell", has_text="live = view.run(1.0)").first
        cell.locator(".jp-InputArea-editor").click()
        page.keyboard.press("Shift+Enter")
        status = page.locator(".jp-OutputArea-output", has_text="· running").first
        status.wait_for(timeout=30_000)

        def moved(img: np.ndarray) -> float:
            return float((np.abs(img.astype(int) - first.astype(int)).max(axis=2) > 30).mean())

        deadline = time.monotonic() + 5  # the live run lasts 1 s
        mid = canvas_pixels(canvas)
        while moved(mid) <= 0.002 and time.monotonic() < deadline:
            mid = canvas_pixels(canvas)  # each screenshot is a fresh read of the screen
        page.screenshot(path=str(SHOTS / "jupyterlab_midrun.png"))
        assert moved(mid) > 0.002, "the view did not move during the live run"
        assert colours(mid) >= 40 and blue_share(mid) > 0.005
    except Exception:
        page.screenshot(path=str(SHOTS / "jupyterlab_failed.png"))
        raise
    finally:
        context.close()


def test_the_notebook_module_needs_the_lab_extension_it_ships() -> None:
    """pythreejs' JupyterLab extension is installed with it (the test above needs it)."""
    out = subprocess.run([sys.executable, "-m", "jupyter", "labextension", "list"],
                         capture_output=True, text=True, check=True)  # fmt: skip
    listed = out.stdout + out.stderr
    assert "jupyter-threejs" in listed and "@jupyter-widgets/jupyterlab-manager" in listed
    assert Path(sys.prefix, "share", "jupyter", "labextensions").is_dir()
