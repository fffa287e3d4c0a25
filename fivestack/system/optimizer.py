"""The optimizer: PPO on batches of 16-step samples, replayed through the LSTM from their stored start
state (truncated BPTT), Adam with the +-5 sqrt(v) clip, and the version counter. Adam's learning rate at each
version is ``learning_rate(config, version)``: constant, or falling linearly over ``ppo.learning_rate_versions``.

With a teacher (``ppo.teacher``) the loss has one more term, imitation: the negative log-probability of the
teacher bot's action on the states the policy played (DAgger, Ross et al. 2011), over the steps where that
action is one the hero could take, weighted by ``teacher_weight(config, version)`` (falling from ``ppo.teacher_weight``
to ``ppo.teacher_weight_end``).

With a reference policy (``reference``: the run's clone, ``fivestack.system.clone``), the loss also has
``kl_weight(config, version)`` x KL(pi || pi_clone) per head (``fivestack.rl.imitation.head_kl``), the frozen
clone read on the same stored states and LSTM start state as the policy. For the first ``ppo.value_warmup_steps``
gradient steps of such a run only the value and win heads learn (the clone's value head never saw a return): the
policy stays the clone while its critic catches up. The same holds for a run that starts from another run's
trained version (``run.init_from``, ``warm_start``): that critic learnt another task's returns.

On a GPU (``device``): the policy and Adam's moments live there, each batch is copied there (through pinned
memory), and the forward pass runs under bf16 autocast while the log-probabilities, losses and the update stay
fp32. ``optimizer_tensors`` returns CPU tensors and ``load_optimizer_tensors`` places them on the policy's
device, so a checkpoint written on a GPU resumes on a CPU and the reverse."""

from __future__ import annotations

import copy

import numpy as np
import torch
from torch.nn import functional as F

from fivestack.model.policy import HEADS, Policy
from fivestack.rl.normalize import RunningStd
from fivestack.rl.optim import clip_by_adam_second_moment
from fivestack.rl.imitation import head_kl, imitation_loss, per_head_metrics
from fivestack.rl.ppo import head_policy_loss, masked_mean, policy_loss, value_loss
from fivestack.rl.rewards import team_spirit_tau
from fivestack.runs.config import PPOConfig
from fivestack.match.device import autocast, to_device
from fivestack.system.messages import SampleBatch


def to_torch(batch: SampleBatch, device: torch.device | str = "cpu") -> dict[str, torch.Tensor]:
    """A batch's observation groups as tensors on ``device``."""
    return {name: to_device(arr, device) for name, arr in batch.obs.items()}


