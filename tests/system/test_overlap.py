"""The serial runner with ``run.overlap``: the optimizer trains on one segment in a second thread while the next is
played with the weights from before that training. What it must keep: each segment trained on is counted once and
the budget stops it where it stops without overlap (the segment in play then is dropped, never counted), the acting
weights lag by exactly one step and catch up after it, a seeded run replays exactly, and it resumes from a
checkpoint."""

import json

import numpy as np
import torch

from fivestack.runs.config import load_config
from fivestack.system.serial import SerialRunner


def small_config(tmp_path, overlap: bool, *more: str):
    return load_config(None, [f"run.runs_dir='{tmp_path}'", "run.name='o'", "game.mode='1v1'", "rollout.games=2",
                              "rollout.segment_steps=32", "ppo.batch_samples=4", "ppo.steps_per_version=1",
                              "policy.lstm_size=16", "eval.every_versions=0", "pool.past_fraction=0.0",
                              "run.seed=5", f"run.overlap={str(overlap).lower()}", *more])


def play(tmp_path, overlap: bool, segments: int, *more: str):
    """Run ``segments`` steps (stop() counted), recording each collected segment's version stamp and the
    optimizer's version when it was collected; the runner, the records and the metrics lines."""
    runner = SerialRunner(small_config(tmp_path, overlap, *more))
    collected = []
    collect = runner.worker.collect

    def recording_collect(infer, *args, **kwargs):
        batch = collect(infer, *args, **kwargs)
        collected.append({"stamp": int(batch.version[0]), "weights": float(runner.acting.lstm.weight_hh.detach().sum())})
        return batch

    runner.worker.collect = recording_collect
    steps = [0]

    def stop() -> bool:
        steps[0] += 1
        return steps[0] > segments

    runner.run(stop=stop)
    runner.close()
    lines = [json.loads(line) for line in (runner.run_dir / "metrics.jsonl").read_text().splitlines()]
    return runner, collected, [line for line in lines if "loss/policy" in line]


def test_each_segment_is_trained_once_with_the_weights_one_step_behind(tmp_path):
    runner, collected, trained = play(tmp_path / "a", True, 4)
    # the first step plays two segments (nothing to train on before the first); each later step one; the one in
    # play when the loop ends is dropped: 5 played, 4 trained, each trained segment's agent-steps counted once
    assert len(collected) == 5 and len(trained) == 4
    per_segment = 2 * 2 * 32  # games x teams x decisions (1v1: one hero a team, one timestep a decision)
    assert runner.agent_steps == 4 * per_segment
    assert [line["agent_steps"] for line in trained] == [per_segment * (i + 1) for i in range(4)]
    # 8 samples a segment, 4 per gradient step, a version per step: 2 versions per segment trained
    assert runner.version == 8
    # segment 0 and 1 are played by version 0 (segment 1 while segment 0 trains), segment k by version 2 (k - 1)
    assert [c["stamp"] for c in collected] == [0, 0, 2, 4, 6]
    # staleness: a segment trains over 2 versions (0.5 on average); played one step earlier, 2 more
    assert [line["staleness/mean"] for line in trained] == [0.5, 2.5, 2.5, 2.5]
    # the acting copy changes between steps only and ends equal to the trained weights
    assert collected[0]["weights"] == collected[1]["weights"] != collected[2]["weights"]
    for name, tensor in runner.policy.state_dict().items():
        torch.testing.assert_close(runner.acting.state_dict()[name], tensor, rtol=0, atol=0)


def test_a_seeded_overlapped_run_replays_exactly(tmp_path):
    first, _, lines_a = play(tmp_path / "a", True, 3)
    second, _, lines_b = play(tmp_path / "b", True, 3)
    assert [line["loss/policy"] for line in lines_a] == [line["loss/policy"] for line in lines_b]
    for name, tensor in first.policy.state_dict().items():
        torch.testing.assert_close(second.policy.state_dict()[name], tensor, rtol=0, atol=0)


def test_without_overlap_the_acting_weights_are_the_optimizers(tmp_path):
    runner, collected, trained = play(tmp_path, False, 4)
    assert runner.acting is runner.policy and len(collected) == len(trained) == 4
    assert [c["stamp"] for c in collected] == [0, 2, 4, 6]  # each segment played by the version trained so far
    overlapped, _, _ = play(tmp_path / "o", True, 4)
    assert overlapped.agent_steps == runner.agent_steps and overlapped.version == runner.version  # the same budget


def test_max_versions_stops_at_that_version_and_a_resumed_run_goes_on(tmp_path):
    runner = SerialRunner(small_config(tmp_path, True, "run.max_versions=6"))
    runner.run()
    runner.close()
    assert runner.version == 6 and runner.agent_steps == 3 * 128  # the segment in play at the end is not counted
    again = SerialRunner(small_config(tmp_path, True, "run.max_versions=10"), resume=runner.run_dir)
    for name, tensor in runner.policy.state_dict().items():  # the acting copy starts from the checkpoint
        assert torch.equal(again.acting.state_dict()[name], tensor), name
    again.run()
    again.close()
    assert again.version == 10 and again.agent_steps == 5 * 128


def test_other_players_in_a_second_thread_play_the_same_actions(tmp_path):
    """``parallel_players``: past versions (two in play) and the scripted bot act in the worker's second thread
    while the learner's pass runs; each has its own generator, so a segment is the same, action for action."""
    from fivestack.match.inference import Inference
    from fivestack.model.policy import Policy
    from fivestack.system.pool import OpponentPool, PastOpponents
    from fivestack.system.rollout import RolloutWorker

    config = load_config(None, ["game.mode='1v1'", "rollout.games=6", "rollout.segment_steps=32", "policy.lstm_size=16",
                                "pool.past_fraction=0.6", "pool.bot_fraction=0.3", "pool.opponent_slots=2"])
    torch.manual_seed(0)
    pool = OpponentPool(config.pool, tmp_path / "pool")
    for version in (0, 1, 2):
        pool.add(version, Policy(config.policy, config.game.patch).state_dict())
    learner = Policy(config.policy, config.game.patch)

    def segment(parallel: bool):
        opponents = PastOpponents(pool, config.policy, seed=1, patch=config.game.patch)
        worker = RolloutWorker(config, seed=2, opponents=opponents, parallel_players=parallel)
        batch = worker.collect(Inference(learner, seed=3), team_spirit=0.3, keep_all=True)
        return batch, worker

    alone, worker_alone = segment(False)
    threaded, worker_threaded = segment(True)
    assert worker_alone.past_passes == worker_threaded.past_passes > 32  # past versions played at most steps
    assert worker_threaded.seconds["bots"] > 0  # and the bot
    np.testing.assert_array_equal(alone.actions, threaded.actions)
    np.testing.assert_array_equal(alone.info["trainable"], threaded.info["trainable"])
    for name in alone.obs:
        np.testing.assert_array_equal(alone.obs[name], threaded.obs[name])


def test_the_overlapped_steps_take_one_torch_thread_and_give_the_default_back(tmp_path):
    before = torch.get_num_threads()
    torch.set_num_threads(2)  # as torch's default on 2 cores, whatever the test process was given
    seen = []
    runner = SerialRunner(small_config(tmp_path, True, "run.torch_threads=0", "run.max_versions=4"))
    train = runner._train

    def spying_train(batch):
        seen.append(torch.get_num_threads())
        return train(batch)

    runner._train = spying_train
    runner.run()
    runner.close()
    assert seen and set(seen) == {1}  # each step's training ran on one thread
    assert torch.get_num_threads() == 2  # what evaluations after the run get
    torch.set_num_threads(before)
