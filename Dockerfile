# syntax=docker/dockerfile:1
# Three stages: the page is built with Node, the wheel with the Python toolchain, and the
# runtime image gets only the installed wheel (no Node, no compilers), run as a non-root user.
# `docker compose up` (docker-compose.yml) builds and starts it; docs/deploy.md has the rest.

FROM node:20-bookworm-slim AS frontend
WORKDIR /src/frontend
COPY frontend/package.json frontend/package-lock.json ./
RUN npm ci --no-audit --no-fund
# Only the page's sources: a host's frontend/node_modules or dist must not leak in.
COPY frontend/index.html frontend/vite.config.js ./
COPY frontend/src/ src/
RUN npm run build

FROM python:3.11-slim-bookworm AS wheel
WORKDIR /src
COPY pyproject.toml setup.py MANIFEST.in README.md LICENSE ./
COPY backend/ backend/
COPY meshes/ meshes/
COPY --from=frontend /src/frontend/dist frontend/dist
RUN pip wheel --no-cache-dir --no-deps --wheel-dir /wheels .

FROM python:3.11-slim-bookworm AS runtime
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    NUMBA_CACHE_DIR=/home/sixdof/.cache/numba \
    SIXDOF_DATA=/home/sixdof/data
# The data directory (Share links, lessons) is the user's, so a volume mounted there is too.
RUN useradd --create-home --uid 10001 --shell /usr/sbin/nologin sixdof \
    && install -d -o sixdof -g sixdof /home/sixdof/data
# The wheel is bind-mounted for the install only, so no layer keeps a copy of it. The cluster
# extra (nats-py, pinned here) lets the same image run `sixdof worker` and `sixdof gateway` as well.
RUN --mount=type=bind,from=wheel,source=/wheels,target=/tmp/wheels \
    pip install --no-cache-dir /tmp/wheels/sixdof-*.whl "nats-py==2.16.0"
USER 10001
WORKDIR /home/sixdof
# Compile the physics kernels into numba's cache at build time, so the server starts at once
# (a host with a different CPU recompiles them once at start-up).
RUN sixdof warm
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/api/health', timeout=4)"]
# SIXDOF_TOKEN (environment) is the control token; empty: anyone may control.
CMD ["sixdof", "serve", "--host", "0.0.0.0", "--port", "8000"]