class Optimizer:
    """PPO with Adam on ``policy``, which it moves to ``device`` (the CPU by default)."""

    def __init__(self, policy: Policy, config: PPOConfig, device: torch.device | str = "cpu",
                 reference: Policy | None = None, warm_start: bool = False):
        self.device = torch.device(device)
        self.policy = policy.to(self.device)
        self.reference = None
        self.warm_start = warm_start  # version 0 is a trained version's weights (run.init_from): warm the critic up
        if reference is not None:
            self.set_reference(reference)
        self.critic = {id(p) for head in (policy.value_head, policy.win_head) for p in head.parameters()}
        self.config = config
        self.adam = torch.optim.Adam(policy.parameters(), lr=config.learning_rate,
                                     betas=(config.adam_beta1, config.adam_beta2), eps=1e-5)
        self.return_std = RunningStd()
        self.entropy_weights = torch.tensor([getattr(config, f"entropy_{name}") for name in HEADS],
                                            device=self.device)
        self.version = 0
        self.grad_steps = 0
        self.lr_zero_until = 0  # gradient steps before this one use learning rate 0 (set by a surgery)
        # In a pool of optimizers (``distributed.GradientSync``): union-batch advantage statistics and averaged
        # gradients; None for a single optimizer.
        self.sync = None

    def set_reference(self, reference: Policy) -> None:
        """The frozen policy of the KL term (the run's clone): a copy on the optimizer's device (the caller's module
        is left as it was)."""
        self.reference = copy.deepcopy(reference).to(self.device).eval().requires_grad_(False)

    @property
    def value_scale(self) -> float:
        return self.return_std.std

    def observe(self, batch: SampleBatch, keep: np.ndarray | None = None) -> None:
        """Update the running statistics (reward scale, input normalisers) from new experience: the samples
        ``keep`` (sorted indices; None: all) of ``batch``. Only the groups the normalisers read are cut down to
        them."""
        self.return_std.update(batch.returns if keep is None else batch.returns[keep])
        self.policy.update_normalizers(to_torch(batch, self.device),
                                       None if keep is None else torch.from_numpy(keep).to(self.device))

    def train(self, batch: SampleBatch) -> dict[str, float]:
        c = self.config
        s, k = batch.hero_slots.shape

        def tensor(arr):  # a batch array on the optimizer's device
            return to_device(arr, self.device)

        obs = to_torch(batch, self.device)
        state = (tensor(batch.h0).reshape(s * k, -1), tensor(batch.c0).reshape(s * k, -1))
        actions = tensor(batch.actions)
        imitation_weight = teacher_weight(c, self.version)
        labels = tensor(batch.teacher_actions) if imitation_weight > 0 else None
        kl_w = kl_weight(c, self.version) if self.reference is not None else 0.0
        warming_up = (self.reference is not None or self.warm_start) and self.grad_steps < c.value_warmup_steps
        with autocast(self.device):  # bf16 on a GPU; the policy's log-probs, entropies and values come out fp32
            scores = self.policy.forward_sequence(obs, state, tensor(batch.first), tensor(batch.hero_slots), actions,
                                                  labels, with_logits=kl_w > 0)
        log_prob, entropy, value, win_logit, used = (scores.log_prob, scores.entropy, scores.value, scores.win_logit,
                                                     scores.used)
        adv = tensor(batch.advantages)
        mean, std = (adv.mean(), adv.std()) if self.sync is None else self.sync.moments(adv)
        adv = (adv - mean) / (std + 1e-8)
        returns = tensor(batch.returns) / self.value_scale
        old_head_log_prob = tensor(batch.head_log_prob)
        old_log_prob = old_head_log_prob.sum(-1)
        extra = {}
        if c.head_ratios:  # each head's ratio clipped on its own
            pg_loss, head_clipped = head_policy_loss(scores.head_log_prob, old_head_log_prob, adv, c.clip)
            clip_frac = head_clipped.max()
            extra.update({f"ppo/clip_fraction_{name}": float(v) for name, v in zip(HEADS, head_clipped)})
        else:
            pg_loss, clip_frac = policy_loss(log_prob, old_log_prob, adv, c.clip)
        v_loss = value_loss(value, returns)
        head_entropy = entropy.flatten(0, -2).mean(0)  # (heads,), mean over every step and hero
        ent = (head_entropy * self.entropy_weights).sum()
        win_loss = F.binary_cross_entropy_with_logits(win_logit, tensor(batch.win_target))
        critic_loss = c.value_weight * v_loss + c.win_weight * win_loss
        loss = pg_loss + critic_loss - ent
        if imitation_weight > 0:
            imitation = imitation_loss(scores.teacher)
            loss = loss + imitation_weight * imitation
            labelled = scores.teacher.valid.float()
            same_primary = (actions[..., 0] == labels[..., 0]).float()
            extra.update(per_head_metrics(scores.teacher, "imitation"))
            extra.update({"imitation/weight": imitation_weight,
                          "imitation/same_primary": float(masked_mean(same_primary, labelled))})
        if kl_w > 0:
            with torch.no_grad(), autocast(self.device):  # the clone on the same states, from the same LSTM state
                reference = self.reference.forward_sequence(obs, state, tensor(batch.first), tensor(batch.hero_slots),
                                                            actions, with_logits=True).logits
            kl = head_kl(scores.logits, reference)  # (N, heads)
            loss = loss + kl_w * kl.sum(-1).mean()
            extra.update({f"kl_clone/{name}": float(v) for name, v in zip(HEADS, kl.detach().mean(0))})
            extra.update({"kl_clone/total": float(kl.detach().sum(-1).mean()), "kl_clone/weight": kl_w})
        if warming_up:  # only the critic learns: the policy's terms are left out and no other weight moves
            loss = critic_loss
            extra["ppo/value_warmup"] = 1.0
        grad_clipped = self._gradient_step(loss, warming_up)
        with torch.no_grad():
            approx_kl = masked_mean(old_log_prob - log_prob, None)
        per_head = {f"entropy/{name}": float(value) for name, value in zip(HEADS, head_entropy.detach())}
        used_t, used_o = used[..., 0].detach(), used[..., 1].detach()
        # a parameter head's entropy over the steps whose action uses it
        per_head["entropy/target_when_used"] = float(entropy[..., 2].detach().sum() / used_t.sum().clamp_min(1))
        per_head["entropy/offset_when_used"] = float(entropy[..., 3].detach().sum() / used_o.sum().clamp_min(1))
        return {**per_head, **extra, "loss/policy": pg_loss.item(), "loss/value": v_loss.item(),
                "loss/entropy_bonus": ent.item(),
                "loss/win": win_loss.item(), "loss/total": loss.item(), "ppo/clip_fraction": clip_frac.item(),
                "ppo/approx_kl": float(approx_kl), "ppo/grad_clipped_fraction": grad_clipped,
                "ppo/target_used": float(used[..., 0].mean()), "ppo/offset_used": float(used[..., 1].mean()),
                "ppo/learning_rate": self.adam.param_groups[0]["lr"], "value/scale": self.value_scale}

    def _gradient_step(self, loss: torch.Tensor, critic_only: bool) -> float:
        """One Adam step on ``loss`` (the critic's parameters alone when ``critic_only``), gradients averaged
        across the optimizers and clipped; a new version every ``ppo.steps_per_version`` steps. The fraction
        of gradient entries clipped."""
        c = self.config
        self.adam.zero_grad(set_to_none=True)
        loss.backward()
        if critic_only:
            for p in self.policy.parameters():
                if id(p) not in self.critic:
                    p.grad = None
        if self.sync is not None:
            self.sync.average_gradients(self.policy.parameters())
        grad_clipped = clip_by_adam_second_moment(self.adam, c.grad_clip) if c.grad_clip > 0 else 0.0
        if c.grad_norm_clip > 0:
            torch.nn.utils.clip_grad_norm_(self.policy.parameters(), c.grad_norm_clip)
        for group in self.adam.param_groups:  # learning rate 0 during a surgery's warm-up: Adam's moments fill
            group["lr"] = 0.0 if self.grad_steps < self.lr_zero_until else learning_rate(c, self.version)
        self.adam.step()
        self.grad_steps += 1
        if self.grad_steps % c.steps_per_version == 0:
            self.version += 1
        return grad_clipped

    # ------------------------------------------------------------------ checkpoint state
    def optimizer_tensors(self) -> dict[str, torch.Tensor]:
        """Adam's moments and step counts by parameter index, as CPU tensors (a checkpoint's optim.safetensors)."""
        out = {}
        for i, p in enumerate(self.policy.parameters()):
            state = self.adam.state.get(p)
            if state:
                out[f"{i}.exp_avg"] = state["exp_avg"].detach().cpu().contiguous()
                out[f"{i}.exp_avg_sq"] = state["exp_avg_sq"].detach().cpu().contiguous()
                out[f"{i}.step"] = torch.as_tensor(float(state["step"])).reshape(1)
        return out

    def load_optimizer_tensors(self, tensors: dict[str, torch.Tensor]) -> None:
        """Adam's state from ``optimizer_tensors`` (on any device), placed on each parameter's device."""
        for i, p in enumerate(self.policy.parameters()):
            if f"{i}.exp_avg" in tensors:
                if tensors[f"{i}.exp_avg"].shape != p.shape:
                    raise ValueError(f"optimizer state for parameter {i} has shape {tuple(tensors[f'{i}.exp_avg'].shape)}"
                                     f", the model's is {tuple(p.shape)}: the checkpoint is from another model size")
                self.adam.state[p] = {"step": torch.tensor(float(tensors[f"{i}.step"][0])),
                                      "exp_avg": tensors[f"{i}.exp_avg"].to(p.device, copy=True),
                                      "exp_avg_sq": tensors[f"{i}.exp_avg_sq"].to(p.device, copy=True)}

    def scalars(self) -> dict:
        return {"version": self.version, "grad_steps": self.grad_steps, "return_std": self.return_std.state_dict(),
                "lr_zero_until": self.lr_zero_until}

    def load_scalars(self, state: dict) -> None:
        self.version = int(state["version"])
        self.grad_steps = int(state["grad_steps"])
        self.lr_zero_until = int(state.get("lr_zero_until", 0))
        self.return_std.load_state_dict(state["return_std"])


