"""The ray runner's staleness figures over several optimizers, computed by hand: each optimizer's mean counts by the
samples its figures cover, whatever it consumed in the same interval (the two are counted apart)."""

import numpy as np
import pytest

from fivestack.system.buffer import Staleness
from fivestack.system.metrics import ray_metrics


def optimizer_stats(lags: list[int], consumed: int) -> dict:
    staleness = Staleness()
    staleness.add(np.array(lags))
    return {"staleness": staleness.take(), "consumed": consumed, "produced": 10, "consumed_total": consumed,
            "produced_total": 10, "max_staleness_seen": max(lags), "buffer": 0, "dropped_stale": 0,
            "dropped_overflow": 0, "steps": 1, "train_s": 0.5, "seconds": 1.0, "idle_s": 0.5, "comm_s": 0.0,
            "add_s": 0.0, "adds": 0, "losses": {}}


def test_the_mean_staleness_weights_each_optimizer_by_the_samples_it_drew():
    # optimizer A drew lags 1, 1, 2 and reported no consumption in this interval (its counter had just been
    # read); B drew 3: the mean is (1 + 1 + 2 + 3) / 4 = 1.75, between the min 1 and the max 3
    opt = [optimizer_stats([1, 1, 2], consumed=0), optimizer_stats([3], consumed=5)]
    out = ray_metrics(opt, [], {"hero_steps": 0, "segments": 0}, 1.0, 100, 16, 10, np.ones(1))
    assert out["staleness/min"] == 1.0 and out["staleness/max"] == 3.0
    assert out["staleness/mean"] == pytest.approx(1.75)
