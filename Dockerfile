# syntax=docker/dockerfile:1
#
# The Switchyard gateway image. The entrypoint is the `switchyard` binary itself, so an SMG
# command line works unchanged after the image name:
#
#   docker build -t switchyard .
#   docker run --rm -p 30000:30000 -p 29000:29000 switchyard \
#     --worker-urls http://10.0.0.1:8000 http://10.0.0.2:8000 --policy cache_aware
#
# Two stages: `build` compiles the gateway and its workspace packages (@switchyard/kit, protos,
# sim) with the dev toolchain; `runtime` installs production dependencies only and copies the
# compiled output in. docs/deploy.md describes the image.

ARG NODE_IMAGE=node:20-bookworm-slim

# ---------------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS build
WORKDIR /app

# The manifests first: the dependency layer is reused until package.json or the lockfile change.
# Every workspace's package.json is needed, or `npm ci` refuses the lockfile.
COPY package.json package-lock.json ./
COPY packages/kit/package.json packages/kit/
COPY packages/protos/package.json packages/protos/
COPY packages/sim/package.json packages/sim/
# --ignore-scripts: the root `prepare` script compiles, and the sources are not here yet
# (`npm run build` below compiles once they are). No dependency the build uses needs its own
# install script.
RUN npm ci --ignore-scripts --no-audit --no-fund

COPY tsconfig.base.json tsconfig.build.json ./
COPY packages/kit packages/kit
COPY packages/protos packages/protos
COPY packages/sim packages/sim
COPY scripts/build-dashboard.mjs scripts/
COPY src src
# tsc -b: the three workspace packages (project references), then the gateway into dist/; then
# the dashboard page and its vendored uPlot into dist/dashboard-assets/.
RUN npm run build

# ---------------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
WORKDIR /app

# Production dependencies only. The workspace packages are runtime dependencies of the gateway,
# so `npm ci` links them into node_modules/@switchyard/ pointing at packages/*; their compiled
# output is copied in below. --ignore-scripts: `prepare` needs the dev toolchain (tsc), and the
# one production install script (protobufjs) only prints a version-scheme warning. The npm
# cache is removed in the same layer so it never reaches the image.
COPY package.json package-lock.json ./
COPY packages/kit/package.json packages/kit/
COPY packages/protos/package.json packages/protos/
COPY packages/sim/package.json packages/sim/
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

# What each package's "files" names: compiled code, plus the .proto files @switchyard/protos
# loads at run time and the tiny tokenizer the simulator ships.
COPY --from=build /app/packages/kit/dist packages/kit/dist
COPY --from=build /app/packages/protos/dist packages/protos/dist
COPY packages/protos/proto packages/protos/proto
COPY --from=build /app/packages/sim/dist packages/sim/dist
COPY packages/sim/assets packages/sim/assets
COPY --from=build /app/dist dist
COPY bin bin

# The base image's `node` user, given by number so that Kubernetes' runAsNonRoot can check it
# (a user name cannot be verified as non-root). Nothing under /app is writable by it; the gateway
# writes only to the OS temp dir (tokenizer bundles fetched from gRPC workers, unpacked and
# removed), which is /tmp.
USER 1000:1000

# --port and --prometheus-port defaults (SMG's). A --health-check-port, when given, is the
# operator's choice and is published with -p as needed.
EXPOSE 30000 29000

# Node runs as PID 1: the gateway installs its own SIGTERM/SIGINT handlers (graceful drain), so
# `docker stop` and Kubernetes termination drain in-flight requests instead of killing them.
# No HEALTHCHECK: the probe port and paths depend on the flags given (see docs/deploy.md), and
# Kubernetes ignores HEALTHCHECK in favour of its own probes.
ENTRYPOINT ["node", "/app/bin/switchyard.js"]
CMD ["--help"]
