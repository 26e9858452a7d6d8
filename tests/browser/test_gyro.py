"""A gyroscope recording dropped on the page: the measured ω and the simulated ω plotted,
and the fitted inertia applied to the body."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

import pytest
from support.pagekit import SHOTS, WAIT_MS, PageRun, Served

EXAMPLE = (Path(__file__).resolve().parents[2] / "examples" / "gyro_flip.csv").read_text()

DROP = """([text, name]) => {
  const data = new DataTransfer();
  data.items.add(new File([text], name, { type: 'text/csv' }));
  const view = document.getElementById('view');
  for (const type of ['dragenter', 'dragover', 'drop']) {
    const init = { bubbles: true, cancelable: true, dataTransfer: data };
    view.dispatchEvent(new DragEvent(type, init));
  }
}"""

# the chart's series: [t, measured x, y, z, simulated x, y, z], their labels and lengths
CHART = """() => {
  const u = __sixdof.gyro.chart;
  return u && { labels: u.series.map((s) => s.label), lengths: u.data.map((d) => d.length),
                first: u.data.map((d) => d[0]), shown: !document.getElementById('gyro').hidden };
}"""


def scenario_body(server: Served, room: str) -> dict:
    with urllib.request.urlopen(f"{server.url}/api/rooms/{room}/scenario", timeout=10) as r:
        return json.loads(r.read())["bodies"][0]


def test_a_dropped_recording_is_plotted_against_the_simulation(
    page_run: PageRun, server: Served
) -> None:
    page = page_run.page
    page.evaluate(DROP, [EXAMPLE, "Raw Data.csv"])
    page.wait_for_function("() => __sixdof.gyro.reply && __sixdof.gyro.draws > 0", timeout=WAIT_MS)
    chart = page.evaluate(CHART)
    assert chart["shown"]
    assert chart["labels"][1:] == [
        "measured ωx", "measured ωy", "measured ωz", "simulated ωx", "simulated ωy", "simulated ωz",
    ]  # fmt: skip
    assert chart["lengths"] == [160] * 7  # every measured sample, the simulation on its times
    # the simulation starts from the recording's initial ω
    assert chart["first"][4] == pytest.approx(chart["first"][1], abs=0.05)
    text = page.inner_text("#gyro .gyro-result")
    assert "Ix/Iz = 0.81" in text and "Iy/Iz = 0.19" in text
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.locator("#gyro").screenshot(path=str(SHOTS / "gyro.png"))

    # Apply: the body gets the fitted ratios (its Iz kept) and the lines follow the dots
    rz_before = scenario_body(server, page_run.room)["InertiaRadi"][2]
    draws = page.evaluate("__sixdof.gyro.draws")
    page.click("#gyro [data-act=apply]")
    page.wait_for_function(f"() => __sixdof.gyro.draws > {draws}", timeout=WAIT_MS)
    assert "Applied" in page.inner_text("#gyro .gyro-status")
    rx, ry, rz = scenario_body(server, page_run.room)["InertiaRadi"]
    assert rz == pytest.approx(rz_before)
    assert [(rx / rz) ** 2, (ry / rz) ** 2] == pytest.approx([0.810, 0.194], rel=0.02)
    # now the simulation (lines) follows the measurement (dots)
    rms = page.evaluate("""() => {
      const d = __sixdof.gyro.chart.data; let s = 0;
      for (let k = 1; k <= 3; k++)
        for (let i = 0; i < d[0].length; i++) s += (d[k][i] - d[k + 3][i]) ** 2;
      return Math.sqrt(s / (3 * d[0].length));
    }""")
    assert rms < 0.1  # rad/s
    # projector mode widens the dialog (the class reads the fit off the wall): the chart follows
    width = page.evaluate("__sixdof.gyro.chart.width")
    page.locator("#scene").focus()
    page.keyboard.press("p")
    page.wait_for_function(
        "(w) => { const u = __sixdof.gyro.chart, cell = document.querySelector('#gyro .gyro-plot');"
        " return cell.clientWidth > w && u.width === cell.clientWidth; }",
        arg=width,
        timeout=WAIT_MS,
    )
    assert page_run.errors == []
