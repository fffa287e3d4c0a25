"""The clone of a bot as a run's version 0: record the bot's play, fit the policy to it, DAgger rounds.

    clone_policy(config, run_dir, policy, log, on_progress) -> CloneSummary
        1. teacher data: ``clone.agent_steps`` of the bot's play (``CloneRecorder``) written to
           ``run_dir/clone/`` as shards (``ShardStore``), training and held-out streams apart;
        2. supervised passes over the training shards (``SupervisedTrainer``) while the held-out loss falls
           (at most ``clone.passes``; the best pass's weights are kept);
        3. ``clone.dagger_rounds`` rounds: the clone plays (sampling, as PPO will), the bot labels its states
           (``clone.dagger_agent_steps`` each), and the policy trains again on all the data so far.
        With ``clone.eval_games``, the clone plays that many games against each of ``clone.eval_opponents`` after
        every training phase (``evaluator.evaluate``, the evaluation's own games): each DAgger round is measured
        in play, not only on held-out labels (``in_play`` in the phase's progress).
        Every phase is recorded in ``clone/progress.json`` and the weights after each training phase in
        ``clone/model.safetensors``: a killed clone resumes after its last finished shard or phase. The final
        weights there are the frozen reference of PPO's KL term (``ppo.kl_weight``).

The agent-steps of every recorded game (teacher and DAgger) are the run's first agent-steps: a budget in
agent-steps counts the clone's data.
"""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np
import torch
from safetensors.torch import load_file, save_file

from fivestack.model.policy import Policy
from fivestack.system.clone.recorder import CloneRecorder
from fivestack.system.clone.shards import ShardError, ShardStore, ShardWriter, bytes_per_million
from fivestack.system.clone.supervised import SupervisedTrainer
from fivestack.runs.config import ConfigError, TrainConfig
from fivestack.match.agents import trained_game_of
from fivestack.match.inference import Inference
from fivestack.system.evaluator import evaluate

CLONE_DIR = "clone"
CLONE_WEIGHTS = "model.safetensors"

# (phase, done, total, text): a progress display's update; ``total`` in the phase's own unit
ProgressFn = Callable[[str, float, float, str], None]
LogFn = Callable[[int, dict], None]  # (agent_steps, metrics): a record of metrics.jsonl and TensorBoard


@dataclass
class CloneSummary:
    agent_steps: int  # recorded play, teacher and DAgger
    held_out: dict  # the final held-out metrics (clone_valid/...)
    phases: dict  # each phase's figures, as progress.json holds them


def clone_dir(run_dir: Path) -> Path:
    return Path(run_dir) / CLONE_DIR


def load_clone_weights(run_dir: Path) -> dict[str, torch.Tensor]:
    """The finished clone's weights of a run (PPO's reference policy), with one clear error if they are missing."""
    path = clone_dir(run_dir) / CLONE_WEIGHTS
    if not path.is_file():
        raise ShardError(f"{path} is missing: the run's clone never finished; resume the run to finish it, or set "
                         f"ppo.kl_weight=0 and ppo.kl_weight_end=0 to train without the KL term")
    try:
        return load_file(str(path))
    except Exception as exc:  # safetensors raises its own error types for a damaged file
        raise ShardError(f"{path} cannot be read ({exc}); delete it and resume the run to train the clone "
                         f"again") from None


def clone_needed(config: TrainConfig, clone: dict, version: int, run_dir: Path) -> bool:
    """Whether a run must make its clone now: ``clone.bot`` set and the run has none yet (``clone``,
    ``RunState.clone``); one clear error if the run is past version 0 without one (a clone is only a version 0)."""
    if not config.clone.bot or clone:
        return False
    if version > 0:
        raise ConfigError(f"clone.bot = {config.clone.bot!r}, but run {run_dir} is at version {version} without a "
                          f"clone: a clone is a run's version 0; start a new run for it")
    return True


def kl_reference(config: TrainConfig, run_dir: Path, clone: dict) -> dict[str, torch.Tensor] | None:
    """The frozen clone's weights for PPO's KL term (``ppo.kl_weight``) of a run whose state has a clone
    (``clone``, ``RunState.clone``); None when the run has no clone or no KL term. Both runners ask here."""
    ppo = config.ppo
    if not clone or not (ppo.kl_weight > 0 or ppo.kl_weight_end > 0):
        return None
    return load_clone_weights(run_dir)


