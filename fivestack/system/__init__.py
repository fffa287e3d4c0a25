"""The training system: the components of a run, the one training loop, and the two runners that place them.

    loop.py          TrainingLoop: the training loop of both runners (budget, checkpoints, ratings, annealing,
                     signals, progress and messages); Progress
    serial.py        SerialRunner: every component in this process (its step: collect a segment, train on it)
    ray/             RayRunner and the actors: the components as Ray actors (its step: watch and restart them,
                     gather their statistics)
    runner.py        make_runner and the Runner protocol the CLI drives
    rollout.py       RolloutWorker: plays the games, cuts each segment into samples
    rollout_hooks.py the rollout's features as hooks (annealed game features, past opponents, the bot, the
                     teacher, asymmetric self-play, a drill)
    drills.py        drills (issue 30): small scenarios on the real game (walk to a marked point), the hook's logic
    drill_eval.py    a drill's success share for any player, and its baselines (untrained, do-nothing)
    buffer.py        SampleBuffer          optimizer.py   Optimizer (PPO)     distributed.py  optimizers as one
    pool.py          the opponent pool     evaluator.py   TrueSkill ratings   annealing.py    a feature annealed in
    asp_moba.py      asymmetric self-play  controller.py  the run's folder    run_state.py    RunState, RatingSchedule
    metrics.py       what both log         messages.py    SampleBatch         clone/          version 0, a bot's clone

Imports go one way: ``runner`` -> ``serial``, ``ray`` -> ``loop``; nothing ``loop`` or a runner imports imports
``runner.py``.
"""
