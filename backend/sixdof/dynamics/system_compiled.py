"""The compiled core of bodies in a world: elements evaluated at every integrator stage,
and groups of bodies stepped together.

A *group* (one body, or the bodies joined by two-body springs or joints) takes every stage
together: a spring or a joint between two bodies needs both bodies' stage states. Per stage,
per body: (F_n, M_n) = its load row (kernel_compiled._applied) + Σ its elements' forces
(global, about the CG), + the joints' forces (constraints_compiled); then ẋ from
`_rigid_body`, or from `pivot.derivative` when a pivot holds it (exact: the state is put
back on it after every step, as the joints' drift is projected out).

Each kind's force, row and equations are its module in kinds/; here is the one dispatch on
kind (`_act`, for the forces and the records alike), the paths a body takes (free, held by a
pivot alone, on one world spring alone, any elements, a group), each stepped by the one
stage sequence of `stepper_compiled`. Numba compiles this on first use (cached on disk);
importing it compiles the kinds' marked functions (kinds/jit.py).
"""

from __future__ import annotations

import numpy as np

from . import constraints_compiled as joints
from . import tree_compiled, tree_run_compiled
from .borrow import borrowed
from .kernel_compiled import _applied, _rigid_body, njit
from .kinds import (
    added_mass,
    buoyancy,
    cable,
    damper,
    geometry,
    ground,
    joint,
    load,
    pivot,
    spring,
)
from .kinds.jit import compile_kinds
from .kinds.table import COMPILED
from .layout import E_BODY, E_KIND, E_N_STATES, E_OTHER, L_STATE_DEPENDENT, P_R_CG
from .lone_compiled import _loads, _run_free, _run_pivot, _run_spring
from .states_compiled import state_act, with_states, without_states
from .stepper_compiled import EARLY, add6, rk_step
from .stepper_compiled import load as _load
from .stepper_compiled import store as _store

#: Hash of the modules compiled in here (kernel_cache.STAMP_NAME: numba keys its cache on this
#: file's text alone); `python scripts/stamp_kernels.py` keeps it current.
COMPILED_FROM = "7462534b223eead5"

