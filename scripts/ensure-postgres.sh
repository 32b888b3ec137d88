#!/usr/bin/env bash
# Makes Postgres's server binaries available for the history-store tests
# (test/helpers/postgres-server.ts runs initdb and postgres itself, in temp folders, on free
# ports). Debian's package is installed when neither PATH nor /usr/lib/postgresql has them; the
# cluster it makes and starts on 5432 is stopped, since the tests never use it. Prints the folder
# holding postgres and initdb.
set -euo pipefail
find_bin() {
  local dir
  for dir in $(printf '%s' "${PATH}" | tr ':' ' ') $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -rV); do
    if [ -x "${dir}/postgres" ] && [ -x "${dir}/initdb" ]; then
      printf '%s\n' "${dir}"
      return 0
    fi
  done
  return 1
}
if ! find_bin >/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq --no-install-recommends postgresql >/dev/null
  if command -v pg_lsclusters >/dev/null 2>&1; then
    pg_lsclusters -h 2>/dev/null | while read -r version name _; do
      pg_ctlcluster "${version}" "${name}" stop >/dev/null 2>&1 || true
    done
  fi
  if command -v systemctl >/dev/null 2>&1; then systemctl disable --now postgresql >/dev/null 2>&1 || true; fi
fi
find_bin
