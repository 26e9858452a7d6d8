"""The row layouts the compiled kernels read: P_* offsets of a packed parameter row and L_*
offsets of a load row. Apart from `kernel_compiled` so that building rows (params, inputs)
does not import numba.
"""

from __future__ import annotations

from .names import METHOD_CODES

#: Stages per step of each kernel method code (`names.METHOD_CODES`).
STAGES = {METHOD_CODES["euler"]: 1, METHOD_CODES["rk4"]: 4}

# Row layout of a packed parameter array (N, PARAM_SIZE).
P_MASS = 0
P_GRAVITY = 1
P_CORIOLIS = 2
P_R_CG = 3  # r_g, 3 entries
P_INERTIA_O = 6  # I_o, 3×3 row-major
P_MASS_INV = 15  # M_RB⁻¹, 6×6 row-major
P_BLOCK = 51  # 1.0 without a CG offset (r_g = 0, M_RB⁻¹ block diagonal), else 0.0
PARAM_SIZE = 52

# Row layout of a load array (N, LOAD_SIZE): what acts on each body, evaluated inside the
# derivative at every stage from that stage's own orientation R = R(q/|q|) (inputs.py):
#   F_n = F_global + R F_body + Σ_j F_j,    M_n = M_global + R M_body + Σ_j (R ℓ_j) × F_j
# with (ℓ_j, F_j) a global force F_j at the body point ℓ_j (relative to the CG, body axes).
# A body-frame force at a point is folded into M_body (R(ℓ × F) = (R ℓ) × (R F)).
L_F_GLOBAL = 0  # N, global, at the CG
L_M_GLOBAL = 3  # N·m, global
L_F_BODY = 6  # N, body axes, at the CG
L_M_BODY = 9  # N·m, body axes
L_POINTS = 12  # POINT_SLOTS × (ℓ (3), F_j (3))
POINT_SLOTS = 2
# A spring from a body point toward a world target (a hand pulling):
#   F = k (target − (p + R r)) − c R (v + ω × r),   |F| capped at F_max,   M = (R ℓ) × F
# with r the point relative to the reference point and ℓ = r − r_g relative to the CG.
L_SPRING = L_POINTS + 6 * POINT_SLOTS  # target (3, NED), r (3), ℓ (3), k, c, F_max
L_STATE_DEPENDENT = L_SPRING + 12  # 1.0 when anything past M_global is set
LOAD_SIZE = L_STATE_DEPENDENT + 1

#: Below this many body-steps per call the serial kernel runs, above it `prange`
#: spreads bodies over the cores. With passive OpenMP waiting, waking the second
#: thread costs ~50 µs per call (benchmarks/bench_kernel.py --threshold): prange
#: wins from ~1000–4000 body-steps (~0.1–0.5 ms serial), up to 2× on 2 idle cores.
PARALLEL_MIN_WORK = 4096

# Row layout of an element array (M, ELEMENT_SIZE) (elements.py): what holds, springs, damps
# or stops a body, evaluated inside the derivative at every stage (system_compiled.py).
# Body indices are local to the element's group (bodies joined by two-body springs step
# together); points on a body are body axes from its reference point, world points NED.
E_KIND = 0  # one of the K_* codes
E_BODY = 1  # the body it acts on, local index in its group
E_OTHER = 2  # a spring's other body (local index), or -1 for a world point
E_DATA = 3  # the kind's own numbers start here
# An element that carries states of its own (a controller's integral, a linear system's x;
# later a cable's lumped masses): where they start in its group's block of states, and how
# many (0: none). Its group then steps them with its bodies, stage by stage
# (system_compiled); the states of all groups sit in one flat array z, group g's at
# z[zb[g]:zb[g + 1]] (elements.System.state_bounds).
E_STATES = 32
E_N_STATES = 33
ELEMENT_SIZE = 34
# Each kind's code (E_KIND) and the layout of the rest of its row are its module's, in
# kinds/ (kinds/__init__.py lists them).
# Layout of one node of a hull's tree (hull_tree.py), NODE_SIZE numbers at EB_TREE + k · NODE_SIZE:
# its box (centre, half sizes, body axes), the next node after its subtree, its first
# triangle and (leaves only, else 0) their count, and the linear sums P, S, T, U.
N_CENTRE, N_HALF, N_SKIP, N_FIRST, N_COUNT = 0, 3, 6, 7, 8
N_P, N_S, N_T, N_U = 9, 18, 21, 30
NODE_SIZE = 33
#: Width of one element's record of what it does (elements.element_forces): point of
#: application (3, NED), force on the body there (3, N), other end (3, NED), and a joint's
#: reaction moment on its body about its point (3, N·m, global; 0 for the other kinds).
RECORD_SIZE = 12
