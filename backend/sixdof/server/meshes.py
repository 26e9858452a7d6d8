"""POST /api/meshes: a mesh file uploaded, checked and kept by its content; GET it back.

Before anything is read: the Origin is checked and the token (if the server has one), as
for any change of a room; the body is read only up to meshfiles.MAX_MESH_BYTES (413 before
a larger one is read, request_body.py). Reading and checking a mesh costs about
READ_SECONDS_PER_BYTE per byte (trimesh's parse, merging its vertices, judging its edges):
that is charged up front to the client's address (MESH_RATE s per s up to MESH_BURST s;
429 naming the wait when short) and the work runs off the event loop. A file refused
(MeshFileError: the file's name and the reason) is not stored; one accepted is put in the
process's mesh store (meshstore.py: the same bytes are one mesh) and answers

    {"id": "sha256:…", "name", "triangles", "watertight", "boundary_edges", "winding",
     "volume" (m³ at MeshUnits m, null when open), "bounds": [[min], [max]]}

so a scenario on this server can name it `"Mesh": "sha256:…"`.
"""

from __future__ import annotations

import asyncio
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Header, HTTPException, Query, Request
from fastapi.responses import Response

from ..meshstore import MeshStoreFull, display_name, is_mesh_id, mesh_store, remember_name
from .budget import Budgets, WorkBudget
from .request_body import capped_body
from .rest import _require_control
from .rest_budget import client_address
from .settings import Settings
from .ws import origin_allowed

router = APIRouter(prefix="/api")

#: Reading and checking a mesh, s per byte (a 10 MB STL of 200,000 triangles: ~4 s measured
#: on a busy two-core machine), charged before it is read.
READ_SECONDS_PER_BYTE = 4e-7
#: Reading time an address earns per second, and the most it holds, s.
MESH_RATE = 0.2
MESH_BURST = 20.0
_NAME = r"^[^/\\\x00]{1,128}$"
_NAME_TEXT = "the file's name; its suffix says the format (.stl .obj .ply .glb .gltf)"


def _budget(request: Request) -> WorkBudget:
    state = request.app.state
    if getattr(state, "mesh_budgets", None) is None:
        state.mesh_budgets = Budgets(MESH_RATE, MESH_BURST)
    budgets: Budgets = state.mesh_budgets
    return budgets.of(client_address(request))


def _charge(budget: WorkBudget, seconds: float) -> None:
    """Charge `seconds` of reading to the address (and all addresses), or 429 with the wait."""
    if budget.left() < seconds:
        wait = budget.wait_for(seconds)
        raise HTTPException(
            429,
            f"meshes: reading this file needs about {seconds:.2g} s of the server's time; your "
            f"address has {max(budget.left(), 0.0):.2g} s left (it refills at {budget.rate:g} "
            f"s per s, up to {budget.burst:g} s); try again in {wait:.2g} s",
            headers={"Retry-After": str(max(1, round(wait)))},
        )
    budget.charge(seconds)


def _summary(data: bytes, name: str) -> dict[str, Any]:
    """Check the mesh (MeshFileError) and describe it; runs in a worker thread."""
    from ..dynamics.mesh_inertia import solid_moments
    from ..meshfiles import checked

    mesh = checked(data, name)
    volume = solid_moments(mesh.triangles()).measure if mesh.closed else None
    low, high = mesh.bounds()
    return {
        "name": mesh.name,
        "triangles": len(mesh.faces),
        "watertight": mesh.closed,
        "boundary_edges": mesh.boundary_edges,
        "winding": mesh.winding,
        "volume": volume,
        "bounds": [low.tolist(), high.tolist()],
    }


@router.post("/meshes", response_model=dict[str, Any])
async def upload_mesh(
    request: Request,
    name: Annotated[str, Query(pattern=_NAME, description=_NAME_TEXT)],
    token: Annotated[str | None, Query()] = None,
    authorization: Annotated[str | None, Header()] = None,
) -> dict[str, Any]:
    """Upload a mesh file (the request body, as it is); answers its id and what it is.
    Needs the token if the server has one."""
    from ..meshfiles import MAX_MESH_BYTES, MeshFileError, file_type

    settings: Settings = request.app.state.settings
    if not origin_allowed(request.headers, settings):
        raise HTTPException(403, "this Origin may not upload meshes (see --allow-origin)")
    _require_control(request, settings, token, authorization)
    try:
        file_type(name)
    except MeshFileError as exc:
        raise HTTPException(422, str(exc)) from None
    declared = request.headers.get("content-length", "")
    budget = _budget(request)
    if declared.isascii() and declared.isdigit() and int(declared) <= MAX_MESH_BYTES:
        _charge(budget, int(declared) * READ_SECONDS_PER_BYTE)
        charged = int(declared)
    else:
        charged = 0
    raw = await capped_body(request, MAX_MESH_BYTES)
    if len(raw) > charged:
        _charge(budget, (len(raw) - charged) * READ_SECONDS_PER_BYTE)
    try:
        summary = await asyncio.to_thread(_summary, raw, name)
        key = mesh_store().put(raw)
    except MeshFileError as exc:
        raise HTTPException(422, str(exc)) from None
    except MeshStoreFull as exc:
        raise HTTPException(507, str(exc)) from None
    remember_name(key, summary["name"])
    return {"id": key, **summary}


@router.get("/meshes/{mesh_id}")
async def get_mesh(mesh_id: str) -> Response:
    """A stored mesh's bytes as uploaded; its file name in Content-Disposition."""
    data = mesh_store().get(mesh_id) if is_mesh_id(mesh_id) else None
    if data is None:
        raise HTTPException(404, f"no mesh {mesh_id[:80]!r} on this server")
    # a header is latin-1: the name as ASCII, and whole in RFC 5987's filename* (an uploaded
    # "船.stl", or a stored mesh's id shortened with an ellipsis after a restart)
    name = display_name(mesh_id)
    plain = name.encode("ascii", "replace").decode().replace('"', "").replace("?", "_")
    return Response(
        data,
        media_type="application/octet-stream",
        headers={"Content-Disposition": f"attachment; filename=\"{plain}\"; "
                                        f"filename*=UTF-8''{quote(name, safe='')}",
                 "Cache-Control": "public, max-age=31536000, immutable"},
    )  # fmt: skip
