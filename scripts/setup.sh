#!/usr/bin/env bash
# Set up a development machine: the package with its dev extra, and Debian's chromium for the viewer's
# browser tests (Playwright drives /usr/bin/chromium; it never downloads a browser of its own).
set -euo pipefail
cd "$(dirname "$0")/.."
pip install -e ".[dev]"
if [ ! -x /usr/bin/chromium ]; then
    SUDO=""
    if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
    $SUDO apt-get update
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y chromium
fi
