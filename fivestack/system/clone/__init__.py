"""Cloning a bot's play: the run's version 0 on a laptop (record, fit, DAgger), which PPO then takes further.

    shards.py     the data on disk: ``.npz`` shards of recorded streams and a resumable progress file
    recorder.py   batched games in which the bot (or, in DAgger, the clone) plays the recorded seats
    supervised.py cross-entropy on every head through the LSTM (truncated BPTT over the streams)
    pipeline.py   the phases in order, resumable: ``clone_policy``
"""

from fivestack.system.clone.pipeline import CloneSummary, clone_dir, clone_needed, clone_policy, kl_reference, load_clone_weights

__all__ = ["CloneSummary", "clone_dir", "clone_needed", "clone_policy", "kl_reference", "load_clone_weights"]
