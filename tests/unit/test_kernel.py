"""The compiled kernel (sixdof.dynamics.kernel) against the numpy reference and the physics."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys

import numpy as np
import pytest

from sixdof.dynamics import (
    Bodies,
    BodyParams,
    IntegratorSettings,
    derivative,
    integrate,
    make_state,
    step_fixed,
)
from sixdof.dynamics import integrators as integ
from sixdof.dynamics import kernel as K
from sixdof.dynamics import kernel_compiled as C
from sixdof.dynamics.quaternion import to_rotmat

BLOCKS = (slice(0, 3), slice(3, 7), slice(7, 13))  # ṗ, q̇, ν̇ (or p, q, ν)


@pytest.fixture(scope="module", autouse=True)
def _compiled() -> None:
    K.warm_up()


def random_params(rng: np.random.Generator, model: str, offset: bool) -> BodyParams:
    """A body with a full, rotated inertia tensor (principal moments in [1, 2] m² × m)."""
    mass = rng.uniform(0.5, 50.0)
    principal = mass * rng.uniform(1.0, 2.0, 3)  # any three in [1, 2] meet the triangle rule
    q = rng.normal(size=4)
    rot = to_rotmat(q / np.linalg.norm(q))
    inertia = rot @ np.diag(principal) @ rot.T
    r_cg = rng.uniform(-0.5, 0.5, 3) if offset else np.zeros(3)
    return BodyParams(mass, 0.5 * (inertia + inertia.T), r_cg, rng.uniform(0.0, 12.0), model)


def random_bodies(rng: np.random.Generator, n: int, model: str, offset: bool) -> Bodies:
    models = ["full", "fhsim"] * n if model == "mixed" else [model] * n
    return Bodies.of([random_params(rng, models[i], offset) for i in range(n)])


def random_states(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """States with non-unit quaternions (|q| in [0.9, 1.1]) and inputs, (n, 13), (n, 6)."""
    q = rng.normal(size=(n, 4))
    q *= rng.uniform(0.9, 1.1, (n, 1)) / np.linalg.norm(q, axis=1, keepdims=True)
    x = make_state(rng.normal(0, 10, (n, 3)), q, rng.normal(0, 3, (n, 3)), rng.normal(0, 2, (n, 3)))
    u = np.concatenate([rng.normal(0, 50, (n, 3)), rng.normal(0, 10, (n, 3))], axis=1)
    return np.ascontiguousarray(x), u


def assert_close_blocks(got: np.ndarray, ref: np.ndarray, rtol: float) -> None:
    """|got − ref| ≤ rtol · max|ref| within each body's ṗ, q̇, ν̇ block (norm-wise relative)."""
    for block in BLOCKS:
        g = got[..., block]
        r = ref[..., block]
        scale = np.max(np.abs(r), axis=-1, keepdims=True)
        assert np.all(np.abs(g - r) <= rtol * scale), np.max(np.abs(g - r) / scale)


CASES = [
    (n, model, offset)
    for n in (1, 7)
    for model in ("full", "fhsim", "mixed")
    for offset in (False, True)
]


@pytest.mark.parametrize(("n", "model", "offset"), CASES)
def test_derivative_matches_reference(n: int, model: str, offset: bool) -> None:
    rng = np.random.default_rng([n, len(model), offset])
    for _ in range(40):
        bodies = random_bodies(rng, n, model, offset)
        x, u = random_states(rng, n)
        got = K.derivative(K.pack(bodies), x, u)
        assert_close_blocks(got, derivative(x, u, bodies), 1e-12)


