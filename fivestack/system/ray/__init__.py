"""The ray runner: the serial runner's components as Ray actors, so that one run scales from a laptop to a
cluster.

    RolloutActor x R --(obs, every step)--> InferenceActor x I --(actions, version)--> RolloutActor
         |  (each plays G games of the batched env; with I = 0 it runs its own forward passes; on one machine
         |   the step's hop goes through shared memory and a Unix socket, across machines as a Ray call)
         +--(one 256-step segment, through the object store, as soon as it is full)--> OptimizerActor x O
    OptimizerActor x O: own experience buffer; gradients averaged by allreduce (torch.distributed, gloo/NCCL)
         rank 0, every K gradient steps --(parameters, version)--> ControllerActor (named)
    ControllerActor: versions, run metadata, metrics.jsonl + TensorBoard, checkpoints (safetensors + JSON),
         the opponent pool (past versions on disk, served to workers; qualities scored from their games)
    EvaluatorActor: TrueSkill ratings of pool versions every ``eval.every_versions`` (RatingEvaluator)

The driver (``driver.RayRunner``) is a ``TrainingLoop`` (``fivestack/system/loop.py``, which owns the budget,
checkpoints, ratings, annealing, signals and progress for both runners) whose step watches and restarts the
actors and gathers their statistics every ``ray.log_seconds``: it never calls an optimizer per batch. Everything that crosses an actor boundary is a dict of
numpy arrays and plain values (the shared-memory hop: fixed numpy arrays in one block). A segment is sent whole,
once, with the indices of its trainable samples; the optimizer's buffer leaves the others out.

    messages.py    what crosses an actor boundary (numpy dicts), actor names, thread settings
    channel.py     the rollout -> inference hop on one machine: shared memory (memfd) and a Unix socket
    controller.py  ControllerActor      inference.py  InferenceActor      rollout.py  RolloutActor
    optimizer.py   OptimizerActor       evaluator.py  EvaluatorActor      driver.py   RayRunner (the step, the
                                                                                    evaluator actor), init_ray
"""

from fivestack.system.ray.driver import RayRunner, init_ray

__all__ = ["RayRunner", "init_ray"]
