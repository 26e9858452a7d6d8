"""SimulationHub: many live simulations advanced together, one compiled call per round.

A server with R rooms used to call `LiveSimulation.advance` R times per frame, each
paying ~140 µs of Python and numpy overhead (pacing, argument checks, the divergence
check, `dynamics.outputs`, the history row) for ~15 µs of physics. The hub does
the same work once per tick for all of them:

1. each simulation's pacer says how many steps k_r of its own size h_r it owes
   (`Pacer.begin`, exactly as `LiveSimulation.advance` starts);
2. the states of all rooms' bodies sit in one array X (ΣN, 13) and one
   `kernel.advance(pk, X, U, h, n, method)` call steps body i of room r by
   n_i = min(k_r − done_r, chunk) steps of h_r with room r's method and its constant
   global input row U_i (zero-order hold, as `stepping.run_steps`);
3. one vectorised divergence check; a room found diverged is replayed alone from
   the start of that round (`stepping.run_steps_checked`), which finds its last good
   state and pauses it, exactly as stepping it alone would;
4. one `dynamics.outputs(X, U, bodies)` for all bodies; each room gets its slice as
   its cached outputs and one history row, as `advance` records; the state frames'
   values become Python lists once per tick for all rooms (`frame()` then slices).

Rounds follow `stepping.run_until`'s chunks (32 steps, doubling to 4096 while a
round takes < 2 ms) and its compute deadline (each room's max_compute), so a
room owing more steps than one chunk is checked for divergence at the same step
counts as alone: the hub gives bit-identical states to `sim.advance(now)` on
each simulation (tests/test_simulation_hub.py).

Simulations the batch cannot hold step through their own `advance`:
orientation-dependent inputs (body frame or at a point: u is re-evaluated every
step), no numba, or an `advance` replaced on the instance or in a subclass.
Parameters are packed once per set of `Bodies` objects: a parameter change or a
load (a new `Bodies`) rebuilds the packed batch on the next tick. An exception
while stepping one simulation is returned for that simulation only; one in the
batched call itself makes every room of the batch step alone for that tick.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING

import numpy as np

from ..dynamics import Bodies, outputs
from ..dynamics.quaternion import Array
from .history import COLUMNS, WIDTH
from .limits import divergence_reason
from .live import LiveSimulation
from .payload import FRAME_KEYS
from .stepping import CHUNK, CHUNK_MAX, CHUNK_SECONDS, _kernel, run_steps_checked

if TYPE_CHECKING:  # the kernel (numba) is imported on first use, as in stepping.py
    from ..dynamics.kernel import PackedBodies


@dataclass
class _Batch:
    """Everything about the simulations' parameters the shared call needs, in hub order."""

    plans: tuple[object, ...]  # each simulation's Plan (identity: the cache key)
    bodies: tuple[Bodies, ...]  # the Bodies packed
    pk: PackedBodies  # all bodies, simulation after simulation
    starts: list[int]  # (R + 1,) first row of simulation r; starts[-1] = total bodies
    sizes: Array  # (R,) bodies per simulation
    names: list[str]  # body names of all rows (for the divergence message of the fast check)
    h_rows: Array  # (ΣN,) step size of each row's simulation, s
    code_rows: Array  # (ΣN,) kernel method code of each row's simulation


class _Shared:
    """One tick's outputs of all bodies, and their frame values as Python lists (made once)."""

    __slots__ = ("lists", "outs")

    def __init__(self, outs: dict[str, Array]) -> None:
        self.outs = outs
        self.lists: dict[str, list] | None = None


class _Rows(Mapping[str, Array]):
    """Rows a:b of every output array, sliced when asked for (most ticks ask for few or none)."""

    __slots__ = ("_a", "_b", "_shared")

    def __init__(self, shared: _Shared, a: int, b: int) -> None:
        self._shared, self._a, self._b = shared, a, b

    def __getitem__(self, key: str) -> Array:
        return self._shared.outs[key][self._a : self._b]

    def __iter__(self) -> Iterator[str]:
        return iter(self._shared.outs)

    def __len__(self) -> int:
        return len(self._shared.outs)

    def body_entries(self, names: Sequence[str]) -> list[dict[str, object]]:
        """`payload.body_entries` of these rows, from lists converted once for every body."""
        shared = self._shared
        if shared.lists is None:  # the first frame of this tick: one tolist per output
            shared.lists = {k: shared.outs[k].tolist() for k in FRAME_KEYS}
        lists = shared.lists
        return [
            {"Name": name, **{k: lists[k][i] for k in FRAME_KEYS}}
            for i, name in enumerate(names, start=self._a)
        ]