@pytest.mark.parametrize(("n", "model", "offset"), CASES)
@pytest.mark.parametrize("method", ["euler", "rk4"])
def test_steps_match_rk_step(n: int, model: str, offset: bool, method: str) -> None:
    rng = np.random.default_rng([n, len(model), offset, len(method)])
    tableau = integ.TABLEAUS[method]
    for _ in range(5):
        bodies = random_bodies(rng, n, model, offset)
        x, u = random_states(rng, n)
        ref = x.copy()
        for _ in range(25):
            ref = integ.rk_step(lambda y, u=u, b=bodies: derivative(y, u, b), ref, 2e-3, tableau)
        got = x.copy()
        K.advance(K.pack(bodies), got, u, 2e-3, 25, method)
        assert_close_blocks(got, ref, 1e-12)
        one = step_fixed(bodies, x, u, 2e-3, method)
        ref_one = integ.rk_step(lambda y, u=u, b=bodies: derivative(y, u, b), x, 2e-3, tableau)
        assert_close_blocks(one, ref_one, 1e-12)


def test_step_fixed_keeps_single_state_shape_and_input() -> None:
    bodies = Bodies.of(BodyParams.from_radii(2.0, [0.5, 0.6, 0.7]))
    x = make_state(local_vel=[1.0, 0.0, 0.0], ang_vel=[0.0, 0.3, 0.0])
    x_before = x.copy()
    y = step_fixed(bodies, x, np.zeros(6), 1e-3)
    assert y.shape == (13,)
    np.testing.assert_array_equal(x, x_before)  # a new array; the input is left alone
    assert y[0] == pytest.approx(1e-3, rel=1e-6)


@pytest.mark.parametrize("method", ["euler", "rk4"])
@pytest.mark.parametrize("n", [1, 7])
def test_integrate_matches_numpy_loop(method: str, n: int) -> None:
    rng = np.random.default_rng([n, len(method), 11])
    bodies = random_bodies(rng, n, "mixed", True)
    x, u = random_states(rng, n)
    x[:, 7:] *= 0.3  # keep the run tame over 0.5 s
    times = [0.0, 0.0, 0.0137, 0.1, 0.1, 0.35, 0.5]  # empty spans and spans off the step grid
    settings = IntegratorSettings(method=method, step=2e-3 if method == "rk4" else 1e-3)
    seen: list[float] = []
    got, stats = integrate(bodies, x, u, times, settings, progress=seen.append)
    # The numpy oracle: each span in ceil(span / step) equal steps of rk_step on the reference.
    tableau = integ.TABLEAUS[method]  # type: ignore[index]
    ref = np.empty((len(times), n, 13))
    ref[0] = y = x
    steps = 0
    for i, (a, b) in enumerate(itertools.pairwise(times), start=1):
        k = int(np.ceil((b - a) / settings.step - 1e-9)) if b > a else 0
        for _ in range(k):
            y = integ.rk_step(lambda z: derivative(z, u, bodies), y, (b - a) / k, tableau)
        ref[i] = y
        steps += k
    assert got.shape == ref.shape == (len(times), n, 13)
    assert_close_blocks(got, ref, 1e-12)
    assert (stats.steps, stats.evaluations) == (steps, steps * len(tableau.c))
    assert seen == times[1:]


def test_integrate_reports_blow_up_time() -> None:
    bodies = Bodies.of(BodyParams.from_radii(1.0, [1.0, 1.0, 1.0], gravity=0.0))
    x = make_state(ang_vel=[0.0, 0.0, 1e155])  # squares to inf in the first step
    with pytest.raises(integ.IntegrationError, match=r"non-finite at t = 0\.1"):
        integrate(bodies, x, np.zeros(6), [0.0, 0.1, 0.2], IntegratorSettings("rk4", 1e-3))


def test_fhsim_circles_and_full_flies_straight() -> None:
    """DESIGN.md section 2: LocalVel (5,0,0), AngVel (0,0,2), no force, no gravity, 1 s."""
    times = np.linspace(0.0, 1.0, 11)
    x0 = make_state(local_vel=[5.0, 0.0, 0.0], ang_vel=[0.0, 0.0, 2.0])
    settings = IntegratorSettings("rk4", 1e-3)
    for model in ("full", "fhsim"):
        bodies = Bodies.of(BodyParams.from_radii(2.0, [0.4, 0.5, 0.6], gravity=0.0, model=model))
        states, _ = integrate(bodies, x0, np.zeros(6), times, settings)
        pos = states[:, 0, 0:3]
        if model == "full":
            expected = np.stack([5.0 * times, 0 * times, 0 * times], axis=1)
        else:  # radius v/ω = 2.5 m, turning towards +y (east) for a positive yaw rate
            expected = np.stack([2.5 * np.sin(2 * times), 2.5 * (1 - np.cos(2 * times)),
                                 0 * times], axis=1)  # fmt: skip
        np.testing.assert_allclose(pos, expected, atol=1e-9)


