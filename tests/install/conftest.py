"""The install tier: a wheel built and installed in a new venv (its server's first start is
the suite's one cold compile), the Dockerfile and compose files, JupyterLab in Chromium (the
`browser` fixture is tests/conftest.py's)."""
