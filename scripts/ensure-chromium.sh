#!/usr/bin/env bash
# Makes Debian's chromium available for the dashboard browser test (test/helpers/chromium.ts
# drives it through playwright-core, which never downloads a browser of its own). Installed with
# apt when the binary is not on PATH, through sudo when not root, with a font so the test's
# screenshot has legible text. Prints the chromium path.
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then command -v chromium; exit 0; fi
if [ "$(id -u)" -eq 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  as_root=(sudo -n)
else
  echo "ensure-chromium: chromium is not on PATH, and installing it needs root or passwordless sudo" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq >/dev/null
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
  apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
if ! command -v chromium >/dev/null 2>&1; then
  echo "ensure-chromium: apt-get installed chromium but it is not on PATH" >&2
  exit 1
fi
command -v chromium
