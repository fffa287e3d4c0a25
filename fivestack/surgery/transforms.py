"""Exact-function transforms of a policy's tensors: each takes a state dict (or Adam's moments of it, keyed by
parameter name) and returns a new one for a larger model that computes the same function on every input the
old model could see.

The rule (OpenAI Five's surgery): a new unit's *incoming* weights are small random numbers, its *outgoing*
weights (every column that feeds an existing output) are zero, so it can learn but changes nothing until it
does. A new input column (an observation feature) has zero weights. A new row of a vocabulary (an item, an
ability, a primary action) is never looked up by an old observation. Adam's moments of every new entry are
zero (``Fill(moments=True)``), so one function transforms the weights and the optimizer state alike.

    widen_lstm      LSTM units H -> H'     new gates' rows random; old gates' weights from new h zero; every
                                           reader of the LSTM output (heads, ``conditioned``) zero on new columns;
                                           ``conditioned`` (width H) grows too: new rows random, readers zero
    widen_trunk     trunk T -> T'          new rows of trunk.0 random; the LSTM's input columns of new trunk
                                           units, and of new cross-hero pooled units, zero
    add_features    a group's last axis    the normaliser gets mean 0, var 1 and its own count for the new
                                           columns; the group's reader zero on them
    add_actions     primary actions        new rows of the action embeddings (random) and the target gate (0);
                                           the env's mask keeps them unavailable where it did not offer them
    add_vocabulary  items / abilities /    new rows of item_embed / ability_embed / hero_embed (random); ids are
                    heroes                 appended (a patch's new heroes and their abilities come after the old)
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable

import torch

from fivestack.model.policy import FLOAT_HERO_GROUPS, FLOAT_TEAM_GROUPS, GameSizes, Policy, PolicyConfig, trunk_inputs

FEATURE_GROUPS = FLOAT_TEAM_GROUPS + FLOAT_HERO_GROUPS
N_GATES = 4  # an LSTM cell's gates, i f g o, stacked in its weights' rows
FRESH_COUNT = 1e-4  # a RunningNorm's count before any data


class SurgeryError(ValueError):
    """A surgery that cannot be done (a change no transform handles) or that failed its verification."""


@dataclass
class Fill:
    """How a transform makes the new entries of a tensor: weights get small random incoming weights (normal,
    std ``scale``) and zeros elsewhere; Adam's moments (``moments=True``) get zeros everywhere."""

    generator: torch.Generator | None = None
    scale: float = 0.01
    moments: bool = False

    def random(self, shape) -> torch.Tensor:
        if self.moments:
            return torch.zeros(shape)
        return torch.randn(shape, generator=self.generator) * self.scale

    @staticmethod
    def zeros(shape) -> torch.Tensor:
        return torch.zeros(shape)


def embed(old: torch.Tensor, new: torch.Tensor, index: list[torch.Tensor | None]) -> torch.Tensor:
    """``new`` with ``old`` written at positions ``index`` (per dimension: where old entry i goes; None: the
    same positions)."""
    full = [torch.arange(n) if ix is None else ix for n, ix in zip(old.shape, index)]
    new = new.to(old.dtype).clone()
    new[torch.meshgrid(*full, indexing="ij")] = old
    return new


def front(n_old: int) -> torch.Tensor:
    """Old entries keep their places at the front."""
    return torch.arange(n_old)


def gate_rows(h_old: int, h_new: int) -> torch.Tensor:
    """Where the rows of an LSTM with ``h_old`` units go in one with ``h_new``: each gate's block grows."""
    return torch.cat([g * h_new + torch.arange(h_old) for g in range(N_GATES)])


def _put(tensors: dict, key: str, make: Callable[[torch.Tensor], torch.Tensor]) -> None:
    if key in tensors:
        tensors[key] = make(tensors[key])


