#!/usr/bin/env bash
# Makes promtool available for the metrics-format test. Only the binary is needed, so it is
# unpacked from Debian's prometheus package into .tmp/tools instead of installing (and starting)
# the whole server. Prints the promtool path.
set -euo pipefail
if command -v promtool >/dev/null 2>&1; then command -v promtool; exit 0; fi
root="$(cd "$(dirname "$0")/.." && pwd)/.tmp/tools"
if [ ! -x "$root/root/usr/bin/promtool" ]; then
  mkdir -p "$root"
  cd "$root"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get download prometheus >/dev/null
  dpkg -x prometheus_*.deb "$root/root"
  rm -f prometheus_*.deb
fi
echo "$root/root/usr/bin/promtool"
