"""Arrays lent to compiled helpers without reference counting.

Numba counts references to every array passed to a function it did not inline: an atomic
increment on entry and a decrement on exit, for each array argument. Its pruning pass
removes them in small functions but not in the element kernels (loops, many exits), and
there they cost more than the physics: a still-water hull call that found the hull dry
took 35 ns, 10 ns with its arrays borrowed, and a damped body's RK4 step ~500 ns against
~105 ns for a free one (benchmarks/bench_elements.py, bench_water.py).

`borrowed(a)` is `a` with no owner (a null meminfo): NRT_incref and NRT_decref return at
once for it. It is safe only while the original stays alive, which it does for the call of
the entry point that borrowed it (system_compiled.system_serial and system_derivative
borrow their arguments and the scratch arrays they allocate, and nothing they call keeps
an array past its return).
"""

from __future__ import annotations

from typing import Any

from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


def _borrowed(typingctx: Any, arr: Any) -> Any:
    if not isinstance(arr, types.Array):
        return None

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        src = context.make_array(arr)(context, builder, value=args[0])
        out = context.make_array(arr)(context, builder)
        out.meminfo = cgutils.get_null_value(src.meminfo.type)
        out.parent = cgutils.get_null_value(src.parent.type)
        out.nitems = src.nitems
        out.itemsize = src.itemsize
        out.data = src.data
        out.shape = src.shape
        out.strides = src.strides
        return out._getvalue()

    return arr(arr), codegen


#: Typed Any for mypy: numba's intrinsic takes the typing context itself, callers do not.
borrowed: Any = intrinsic(_borrowed)

__all__ = ["borrowed"]