def widen_lstm(tensors: dict[str, torch.Tensor], fill: Fill, old: int, new: int) -> dict[str, torch.Tensor]:
    """LSTM units ``old`` -> ``new``. Old units' gates read the same inputs and nothing from the new units'
    h, so their h and c are unchanged at every step; the new units' h feeds nothing (zero columns in every
    reader), whatever it is."""
    t = dict(tensors)
    rows = gate_rows(old, new)
    is_new = torch.ones(N_GATES * new, dtype=torch.bool)
    is_new[rows] = False

    def weight_hh(w):
        base = fill.random((N_GATES * new, new))
        base[~is_new, old:] = 0.0  # old gates never read the new units' h
        return embed(w, base, [rows, front(old)])

    _put(t, "lstm.weight_ih", lambda w: embed(w, fill.random((N_GATES * new, w.shape[1])), [rows, None]))
    _put(t, "lstm.weight_hh", weight_hh)
    for key in ("lstm.bias_ih", "lstm.bias_hh"):
        _put(t, key, lambda b: embed(b, fill.zeros(N_GATES * new), [rows]))
    # readers of the LSTM output: zero on the new units
    for key in ("primary_query.weight", "delay_head.weight", "value_head.weight", "win_head.weight"):
        _put(t, key, lambda w: embed(w, fill.zeros((w.shape[0], new)), [None, front(old)]))

    # conditioned reads [LSTM output (H), action embedding (a)] and has H outputs: it grows on both sides
    def conditioned(w):
        a = w.shape[1] - old
        base = fill.random((new, new + a))
        base[:old] = 0.0  # old outputs read nothing new
        return embed(w, base, [front(old), torch.cat([front(old), new + torch.arange(a)])])

    _put(t, "conditioned.weight", conditioned)
    _put(t, "conditioned.bias", lambda b: embed(b, fill.zeros(new), [None]))
    for key in ("target_query.weight", "offset_x.weight", "offset_y.weight"):  # readers of conditioned
        _put(t, key, lambda w: embed(w, fill.zeros((w.shape[0], new)), [None, front(old)]))
    return t


def widen_trunk(tensors: dict[str, torch.Tensor], fill: Fill, old: int, new: int,
                cross_hero_fraction: float) -> dict[str, torch.Tensor]:
    """Trunk width ``old`` -> ``new``. The LSTM reads [trunk (T), max over the team of its first T x fraction
    units]: the columns of new trunk units and of newly pooled ones are zero."""
    t = dict(tensors)
    pooled_old, pooled_new = int(old * cross_hero_fraction), int(new * cross_hero_fraction)
    _put(t, "trunk.0.weight", lambda w: embed(w, fill.random((new, w.shape[1])), [front(old), None]))
    _put(t, "trunk.0.bias", lambda b: embed(b, fill.zeros(new), [None]))
    columns = torch.cat([front(old), new + torch.arange(pooled_old)])
    _put(t, "lstm.weight_ih", lambda w: embed(w, fill.zeros((w.shape[0], new + pooled_new)), [None, columns]))
    return t


def _trunk_columns(parts_old: list[tuple[str, int, int]], parts_new: list[tuple[str, int, int]]) -> torch.Tensor:
    """Where each column of the old trunk input goes in the new one (parts as ``Policy.trunk_inputs``)."""
    out, start = [], 0
    for (name, rows, width), (name_new, rows_new, width_new) in zip(parts_old, parts_new):
        assert name == name_new and rows == rows_new and width_new >= width
        for r in range(rows):
            out.append(start + r * width_new + torch.arange(width))
        start += rows * width_new
    return torch.cat(out)


