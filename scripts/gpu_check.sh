#!/usr/bin/env bash
# The GPU checks, on a machine with a CUDA GPU, no network and its own CUDA build of torch (often a newer Python
# than 3.11): keep that torch, install fivestack beside it, run the GPU-marked tests and
# benchmarks/train_speed.py --device cuda for the default and the paper-size model. Under 8 minutes.
#
#     bash scripts/gpu_wheels.sh     # first, where there is network: the packages the GPU machine lacks, into .whl/
#     bash scripts/gpu_check.sh      # then on the GPU machine, from a checkout that holds .whl/
#
# Writes to $OUT (logs/gpu_check/ when unset): summary.txt (each step and its exit status), device.txt,
# install.log, pytest_gpu.log, train_speed_{default,paper}.json (one JSON line each) and .log (their stderr).
# Exits non-zero if a step failed; later steps run anyway, so that one failure still leaves the other figures.
#
# Steps and their time limits (seconds): install 80, GPU tests 180 (the first Numba compile of the simulator is
# in there; the benchmarks reuse its cache), default model 90, paper model 110: with the device check, under 8
# minutes in all. Set PYTHON to use another interpreter than python3.
# DRY_RUN=1 (on a machine without a GPU, in a throwaway environment): the same install and test steps, the GPU
# tests skipping, and the benchmark commands printed instead of run.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-logs/gpu_check}"
mkdir -p "$OUT"
PY="${PYTHON:-python3}"
DRY_RUN="${DRY_RUN:-0}"
export PY PYTHONUNBUFFERED=1
FAILED=0

say() { echo "[gpu_check $(date +%H:%M:%S)] $*" | tee -a "$OUT/summary.txt"; }
step() {  # step NAME LIMIT_S LOG COMMAND...: run COMMAND under a time limit, its output in LOG, its status said
    local name=$1 limit=$2 log=$3
    shift 3
    local start=$SECONDS
    timeout "$limit" "$@" >"$log" 2>&1
    local rc=$?
    [ "$rc" -eq 124 ] && say "$name: stopped at its limit of ${limit}s" || true
    say "$name: exit $rc after $((SECONDS - start))s (log: $log)"
    [ "$rc" -eq 0 ] || FAILED=1
    return "$rc"
}

# 0. the machine: the torch that is here, and its GPU (no GPU: nothing to check)
DRY_RUN=$DRY_RUN "$PY" - >"$OUT/device.txt" 2>&1 <<'PYEOF'
import os, platform, sys
import torch
print(f"python {platform.python_version()} at {sys.executable}")
print(f"torch {torch.__version__} (CUDA {torch.version.cuda}), cuda available: {torch.cuda.is_available()}")
if not torch.cuda.is_available():
    if os.environ.get("DRY_RUN") == "1":
        sys.exit(0)
    sys.exit("no CUDA GPU visible to torch: run this on a GPU machine")
print(f"gpu: {torch.cuda.get_device_name()}, {torch.cuda.get_device_properties(0).total_memory / 2**30:.0f} GiB")
PYEOF
rc=$?
cat "$OUT/device.txt" | tee -a "$OUT/summary.txt"
if [ "$rc" -ne 0 ]; then
    say "stopped: see $OUT/device.txt"
    exit 1
fi
TORCH_BEFORE=$("$PY" -c "import torch; print(torch.__version__)")

# 1. install without touching torch: the missing packages from .whl/ (no index), then the project itself with
#    --no-deps (its torch range is not even looked at) and --no-build-isolation (setuptools from this Python)
install() {
    set -e
    ls .whl/*.whl >/dev/null || { echo ".whl/ holds no wheels: run scripts/gpu_wheels.sh where there is network"; exit 1; }
    "$PY" -m pip install --no-index --no-deps --no-cache-dir --no-compile .whl/*.whl
    "$PY" -m pip install --no-index --no-deps --no-build-isolation --no-cache-dir -e .
    "$PY" -c "import fivestack.system.serial, fivestack.match.inference, fivestack.cli; print('fivestack imports')"
}
export -f install
if ! step install 80 "$OUT/install.log" bash -c install; then
    say "install failed: going on with PYTHONPATH=$(pwd) (the checks need only the packages, not the entry point)"
    export PYTHONPATH="$(pwd)${PYTHONPATH:+:$PYTHONPATH}"
fi
TORCH_AFTER=$("$PY" -c "import torch; print(torch.__version__)")
if [ "$TORCH_AFTER" != "$TORCH_BEFORE" ]; then
    say "torch changed from $TORCH_BEFORE to $TORCH_AFTER: the install must not touch it"
    FAILED=1
else
    say "torch kept: $TORCH_AFTER"
fi

# 2. the GPU-marked tests (only the files that hold some: the others import Ray, which is not here)
GPU_TEST_FILES=$(grep -rl --include='test_*.py' "mark.gpu" tests | sort)
step "pytest -m gpu ($(echo $GPU_TEST_FILES | wc -w) files)" 180 "$OUT/pytest_gpu.log" \
    "$PY" -m pytest -m gpu -p no:cacheprovider -q -ra $GPU_TEST_FILES
tail -n 15 "$OUT/pytest_gpu.log" | tee -a "$OUT/summary.txt"

# 3. speed on the GPU, past opponents off (they would play on the CPU: the serial runner's opponents stay there)
for model in default paper; do
    seconds=20
    if [ "$DRY_RUN" = 1 ]; then
        say "dry run, not run: $PY benchmarks/train_speed.py --device cuda --model $model --pool off --seconds $seconds --optimizer-seconds 10"
        continue
    fi
    step "train_speed --model $model --device cuda" $([ "$model" = paper ] && echo 110 || echo 90) \
        "$OUT/train_speed_$model.log" \
        "$PY" benchmarks/train_speed.py --device cuda --model "$model" --pool off --seconds "$seconds" \
        --optimizer-seconds 10
    grep '^{' "$OUT/train_speed_$model.log" | tail -n 1 >"$OUT/train_speed_$model.json"
    cat "$OUT/train_speed_$model.json" | tee -a "$OUT/summary.txt"
done

say "done: $([ "$FAILED" -eq 0 ] && echo "every step passed" || echo "some step FAILED, see above")"
exit "$FAILED"