def clone_policy(config: TrainConfig, run_dir: Path, policy: Policy, log: LogFn,
                 on_progress: ProgressFn | None = None) -> CloneSummary:
    """Clone ``clone.bot`` into ``policy``, phase by phase (the module docstring); the phases finished before
    (``clone/progress.json``) are skipped."""
    c = config.clone
    clone = _Clone(config, run_dir, policy, log, on_progress)
    clone.record("teacher", c.agent_steps, None)
    clone.fit("train-0", c.passes)
    for r in range(1, c.dagger_rounds + 1):
        clone.record(f"dagger-{r}", c.dagger_agent_steps, Inference(policy, seed=config.run.seed + r))
        clone.fit(f"train-{r}", c.dagger_passes)
    return clone.finish(f"train-{c.dagger_rounds}")


class _Clone:
    """The phases of one clone over its shard store: ``record`` (teacher or DAgger data), ``fit`` (supervised
    passes), ``finish``. Each phase is skipped when ``progress.json`` has it."""

    def __init__(self, config: TrainConfig, run_dir: Path, policy: Policy, log: LogFn,
                 on_progress: ProgressFn | None):
        self.config, self.c = config, config.clone
        self.policy, self.log = policy, log
        self.store = ShardStore(clone_dir(run_dir), config.game.move_goals)
        self.phases = self.store.progress.phases
        self.weights = self.store.directory / CLONE_WEIGHTS
        if self.weights.is_file() and self.phases:  # resume: the weights of the last finished training phase
            policy.load_state_dict(load_file(str(self.weights)))
        self.trainer = SupervisedTrainer(policy, self.c, config.rollout.sample_steps, seed=config.run.seed)
        self.trainer.update_normalizers = not any(name.startswith("train") for name in self.phases)
        self.progress = on_progress or (lambda *args: None)

    def record(self, kind: str, target: int, inference: Inference | None) -> None:
        """Record ``target`` agent-steps of the bot's play (``inference`` None) or of the clone's, labelled by the
        bot, as shards of the training and held-out streams."""
        config, store, progress = self.config, self.store, self.progress
        if kind in self.phases:
            return
        t0 = time.perf_counter()
        done = start = store.progress.agent_steps(kind)
        n_shards = sum(1 for s in store.progress.shards if s.kind == kind)
        # a resumed recording plays fresh games: its seed moves on with the shards already written
        recorder = CloneRecorder(config, seed=config.run.seed * 7_777 + 1_000 * n_shards + hash_kind(kind),
                                 inference=inference)
        results = []
        with ShardWriter(store) as writer:  # a shard is deflated and written while the next one is recorded
            while done < target:
                progress(kind, done, target, f"recording {kind}")
                shard = recorder.record(self.c.shard_steps)
                per_stream = shard.steps * shard.labels.shape[2] * config.rollout.decision_steps
                for split, mask in (("train", ~recorder.held_out), ("valid", recorder.held_out)):
                    if mask.any():
                        writer.write(shard.select_streams(mask.nonzero()[0]), split, kind, per_stream * int(mask.sum()))
                done += per_stream * len(recorder.seats)
                results += recorder.take_results()
        done = store.progress.agent_steps(kind)
        seconds = time.perf_counter() - t0
        self.phases[kind] = {"agent_steps": done, "seconds": seconds,
                             "agent_steps_per_s": (done - start) / max(seconds, 1e-9), **win_rates(results)}
        store.save_progress()
        progress(kind, target, target, f"recorded {kind}")
        self.log(store.progress.agent_steps(), {f"clone/{kind}/{k}": v for k, v in self.phases[kind].items()})

    def fit(self, name: str, passes: int) -> None:
        """Supervised passes over every training shard so far while the held-out loss falls (``clone.patience``);
        the best pass's weights are kept and saved."""
        if name in self.phases:
            return
        t0 = time.perf_counter()
        files = self._fit_files()
        best_loss, best_state, best_metrics, stale = float("inf"), None, {}, 0
        history = []
        for p in range(passes):
            train, valid = self._fit_pass(name, p, passes, *files)
            history.append({"train_loss": train.get("clone_train/loss"), "valid_loss": valid.get("clone_valid/loss"),
                            "valid_dagger_loss": valid.get("clone_valid_dagger/loss")})
            # stop when the held-out loss (the mean over both kinds of games, where there are both) stops falling
            held_out = [valid[k] for k in ("clone_valid/loss", "clone_valid_dagger/loss") if k in valid]
            loss = float(np.mean(held_out)) if held_out else train.get("clone_train/loss", float("inf"))
            if loss < best_loss - 1e-3:
                best_loss, best_state, best_metrics, stale = loss, copy.deepcopy(self.policy.state_dict()), valid, 0
            else:
                stale += 1
                if stale >= self.c.patience:
                    break
        if best_state is not None:
            self.policy.load_state_dict(best_state)
        seconds = time.perf_counter() - t0
        self.phases[name] = {"passes": len(history), "grad_steps": self.trainer.grad_steps, "seconds": seconds,
                             "history": history, "held_out": best_metrics, **self._in_play(name)}
        tmp = self.weights.with_name(f".{self.weights.name}.tmp")
        save_file({k: v.detach().cpu().contiguous() for k, v in self.policy.state_dict().items()}, str(tmp))
        tmp.replace(self.weights)
        self.store.save_progress()
        self.progress(name, passes, passes, f"{name}: done")

    def _fit_files(self) -> tuple[list, list, list, int]:
        """The training shards, the held-out ones of the teacher's games and of the DAgger games, and about how
        many gradient steps a pass takes (a step trains one chunk of up to clone.batch_streams streams)."""
        progress = self.store.progress
        teacher_valid = progress.files("valid", ("teacher",))
        dagger_valid = [f for f in progress.files("valid") if f not in teacher_valid]
        per_pass = max(1, sum(s.streams * (s.steps // self.config.rollout.sample_steps)
                              for s in progress.shards if s.split == "train") // self.c.batch_streams)
        return progress.files("train"), teacher_valid, dagger_valid, per_pass

    def _fit_pass(self, name: str, p: int, passes: int, train_files: list, teacher_valid: list, dagger_valid: list,
                  per_pass: int) -> tuple[dict, dict]:
        """Pass ``p`` of phase ``name``: the training metrics and the held-out ones (logged)."""
        store, trainer = self.store, self.trainer
        steps_before = trainer.grad_steps
        text = f"{name}: pass {p + 1} of at most {passes}"

        def on_step(record: dict) -> None:
            done = min((trainer.grad_steps - steps_before) / per_pass, 1.0)
            self.progress(name, p + done, passes, f"{text} (loss {record['clone_train/loss']:.2f})")

        train = trainer.train_pass(store, train_files, on_step)
        # held out: the teacher's own games (comparable across phases) and the clone's DAgger games
        valid = trainer.evaluate(store, teacher_valid) if teacher_valid else {}
        if dagger_valid:
            valid.update({k.replace("clone_valid/", "clone_valid_dagger/"): v
                          for k, v in trainer.evaluate(store, dagger_valid).items()})
        self.log(store.progress.agent_steps(), {**train, **valid, "clone/pass": p + 1, "clone/grad_steps":
                                                trainer.grad_steps, "clone/pass_grad_steps": trainer.grad_steps - steps_before})
        return train, valid

    def _in_play(self, name: str) -> dict:
        """The clone after phase ``name`` against each of ``clone.eval_opponents`` (``clone.eval_games`` games
        each, half on each side, sampled actions, the evaluation's seeds and time limit), logged; {} without."""
        if self.c.eval_games <= 0:
            return {}
        config, figures = self.config, {}
        self.progress(name, 0, len(self.c.eval_opponents), f"{name}: the clone in play")
        for i, opponent in enumerate(self.c.eval_opponents):
            result = evaluate(self.policy, opponent, self.c.eval_games, config.game.mode, config.eval.max_seconds,
                              seed=20_000 + config.run.seed, decision_steps=config.rollout.decision_steps,
                              **trained_game_of(config.game))
            figures[opponent] = result.to_dict()
            self.progress(name, i + 1, len(self.c.eval_opponents), f"{name}: the clone in play")
        self.log(self.store.progress.agent_steps(),
                 {f"clone/{name}/{key}_vs_{opponent}": figures[opponent][key] for opponent in figures
                  for key in ("win_rate", "draw_rate")})
        return {"in_play": figures}

    def finish(self, last: str) -> CloneSummary:
        """The clone's summary; ``last``, the last training phase, gives the held-out figures."""
        store = self.store
        self.phases["done"] = {"agent_steps": store.progress.agent_steps(),
                               "bytes_per_million_agent_steps": bytes_per_million(store.progress)}
        store.save_progress()
        held_out = {k: v for k, v in self.phases[last]["held_out"].items() if "/loss" in k or "/accuracy" in k}
        return CloneSummary(store.progress.agent_steps(), held_out, self.phases)


def hash_kind(kind: str) -> int:
    """A small stable number per recording kind (teacher, dagger-1, ...), so their games differ."""
    return sum((i + 1) * ord(ch) for i, ch in enumerate(kind)) % 997


def win_rates(results: list[dict]) -> dict:
    """The recorded seats' wins, draws and games per opponent, from ``CloneRecorder`` results."""
    out = {}
    for name in sorted({r["opponent"] for r in results}):
        games = [r for r in results if r["opponent"] == name]
        wins = sum(r["winner"] == r["side"] for r in games)
        draws = sum(r["winner"] < 0 for r in games)
        out[f"games_vs_{name}"] = len(games)
        out[f"win_rate_vs_{name}"] = wins / len(games)
        out[f"draw_rate_vs_{name}"] = draws / len(games)
    return out
