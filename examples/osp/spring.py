"""A linear spring-damper to a fixed anchor as an FMI 2.0 co-simulation FMU (pythonfmu),
for the OSP example beside it: it reads a body's Pos and Vel and returns the Force on it.

    pythonfmu build -f examples/osp/spring.py -d examples/osp     # writes Spring.fmu

    Force = −k (Pos − Anchor) − c Vel        (global frame, N; Pos in m, Vel in m/s)

Connected to a sixdof FMU's `<Body>.Pos[i]`, `<Body>.Vel[i]` and `<Body>.Force[i]`, it holds
the body's reference point (the CG when CGOffset is zero) on a spring: an FhSim-style
SimObject whose output is wired to the body's Force port.
"""

from pythonfmu import Fmi2Causality, Fmi2Slave, Fmi2Variability, Real

# pythonfmu 0.7's binary releases a reference to this module's namespace it does not own when
# it instantiates the FMU: this one pays for it (docs/fmu.md).
_NAMESPACE = globals()


class Spring(Fmi2Slave):
    author = "sixdof"
    description = "Linear spring-damper from a fixed anchor: Force = -k (Pos - Anchor) - c Vel"

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.k = 50.0  # N/m
        self.c = 0.0  # N·s/m
        self.anchor = [0.0, 0.0, 0.0]
        self.pos = [0.0, 0.0, 0.0]
        self.vel = [0.0, 0.0, 0.0]
        for name, attr in (("k", "k"), ("c", "c")):
            self.register_variable(
                Real(
                    name,
                    causality=Fmi2Causality.parameter,
                    variability=Fmi2Variability.tunable,
                    getter=self._get(attr),
                    setter=self._set(attr),
                )
            )
        for i in range(3):
            self.register_variable(
                Real(
                    f"Anchor[{i}]",
                    causality=Fmi2Causality.parameter,
                    variability=Fmi2Variability.tunable,
                    getter=self._get_item(self.anchor, i),
                    setter=self._set_item(self.anchor, i),
                ),
                nested=False,
            )
        for vector, name in ((self.pos, "Pos"), (self.vel, "Vel")):
            for i in range(3):
                self.register_variable(
                    Real(
                        f"{name}[{i}]",
                        causality=Fmi2Causality.input,
                        variability=Fmi2Variability.continuous,
                        getter=self._get_item(vector, i),
                        setter=self._set_item(vector, i),
                    ),
                    nested=False,
                )
        for i in range(3):
            self.register_variable(
                Real(
                    f"Force[{i}]",
                    causality=Fmi2Causality.output,
                    variability=Fmi2Variability.continuous,
                    getter=self._force(i),
                ),
                nested=False,
            )

    def _get(self, attr):
        return lambda: getattr(self, attr)

    def _set(self, attr):
        return lambda value: setattr(self, attr, value)

    @staticmethod
    def _get_item(vector, i):
        return lambda: vector[i]

    @staticmethod
    def _set_item(vector, i):
        def setter(value):
            vector[i] = value

        return setter

    def _force(self, i):
        return lambda: -self.k * (self.pos[i] - self.anchor[i]) - self.c * self.vel[i]

    def do_step(self, current_time, step_size):
        return True