def add_features(tensors: dict[str, torch.Tensor], fill: Fill, group: str, old: int, new: int,
                 trunk_parts: tuple[list, list] | None = None, n_modifiers: int = 10,
                 heroes_width: int | None = None) -> dict[str, torch.Tensor]:
    """Observation group ``group``'s features (its last axis) ``old`` -> ``new``, appended at the end. The
    normaliser keeps its statistics for the old columns and starts fresh on the new ones (mean 0, var 1, a count
    of their own); the layer that reads the group has zero weights on them. ``trunk_parts``: the old and new
    policies' ``trunk_inputs()`` (groups the trunk reads); ``heroes_width``: the heroes group's width in the
    model (the hero net reads [heroes, modifiers flattened])."""
    if group not in FEATURE_GROUPS:
        raise SurgeryError(f"unknown observation group {group!r}; groups: {', '.join(FEATURE_GROUPS)}")
    t = dict(tensors)
    norm = f"norms.obs_{group}."
    _put(t, norm + "mean", lambda m: embed(m, fill.zeros(new), [None]))
    _put(t, norm + "var", lambda v: embed(v, torch.ones(new), [None]))
    _put(t, norm + "count", lambda c: embed(c.expand(old) if c.dim() == 0 else c, torch.full((new,), FRESH_COUNT),
                                            [None]))

    def columns(key, index, copies=1):  # the group's columns appear ``copies`` times in the layer's input
        _put(t, key, lambda w: embed(w, fill.zeros((w.shape[0], w.shape[1] + copies * (new - old), *w.shape[2:])),
                                     [None, index]))

    if group == "units":
        columns("unit_net.0.weight", front(old))
    elif group == "unit_rel":
        columns("unit_rel.weight", front(old))
    elif group in ("items", "abilities"):
        key = "item_net.0.weight" if group == "items" else "ability_net.0.weight"
        if key in t:
            columns(key, torch.cat([front(old), new + torch.arange(t[key].shape[1] - old)]))
    elif group == "heroes":
        rest = t["hero_net.0.weight"].shape[1] - old if "hero_net.0.weight" in t else 0
        columns("hero_net.0.weight", torch.cat([front(old), new + torch.arange(rest)]))
    elif group == "modifiers":
        h = heroes_width
        rest = t["hero_net.0.weight"].shape[1] - h - n_modifiers * old if "hero_net.0.weight" in t else 0
        per_modifier = [h + m * new + torch.arange(old) for m in range(n_modifiers)]
        columns("hero_net.0.weight", torch.cat([front(h), *per_modifier, h + n_modifiers * new + torch.arange(rest)]),
                n_modifiers)
    elif group in ("minimap", "nearby_map"):
        columns("minimap_net.0.weight" if group == "minimap" else "nearby_net.0.weight", front(old))
    else:  # global, allied_heroes, pickups, previous_action: columns of the trunk's input
        rows = next(r for name, r, _ in trunk_parts[0] if name == group)
        columns("trunk.0.weight", _trunk_columns(*trunk_parts), rows)
    return t


def add_actions(tensors: dict[str, torch.Tensor], fill: Fill, old: int, new: int) -> dict[str, torch.Tensor]:
    """Primary actions ``old`` -> ``new``, appended. Old actions' logits are unchanged (the query and their
    embeddings are); a new action gets a small random embedding and a zero target gate (as at initialisation).
    Where the env does not offer it (its mask is 0: every recorded observation), its probability is exactly 0."""
    t = dict(tensors)
    _put(t, "action_embed.weight", lambda w: embed(w, fill.random((new, w.shape[1])), [front(old), None]))
    _put(t, "target_gate.weight", lambda w: embed(w, fill.zeros((new, w.shape[1])), [front(old), None]))
    return t


VOCABULARIES = {"items": ("item_embed.weight", "n_items"), "abilities": ("ability_embed.weight", "n_abilities"),
                "heroes": ("hero_embed.weight", "n_heroes")}  # kind: (its embedding table, its GameSizes count)


def add_vocabulary(tensors: dict[str, torch.Tensor], fill: Fill, kind: str, old: int, new: int
                   ) -> dict[str, torch.Tensor]:
    """Items, abilities or heroes (``kind``) ``old`` -> ``new`` in the game's tables, appended (existing ids
    unchanged): new rows of the embedding (row 0 is "none", row id + 1 is id), small random, as at initialisation.
    Old ids look up the same rows, so the policy computes the same function for every old hero, ability and item."""
    key = VOCABULARIES[kind][0]
    t = dict(tensors)
    _put(t, key, lambda w: embed(w, fill.random((new + 1, w.shape[1])), [front(old + 1), None]))
    return t