compile_kinds(COMPILED)  # the kinds' forces are numba's from here on (kinds/jit.py)


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _record(rec, e, c):
    """rec[e] ← point (3), force (3), other end (3) of an element's 12-tuple c (force,
    moment, point, other end), when rec has rows."""
    if rec.shape[0] > 0:
        for j in range(3):
            rec[e, j] = c[6 + j]
            rec[e, 3 + j] = c[j]
            rec[e, 6 + j] = c[9 + j]


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _hull_forces(p, el, e0, e1, aux, i, b, y, t):
    """The buoyancy elements on body i (index b in its group): global (F, M about the CG).
    Apart from `_element_forces`, whose light kinds slowed by ~25 ns a call with the hull's
    code beside them (bench_water.py), even on bodies without a hull."""
    acc = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    r = geometry.rotation(y)
    for e in range(e0, e1):
        if el[e, E_BODY] == b and el[e, E_KIND] == buoyancy.CODE:
            acc = add6(acc, buoyancy.force(p, el, e, aux, i, y, r, t))
    return acc


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy", inline="always")
def _act(p, el, e, aux, i, y, r, yo, ro, t, h, left):
    """What element e (a light kind: not a pivot, not buoyancy) does to body i at state y
    (rotation r; yo, ro the other body's for a spring joining two): a 12-tuple of its force
    and moment about the CG (global), its point of application and its other end (world).
    The one dispatch on kind, for the forces (`_element_forces`) and the records alike."""
    kind = el[e, E_KIND]
    if kind == spring.CODE:
        return spring.act(p, el, e, aux, i, y, r, yo, ro, t, h, left)
    if kind == damper.CODE:
        return damper.act(p, el, e, aux, i, y, r, yo, ro, t, h, left)
    if kind == ground.CODE:
        return ground.act(p, el, e, aux, i, y, r, yo, ro, t, h, left)
    if kind == load.CODE:
        return load.act(p, el, e, aux, i, y, r, yo, ro, t, h, left)
    if kind == added_mass.CODE:
        return added_mass.act(p, el, e, aux, i, y, r, yo, ro, t, h, left)
    return 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, y[0], y[1], y[2], y[0], y[1], y[2]


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _element_forces(p, el, e0, e1, aux, i, b, y, t, h, left):
    """The elements that act on body i alone (everything but a spring joining it to another
    body, a pivot, buoyancy, `_hull_forces`, and what carries states, `_group_derivative`):
    global (F, M) about its CG at state y (a 13-tuple); b is its index in its group (the
    elements' E_BODY)."""
    acc = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    r = geometry.rotation(y)
    for e in range(e0, e1):
        if el[e, E_BODY] != b or el[e, E_KIND] == pivot.CODE or el[e, E_KIND] == buoyancy.CODE:
            continue
        if el[e, E_N_STATES] > 0.0 or el[e, E_KIND] == joint.CODE:
            continue
        if el[e, E_KIND] == spring.CODE and el[e, E_OTHER] >= 0.0:
            continue
        c = _act(p, el, e, aux, i, y, r, y, r, t, h, left)
        acc = add6(acc, (c[0], c[1], c[2], c[3], c[4], c[5]))
    return acc


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy", inline="always")
def _derivative_one(p, u, el, e0, e1, aux, i, held_by, forces, hulls, turning, y, t, h, left):
    """ẋ of a body alone in its group at state y (a 13-tuple): straight code, no arrays.
    `held_by`: the row of the pivot that holds it, or -1; `forces`: it has elements other
    than a pivot and buoyancy; `hulls`: it has buoyancy; `turning`: its load row has
    state-dependent parts (decided once per run, as kernel_compiled does)."""
    fx, fy, fz, mx, my, mz = _loads(u, i, y, turning)
    if forces:
        c = _element_forces(p, el, e0, e1, aux, i, 0.0, y, t, h, left)
        fx, fy, fz, mx, my, mz = add6((fx, fy, fz, mx, my, mz), c)
    if hulls:
        c = _hull_forces(p, el, e0, e1, aux, i, 0.0, y, t)
        fx, fy, fz, mx, my, mz = add6((fx, fy, fz, mx, my, mz), c)
    if held_by >= 0:
        return pivot.derivative(p, i, geometry.row_of(el, held_by), y, fx, fy, fz, mx, my, mz)
    return _rigid_body(p, i, y, fx, fy, fz, mx, my, mz)


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy", inline="always")
def _one_stage(p, u, el, aux, args, y, t, h, left, ws, s):
    """`_derivative_one` as `stepper_compiled.rk_step` calls a derivative."""
    e0, e1, i, held_by, forces, hulls, turning = args
    return _derivative_one(p, u, el, e0, e1, aux, i, held_by, forces, hulls, turning, y, t, h, left)


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _step_one(p, u, el, e0, e1, aux, i, held_by, forces, hulls, turning, y, t, h, method):
    """One step of a body alone in its group, each stage from its own state and time; the
    new 13-tuple (kept in registers, as kernel_compiled's `_step`)."""
    args = (e0, e1, i, held_by, forces, hulls, turning)
    return rk_step(_one_stage, p, u, el, aux, args, y, t, h, method, None)


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _run_general(p, u, el, e0, e1, aux, i, held_by, forces, hulls, turning, y, t0, h, n, method):
    if held_by < 0:
        for s in range(n):
            y = _step_one(
                p, u, el, e0, e1, aux, i, held_by, forces, hulls, turning, y, t0 + s * h, h, method
            )
        return y
    prow = geometry.row_of(el, held_by)
    y = pivot.held(prow, y)
    for s in range(n):
        z = _step_one(
            p, u, el, e0, e1, aux, i, held_by, forces, hulls, turning, y, t0 + s * h, h, method
        )
        y = pivot.held(prow, z)
    return y


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _run_one(p, u, el, e0, e1, aux, i, y, t0, h, n, method):
    """n steps of h from time t0 of a body alone in its group; the new 13-tuple. The common
    cases (nothing, one pivot, one world spring) step through small functions of their own
    that keep the state in registers, as kernel_compiled does; the rest through the
    general element loop."""
    # int64 from the start: typed first as the literal -1, the calls below were compiled for
    # that too (numba types a call with each type its argument passes through)
    held_by = np.int64(-1)
    forces = 0
    hulls = 0
    sprung = np.int64(-1)
    for e in range(e0, e1):
        if el[e, E_KIND] == pivot.CODE:
            held_by = e
        elif el[e, E_KIND] == buoyancy.CODE:
            hulls += 1
        else:
            forces += 1
            if el[e, E_KIND] == spring.CODE and el[e, E_OTHER] < 0.0:
                sprung = e
    turning = u[i, L_STATE_DEPENDENT] != 0.0
    if held_by < 0 and forces == 0 and hulls == 0:  # free, in a batch with elements
        return _run_free(p, u, i, turning, y, h, n, method)
    if forces == 0 and hulls == 0:
        return _run_pivot(p, u, i, geometry.row_of(el, held_by), turning, y, h, n, method)
    if held_by < 0 and forces == 1 and hulls == 0 and sprung >= 0:
        return _run_spring(p, u, i, geometry.row_of(el, sprung), turning, y, h, n, method)
    return _run_general(
        p, u, el, e0, e1, aux, i, held_by, forces > 0, hulls > 0, turning, y, t0, h, n, method
    )


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy", inline="always")
def _add_into(F, b, c):
    """F[b] += c (a 6-tuple)."""
    for j in range(6):
        F[b, j] += c[j]


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _present(el, e0, e1):
    """Whether a group has elements `_element_forces` takes, and buoyancy: a stage skips
    the loops (and their bodies' rotations) it has none for."""
    light = False
    hulls = False
    for e in range(e0, e1):
        kind = el[e, E_KIND]
        if kind == buoyancy.CODE:
            hulls = True
        elif not (kind == pivot.CODE or kind == joint.CODE or el[e, E_N_STATES] > 0.0
                  or (kind == spring.CODE and el[e, E_OTHER] >= 0.0)):  # fmt: skip
            light = True
    return light, hulls


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _group_derivative(p, u, el, e0, e1, aux, first, cnt, pivots, kinds, Y, t, h, left, F, K, C,
                      m):  # fmt: skip
    """K (cnt, 13) ← ẋ of a group's bodies at stage rows Y (cnt, 13) and time t; C the
    scratch of its m joint rows (constraints_compiled); kinds: `_present`'s. When its
    elements carry states, Y and K have rows past the bodies' holding them, 13 a row
    (`states_compiled`), and K's get their rates."""
    light, hulls = kinds
    for b in range(cnt):
        y = _load(Y[b])
        a = _applied(u, first + b, y)
        for j in range(6):
            F[b, j] = a[j]
        if light:
            _add_into(F, b, _element_forces(p, el, e0, e1, aux, first + b, float(b), y, t, h,
                                            left))  # fmt: skip
        if hulls:
            _add_into(F, b, _hull_forces(p, el, e0, e1, aux, first + b, float(b), y, t))
    for e in range(e0, e1):  # springs joining two bodies: equal and opposite
        if el[e, E_KIND] != spring.CODE or el[e, E_OTHER] < 0.0:
            continue
        a = int(el[e, E_BODY])
        o = int(el[e, E_OTHER])
        ya = _load(Y[a])
        yo = _load(Y[o])
        ra = geometry.rotation(ya)
        ro = geometry.rotation(yo)
        c = spring.act(p, el, e, aux, first + a, ya, ra, yo, ro, t, h, left)  # on a
        b = spring.ES_B  # the other end, on body o: the opposite force
        w = geometry.moment(
            p, first + o, ro, el[e, b], el[e, b + 1], el[e, b + 2], -c[0], -c[1], -c[2]
        )
        _add_into(F, a, (c[0], c[1], c[2], c[3], c[4], c[5]))
        _add_into(F, o, (-c[0], -c[1], -c[2], w[0], w[1], w[2]))
    if Y.shape[0] > cnt:  # elements with states: their forces, and the states' rates
        K[cnt:] = 0.0
        for e in range(e0, e1):
            if el[e, E_N_STATES] > 0.0:
                b = int(el[e, E_BODY])
                y = _load(Y[b])
                c = state_act(p, el, e, aux, first + b, y, geometry.rotation(y), Y, cnt, K, t)
                _add_into(F, b, (c[0], c[1], c[2], c[3], c[4], c[5]))
                o = int(el[e, E_OTHER])
                if el[e, E_KIND] == cable.CODE and o >= 0:  # a cable's other end on a body
                    _add_into(F, o, cable.act_other(p, el, e, aux, first + o, _load(Y[o]), Y, cnt))
    if m > 0:  # the joints' forces, from everything else that acts
        joints.drives(p, el, e0, e1, first, Y, F)
        joints.constrain(p, el, e0, e1, first, cnt, Y, F, K, C, m)
    for b in range(cnt):
        y = _load(Y[b])
        e = pivots[b]
        if e >= 0:
            row = geometry.row_of(el, e)
            k = pivot.derivative(
                p, first + b, row, y, F[b, 0], F[b, 1], F[b, 2], F[b, 3], F[b, 4], F[b, 5]
            )
        else:
            k = _rigid_body(p, first + b, y, F[b, 0], F[b, 1], F[b, 2], F[b, 3], F[b, 4], F[b, 5])
        _store(K[b], k)


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _keep_alive(*arrays):
    """A last use of owned arrays whose borrowed views were in use until here."""
    return len(arrays)


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy", inline="always")
def _group_stage(p, u, el, aux, args, Y, t, h, left, ws, s):
    """`_group_derivative` as `stepper_compiled.rk_step` calls a derivative: k_s into ws[s]."""
    e0, e1, first, cnt, pivots, kinds, F, C, m = args
    _group_derivative(p, u, el, e0, e1, aux, first, cnt, pivots, kinds, Y, t, h, left, F, ws[s],
                      C, m)  # fmt: skip
    return ws[s]


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _group_run(p, u, el, e0, e1, aux, first, cnt, pivots, Y, t0, h, n, method):
    """Advance a group's rows Y (cnt, 13) in place by n steps of h from time t0, every stage
    of every body together (a spring or a joint joins them); rows of Y past cnt hold its
    elements' states, stepped with the bodies by the same stages."""
    rows = Y.shape[0]
    S_ = np.empty((rows, 13))  # owned here, lent below
    K1_ = np.empty((rows, 13))
    K2_ = np.empty((rows, 13))
    K3_ = np.empty((rows, 13))
    K4_ = np.empty((rows, 13))
    F_ = np.empty((cnt, 6))
    m = joints.joint_rows(el, e0, e1)
    C_ = np.empty((m, joint.C_G + 2 * m))
    S = borrowed(S_)
    K1 = borrowed(K1_)
    K2 = borrowed(K2_)
    K3 = borrowed(K3_)
    K4 = borrowed(K4_)
    F = borrowed(F_)
    C = borrowed(C_)
    bodies = Y[:cnt]
    joints.hold(p, el, e0, e1, first, pivots, bodies, F, C, m)
    args = (e0, e1, first, cnt, pivots, _present(el, e0, e1), F, C, m)
    ws = (S, K1, K2, K3, K4)
    for s in range(n):
        rk_step(_group_stage, p, u, el, aux, args, Y, t0 + s * h, h, method, ws)
        joints.hold(p, el, e0, e1, first, pivots, bodies, F, C, m)
    # numba frees an array after its last use: the owned scratch must outlive its loans
    _keep_alive(S_, K1_, K2_, K3_, K4_, F_, C_)


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _advance_group(p, x, u, groups, el, bounds, aux, g, t0, h, n, method, z, zb):
    """Group g's rows of x, and its elements' states z[zb[g]:zb[g + 1]], advanced in place
    by n steps of h from time t0."""
    first = groups[g, 0]
    cnt = groups[g, 1]
    e0 = bounds[g]
    e1 = bounds[g + 1]
    nz = zb[g + 1] - zb[g]
    if nz > 0:  # its states step with its bodies: rows of their own after the bodies'
        W = with_states(x, first, cnt, z, zb[g], nz)
        pivots = joints.pivots_of(el, e0, e1, cnt)
        _group_run(p, u, el, e0, e1, aux, first, cnt, pivots, W, t0, h, n, method)
        without_states(W, x, first, cnt, z, zb[g], nz)
        return
    if cnt == 1 and joints.joint_rows(el, e0, e1) == 0:  # alone: its state stays in registers
        y = _run_one(p, u, el, e0, e1, aux, first, _load(x[first]), t0, h, n, method)
        _store(x[first], y)
        return
    Y = x[first : first + cnt]
    T = tree_compiled.order(p, u, el, e0, e1, first, cnt)
    if T.shape[0] > 0:  # a tree of hinges: in its hinges' angles
        tree_run_compiled.run(p, u, el, e0, e1, aux, first, T, Y, t0, h, n, method)
        return
    pivots = joints.pivots_of(el, e0, e1, cnt)
    _group_run(p, u, el, e0, e1, aux, first, cnt, pivots, Y, t0, h, n, method)


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def system_serial(p, x, u, groups, el, bounds, aux, t, h, n, method, z, zb):
    """Advance every group g by n[first] steps of h[first] from t[first] (first = its first
    body): per-body arrays, as `kernel.advance` takes them, read at each group's first row;
    z (Z,): the elements' states, group g's at z[zb[g]:zb[g + 1]], advanced with them."""
    p = borrowed(p)  # alive for this call: no reference counting in the calls below
    x = borrowed(x)
    u = borrowed(u)
    el = borrowed(el)
    aux = borrowed(aux)
    for g in range(groups.shape[0]):
        f = groups[g, 0]
        _advance_group(p, x, u, groups, el, bounds, aux, g, t[f], h[f], n[f], method[f], z, zb)


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def system_derivative(p, x, u, groups, el, bounds, aux, t, h, out, rec, z, zb, dz):
    """out (N, 13) ← ẋ of every body at states x (the elements' at z, `system_serial`) and
    time t; dz (Z,) ← the elements' states' rates; rec (M, 12) ← each element's point, force,
    other end and a joint's moment (when rec has rows; a pivot's or a joint's reaction)."""
    p = borrowed(p)
    x = borrowed(x)
    u = borrowed(u)
    el = borrowed(el)
    aux = borrowed(aux)
    for g in range(groups.shape[0]):
        first = groups[g, 0]
        cnt = groups[g, 1]
        e0 = bounds[g]
        e1 = bounds[g + 1]
        nz = zb[g + 1] - zb[g]
        Y = with_states(x, first, cnt, z, zb[g], nz)
        pivots = joints.pivots_of(el, e0, e1, cnt)
        F = np.zeros((cnt, 6))
        K = np.empty((Y.shape[0], 13))
        m = joints.joint_rows(el, e0, e1)
        C = np.empty((m, joint.C_G + 2 * m))
        # a plain bool, as the steps pass it: the stepping kernel's parts find this one compiled
        _group_derivative(p, u, el, e0, e1, aux, first, cnt, pivots, _present(el, e0, e1), Y, t,
                          h, bool(EARLY), F, K, C, m)  # fmt: skip
        out[first : first + cnt] = K[:cnt]
        for k in range(nz):
            dz[zb[g] + k] = K[cnt + k // 13, k % 13]
        T = tree_compiled.order(p, u, el, e0, e1, first, cnt)
        if rec.shape[0] > 0 and T.shape[0] > 0:  # its joints' reactions from its own equations
            tree_run_compiled.reactions(p, u, el, first, T, Y, rec)
        elif rec.shape[0] > 0:
            _records(p, u, el, e0, e1, aux, first, cnt, pivots, Y, t, h, F, K, C, rec)


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _records(p, u, el, e0, e1, aux, first, cnt, pivots, Y, t, h, F, K, C, rec):
    """What each element of a group does at rows Y: rec[e] = point, force, other end."""
    none = np.empty((0, 13))
    for e in range(e0, e1):
        kind = el[e, E_KIND]
        b = int(el[e, E_BODY])
        i = first + b
        if kind == joint.CODE:
            c = joints.reaction(el, e0, e, Y, C)
            _record(rec, e, c)
            for j in range(3):  # its moment about its point
                rec[e, 9 + j] = c[3 + j]
            continue
        if kind == pivot.CODE:
            _record(rec, e, pivot.reaction(p, i, el, e, Y, b, K, F))
            continue
        y = _load(Y[b])
        r = geometry.rotation(y)
        o = int(el[e, E_OTHER]) if kind == spring.CODE else -1
        yo = _load(Y[o]) if o >= 0 else y
        if el[e, E_N_STATES] > 0.0:
            c = state_act(p, el, e, aux, i, y, r, Y, cnt, none, t)
        elif kind == buoyancy.CODE:
            c = buoyancy.force(p, el, e, aux, i, y, r, t)
            c = (c[0], c[1], c[2], c[3], c[4], c[5], y[0], y[1], y[2], y[0], y[1], y[2])
        else:
            c = _act(p, el, e, aux, i, y, r, yo, geometry.rotation(yo), t, h, bool(EARLY))
        if kind == buoyancy.CODE or kind == added_mass.CODE:
            # the point of the line of action nearest the CG: CG + F × M / |F|²
            gx, gy, gz = geometry.turn(r, p[i, P_R_CG], p[i, P_R_CG + 1], p[i, P_R_CG + 2])
            ff = c[0] * c[0] + c[1] * c[1] + c[2] * c[2]
            s = 1.0 / ff if ff > 0.0 else 0.0
            px = y[0] + gx + s * (c[1] * c[5] - c[2] * c[4])
            py = y[1] + gy + s * (c[2] * c[3] - c[0] * c[5])
            pz = y[2] + gz + s * (c[0] * c[4] - c[1] * c[3])
            c = (c[0], c[1], c[2], c[3], c[4], c[5], px, py, pz, px, py, pz)
        _record(rec, e, c)