def team_spirit_at(config: PPOConfig, version: int) -> float:
    """Team spirit's tau at ``version`` under ``config`` (the schedule is ``rl.rewards.team_spirit_tau``)."""
    return team_spirit_tau(version, config.team_spirit_start, config.team_spirit_end, config.team_spirit_versions)


def linear_schedule(start: float, end: float, versions: int, version: int) -> float:
    """``start`` at version 0, linearly to ``end`` at ``versions``, then ``end``."""
    frac = min(1.0, version / versions)
    return start + frac * (end - start)


def learning_rate(config: PPOConfig, version: int) -> float:
    """Adam's learning rate at ``version``: ``learning_rate``, or with ``learning_rate_versions`` > 0 linearly from
    it to ``learning_rate_end`` over that many versions, then constant."""
    if config.learning_rate_versions == 0:
        return config.learning_rate
    return linear_schedule(config.learning_rate, config.learning_rate_end, config.learning_rate_versions, version)


def teacher_weight(config: PPOConfig, version: int) -> float:
    """The imitation term's weight: ``teacher_weight`` at version 0, linearly to ``teacher_weight_end`` at
    ``teacher_versions``, then constant; 0 without a teacher."""
    if not config.teacher:
        return 0.0
    return linear_schedule(config.teacher_weight, config.teacher_weight_end, config.teacher_versions, version)


def kl_weight(config: PPOConfig, version: int) -> float:
    """The weight of the KL term toward the clone: ``kl_weight`` at version 0, linearly to ``kl_weight_end`` at
    ``kl_versions``, then constant (the run must have a clone to be read)."""
    return linear_schedule(config.kl_weight, config.kl_weight_end, config.kl_versions, version)


__all__ = ["Optimizer", "kl_weight", "learning_rate", "linear_schedule", "team_spirit_at", "teacher_weight"]