# ---------------------------------------------------------------- what changes between two models
@dataclass
class Spec:
    """A policy's shape: its config and the game's sizes it reads."""

    config: PolicyConfig
    sizes: GameSizes

    def policy(self) -> Policy:
        return Policy(self.config, sizes=self.sizes)


@dataclass
class Step:
    """One transform of a plan: what it does (for the user) and the function of (tensors, fill)."""

    description: str
    apply: Callable[[dict[str, torch.Tensor], Fill], dict[str, torch.Tensor]]


def sizes_of(state_dict: dict[str, torch.Tensor]) -> GameSizes:
    """The game sizes a checkpoint was trained with, read from its tensors' shapes."""
    if "hero_embed.weight" not in state_dict:
        raise SurgeryError("this run's checkpoint was written before hero embeddings (its weights have no hero_embed "
                           "table: a fivestack from before the 17-hero patch, whose policy read the hero slot as a "
                           "one-hot); no transform turns a slot into an identity: train a new run")
    features = {}
    for group in FEATURE_GROUPS:
        key = f"norms.obs_{group}.mean"
        features[group] = (state_dict["unit_rel.weight"].shape[1] if group == "unit_rel"
                           else state_dict[key].shape[0])
    return GameSizes(features, state_dict["action_embed.weight"].shape[0], state_dict["item_embed.weight"].shape[0] - 1,
                     state_dict["ability_embed.weight"].shape[0] - 1, state_dict["hero_embed.weight"].shape[0] - 1)


# policy keys no transform changes (goal_inputs: the asymmetric self-play goal of system/asp_moba.py)
FIXED = ("unit_embedding", "element_hidden", "action_embedding", "cross_hero_fraction", "normalizer_clip",
         "goal_inputs", "core", "value_hidden", "flat_unit_slots")


