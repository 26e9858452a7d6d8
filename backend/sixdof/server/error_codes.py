"""The one table of error codes: every `code` an `error` message carries, and what it means.

`ErrorCode` is the type the protocol's `Error.code`, `Refusal` and the rooms use; its order
is the JSON Schema's enum and docs/protocol.md's. `ERROR_CODES` gives each code's meaning for
docs/protocol.md. The codes of a refused value come from `sixdof.fields`, below every layer,
which raises them; the others belong to the server.
"""

from __future__ import annotations

from typing import Literal, get_args

from ..fields import ErrorCode as FieldErrorCode

ErrorCode = Literal[
    FieldErrorCode,  # a value refused
    # the message or the connection refused
    "bad_json",
    "unknown_type",
    "unknown_preset",
    "forbidden",
    "too_large",
    "rate_limited",
    "internal",
]

ERROR_CODES: dict[ErrorCode, str] = {
    "invalid": "wrong shape: missing or unknown field, wrong width, not a finite number, "
    "wrong kind of value",
    "out_of_range": "a number outside its allowed range (the message says the range)",
    "unstable_step": "the integrator step is beyond the method's stability limit",
    "unknown_body": "no body with that `Name` in the room's scenario",
    "diverged": "the simulation diverged and paused itself (sent unprompted, no `id`)",
    "preparing": "a cold start still compiles the elements' physics (rooms of free bodies "
    "already run): nothing was changed; the message says about how long, try again then",
    "bad_json": "the text is not JSON",
    "unknown_type": "`type` is not one of the client messages",
    "unknown_preset": "no preset with that name",
    "forbidden": "control needs the server's token; or the room is full / too many rooms",
    "too_large": "message over the size limit; the connection is then closed (1009)",
    "rate_limited": "over the message rate; the message was dropped (a sustained flood "
    "closes the connection, 1008)",
    "internal": "a server fault; the room pauses with the reason (sent unprompted, no `id`)",
}

# mypy holds every key to a code; this holds every code to a meaning, in the type's order.
if tuple(ERROR_CODES) != get_args(ErrorCode):
    raise AssertionError(
        f"ERROR_CODES {list(ERROR_CODES)} must describe the codes {list(get_args(ErrorCode))}"
    )
