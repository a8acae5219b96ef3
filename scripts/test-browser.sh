#!/usr/bin/env bash
# Browser tests of the hosted pay page: a real server, Debian's chromium, playwright-core.
# Usage: scripts/test-browser.sh [vitest arguments, e.g. a test file or -t "<name>"]
set -euo pipefail
cd "$(dirname "$0")/.."

export CHROMIUM_PATH="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [ ! -x "$CHROMIUM_PATH" ]; then
  echo "Installing chromium (Debian package)…"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends chromium
fi

npm run build:assets -w packages/pay-page
npx vitest run --config vitest.browser.config.ts "$@"