def _batchable(sim: LiveSimulation) -> bool:
    """True when the simulation's steps can run in the shared compiled call."""
    own = "advance" in vars(sim) or type(sim).advance is not LiveSimulation.advance
    return not own and not sim._inputs.rotating


class SimulationHub:
    """Holds live simulations and advances all of them with one kernel call per round."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._sims: list[LiveSimulation] = []
        self._batch: _Batch | None = None
        self.last_batched = 0  # simulations stepped by the shared call in the last tick
        self.last_alone = 0  # simulations that stepped through their own advance

    def add(self, sim: LiveSimulation) -> None:
        if sim not in self._sims:
            self._sims.append(sim)

    def remove(self, sim: LiveSimulation) -> None:
        if sim in self._sims:
            self._sims.remove(sim)

    def __len__(self) -> int:
        return len(self._sims)

    def __iter__(self) -> Iterator[LiveSimulation]:
        return iter(list(self._sims))

    def __contains__(self, sim: object) -> bool:
        return sim in self._sims

    # ------------------------------------------------------------------ the tick

    def advance(self, now: float | None = None) -> dict[LiveSimulation, Exception]:
        """Advance every simulation to wall time `now` (default: the clock), as each one's
        `advance(now)` would; returns the exceptions raised, by simulation (usually none)."""
        now = self.clock() if now is None else float(now)
        errors: dict[LiveSimulation, Exception] = {}
        sims = list(self._sims)
        kern = _kernel()
        alone: list[LiveSimulation] = []
        owed: list[tuple[int, int]] = []  # (index, steps owed)
        held = []
        try:
            for sim in sims:  # every lock for the whole tick (fixed order: no deadlock)
                sim._lock.acquire()
                held.append(sim._lock)
            for r, sim in enumerate(sims):
                if kern is None or not _batchable(sim):
                    alone.append(sim)
                    continue
                try:
                    k = sim._pacer.begin(now, sim._w.step, running=sim.running)  # as advance
                except Exception as exc:
                    errors[sim] = exc
                    continue
                if k > 0:
                    owed.append((r, k))
            self.last_batched, self.last_alone = len(owed), len(alone)
            if owed:
                try:
                    self._run_batch(kern, sims, owed)
                except Exception:
                    # Nothing was committed: let each room of the batch step alone, so a
                    # fault shows up in (and pauses) only the room that causes it.
                    for r, k in owed:
                        self._step_alone(sims[r], k, errors)
        finally:
            for lock in held:
                lock.release()
        for sim in alone:
            try:
                sim.advance(now)
            except Exception as exc:
                errors[sim] = exc
        return errors

    @staticmethod
    def _step_alone(sim: LiveSimulation, k: int, errors: dict) -> None:
        try:
            deadline = sim._pacer.compute_deadline(sim._clock())
            taken, cut_short = sim._run(k, deadline)
            sim._pacer.done(k, taken, sim._w.step, cut_short=cut_short)
        except Exception as exc:
            errors[sim] = exc

    def _packed(self, kern: ModuleType, sims: Sequence[LiveSimulation]) -> _Batch:
        """The batch for the simulations' current plans: rebuilt when a plan was replaced
        (set_params, load, a constant input), re-packed only when some Bodies changed."""
        plans = tuple(sim._w for sim in sims)
        b = self._batch
        if b is not None and len(b.plans) == len(plans):
            if all(x is y for x, y in zip(b.plans, plans, strict=True)):
                return b
        bodies = tuple(w.bodies for w in plans)
        if (
            b is not None
            and len(b.bodies) == len(bodies)
            and all(x is y for x, y in zip(b.bodies, bodies, strict=True))
        ):
            pk, starts, sizes, names = b.pk, b.starts, b.sizes, b.names
        else:
            pk = kern.concat([kern.packed(x) for x in bodies])
            sizes = np.array([len(x) for x in bodies], dtype=np.intp)
            starts = [0, *np.cumsum(sizes).tolist()]
            names = [name for sim in sims for name in sim._names]
        steps = np.array([w.step for w in plans])
        codes = np.array([kern.METHOD_CODES[w.method] for w in plans], dtype=np.int64)
        b = _Batch(plans, bodies, pk, starts, sizes, names,
                   np.repeat(steps, sizes), np.repeat(codes, sizes))  # fmt: skip
        self._batch = b
        return b

    def _run_batch(
        self, kern: ModuleType, sims: list[LiveSimulation], owed: list[tuple[int, int]]
    ) -> None:
        """Step the simulations in `owed` in shared rounds (run_until's chunks), then commit."""
        batch = self._packed(kern, sims)
        x = np.concatenate([sim._x for sim in sims])  # (ΣN, 13), this tick's own array
        stepping = {r for r, _ in owed}
        u = np.concatenate(
            [
                sim._inputs.total(sim._x) if r in stepping else np.zeros((len(sim._names), 6))
                for r, sim in enumerate(sims)
            ]
        )
        left = np.zeros(len(sims), dtype=np.int64)
        for r, k in owed:
            left[r] = k
        taken = np.zeros(len(sims), dtype=np.int64)
        reasons: dict[int, str] = {}
        cut: set[int] = set()
        chunk, last = CHUNK, self.clock()
        deadlines = {r: sims[r]._pacer.compute_deadline(last) for r in stepping}
        with np.errstate(all="ignore"):
            while True:
                n = np.minimum(left, chunk)
                start = x.copy()
                kern.advance(batch.pk, x, u, batch.h_rows, np.repeat(n, batch.sizes),
                             batch.code_rows)  # fmt: skip
                stopped: dict[int, tuple[int, str]] = {}
                if divergence_reason(x, batch.names) is not None:
                    for r in np.flatnonzero(n).tolist():
                        hit = self._replay_if_diverged(sims[r], batch, r, start, x, int(n[r]))
                        if hit is not None:
                            stopped[r] = hit
                taken += n
                left -= n
                for r, (good, why) in stopped.items():
                    taken[r] += good - n[r]
                    left[r] = 0
                    reasons[r] = why
                if not left.any():
                    break
                t = self.clock()
                for r in np.flatnonzero(left).tolist():
                    if t > deadlines[r]:
                        cut.add(r)
                        left[r] = 0
                if not left.any():
                    break
                if t - last < CHUNK_SECONDS:
                    chunk = min(2 * chunk, CHUNK_MAX)
                last = t
        self._commit(sims, batch, x, u, owed, taken.tolist(), reasons, cut)

    @staticmethod
    def _replay_if_diverged(
        sim: LiveSimulation, batch: _Batch, r: int, start: Array, x: Array, n: int
    ) -> tuple[int, str] | None:
        """Room r's round of n steps from `start`, replayed alone if it ended diverged.

        Returns (good steps, reason) when it diverged, with its rows of x set to the
        last good state; None when it is fine.
        """
        a, b = batch.starts[r], batch.starts[r + 1]
        if divergence_reason(x[a:b], sim._names) is None:
            return None
        w = sim._w
        res = run_steps_checked(w.bodies, start[a:b], sim._inputs, w.step, w.method, n, sim._names)
        x[a:b] = res.x
        # A replay that stayed good (a nondeterministic kernel) keeps its end state, runs on.
        return None if res.reason is None else (res.taken, res.reason)

    @staticmethod
    def _commit(
        sims: list[LiveSimulation],
        batch: _Batch,
        x: Array,
        u: Array,
        owed: list[tuple[int, int]],
        taken: list[int],
        reasons: dict[int, str],
        cut: set[int],
    ) -> None:
        """Hand each stepped simulation its new state, outputs, history row and pacing."""
        outs: dict[str, Array] = {}
        rows = x
        if any(taken):
            outs = outputs(x, u, batch.pk.bodies)
            rows = np.concatenate([outs[name].reshape(len(x), w) for name, w in COLUMNS], axis=1)
        shared = _Shared(outs)
        starts = batch.starts
        for r, k in owed:
            sim = sims[r]
            a, b = starts[r], starts[r + 1]
            done = taken[r]
            sim._adopt(x[a:b], done, reasons.get(r))
            if done:
                sim._cache = (sim._rev, _Rows(shared, a, b))
                sim._history.record_row(sim.t, rows[a:b])
            sim._pacer.done(k, done, sim._w.step, cut_short=r in cut)


__all__ = ["WIDTH", "SimulationHub"]
