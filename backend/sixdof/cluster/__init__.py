"""Layer 4b: sixdof over a NATS bus, for more viewers and rooms than one process holds.

`sixdof worker` runs rooms (their simulations) and `sixdof gateway` serves the page, REST
and `/ws` to browsers; they meet on NATS (bus.py has the subjects and buckets). The
protocol a browser sees is the one of `sixdof serve`. Needs the `cluster` extra (nats-py);
nothing else in sixdof imports this package. docs/scaling.md has the design.
"""
