"""The Engine: the one loop that advances live simulations, one compiled call per round.

A lone `LiveSimulation` is an engine of one; a server's rooms are one engine of many. Per
`advance(now)`:

1. each simulation says how many steps k_r of its own size h_r it owes (`owed(now)`:
   pacing.py's rules, wall clock × time scale, bounded catch-up);
2. the states of all simulations' bodies sit in one array X (ΣN, 13) and one
   `kernel.advance(pk, X, U, h, n, method)` call steps body i of simulation r by
   n_i = min(k_r − done_r, chunk) steps of h_r with r's method and its load rows U_i,
   whose body-frame and at-a-point parts the kernel evaluates at every stage;
3. one vectorised divergence check; a simulation found diverged is replayed alone from the
   start of that round, one step at a time, to its last good state, and pauses there;
4. one `dynamics.outputs` for all bodies; each simulation commits its new state, outputs
   and history row (`commit`), then its pacing (`settle`).

Rounds start at CHUNK steps and double up to CHUNK_MAX while a round takes less than
CHUNK_SECONDS of wall time; a simulation stops stepping once past its compute deadline
(the steps it did not take are dropped and counted as an overrun). Divergence is checked
at the end of every round, so a simulation stepped with others stops at the same step as
alone: the engine gives the same bits for a simulation whichever engine steps it
(tests/unit/test_simulation_engine.py).

The contract a simulation offers the engine (`Steppable`) is narrow, in the spirit of
scipy's `OdeSolver.step()`: its lock, the steps it owes, its compute deadline, its
world (bodies, step, method), state and loads, and `commit`/`settle`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from ..dynamics import Bodies, kernel, outputs
from ..dynamics.cable_lines import cable_outputs, has_cables
from ..dynamics.elements import Buoyancy, System
from ..dynamics.hydro import draft_and_wave
from ..dynamics.joint_outputs import has_joints, joint_outputs
from ..dynamics.model import laid_out
from ..dynamics.names import METHOD_CODES, Method
from ..dynamics.quaternion import Array, IntArray
from ..dynamics.stored import radiated_energy, stored_energy
from .history import COLUMNS
from .limits import divergence_reason
from .payload import FRAME_KEYS

#: Steps of the first round of an advance, and the most a round may take.
CHUNK = 32
CHUNK_MAX = 4096
#: A round shorter than this (wall time) doubles the next one.
CHUNK_SECONDS = 0.002


class Steppable(Protocol):
    """What the engine needs of a simulation (LiveSimulation implements it)."""

    lock: threading.RLock

    @property
    def bodies(self) -> Bodies: ...
    @property
    def step_size(self) -> float: ...
    @property
    def integrator(self) -> Method: ...
    @property
    def names(self) -> list[str]: ...
    @property
    def system(self) -> System | None: ...
    @property
    def t(self) -> float: ...

    def owed(self, now: float) -> int: ...
    def compute_deadline(self, start: float) -> float: ...
    def state(self) -> Array: ...
    def element_states(self) -> Array: ...
    def loads(self) -> Array: ...
    def commit(
        self, x: Array, taken: int, reason: str | None, outs: Mapping[str, Array] | None,
        row: Array | None, z: Array | None = None,
    ) -> None: ...  # fmt: skip
    def settle(self, planned: int, taken: int, *, cut_short: bool) -> None: ...


@dataclass
class _Batch:
    """The packed parameters of a list of simulations, in order (cached while unchanged)."""

    key: tuple[tuple[int, int, float, str], ...]  # per simulation: ids of bodies and system,
    # step, method
    pk: kernel.PackedBodies  # all bodies, simulation after simulation
    starts: list[int]  # (R + 1,) first row of simulation r; starts[-1] = total bodies
    z_starts: list[int]  # (R + 1,) where simulation r's element states start in z
    sizes: IntArray  # (R,) bodies per simulation
    names: list[str]  # body names of all rows (the divergence message of the fast check)
    h_rows: Array  # (ΣN,) step of each row's simulation, s
    code_rows: IntArray  # (ΣN,) kernel method code of each row's simulation


class _Shared:
    """One advance's outputs of all bodies, and their frame values as lists (made once)."""

    __slots__ = ("lists", "outs")

    def __init__(self, outs: dict[str, Array]) -> None:
        self.outs = outs
        self.lists: dict[str, list] | None = None


