#!/usr/bin/env bash
# Makes redis-server available for the admission-store tests (test/helpers/redis-server.ts
# starts its own instances on free ports). Debian's package is installed when the binary is not
# on PATH; the service it registers is not used. Prints the redis-server path.
set -euo pipefail
if ! command -v redis-server >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq --no-install-recommends redis-server >/dev/null
  # The package starts a server on 6379 where an init system runs; the tests never use it.
  if command -v systemctl >/dev/null 2>&1; then systemctl disable --now redis-server >/dev/null 2>&1 || true; fi
fi
command -v redis-server
