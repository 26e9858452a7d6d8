"""`sixdof fmu`: a scenario as an FMI 2.0 co-simulation FMU, built with pythonfmu.

Beside `headless` (layer 3): the FMU steps the scenario's bodies with the scenario's own
integrator (`body.advance`, the one place that calls the dynamics), and names its
variables as `sixdof run` names its CSV columns. `build` writes the .fmu; `slave` is the
Fmi2Slave the FMU runs (it needs pythonfmu, which only `build` and the FMU itself import).
docs/fmu.md says how to run it in fmpy and in libcosim (OSP).
"""