def test_advance_per_body_steps_methods_and_counts() -> None:
    rng = np.random.default_rng(5)
    bodies = random_bodies(rng, 5, "mixed", True)
    x, u = random_states(rng, 5)
    h = np.array([1e-3, 2e-3, 5e-4, 1e-3, 1e-2])
    n_steps = np.array([3, 0, 7, 1, 2])
    methods = ["rk4", "euler", "rk4", "euler", "rk4"]
    got = x.copy()
    K.advance(K.pack(bodies), got, u, h, n_steps, methods)
    for i in range(5):
        one = bodies.take(np.array([i]))
        ref = x[i : i + 1]
        for _ in range(n_steps[i]):
            ref = integ.step_fixed(one, ref, u[i : i + 1], h[i], methods[i])  # type: ignore[arg-type]
        assert_close_blocks(got[i : i + 1], ref, 1e-12)
    np.testing.assert_array_equal(got[1], x[1])  # zero steps leave a body where it was


def test_bad_input_is_refused_and_changes_nothing() -> None:
    rng = np.random.default_rng(9)
    pk = K.pack(random_bodies(rng, 4, "full", False))
    x, u = random_states(rng, 4)
    before = x.copy()
    with pytest.raises(match=r"step\[2\]: 0\.03 s is beyond the stability limit"):
        K.advance(pk, x, u, [1e-3, 1e-3, 0.03, 1e-3], 1, "rk4")
    with pytest.raises(match="euler"):
        K.advance(pk, x, u, 0.021, 1, "euler")  # fine for RK4 (< 0.0279 s), not for Euler
    with pytest.raises(match="step: must be a finite number > 0"):
        K.advance(pk, x, u, -1e-3)
    with pytest.raises(ValueError, match="n_steps"):
        K.advance(pk, x, u, 1e-3, -1)
    with pytest.raises(ValueError, match="integrator: the kernels run"):
        K.advance(pk, x, u, 1e-3, 1, "dopri5")
    with pytest.raises(ValueError, match="got 2;"):
        K.advance(pk, x, u, 1e-3, 1, np.array([1, 1, 2, 0]))
    with pytest.raises(ValueError, match="integrator: expected 1 or 4 methods"):
        K.advance(pk, x, u, 1e-3, 1, ["rk4", "euler"])
    with pytest.raises(ValueError, match=r"x: expected a float64 array of shape \(4, 13\)"):
        K.advance(pk, x[:3], u, 1e-3)
    with pytest.raises(ValueError, match="x: must be C-contiguous"):
        K.advance(pk, np.asfortranarray(x), u, 1e-3)
    with pytest.raises(ValueError, match="u: expected shape"):
        K.advance(pk, x, u[:, :3], 1e-3)
    np.testing.assert_array_equal(x, before)
    with pytest.raises(match="rk4"):
        step_fixed(Bodies.of(BodyParams.from_radii(1.0, [1, 1, 1])), x[0], u[0], 0.05)


def test_parallel_and_serial_kernels_agree() -> None:
    rng = np.random.default_rng(3)
    bodies = random_bodies(rng, 40, "mixed", True)
    x, u = random_states(rng, 40)
    x[:, 7:] *= 0.3
    pk = K.pack(bodies)
    h = np.array([1e-3, 2e-3])
    counts = np.array([100, 50], dtype=np.int64)
    assert K._use_parallel(40, 40 * 150)
    par = K.integrate_fixed(pk, x.copy(), u, h, counts, "rk4")
    ser = np.empty_like(par)
    C._spans_serial(pk.params, x.copy(), K.load_rows(u, 40), h, counts, 1, ser)
    np.testing.assert_array_equal(par, ser)
    ref = x.copy()
    K.advance(pk, ref, u, 1e-3, 100)
    np.testing.assert_array_equal(par[0], ref)


