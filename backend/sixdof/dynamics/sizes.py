"""The sizes of a body's state and inputs, below every module that needs them (model, the
kernels' wrappers), so that none of those imports another for two numbers."""

#: x = (Pos 3, Quater 4, LocalVel 3, AngVel 3).
STATE_SIZE = 13
#: u = (Force 3, Moment 3).
INPUT_SIZE = 6

__all__ = ["INPUT_SIZE", "STATE_SIZE"]
