"""Measured data against the model: a gyroscope recording's inertia ratios (`gyro`).

Beside `headless` (layer 3): it reads files and fits with scipy, and builds scenarios
(layer 2) of what it found; the server and the command line call it.
"""