def test_pack_concat_and_cache() -> None:
    rng = np.random.default_rng(4)
    a = [random_params(rng, "full", True) for _ in range(2)]
    b = [random_params(rng, "fhsim", False) for _ in range(3)]
    joined = K.concat([K.pack(Bodies.of(a)), K.pack(Bodies.of(b))])
    whole = K.pack(Bodies.of(a + b))
    np.testing.assert_array_equal(joined.params, whole.params)
    np.testing.assert_array_equal(joined.bodies.mass_matrix_inv, whole.bodies.mass_matrix_inv)
    assert whole.params[0, K.P_MASS] == a[0].mass
    assert whole.params[3, K.P_CORIOLIS] == 0.0
    np.testing.assert_array_equal(whole.params[:, K.P_BLOCK], [0, 0, 1, 1, 1])  # r_g = 0
    bodies = Bodies.of(a)
    assert K.packed(bodies) is K.packed(bodies)
    assert K.packed(Bodies.of(a)) is not K.packed(bodies)


def test_public_calls_use_only_warmed_signatures() -> None:
    """warm_up() compiles every signature the wrappers use: no compile in a live tick."""
    dispatchers = [C._derivative_batch, C._applied_batch, C._spans_serial, C._spans_parallel,
                   C._uniform_serial, C._uniform_parallel, C._each_serial,
                   C._each_parallel]  # fmt: skip
    before = {f.__name__: len(f.signatures) for f in dispatchers}
    rng = np.random.default_rng(8)
    bodies = random_bodies(rng, 3, "full", True)
    x, u = random_states(rng, 3)
    pk = K.pack(bodies)
    K.advance(pk, x, u[0], 1e-3)  # one input row for all
    K.advance(pk, x, u, np.float64(1e-3), np.int64(400), 1)
    K.advance(pk, x, u, [1e-3] * 3, [1, 2, 3], ["rk4", "euler", "rk4"])
    K.advance(pk, x, u, [1e-3] * 3, [100, 200, 300], "rk4")
    K.advance(pk, x, u, np.full(3, 1e-3), np.full(3, 2000), np.array([1, 0, 1], dtype=np.int8))
    K.derivative(pk, x, u)
    K.integrate_fixed(pk, x, u, 1e-3, 3)
    K.integrate_fixed(pk, x, u, [1e-3, 2e-3], [100, 100], "euler")
    step_fixed(bodies.take(np.array([0])), x[0], u[0], 1e-3)
    integrate(bodies, x, u, [0.0, 0.01, 0.02], IntegratorSettings("rk4", 1e-3))
    assert {f.__name__: len(f.signatures) for f in dispatchers} == before


def test_import_of_the_dynamics_leaves_numba_alone() -> None:
    """`import sixdof.dynamics` does not import numba (it costs ~0.3 s): the kernel is
    imported on the first fixed step, whose numbers are the compiled path's."""
    code = (
        "import sys, json\n"
        "import numpy as np\n"
        "import sixdof.dynamics as d\n"
        "lazy = 'numba' not in sys.modules\n"
        "x = d.make_state(local_vel=[1, 0, 0], ang_vel=[0.1, 0.2, 0.3])\n"
        "b = d.Bodies.of(d.BodyParams.from_radii(2.0, [0.5, 0.6, 0.7]))\n"
        "y = d.step_fixed(b, x, np.arange(6.0), 1e-3)\n"
        "print(json.dumps({'lazy': lazy, 'loaded': 'numba' in sys.modules, 'y': y.tolist()}))\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    result = json.loads(run.stdout)
    assert result["lazy"] is True and result["loaded"] is True
    x = make_state(local_vel=[1, 0, 0], ang_vel=[0.1, 0.2, 0.3])
    bodies = Bodies.of(BodyParams.from_radii(2.0, [0.5, 0.6, 0.7]))
    compiled = step_fixed(bodies, x, np.arange(6.0), 1e-3)
    assert_close_blocks(np.array(result["y"]), compiled, 1e-12)