def _float(
    outs: dict[str, Array],
    sims: Sequence[Steppable],
    batch: _Batch,
    x: Array,
    u: Array,
    taken: IntArray,
    z: Array | None,
) -> None:
    """Draft and WaveElevation of the floating bodies, what every room's elements hold
    (StoredEnergy, added to TotalEnergy), its joints' gaps and reactions and its cables'
    forces, tensions and lengths on the seabed, room by room (z: the elements' states):
    the batch's elements are concatenated, each room's own system and time say where its
    water is."""
    for r, sim in enumerate(sims):
        system = sim.system
        if system is None or not system.elements:
            continue
        a, b = batch.starts[r], batch.starts[r + 1]
        zr = None if z is None else z[batch.z_starts[r] : batch.z_starts[r + 1]]
        stored = stored_energy(system, sim.bodies, x[a:b], zr)
        outs["StoredEnergy"][a:b] = stored
        outs["TotalEnergy"][a:b] += stored
        outs["RadiatedEnergy"][a:b] = radiated_energy(system, b - a, zr)
        t = sim.t + int(taken[r]) * float(batch.h_rows[a])
        if has_joints(system):
            h = float(batch.h_rows[a])
            for name, measured in joint_outputs(system, sim.bodies, x[a:b], u[a:b], t, h).items():
                outs[name][a:b] = measured
        if has_cables(system):
            for name, measured in cable_outputs(system, sim.bodies, x[a:b], zr).items():
                outs[name][a:b] = measured
        if not any(isinstance(e, Buoyancy) for e in system.elements):
            continue
        found = draft_and_wave(system, sim.bodies, x[a:b], t)
        outs["Draft"][a:b] = found["Draft"]
        outs["WaveElevation"][a:b] = found["WaveElevation"]


class Rows(Mapping[str, Array]):
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
        """payload.body_entries of these rows, from lists converted once for every body."""
        shared = self._shared
        if shared.lists is None:  # the first frame of this advance: one tolist per output
            shared.lists = {k: shared.outs[k].tolist() for k in FRAME_KEYS}
        lists = shared.lists
        return [
            {"Name": name, **{k: lists[k][i] for k in FRAME_KEYS}}
            for i, name in enumerate(names, start=self._a)
        ]


