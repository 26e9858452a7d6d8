"""Loading a server's physics: numpy, the engine and its compiled kernels, with the first
room rather than at start-up, and at a cold start (numba's cache empty) compiling them at
once in a child process, free bodies first (docs/deploy.md, "The first start of a fresh
install"). `Rooms` (registry.py) is a `PhysicsLoading`: a viewer who comes before the
physics is ready is told so (`preparing`) and let in when it is."""

from __future__ import annotations

import asyncio
import gc
import importlib
import logging
import os
import signal
import sys
import time
from collections.abc import Callable

from ..dynamics import kernel_cache
from ..simulation import compiled_here, elements_gate, free_is_warm, is_warm, warm_up, warm_up_free
from .errors import Stopping
from .protocol import Preparing

log = logging.getLogger("sixdof.server")

#: What `preparing` expects, s: compiling the kernels (numba's cache cold, a quiet two-core
#: machine, 2026-12-06: the elements' kernels loaded 87 s after the start, the stepping
#: kernel's parts compiled beside each other; `sixdof warm` 81 s, ~150 s of CPU), loading
#: them from the cache (~0.6 s).
COMPILE_SECONDS = 90.0
LOAD_SECONDS = 1.0
#: The share of a compilation that numba's 8 entry kernels take (then the elements' kernels,
#: uncounted): 13 s of 81 s in `sixdof warm` on the quiet machine.
ENTRY_SHARE = 0.16
#: A viewer waiting for the physics gets a new `preparing` (its progress) this often, s.
PROGRESS_EVERY = 1.0


#: The kernels' groups a server's cold start compiles (dynamics/kernel_warm.py), in order.
WARM_GROUPS = (
    "free", "system_derivative", "tree_run", "hull", "run_one", "group_run", "system_serial",
)  # fmt: skip


def _kill_group(pid: int) -> None:
    """Kill process `pid`'s process group (a compile and its workers)."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _modules() -> None:
    compiled_here.listen()
    for module in ("live", "engine", "replay", "ghost"):  # what a room uses
        importlib.import_module(f"..simulation.{module}", __package__)
    importlib.import_module(".binary", __package__)


def _load() -> None:
    """The simulation's modules and kernels, into this process (a thread of it)."""
    _modules()
    if warm_up() > 0.0:
        gc.collect()
        gc.freeze()
    elements_gate.release()  # rooms with elements may be built now


def _load_free(why: Callable[[], str]) -> bool:
    """The modules and the free bodies' kernels alone, while a cold start's child still
    compiles the elements' (`Rooms.free_physics_ready`): worlds with elements are refused,
    saying `why()`, until `_load` has loaded them. False (nothing loaded) where numba's
    cache indexes cannot be locked against the child's workers writing theirs."""
    from ..simulation.warming import WarmFailed, lock_the_index

    try:
        lock_the_index()
    except WarmFailed as exc:
        log.info("rooms of free bodies wait for the whole physics: %s", exc)
        return False
    elements_gate.hold(why)
    _modules()
    if warm_up_free() > 0.0:
        gc.collect()
        gc.freeze()
    return True


