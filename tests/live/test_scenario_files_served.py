"""`sixdof serve --scenario` reads the table files its scenario names by the rule of
`sixdof.scenario.named_files` (issue 40, findings 10 and 11): a name that leaves the scenario's
folder, or a FIFO, stops the server before it listens (exit 2, naming the field), so the
file's numbers never reach a watcher; a table beside the scenario reaches them inline."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from support.serving import Proc, Served
from websockets.sync.client import connect

SECRET = "0,424242\n1,424243\n"
MARK = "42424"


def scenario(folder: Path, name: str) -> Path:
    load = {"kind": "load", "body": "B", "force": [1.0, 0.0, 0.0], "csv": name}
    path = folder / "pushed.json"
    path.write_text(json.dumps({"name": "pushed", "bodies": [{"Name": "B", "Gravity": 0.0}],
                                "elements": [load]}))  # fmt: skip
    return path


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "secret.csv").write_text(SECRET)
    inside = tmp_path / "scenario"
    inside.mkdir()
    (inside / "link.csv").symlink_to(tmp_path / "secret.csv")
    os.mkfifo(inside / "pipe.csv")
    return inside


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("../secret.csv", "goes up a folder ('..')"),
        ("link.csv", "leads out of the scenario's folder through a symlink"),
        ("pipe.csv", "is a FIFO, not a regular file"),
    ],
)
def test_serve_refuses_a_scenario_naming_a_file_it_may_not_read(
    folder: Path, name: str, words: str
) -> None:
    path = scenario(folder, name)
    server = Proc([sys.executable, "-m", "sixdof.cli", "serve", "--host", "127.0.0.1",
                   "--port", "0", "--token", "", "--scenario", str(path)])  # fmt: skip
    try:
        first = server.wait_for(r"sixdof: (error|serving)", timeout=120)
        assert first.group(1) == "error", server.output  # it never listened
        assert server.proc.wait(60) == 2, server.output
    finally:
        server.stop()
    assert f"{path}:1: elements[0] csv: {name} {words}" in server.output, server.output
    assert MARK not in server.output and "Traceback" not in server.output


def test_serve_sends_a_table_beside_its_scenario_to_every_watcher(folder: Path) -> None:
    (folder / "thrust.csv").write_text("t,value\n0,0\n1,2.5\n2,0\n")
    server = Served(scenario=scenario(folder, "thrust.csv"))
    try:
        with connect(f"{server.ws_url}?room=tabled", open_timeout=30) as ws:
            while (hello := json.loads(ws.recv(timeout=120)))["type"] != "hello":
                assert hello["type"] == "preparing", hello  # the first room loads the physics
        load = hello["scenario"]["elements"][0]
        assert (load["signal"], load["table"]) == ("table", [[0, 0], [1, 2.5], [2, 0]])
        assert "csv" not in load  # the room carries numbers, never a path on the server
    finally:
        server.stop()
    server.check_log()
