"""While a server's cold start still compiles the elements' kernels, a world with elements is
refused before anything is built (simulation/elements_gate.py), by every door that builds
one: a load, a list of elements, the water of a room that has elements. The refusal names
`elements`, says why, and changes nothing; free bodies go on as ever."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from sixdof.fields import FieldError
from sixdof.server.presets import scenario
from sixdof.simulation import elements_gate
from sixdof.simulation.live import LiveSimulation

WHY = "the physics of elements is still being compiled: try again in about 90 s"


@pytest.fixture
def held() -> Iterator[None]:
    elements_gate.hold(lambda: WHY)
    try:
        yield
    finally:
        elements_gate.release()


def _refused(call: object) -> FieldError:
    with pytest.raises(FieldError) as info:
        call()  # type: ignore[operator]
    assert info.value.code == "preparing" and info.value.field == "elements"
    assert str(info.value) == f"elements: {WHY}"
    return info.value


def test_a_free_room_goes_on_and_refuses_elements_changing_nothing(held: None) -> None:
    sim = LiveSimulation(scenario("hover"), running=False)
    sim.step(10)
    before = sim.state_array().copy(), sim.scenario.model_dump(), sim.t
    _refused(lambda: sim.load(scenario("floating_box")))
    _refused(lambda: sim.set_elements([{"kind": "damper", "body": sim.names[0]}]))
    after = sim.state_array(), sim.scenario.model_dump(), sim.t
    assert (after[0] == before[0]).all() and after[1:] == before[1:]
    sim.set_water({"current": [0.5, 0.0, 0.0]})  # no elements: nothing to build
    sim.set_params(sim.names[0], Mass=2.0)
    sim.step(10)
    assert sim.t > before[2]
    sim.load(scenario("tennis_racket"))  # free bodies load as ever


def test_a_new_simulation_with_elements_is_refused(held: None) -> None:
    _refused(lambda: LiveSimulation(scenario("floating_box"), running=False))


def test_released_the_elements_are_built_again(held: None) -> None:
    elements_gate.release()
    sim = LiveSimulation(scenario("floating_box"), running=False)
    sim.step(5)
    assert sim.system is not None


def test_a_failed_load_of_the_elements_says_so_instead_of_try_again(
    held: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After a cold start's compile, rooms of free bodies run and the elements' kernels load
    in the background; if that load fails, worlds with elements are refused naming the
    failure, not "try again in about 10 s" for as long as the server runs."""
    import asyncio

    from sixdof.server import physics_loading

    def broken() -> None:
        raise MemoryError("no room for the elements' kernels")

    monkeypatch.setattr(physics_loading, "is_warm", lambda: False)
    monkeypatch.setattr(physics_loading, "_load", broken)
    asyncio.run(physics_loading.PhysicsLoading()._load_the_rest())
    with pytest.raises(FieldError) as info:
        elements_gate.check([{"kind": "damper"}])
    assert info.value.code == "preparing" and info.value.field == "elements"
    assert "could not be loaded (MemoryError: no room for the elements' kernels)" in str(info.value)
    assert "try again" not in str(info.value)
