#!/usr/bin/env bash
# Download, on a machine with network, the packages fivestack needs that a GPU machine without network lacks, as
# wheels for CPython 3.12 on x86-64 Linux, into .whl/ (git-ignored) for scripts/gpu_check.sh to install there.
#
#     bash scripts/gpu_wheels.sh                 # then carry .whl/ to the GPU machine and run scripts/gpu_check.sh
#     PYVER=3.13 bash scripts/gpu_wheels.sh      # for another Python there
#
# The GPU image (see the device notes) already holds torch (its own CUDA build), numpy, numba, safetensors, rich,
# typer, tensorboard, matplotlib, threadpoolctl, cloudpickle, typing-extensions, six and pytest; it lacks these:
#   gymnasium, farama-notifications (gymnasium's), pettingzoo: the env's spaces and the PettingZoo env
#   trueskill: the ratings (the evaluator)
#   websockets: the arena (not needed by the GPU checks; small, so the whole package imports)
# Ray is not among them: nothing that the GPU checks run imports it. Each wheel is named with --no-deps, so pip
# fetches exactly these and never a second copy of anything the machine has.
set -euo pipefail
cd "$(dirname "$0")/.."
PYVER="${PYVER:-3.12}"
PY="${PYTHON:-python3}"
PURE=(gymnasium==1.4.0 farama-notifications==0.0.6 pettingzoo==1.27.0 websockets==17.4)
SDIST_ONLY=(trueskill==0.4.5)  # published as a source archive only: built here into a pure-Python wheel
PLATFORMS=()
for tag in manylinux_2_28_x86_64 manylinux_2_27_x86_64 manylinux_2_17_x86_64 manylinux2014_x86_64 \
           manylinux_2_5_x86_64 manylinux1_x86_64; do
    PLATFORMS+=(--platform "$tag")
done
rm -rf .whl
mkdir -p .whl
"$PY" -m pip download -q --no-deps --only-binary=:all: --python-version "$PYVER" --implementation cp \
    "${PLATFORMS[@]}" -d .whl "${PURE[@]}"
"$PY" -m pip wheel -q --no-deps --no-binary=:all: -w .whl "${SDIST_ONLY[@]}"
# what came: one wheel per package
ls .whl
du -sh .whl
