"""The live server's one settings object: every knob in one validated place."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..assets import asset_dir
from ..scenario import Scenario
from ..store import MEMORY


class Settings(BaseModel):
    """What `create_app` needs; `sixdof serve` fills it from its command line."""

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    host: str = Field("127.0.0.1", description="interface to bind; loopback unless told")
    port: int = Field(8000, ge=0, le=65535, description="0 picks a free port")
    scenario: Scenario | None = Field(
        None, description="scenario of new rooms; None: the default preset"
    )
    token: str | None = Field(
        None, min_length=1, description="if set, controlling needs ?token=…; anyone may watch"
    )
    allowed_origins: list[str] = Field(
        default_factory=list,
        description="extra browser Origins allowed on /ws (e.g. http://host:port), or '*'",
    )
    frame_rate: float = Field(60.0, gt=0.0, le=240.0, description="state frames per second")
    room_ttl: float = Field(300.0, ge=0.0, description="s a room lives after its last client")
    max_rooms: int = Field(256, ge=1, description="rooms made by clients that may control")
    max_watcher_rooms: int = Field(
        16, ge=0, description="rooms made by watchers (no token), counted apart from max_rooms"
    )
    max_clients_per_room: int = Field(1000, ge=1)
    max_connections: int = Field(4096, ge=1, description="open connections, all addresses")
    max_connections_per_ip: int = Field(512, ge=1, description="open connections per address")
    header_timeout: float = Field(
        10.0, gt=0.0, le=300.0, description="s to send a request's headers (slowloris)"
    )
    body_timeout: float = Field(
        10.0,
        gt=0.0,
        le=300.0,
        description="s to send a request's body, plus 1 s per 16 KiB sent (trickled uploads); "
        "later: 408",
    )
    max_message_bytes: int = Field(
        64 * 1024, ge=256, description="websocket message or PUT body; larger: refused unread"
    )
    tick_budget: float = Field(
        0.5,
        gt=0.0,
        le=1.0,
        description="share of a frame period one room's physics may take per tick; a room "
        "that needs more drops time (status.compute_limited)",
    )
    work_rate: float = Field(
        0.25, gt=0.0, description="s of server computing per s one address may cause"
    )
    work_burst: float = Field(1.0, gt=0.0, description="s of computing one address may bank")
    slice_seconds: float = Field(
        0.005, gt=0.0, le=0.1, description="longest piece of a message's work between yields"
    )
    max_exports: int = Field(2, ge=1, description="history CSV downloads at the same time")
    rate_limit: float = Field(200.0, gt=0.0, description="messages/s per client (and burst)")
    flood_window: float = Field(
        2.0, gt=0.0, description="more than rate_limit refusals within this many s: close 1008"
    )
    max_pending_replies: int = Field(
        256, ge=8, description="acks/errors/hellos queued for a client that does not read"
    )
    history_seconds: float = Field(60.0, gt=0.0, le=3600.0)
    history_bytes: int = Field(
        8 * 1024 * 1024, ge=4096, description="a room's history at most: fewer s for many bodies"
    )
    history_precision: Literal["float64", "float32"] = Field(
        "float64",
        description="numbers of the history (plots, history.csv): float32 takes half the "
        "memory, with ~7 significant digits, and a recording's re-simulation then matches it "
        "to float32's rounding instead of exactly",
    )
    recording_bytes: int = Field(
        8 * 1024 * 1024,
        ge=64 * 1024,
        description="a room's recording (keyframes and changes) at most; older segments dropped",
    )
    max_answer_bytes: int = Field(
        64 * 1024 * 1024,
        ge=64 * 1024,
        description="cluster: a REST answer (history.csv, recording) a worker sends through a "
        "gateway at most, in pieces of one NATS message; larger: 413",
    )
    gyro_fit_seconds: float = Field(
        60.0,
        gt=0.0,
        le=3600.0,
        description="wall-clock limit of one gyroscope fit (POST /api/rooms/R/gyro) in its "
        "child process; past it the process is killed and the request answered 503",
    )
    data: str = Field(
        MEMORY,
        min_length=1,
        description="data directory of Share links, saved scenarios and lessons (its "
        "sixdof.db); ':memory:' keeps them in memory only (`sixdof serve` defaults to the "
        "user's data folder)",
    )
    web_dir: Path | None = Field(None, description="built page; None: frontend/dist or packaged")
    meshes_dir: Path | None = Field(None, description="meshes; None: meshes/ or packaged")

    def web_path(self) -> Path:
        return self.web_dir if self.web_dir is not None else asset_dir("web")

    def meshes_path(self) -> Path:
        return self.meshes_dir if self.meshes_dir is not None else asset_dir("meshes")


#: Settings a `--limit NAME=VALUE` may change (the others have options of their own).
LIMIT_NAMES = tuple(
    name
    for name in Settings.model_fields
    if name
    not in ("host", "port", "scenario", "token", "allowed_origins", "web_dir", "meshes_dir", "data")
)


def server_limits(pairs: list[str]) -> dict[str, Any]:
    """{"max_rooms": "10", …} from ["max_rooms=10", …], checked against Settings (ValueError
    naming the limit and its allowed values)."""
    out: dict[str, Any] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        name = name.strip().replace("-", "_")
        if not sep or name not in LIMIT_NAMES:
            raise ValueError(
                f"{pair!r}: expected NAME=VALUE with NAME one of {', '.join(LIMIT_NAMES)}"
            )
        out[name] = value.strip()
    try:
        Settings(**out)
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        raise ValueError(f"{err['loc'][0]}: {err['msg']}, got {err['input']!r}") from None
    return out