class PhysicsLoading:
    """The physics of a server's process: loaded once for all its rooms (`physics_ready`,
    `free_physics_ready`), compiled first in a child when numba's cache is cold."""

    def __init__(self) -> None:
        self._loading: tuple[float, bool] | None = None  # (monotonic start, cache was cold)
        self._filling: asyncio.Task[None] | None = None  # `sixdof warm` in a child process
        self._stopping = False  # the server stops: nothing more is prepared (stop_preparing)
        self._ready: asyncio.Task[None] | None = None  # the physics loading in this process
        self._stage = "loading"  # what `preparing` says is being done
        self._entry_done: float | None = None  # s into compiling when the 8 kernels were done
        self._free_compiled = asyncio.Event()  # the child compiled the free bodies' kernels
        self._free: asyncio.Task[bool] | None = None  # those kernels loading in this process

    async def preparing(self) -> str:
        """The `preparing` message for a viewer who joins before the physics is loaded: what
        is being done (compiling numba's kernels, or loading them), for how long so far,
        how long it is expected to take and how far it is."""
        since, cold = await self._started()
        elapsed = time.monotonic() - since
        progress: float | None = None
        if self._stage == "compiling":
            total = len(kernel_cache.ENTRY_POINTS)
            done = await asyncio.to_thread(kernel_cache.fresh)  # reads 8 small files
            if done < total:
                progress = ENTRY_SHARE * done / total
            else:  # the elements' kernels, which leave no file to count: by the time taken
                if self._entry_done is None:
                    self._entry_done = elapsed
                rest = self._entry_done * (1 - ENTRY_SHARE) / ENTRY_SHARE
                progress = ENTRY_SHARE + (1 - ENTRY_SHARE) * min(
                    0.95, (elapsed - self._entry_done) / max(rest, 1e-3)
                )
            expected = COMPILE_SECONDS
            if progress and elapsed > expected * progress:  # slower than usual: extrapolate
                expected = elapsed / progress
            what = f"{done} of {total} kernels" if done < total else "the elements' kernels"
            message = (
                "preparing the physics — the first start compiles it, about "
                f"{COMPILE_SECONDS:.0f} s ({what})"
            )
        else:
            expected = LOAD_SECONDS + (COMPILE_SECONDS if cold and self._filling is None else 0)
            if cold and self._filling is None:  # compiled here: no child could fill the cache
                message = (
                    "preparing the physics — the first start compiles it, about "
                    f"{COMPILE_SECONDS:.0f} s"
                )
            else:
                message = "preparing the physics — loading it, about a second"
        return Preparing(
            message=message,
            cold=cold,
            elapsed=round(elapsed, 2),
            expected=round(max(expected, elapsed), 1),
            progress=progress,
        ).model_dump_json()

    async def _started(self) -> tuple[float, bool]:
        """When the physics began loading (time.monotonic) and whether numba's cache was
        cold then; noted by the first to ask. The check hashes the kernels' sources (~60 ms),
        so it runs in a thread, not on the event loop."""
        if self._loading is None:
            since = time.monotonic()
            cold = await asyncio.to_thread(kernel_cache.is_cold)
            if self._loading is None:  # a viewer who came meanwhile may have noted it
                self._loading = (since, cold)
        return self._loading

    def prepare_in_background(self) -> None:
        """At start-up: when numba's cache is cold, fill it now in a child process
        (as `sixdof warm`), so the first viewer does not wait the whole compilation (~1 min) and
        an idle server's own memory stays as it is (the child's ~250 MiB are gone when it
        ends; this process loads the kernels from the cache at the first join, ~0.6 s).
        With a warm cache nothing is done before the first join. docs/deploy.md says why."""
        if self._filling is None and not is_warm():
            self._filling = asyncio.get_running_loop().create_task(
                self._fill_cache(), name="sixdof-warm"
            )

    async def _fill_cache(self) -> None:
        since = time.monotonic()
        if not await asyncio.to_thread(kernel_cache.is_cold):
            return  # warm: the first join notes when its own loading starts
        if self._loading is None:
            self._loading = (since, True)
        self._stage = "compiling"
        log.info("numba's cache is cold: compiling the kernels in a child process (sixdof warm)")
        child = None
        try:
            # warm_up's groups alone, what `_load` needs (`sixdof warm` also compiles the
            # headless integrators, which a server does not use), across the cores in
            # workers of its own: the free bodies' kernels first (simulation/warming.py).
            # A session of its own, so that a stop kills its workers with it.
            child = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "sixdof.simulation.warming", *WARM_GROUPS,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
                start_new_session=True,
            )  # fmt: skip
            assert child.stdout is not None and child.stderr is not None
            _, err = await asyncio.gather(self._count_free(child.stdout), child.stderr.read())
            await child.wait()
        except asyncio.CancelledError:  # the server stops: so does the compilation
            if child is not None and child.returncode is None:
                _kill_group(child.pid)
                await child.wait()
            raise
        except OSError as exc:
            log.warning("could not start `sixdof warm` (%s): the first room compiles", exc)
            return
        finally:
            self._stage = "loading"
        if child.returncode != 0:
            log.warning("`sixdof warm` failed (exit %s): the first room compiles the kernels:"
                        "\n%s", child.returncode, err.decode(errors="replace")[-2000:])  # fmt: skip
        else:
            log.info("numba's cache filled in %.1f s", time.monotonic() - since)
            self._loading = None  # what is left is loading: noted (warm) at the first join
        if free_is_warm() and not self._stopping:  # rooms of free bodies run: load the rest
            asyncio.get_running_loop().create_task(self._load_the_rest(), name="sixdof-load")

    async def _load_the_rest(self) -> None:
        """The elements' kernels loaded after a cold start's compile, rooms of free bodies
        running meanwhile. If that fails, worlds with elements are refused saying so, not
        "try again in about 10 s" for as long as the server runs."""
        try:
            await self.physics_ready()
        except Stopping:
            return
        except Exception as exc:
            log.exception("loading the physics of elements failed")
            cause = f"{type(exc).__name__}: {exc}"[:200]
            elements_gate.hold(lambda: (
                f"the physics of elements could not be loaded ({cause}); nothing was changed: "
                "the server's log has the details, and a restart loads it again"
            ))  # fmt: skip

    async def _count_free(self, lines: asyncio.StreamReader) -> None:
        """Read the child's lines ("3/14 _spans_serial", warming.main): once every kernel of
        the free bodies' group has been named, rooms of free bodies can run on them."""
        left = set(kernel_cache.KERNELS[0][1])  # dynamics/kernel_warm.FREE's
        async for line in lines:
            left.discard(line.decode(errors="replace").strip().partition(" ")[2])
            if not left:
                self._free_compiled.set()

    async def physics_ready(self) -> None:
        """Load the simulation before the first room: numpy, the engine's modules, numba and
        its cached kernels, ~140 MiB and ~0.6 s (a compilation of ~1 min if numba's cache is
        cold: `sixdof warm`, which `prepare_in_background` runs in a child at start-up; then
        this waits for it first).

        A server nobody has joined does not hold them, and they load in a thread so the
        event loop keeps answering meanwhile. The objects they bring are long-lived: frozen
        out of the garbage collector's sight, as at start-up (`launch`)."""
        if is_warm():
            return
        await self._started()
        if self._filling is not None:
            try:  # shielded: a viewer who leaves does not stop it
                await asyncio.shield(self._filling)
            except asyncio.CancelledError:
                if not self._stopping:  # this waiter itself was cancelled
                    raise
            except Exception:  # it said why in the log; loading here compiles instead
                pass
        if self._stopping:  # the server stops: nothing is loaded (or compiled) for it now
            raise Stopping("the server is stopping")
        ready = self._ready
        if ready is None or (ready.done() and (ready.cancelled() or ready.exception())):
            ready = self._ready = asyncio.get_running_loop().create_task(asyncio.to_thread(_load))
        await asyncio.shield(ready)  # one load for every viewer waiting

    async def free_physics_ready(self) -> None:
        """The free bodies' physics, loaded: what a room without elements runs on. During a
        cold start's compile that is as soon as the child has compiled their kernels (~13 s
        of CPU, the elements' ~75 s more on two cores: `_load_free`); else the whole physics."""
        if free_is_warm():
            return
        filling = self._filling
        if filling is None or filling.done():
            await self.physics_ready()
            return
        await self._started()
        compiled = asyncio.ensure_future(self._free_compiled.wait())
        try:
            await asyncio.wait({compiled, filling}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            compiled.cancel()
        if self._stopping:
            raise Stopping("the server is stopping")
        if filling.done() or not self._free_compiled.is_set():
            await self.physics_ready()
            return
        task = self._free
        if task is None or (task.done() and (task.cancelled() or task.exception())):
            load = asyncio.to_thread(_load_free, self._elements_wait)
            task = self._free = asyncio.get_running_loop().create_task(load)
        if not await asyncio.shield(task):  # one load for every viewer waiting
            await self.physics_ready()

    def _elements_wait(self) -> str:
        """Why a world with elements is refused while the free bodies' rooms already run."""
        since = self._loading[0] if self._loading is not None else time.monotonic()
        left = max(COMPILE_SECONDS - (time.monotonic() - since), 10.0)
        return (
            "the physics of elements is still being compiled (the first start after an "
            f"install compiles it, about {COMPILE_SECONDS:.0f} s): nothing was changed; try "
            f"again in about {left:.0f} s"
        )

    async def stop_preparing(self) -> None:
        """Stop a compilation under way (the server stops): its child is killed and the
        viewers waiting for it are let go (their `physics_ready` raises Stopping)
        instead of this process compiling in its place."""
        self._stopping = True
        if self._filling is not None and not self._filling.done():
            self._filling.cancel()  # kills the child compiling
            try:
                await self._filling
            except asyncio.CancelledError:
                pass