class Engine:
    """Holds live simulations and advances all of them with one kernel call per round."""

    def __init__(
        self, clock: Callable[[], float] = time.monotonic, sims: Sequence[Steppable] = ()
    ) -> None:
        self.clock = clock
        self._sims: list[Steppable] = list(sims)
        self._batch: _Batch | None = None
        self.last_stepped = 0  # simulations that owed steps in the last advance
        # wall seconds per step of a round, as last measured (None: not yet): how many steps
        # fit before a deadline, so that a round of costly steps never runs far past it
        self.step_seconds: float | None = None

    def add(self, sim: Steppable) -> None:
        if sim not in self._sims:
            self._sims.append(sim)

    def remove(self, sim: Steppable) -> None:
        if sim in self._sims:
            self._sims.remove(sim)
            self._batch = None  # it holds the bodies of the one that left

    def __len__(self) -> int:
        return len(self._sims)

    def __iter__(self) -> Iterator[Steppable]:
        return iter(list(self._sims))

    @property
    def batch(self) -> _Batch | None:
        """The packed rows the last advance stepped (kept until a simulation changes), None
        before the first: what the kernel was given, for inspection."""
        return self._batch

    def __contains__(self, sim: object) -> bool:
        return sim in self._sims

    # ------------------------------------------------------------------ stepping

    def advance(self, now: float | None = None) -> dict[Steppable, Exception]:
        """Advance every simulation to wall time `now` (default: the clock); returns the
        exceptions raised, by simulation (usually none). A fault in the shared call makes
        each simulation step alone, so it shows up in (and pauses) only the one causing it."""
        now = self.clock() if now is None else float(now)
        errors: dict[Steppable, Exception] = {}
        sims = list(self._sims)
        held = []
        try:
            for sim in sims:  # every lock for the whole advance (fixed order: no deadlock)
                sim.lock.acquire()
                held.append(sim.lock)
            owed = np.zeros(len(sims), dtype=np.int64)
            for r, sim in enumerate(sims):
                try:
                    owed[r] = sim.owed(now)
                except Exception as exc:
                    errors[sim] = exc
            self.last_stepped = int(np.count_nonzero(owed))
            if self.last_stepped:
                try:
                    self._run(sims, owed, deadlines=True)
                except Exception:
                    for r in np.flatnonzero(owed).tolist():
                        try:
                            self._run([sims[r]], owed[r : r + 1], deadlines=True, cache=False)
                        except Exception as exc:
                            errors[sims[r]] = exc
        finally:
            for lock in held:
                lock.release()
        return errors

    def run(self, sim: Steppable, k: int, *, record: bool = True) -> int:
        """k steps of one simulation now, whatever it owes (no deadline); the steps taken
        (fewer only when it diverged). `record` False: no history row for this run."""
        with sim.lock:
            taken, _ = self._run([sim], np.array([k]), deadlines=False, cache=False,
                                 record=record, settle=False)  # fmt: skip
            return taken[0]

    def _packed(self, sims: Sequence[Steppable], cache: bool) -> _Batch:
        """The batch of the simulations' current worlds: rebuilt when a world changed."""
        key = tuple((id(s.bodies), id(s.system), s.step_size, s.integrator) for s in sims)
        b = self._batch
        if cache and b is not None and b.key == key:
            return b
        packs = [kernel.packed(s.bodies, s.system) for s in sims]
        sizes = np.array([len(p) for p in packs], dtype=np.int64)
        steps = np.array([s.step_size for s in sims])
        codes = np.array([METHOD_CODES[s.integrator] for s in sims], dtype=np.int64)
        states = [0 if p.system is None else p.system.n_states for p in packs]
        b = _Batch(
            key,
            packs[0] if len(packs) == 1 else kernel.concat(packs),
            [0, *np.cumsum(sizes).tolist()],
            [0, *np.cumsum(states).tolist()],
            sizes,
            [name for s in sims for name in s.names],
            np.repeat(steps, sizes),
            np.repeat(codes, sizes),
        )
        if cache:
            self._batch = b
        return b

    def _run(
        self,
        sims: list[Steppable],
        owed: IntArray,
        *,
        deadlines: bool,
        cache: bool = True,
        record: bool = True,
        settle: bool = True,
    ) -> tuple[list[int], set[int]]:
        """Step simulation r by up to owed[r] steps in shared rounds, then commit each."""
        batch = self._packed(sims, cache)
        x = np.concatenate([s.state() for s in sims])  # (ΣN, 13), this advance's own array
        z = np.concatenate([np.zeros(0), *(s.element_states() for s in sims)])  # its own too
        u = np.concatenate([s.loads() for s in sims])
        left = owed.astype(np.int64).copy()
        taken = np.zeros(len(sims), dtype=np.int64)
        reasons: dict[int, str] = {}
        cut: set[int] = set()
        chunk, last = self._first_chunk() if deadlines else CHUNK, self.clock()
        limit = {r: sims[r].compute_deadline(last) for r in np.flatnonzero(left).tolist()}
        # Simulated time of each row at the round's start (time-varying elements read it).
        timed = batch.pk.system is not None
        t_start = np.repeat([s.t for s in sims], batch.sizes) if timed else 0.0
        with np.errstate(all="ignore"):
            while True:
                n = np.minimum(left, chunk)
                start, z_start = x.copy(), z.copy()
                t_rows = t_start + np.repeat(taken, batch.sizes) * batch.h_rows if timed else 0.0
                kernel.advance(batch.pk, x, u, batch.h_rows, np.repeat(n, batch.sizes),
                               batch.code_rows, t_rows, z if timed else None)  # fmt: skip
                if divergence_reason(x, batch.names) is not None:
                    for r in np.flatnonzero(n).tolist():
                        t_r = float(sims[r].t + taken[r] * batch.h_rows[batch.starts[r]])
                        pk_r = kernel.packed(sims[r].bodies, sims[r].system)
                        hit = self._replay_if_diverged(
                            batch, r, pk_r, (start, z_start), (x, z), u, int(n[r]), t_r
                        )
                        if hit is not None:
                            good, reasons[r] = hit
                            n[r], left[r] = good, good
                taken += n
                left -= n
                t = self.clock()
                self._note_round(t - last, int(n.max()))
                if not left.any():
                    break
                if deadlines:
                    for r in np.flatnonzero(left).tolist():
                        if t > limit[r]:
                            cut.add(r)
                            left[r] = 0
                    if not left.any():
                        break
                took = t - last
                # Double while rounds are short, but not into a round that would end past the
                # nearest deadline: a tick then overshoots its budget by at most one step.
                soonest = min((limit[r] for r in np.flatnonzero(left).tolist()), default=t)
                if not deadlines or (took < CHUNK_SECONDS and t + 2 * took < soonest):
                    chunk = min(2 * chunk, CHUNK_MAX)
                if deadlines and self.step_seconds:
                    chunk = max(1, min(chunk, int((soonest - t) / self.step_seconds)))
                last = t
        self._commit(sims, batch, x, u, owed, taken, reasons, cut, record, settle, z)
        return taken.tolist(), cut

    def _first_chunk(self) -> int:
        """Steps of an advance's first round: CHUNK, or as many as CHUNK_SECONDS holds when
        steps are known to be costlier (one at least: a step cannot be cut)."""
        if self.step_seconds is None:
            return 1  # unknown: measure one step before committing to a round of many
        if self.step_seconds <= 0.0:  # a clock that does not move (tests)
            return CHUNK
        return max(1, min(CHUNK, int(CHUNK_SECONDS / self.step_seconds)))

    def _note_round(self, took: float, steps: int) -> None:
        if steps > 0:
            per_step = took / steps
            old = self.step_seconds
            self.step_seconds = per_step if old is None else 0.7 * old + 0.3 * per_step

    @staticmethod
    def _replay_if_diverged(
        batch: _Batch,
        r: int,
        pk: kernel.PackedBodies,
        start: tuple[Array, Array],
        now: tuple[Array, Array],
        u: Array,
        n: int,
        t: float,
    ) -> tuple[int, str] | None:
        """Simulation r's round of n steps from `start` (states, element states), replayed
        one step at a time if it ended diverged: (good steps, reason) with its rows of `now`
        at the last good state, or None when it is fine."""
        a, b = batch.starts[r], batch.starts[r + 1]
        za, zb = batch.z_starts[r], batch.z_starts[r + 1]
        x, z = now
        names = batch.names[a:b]
        if divergence_reason(x[a:b], names) is None:
            return None
        y = np.array(start[0][a:b], order="C")
        w = np.array(start[1][za:zb], order="C")
        h, code = batch.h_rows[a : a + 1], batch.code_rows[a : a + 1]
        for i in range(n):
            y_next, w_next = y.copy(), w.copy()
            carried = w_next if pk.system is not None else None
            kernel.advance(pk, y_next, u[a:b], np.repeat(h, b - a), 1, np.repeat(code, b - a),
                           t + i * float(h[0]), carried)  # fmt: skip
            why = divergence_reason(y_next, names)
            if why is not None:
                x[a:b], z[za:zb] = y, w
                return i, why
            y, w = y_next, w_next
        # The replay stayed good (a nondeterministic kernel): keep its end state, run on.
        x[a:b], z[za:zb] = y, w
        return None

    @staticmethod
    def _commit(
        sims: list[Steppable],
        batch: _Batch,
        x: Array,
        u: Array,
        owed: IntArray,
        taken: IntArray,
        reasons: dict[int, str],
        cut: set[int],
        record: bool,
        settle: bool,
        z: Array | None = None,
    ) -> None:
        """Hand each simulation that owed steps its new state (and its elements' states, z),
        outputs, history row, pacing."""
        shared: _Shared | None = None
        rows = x
        if taken.any():
            applied = kernel.applied(u, x)
            shared = _Shared(outputs(x, applied, batch.pk.bodies))
            _float(shared.outs, sims, batch, x, u, taken, z)
            rows = laid_out(shared.outs, COLUMNS, len(x))
        for r in np.flatnonzero(owed).tolist():
            sim = sims[r]
            a, b = batch.starts[r], batch.starts[r + 1]
            done = int(taken[r])
            outs = Rows(shared, a, b) if shared is not None and done else None
            za, zb = batch.z_starts[r], batch.z_starts[r + 1]
            sim.commit(x[a:b], done, reasons.get(r), outs, rows[a:b] if record and done else None,
                       None if z is None else z[za:zb])  # fmt: skip
            if settle:
                sim.settle(int(owed[r]), done, cut_short=r in cut)
