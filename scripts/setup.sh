#!/usr/bin/env bash
# Set up a development machine: the package with its dev extra, and Debian's chromium for the viewer's
# browser tests (Playwright drives /usr/bin/chromium; it never downloads a browser of its own).
set -euo pipefail
cd "$(dirname "$0")/.."
# torch first and exactly: on Python 3.11 this takes the CPU build of 2.13.0 that lies on this machine's disk.
# The project asks for a range (torch>=2.11,<2.14), which the installed 2.13.0 then satisfies; a range with no
# torch installed yet would pull the newest CUDA build from PyPI, several GB.
pip install "torch==2.13.0"
pip install -e ".[dev]"
if [ ! -x /usr/bin/chromium ]; then
    SUDO=""
    if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
    $SUDO apt-get update
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y chromium
fi