def plan(old: Spec, new: Spec) -> list[Step]:
    """The transforms that turn a policy shaped ``old`` into one shaped ``new``, in order; a change no transform
    handles is a ``SurgeryError`` naming it and what to do."""
    for name in FIXED:
        a, b = getattr(old.config, name), getattr(new.config, name)
        if a != b:
            raise SurgeryError(f"policy.{name} changes from {a} to {b}, and no surgery transform handles that; keep "
                               f"policy.{name} = {a} in the --to config (surgery can widen policy.lstm_size and "
                               f"policy.trunk, and add features, actions, items, abilities and heroes)")
    if old.config.core != "lstm" and new.config.lstm_size != old.config.lstm_size:
        raise SurgeryError(f"policy.lstm_size changes from {old.config.lstm_size} to {new.config.lstm_size}, but the "
                           f"policy's core is {old.config.core!r}, not an LSTM: surgery widens only an LSTM core; keep "
                           f"policy.lstm_size = {old.config.lstm_size} in the --to config")
    for name in ("lstm_size", "trunk"):
        a, b = getattr(old.config, name), getattr(new.config, name)
        if b < a:
            raise SurgeryError(f"policy.{name} shrinks from {a} to {b}; surgery only grows a model (a smaller one "
                               f"cannot compute the same function): set policy.{name} >= {a} in the --to config, or "
                               f"train a new run")
    shrinks = [f"{g} features {old.sizes.features[g]} -> {new.sizes.features[g]}" for g in FEATURE_GROUPS
               if new.sizes.features[g] < old.sizes.features[g]]
    shrinks += [f"{n} {getattr(old.sizes, n)} -> {getattr(new.sizes, n)}" for n in ("n_primary", "n_items",
                                                                                    "n_abilities", "n_heroes")
                if getattr(new.sizes, n) < getattr(old.sizes, n)]
    if shrinks:
        raise SurgeryError(f"the game offers fewer than the run was trained on ({'; '.join(shrinks)}); surgery never "
                           f"removes inputs or actions (the paper kept deprecated observations, set to a constant): "
                           f"keep them in the game")
    steps: list[Step] = []
    sizes = replace(old.sizes, features=dict(old.sizes.features))
    for group in FEATURE_GROUPS:
        a, b = old.sizes.features[group], new.sizes.features[group]
        if b == a:
            continue
        before = Spec(old.config, replace(sizes, features=dict(sizes.features)))
        sizes.features[group] = b
        after = Spec(old.config, replace(sizes, features=dict(sizes.features)))
        parts = (trunk_inputs(before.config, before.sizes), trunk_inputs(after.config, after.sizes))
        steps.append(Step(f"add {b - a} feature(s) to the {group} observations ({a} -> {b})",
                          lambda t, f, g=group, a=a, b=b, p=parts, h=before.sizes.features["heroes"]:
                          add_features(t, f, g, a, b, trunk_parts=p, heroes_width=h)))
    for kind, (_, attr) in VOCABULARIES.items():
        a, b = getattr(old.sizes, attr), getattr(new.sizes, attr)
        if b > a:
            steps.append(Step(f"add {b - a} {kind} to the vocabulary ({a} -> {b})",
                              lambda t, f, k=kind, a=a, b=b: add_vocabulary(t, f, k, a, b)))
    if new.sizes.n_primary > old.sizes.n_primary:
        a, b = old.sizes.n_primary, new.sizes.n_primary
        steps.append(Step(f"add {b - a} primary action(s) ({a} -> {b})",
                          lambda t, f, a=a, b=b: add_actions(t, f, a, b)))
    if new.config.trunk > old.config.trunk:
        a, b = old.config.trunk, new.config.trunk
        steps.append(Step(f"widen the trunk {a} -> {b}",
                          lambda t, f, a=a, b=b: widen_trunk(t, f, a, b, old.config.cross_hero_fraction)))
    if new.config.lstm_size > old.config.lstm_size:
        a, b = old.config.lstm_size, new.config.lstm_size
        steps.append(Step(f"widen the LSTM {a} -> {b}", lambda t, f, a=a, b=b: widen_lstm(t, f, a, b)))
    return steps


def apply_plan(steps: list[Step], tensors: dict[str, torch.Tensor], fill: Fill) -> dict[str, torch.Tensor]:
    for step in steps:
        tensors = step.apply(tensors, fill)
    return tensors


def transform_optimizer(steps: list[Step], optim: dict[str, torch.Tensor], old: Spec) -> dict[str, torch.Tensor]:
    """Adam's state (``Optimizer.optimizer_tensors``: ``{i}.exp_avg``, ``{i}.exp_avg_sq``, ``{i}.step`` by
    parameter index) through the same steps: old entries keep their moments, new ones start at zero; each
    parameter keeps its step count. Other tensors (the runner's RNGs) are carried unchanged."""
    with torch.device("meta"):  # the parameters' names and order, without their memory
        names = [name for name, _ in old.policy().named_parameters()]
    out = {k: v for k, v in optim.items() if not (k.split(".", 1)[0].isdigit() and
                                                   k.split(".", 1)[1] in ("exp_avg", "exp_avg_sq"))}
    for moment in ("exp_avg", "exp_avg_sq"):
        by_name = {names[int(k.split(".")[0])]: v for k, v in optim.items() if k.endswith(f".{moment}")
                   and k.split(".")[0].isdigit()}
        moved = apply_plan(steps, by_name, Fill(moments=True))
        for i, name in enumerate(names):
            if name in moved:
                out[f"{i}.{moment}"] = moved[name].contiguous()
    return out


__all__ = ["Fill", "Spec", "Step", "SurgeryError", "add_actions", "add_features", "add_vocabulary", "apply_plan",
           "plan", "sizes_of", "transform_optimizer", "widen_lstm", "widen_trunk"]
