#!/usr/bin/env bash
# Issue 16's second check at the default version size (32 gradient steps per version), as a user runs it:
# 1v1, seed 0, one thread; LSTM 256 for 10 versions, surgery to LSTM 512 + patch 0.3 (creep_balance column),
# 50 more versions, then both versions rated by `fivestack eval` (100 games against the three bots).
# Usage: bash scripts/surgery_check.sh [RUNS_DIR]     (~25 minutes of training on 2 cores, ~5 of rating)
set -euo pipefail
R=${1:-runs/surgery-check}
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
mkdir -p "$R"
printf '[policy]\nlstm_size = 512\n' > "$R/bigger.toml"
# from scratch, as measured: the preset's clone-then-surpass recipe switched off
fivestack train --config configs/1v1.toml --set run.name=pre --set run.runs_dir="$R" --set run.seed=0 \
    --set run.torch_threads=1 --set run.max_versions=10 --set eval.every_versions=0 \
    --set "clone.bot=''" --set ppo.kl_weight=0 --set ppo.kl_weight_end=0 --set ppo.value_warmup_steps=0 \
    --set pool.bot_fraction=0
fivestack surgery "$R/pre" --to "$R/bigger.toml" --patch 0.3 --out "$R/post"
fivestack train --resume "$R/post" --set run.max_versions=60
fivestack eval "$R/pre" --version 10 --games 100 --against random,scripted-weak,scripted
fivestack eval "$R/post" --version 60 --games 100 --against random,scripted-weak,scripted
