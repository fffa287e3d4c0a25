"""The optimizer: PPO on batches of 16-step samples, replayed through the LSTM from their stored start
state (truncated BPTT), Adam with the +-5 sqrt(v) clip, and the version counter.

With a teacher (``ppo.teacher``) the loss has one more term, imitation: the negative log-probability of the
teacher bot's action on the states the policy played (DAgger, Ross et al. 2011), over the steps where that
action is one the hero could take, weighted by ``teacher_weight(config, version)`` (falling from ``ppo.teacher_weight``
to ``ppo.teacher_weight_end``)."""

from __future__ import annotations

import torch
from torch.nn import functional as F

from fivestack.model.policy import HEADS, Policy
from fivestack.rl.gae import gamma_from_horizon
from fivestack.rl.normalize import RunningStd
from fivestack.rl.optim import clip_by_adam_second_moment
from fivestack.rl.ppo import masked_mean, policy_loss, value_loss
from fivestack.rl.rewards import team_spirit_tau
from fivestack.system.config import PPOConfig
from fivestack.system.messages import SampleBatch


def to_torch(batch: SampleBatch) -> dict[str, torch.Tensor]:
    return {name: torch.from_numpy(arr) for name, arr in batch.obs.items()}


class Optimizer:
    def __init__(self, policy: Policy, config: PPOConfig):
        self.policy = policy
        self.config = config
        self.adam = torch.optim.Adam(policy.parameters(), lr=config.learning_rate,
                                     betas=(config.adam_beta1, config.adam_beta2), eps=1e-5)
        self.return_std = RunningStd(gamma_from_horizon(config.horizon_seconds))
        self.entropy_weights = torch.tensor([getattr(config, f"entropy_{name}") for name in HEADS])
        self.version = 0
        self.grad_steps = 0
        # In a pool of optimizers (``distributed.GradientSync``): union-batch advantage statistics and averaged
        # gradients; None for a single optimizer.
        self.sync = None

    @property
    def value_scale(self) -> float:
        return self.return_std.std

    def observe(self, batch: SampleBatch) -> None:
        """Update the running statistics (reward scale, input normalisers) from new experience."""
        self.return_std.update(batch.returns)
        obs = to_torch(batch)
        self.policy.update_normalizers({k: v.flatten(0, 1) for k, v in obs.items()})

    def train(self, batch: SampleBatch) -> dict[str, float]:
        c = self.config
        s, k = batch.hero_slots.shape
        obs = to_torch(batch)
        state = (torch.from_numpy(batch.h0).reshape(s * k, -1), torch.from_numpy(batch.c0).reshape(s * k, -1))
        actions = torch.from_numpy(batch.actions)
        imitation_weight = teacher_weight(c, self.version)
        labels = torch.from_numpy(batch.teacher_actions) if imitation_weight > 0 else None
        scores = self.policy.forward_sequence(obs, state, torch.from_numpy(batch.first),
                                              torch.from_numpy(batch.hero_slots), actions, labels)
        log_prob, entropy, value, win_logit, used = (scores.log_prob, scores.entropy, scores.value, scores.win_logit,
                                                     scores.used)
        adv = torch.from_numpy(batch.advantages)
        mean, std = (adv.mean(), adv.std()) if self.sync is None else self.sync.moments(adv)
        adv = (adv - mean) / (std + 1e-8)
        returns = torch.from_numpy(batch.returns) / self.value_scale
        pg_loss, clip_frac = policy_loss(log_prob, torch.from_numpy(batch.log_prob), adv, c.clip)
        v_loss = value_loss(value, returns)
        head_entropy = entropy.flatten(0, -2).mean(0)  # (heads,), mean over every step and hero
        ent = (head_entropy * self.entropy_weights).sum()
        win_loss = F.binary_cross_entropy_with_logits(win_logit, torch.from_numpy(batch.win_target))
        loss = pg_loss + c.value_weight * v_loss - ent + c.win_weight * win_loss
        imitation_metrics = {}
        if imitation_weight > 0:
            labelled = scores.teacher_valid.float()
            imitation = -masked_mean(scores.teacher_log_prob, labelled)
            loss = loss + imitation_weight * imitation
            same_primary = (actions[..., 0] == labels[..., 0]).float()
            imitation_metrics = {"imitation/loss": imitation.item(), "imitation/weight": imitation_weight,
                                 "imitation/labelled": float(labelled.mean()),
                                 "imitation/same_primary": float(masked_mean(same_primary, labelled))}
        self.adam.zero_grad(set_to_none=True)
        loss.backward()
        if self.sync is not None:
            self.sync.average_gradients(self.policy.parameters())
        grad_clipped = clip_by_adam_second_moment(self.adam, c.grad_clip)
        self.adam.step()
        self.grad_steps += 1
        if self.grad_steps % c.steps_per_version == 0:
            self.version += 1
        with torch.no_grad():
            approx_kl = masked_mean(torch.from_numpy(batch.log_prob) - log_prob, None)
        per_head = {f"entropy/{name}": float(value) for name, value in zip(HEADS, head_entropy.detach())}
        used_t, used_o = used[..., 0].detach(), used[..., 1].detach()
        # a parameter head's entropy over the steps whose action uses it
        per_head["entropy/target_when_used"] = float(entropy[..., 2].detach().sum() / used_t.sum().clamp_min(1))
        per_head["entropy/offset_when_used"] = float(entropy[..., 3].detach().sum() / used_o.sum().clamp_min(1))
        return {**per_head, **imitation_metrics, "loss/policy": pg_loss.item(), "loss/value": v_loss.item(),
                "loss/entropy_bonus": ent.item(),
                "loss/win": win_loss.item(), "loss/total": loss.item(), "ppo/clip_fraction": clip_frac.item(),
                "ppo/approx_kl": float(approx_kl), "ppo/grad_clipped_fraction": grad_clipped,
                "ppo/target_used": float(used[..., 0].mean()), "ppo/offset_used": float(used[..., 1].mean()),
                "value/scale": self.value_scale}

    # ------------------------------------------------------------------ checkpoint state
    def optimizer_tensors(self) -> dict[str, torch.Tensor]:
        out = {}
        for i, p in enumerate(self.policy.parameters()):
            state = self.adam.state.get(p)
            if state:
                out[f"{i}.exp_avg"] = state["exp_avg"].contiguous()
                out[f"{i}.exp_avg_sq"] = state["exp_avg_sq"].contiguous()
                out[f"{i}.step"] = torch.as_tensor(float(state["step"])).reshape(1)
        return out

    def load_optimizer_tensors(self, tensors: dict[str, torch.Tensor]) -> None:
        for i, p in enumerate(self.policy.parameters()):
            if f"{i}.exp_avg" in tensors:
                if tensors[f"{i}.exp_avg"].shape != p.shape:
                    raise ValueError(f"optimizer state for parameter {i} has shape {tuple(tensors[f'{i}.exp_avg'].shape)}"
                                     f", the model's is {tuple(p.shape)}: the checkpoint is from another model size")
                self.adam.state[p] = {"step": torch.tensor(float(tensors[f"{i}.step"][0])),
                                      "exp_avg": tensors[f"{i}.exp_avg"].clone(),
                                      "exp_avg_sq": tensors[f"{i}.exp_avg_sq"].clone()}

    def scalars(self) -> dict:
        return {"version": self.version, "grad_steps": self.grad_steps, "return_std": self.return_std.state_dict()}

    def load_scalars(self, state: dict) -> None:
        self.version = int(state["version"])
        self.grad_steps = int(state["grad_steps"])
        self.return_std.load_state_dict(state["return_std"])


def team_spirit_at(config: PPOConfig, version: int) -> float:
    """Team spirit's tau at ``version`` under ``config`` (the schedule is ``rl.rewards.team_spirit_tau``)."""
    return team_spirit_tau(version, config.team_spirit_start, config.team_spirit_end, config.team_spirit_versions)


def teacher_weight(config: PPOConfig, version: int) -> float:
    """The imitation term's weight: ``teacher_weight`` at version 0, linearly to ``teacher_weight_end`` at
    ``teacher_versions``, then constant; 0 without a teacher."""
    if not config.teacher:
        return 0.0
    frac = min(1.0, version / config.teacher_versions)
    return config.teacher_weight + frac * (config.teacher_weight_end - config.teacher_weight)


__all__ = ["Optimizer", "team_spirit_at", "teacher_weight"]
