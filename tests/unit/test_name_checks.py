"""Names are checked whole (issue 40, finding 15): a regular expression's `$` also matches
before a final line break, so `^…$` let "lab\\n" through as a room name (its history.csv's
Content-Disposition then broke the connection; on a gateway, 500). Each name check of the
backend refuses a name with a line break at either end, or inside."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from sixdof.fields import FieldError, check_room
from sixdof.fmu.body import check_fmu_names
from sixdof.scenario import BodySpec, Scenario
from sixdof.server.errors import Refusal
from sixdof.server.rooms import check_room_name

BROKEN = ["lab\n", "lab\n\n", "\nlab", "la\nb", "lab\r\n", "lab\r", "lab\x00", "lab ", ""]


@pytest.mark.parametrize("name", BROKEN)
def test_a_room_name_with_a_line_break_is_refused(name: str) -> None:
    with pytest.raises(FieldError) as caught:
        check_room(name)
    assert caught.value.field == "room" and "1 to 64 characters" in caught.value.message
    with pytest.raises(Refusal):
        check_room_name(name)


def test_room_names_that_are_whole_pass() -> None:
    for name in ("lab", "a", "A-b_9", "x" * 64):
        assert check_room(name) == name
    with pytest.raises(FieldError):
        check_room("x" * 65)


@pytest.mark.parametrize("name", ["B\n", "\nB", "B\r\n"])
def test_a_body_name_with_a_line_break_is_refused(name: str) -> None:
    with pytest.raises(ValidationError):
        BodySpec(Name=name)


def test_an_fmu_name_with_a_line_break_is_refused() -> None:
    # a body made without validation (BodySpec's own pattern refuses it already)
    scenario = Scenario.model_construct(bodies=[BodySpec.model_construct(Name="B\n")])
    with pytest.raises(FieldError) as caught:
        check_fmu_names(scenario)
    assert caught.value.field == "bodies[0].Name"
    check_fmu_names(Scenario.model_construct(bodies=[BodySpec.model_construct(Name="B_1")]))
