"""The engine for simulations whose integrator is not the compiled kernel's: `geometric`
(dynamics/splitting.py) and `exact` (dynamics/exact.py).

`FreeEngine` is an `Engine` (engine.py) whose rounds hand the kernel's simulations to the
base class unchanged and step the others here, each alone, with the same contract: steps
owed, compute deadline, divergence replayed step by step to the last good state, then the
base class's `_commit` (outputs, history row, pacing). It exists because engine.py calls
`kernel.advance` with the kernel's method codes; a per-method stepping hook there would
make this module a table entry (see the issue 31 report).

`exact` steps a run of n steps as the closed-form flow over n h from the state it starts
at: the end state does not depend on h, and a run cut into pieces differs from one piece
by rounding only (~1e-16 relative per piece), so a recording of an `exact` room replays
to rounding, not bit for bit. It applies to torque-free bodies: a load other than a
constant global Force (a push, a moment) pauses the simulation with the reason.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..dynamics import kernel
from ..dynamics.by_identity import ByIdentity
from ..dynamics.layout import L_F_GLOBAL
from ..dynamics.params import Bodies
from ..dynamics.quaternion import Array, IntArray
from .engine import CHUNK, CHUNK_MAX, Engine, Steppable, _Batch
from .limits import divergence_reason

#: The integrators this module steps.
FREE_METHODS = ("geometric", "exact")


class FreeEngine(Engine):
    """An Engine that also steps `geometric` and `exact` simulations."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]  # Engine's own
        # splitting.pack of each world's bodies, dropped with them (a dict by id() that held
        # them kept up to 65 tables of bodies alive across reloads)
        self._packs: ByIdentity[Array] = ByIdentity()

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
        free = [r for r, s in enumerate(sims) if s.integrator in FREE_METHODS]
        if not free:
            return super()._run(sims, owed, deadlines=deadlines, cache=cache, record=record,
                                settle=settle)  # fmt: skip
        taken = [0] * len(sims)
        cut: set[int] = set()
        rest = [r for r in range(len(sims)) if r not in free]
        if rest:
            done, short = super()._run([sims[r] for r in rest], owed[rest], deadlines=deadlines,
                                       cache=cache, record=record, settle=settle)  # fmt: skip
            for j, r in enumerate(rest):
                taken[r] = done[j]
            cut |= {rest[j] for j in short}
        for r in free:
            taken[r], was_cut = self._run_free(sims[r], int(owed[r]), deadlines, record, settle)
            if was_cut:
                cut.add(r)
        return taken, cut

    def _params(self, bodies: Bodies) -> Array:
        from ..dynamics import splitting

        kept = self._packs.get(bodies)
        return kept if kept is not None else self._packs.put((bodies,), splitting.pack(bodies))

    def _run_free(
        self, sim: Steppable, k: int, deadlines: bool, record: bool, settle: bool
    ) -> tuple[int, bool]:
        """Up to k steps of one simulation; (steps taken, cut short by its deadline)."""
        bodies, names, h = sim.bodies, sim.names, sim.step_size
        x = np.array(sim.state(), dtype=float, order="C")
        u = np.ascontiguousarray(sim.loads(), dtype=float)
        reason: str | None = None
        done, cut = 0, False
        if k > 0:
            why = _refusal(sim, u)
            if why is not None:
                reason = why
            elif sim.integrator == "exact":
                done, reason = self._exact(bodies, x, u, h, k, names)
            else:
                done, reason, cut = self._geometric(sim, x, u, k, deadlines)
        batch = _single_batch(bodies, names, h)
        self._commit([sim], batch, x, u, np.array([k]), np.array([done]),
                     {} if reason is None else {0: reason}, {0} if cut else set(), record,
                     settle)  # fmt: skip
        return done, cut

    def _geometric(
        self, sim: Steppable, x: Array, u: Array, k: int, deadlines: bool
    ) -> tuple[int, str | None, bool]:
        from ..dynamics import splitting

        params, names, h = self._params(sim.bodies), sim.names, sim.step_size
        limit = sim.compute_deadline(self.clock())
        done, chunk = 0, CHUNK
        with np.errstate(all="ignore"):
            while done < k:
                n = min(chunk, k - done)
                start = x.copy()
                splitting.advance(params, x, u, h, n)
                if divergence_reason(x, names) is not None:  # one step at a time to the last good
                    x[:] = start
                    for i in range(n):
                        y = x.copy()
                        splitting.advance(params, y, u, h, 1)
                        why = divergence_reason(y, names)
                        if why is not None:
                            return done + i, why, False
                        x[:] = y
                done += n
                if done < k and deadlines and self.clock() > limit:
                    return done, None, True
                chunk = min(2 * chunk, CHUNK_MAX)
        return done, None, False

    @staticmethod
    def _exact(
        bodies: Bodies, x: Array, u: Array, h: float, k: int, names: Sequence[str]
    ) -> tuple[int, str | None]:
        from ..dynamics.exact import exact_states

        force = np.zeros((len(bodies), 6))
        force[:, 0:3] = u[:, L_F_GLOBAL : L_F_GLOBAL + 3]
        with np.errstate(all="ignore"):
            y = exact_states(bodies, x, force, np.array([k * h]))[0]
        why = divergence_reason(y, names)
        if why is not None:
            return 0, why
        x[:] = y
        return k, None


def _refusal(sim: Steppable, u: Array) -> str | None:
    """Why the simulation's integrator cannot step it now (a pause reason), or None."""
    from ..dynamics import exact, splitting

    method = sim.integrator
    has_elements = getattr(sim, "system", None) is not None
    bodies = sim.bodies
    if method == "geometric":
        why = splitting.refusal(bodies, has_elements)
    else:
        others = u.copy()
        others[:, L_F_GLOBAL : L_F_GLOBAL + 3] = 0.0
        states = np.asarray(sim.state())
        why = exact.refusal(bodies, states, np.zeros((len(bodies), 6)), has_elements)
        if why is None and np.any(others != 0.0):
            why = "a push, a moment or a force at a point acts: the body is not torque-free"
    return None if why is None else f"{method}: {why}"


def _single_batch(bodies: Bodies, names: Sequence[str], h: float) -> _Batch:
    """The batch record `Engine._commit` reads (rows, packed bodies) for one simulation."""
    n = len(bodies)
    return _Batch((), kernel.packed(bodies), [0, n], [0, 0], np.array([n], dtype=np.int64),
                  list(names), np.full(n, h), np.full(n, -1, dtype=np.int64))  # fmt: skip
