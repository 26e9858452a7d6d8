# syntax=docker/dockerfile:1
# Three stages: the page is built with Node, the wheel with the Python toolchain, and the
# runtime image gets only the installed wheel (no Node, no compilers), run as a non-root user.

FROM node:20-bookworm-slim AS frontend
WORKDIR /src/frontend
COPY frontend/package.json frontend/package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY frontend/ ./
RUN npm run build

FROM python:3.11-slim-bookworm AS wheel
WORKDIR /src
COPY pyproject.toml setup.py MANIFEST.in README.md ./
COPY backend/ backend/
COPY meshes/ meshes/
COPY --from=frontend /src/frontend/dist frontend/dist
RUN pip wheel --no-cache-dir --no-deps --wheel-dir /wheels .

FROM python:3.11-slim-bookworm AS runtime
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    NUMBA_CACHE_DIR=/home/sixdof/.cache/numba
RUN useradd --create-home --uid 10001 --shell /usr/sbin/nologin sixdof
COPY --from=wheel /wheels /tmp/wheels
RUN pip install --no-cache-dir /tmp/wheels/*.whl && rm -rf /tmp/wheels
USER 10001
WORKDIR /home/sixdof
# Compile the physics kernel once at build time, so the first request is answered at once.
RUN sixdof warm
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/api/health', timeout=4)"]
CMD ["sixdof", "serve", "--host", "0.0.0.0", "--port", "8000"]
