"""Numbers the page shows for teaching, computed the same way headless, so a test (and a
lecturer) can compare the page's count with a run's."""

from __future__ import annotations

from collections.abc import Iterable

#: A flip is counted when the component has crossed from beyond +FLIP_LEVEL × |ω₀| to beyond
#: −FLIP_LEVEL × |ω₀| (or back): the hysteresis ignores the small wobble before a flip and
#: needs no sample at the zero crossing itself (the page sees 60 frames a second, not steps).
FLIP_LEVEL = 0.5


def count_flips(component: Iterable[float], initial: float) -> int:
    """Flips in a series of one AngVel component (body axes) that started at `initial`.

    The tennis-racket preset spins about its intermediate axis x: each flip of the handle
    turns AngVel x from about +ω₀ to about −ω₀ (or back). The page's flip counter
    (frontend/src/teach/energy.js, `FlipCounter`) counts with the same rule.
    """
    level = FLIP_LEVEL * abs(initial)
    if level == 0.0:
        return 0
    sign = 1 if initial > 0 else -1
    flips = 0
    for value in component:
        if value * sign < -level:
            sign = -sign
            flips += 1
    return flips
