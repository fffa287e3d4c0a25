"""The OpenAI-Five-shaped policy: one network, shared by the heroes of a team, told which hero it drives.

Per team and timestep (the team's observation groups are shared by its K heroes):

    units (189 x 43) --per-unit MLP--> unit embeddings (computed once per team) --+ hero-relative part--> max-pool
    heroes / modifiers / items / abilities --per-element MLP--> max-pool
    global, allied heroes, pickups --linear--; minimap and nearby map --small conv nets--
    concat + the controlled hero's own unit embedding + hero identity --> FC --> cross-hero pool --> LSTM
    heads: primary (dot product with action embeddings, masked), delay, unit target (attention over unit
           embeddings, query = LSTM output + chosen action, keys gated by a learned per-action sigmoid,
           masked by the env's valid targets), offset x / y (conditioned on the chosen action; on the rows of a
           turned view, patch 0.9's ``team_frame``, the cells are turned back into the map's frame), value, win.

Shapes: T teams, K heroes per team (5, or 1 in 1v1 mid), L timesteps. ``forward_sequence`` runs L steps
from a stored LSTM state (truncated BPTT); ``act`` is one step for rollouts.

Identities are embedded, not one-hot: items, abilities and heroes are integer ids (rows of the patch's tables,
-1 for none) looked up in learned tables sized from the patch (``GameSizes``), so a patch with more heroes or
abilities is a data change. A hero's embedding is read twice: per row of the heroes set (``hero_ids``) and as
the identity of the hero a replica plays (``own_hero_id``), in the trunk input.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

import torch
from torch import nn
from torch.nn import functional as F

from fivestack.env import spaces as sp
from fivestack.game.layout import HEROES_PER_TEAM, N_DELAY, N_OFFSET, N_PRIMARY, N_UNIT_SLOTS
from fivestack.game.patch import F_TEAM_FRAME, Patch
from fivestack.model.normalizers import RunningNorm, merge_moments, normalizer_input  # noqa: F401  (re-exported)

# the observation's groups by kind, named once in ``env.spaces`` (with their shapes)
FLOAT_TEAM_GROUPS = tuple(sp.TEAM_GROUPS)
FLOAT_HERO_GROUPS = tuple(sp.HERO_GROUPS)
MASK_GROUPS = tuple(sp.HERO_MASK_GROUPS)
INT_GROUPS = tuple(sp.TEAM_INT_GROUPS)
HERO_INT_GROUPS = tuple(sp.HERO_INT_GROUPS)
ALL_GROUPS = FLOAT_TEAM_GROUPS + FLOAT_HERO_GROUPS + MASK_GROUPS + INT_GROUPS + HERO_INT_GROUPS
HERO_AXIS_GROUPS = FLOAT_HERO_GROUPS + MASK_GROUPS + HERO_INT_GROUPS  # a per-hero axis after the team axis
CORES = ("lstm", "mlp")  # ``PolicyConfig.core``
HEADS = ("primary", "delay", "target", "offset")  # the action heads, as entropy is reported and weighted
RAW_GROUPS = ("unit_rel",)  # float groups used as the env scales them (unit_rel feeds the target logits directly)
ID_EMBEDDING = 16  # width of the item, ability and hero embeddings


@dataclass
class PolicyConfig:
    """Widths of the network. The paper's LSTM has 4096 units (84% of 159M parameters); on 2 CPU cores the
    default is 256 so that a run learns in minutes. ``lstm_size=4096`` builds the paper's size."""

    unit_embedding: int = field(default=64, metadata={"doc": "width of each element's embedding (units, heroes, "
                                                              "items, abilities); ours (paper: 128)"})
    element_hidden: int = field(default=64, metadata={"doc": "hidden width of the per-element networks"})
    trunk: int = field(default=256, metadata={"doc": "width of the trunk, the vector the LSTM reads"})
    lstm_size: int = field(default=256, metadata={"doc": "LSTM units per hero (paper: 4096)"})
    action_embedding: int = field(default=64, metadata={"doc": "width of the primary actions' embeddings, the "
                                                                "primary head's keys"})
    cross_hero_fraction: float = field(default=0.25, metadata={"doc": "share of the trunk max-pooled across the "
                                                                       "team's heroes (paper: 25%)"})
    normalizer_clip: float = field(default=5.0, metadata={"doc": "standardised inputs are clipped to +- this"})
    goal_inputs: int = field(default=0, metadata={"doc": "width of the goal input the trunk also reads (6 for "
                                                          "asymmetric self-play, asp.share); 0: none, the default"})
    core: str = field(default="lstm", metadata={"doc": "the core between the trunk and the heads: lstm (the paper's) "
                                                        "or mlp (one ReLU layer of lstm_size units, no memory)"})
    # the flat slots: each slot's normalised row and hero-relative features at a fixed place in the trunk's input;
    # 101 covers 1v1 mid's heroes, buildings and first 32 lane creeps (the flat MLP's view of a library learner)
    flat_unit_slots: int = field(default=0, metadata={"doc": "the trunk also reads the first N unit slots flat, "
                                                              "beside the max-pooled set; 0: none"})
    value_hidden: int = field(default=0, metadata={"doc": "width of a ReLU layer of the value head's own between the "
                                                           "core and the value; 0: the value is linear in the core"})


@dataclass
class GameSizes:
    """The sizes the policy takes from the game: the last-axis width of each float observation group, the number
    of primary actions and the item, ability and hero vocabularies (each embedding table has one more row, for
    "none"). ``GameSizes.of(patch)`` is the game as it is; surgery (``fivestack.surgery``) builds policies for a
    game with more of them."""

    features: dict[str, int]
    n_primary: int
    n_items: int
    n_abilities: int
    n_heroes: int
    team_frame: bool = False  # the game's feature ``team_frame``: Dire's view is turned, so are its offsets

    def vocabularies(self) -> str:
        """The hero, ability and item counts, as an error message names them."""
        return f"{self.n_heroes} heroes, {self.n_abilities} abilities and {self.n_items} items"

    @classmethod
    def of(cls, patch: Patch | str | None = None) -> "GameSizes":
        """The sizes of ``patch`` (a ``Patch`` or a version of ``game.patch.PATCHES``; None: the default game),
        its observation features' columns included (``env.spaces.group_shapes``)."""
        patch = Patch(patch) if isinstance(patch, str) else patch or Patch()
        team_groups, hero_groups = sp.group_shapes(patch.version)
        shapes = {**team_groups, **hero_groups}
        return cls({name: shapes[name][-1] for name in FLOAT_TEAM_GROUPS + FLOAT_HERO_GROUPS}, N_PRIMARY,
                   len(patch.items), len(patch.ability_table), patch.n_heroes, bool(patch.features & F_TEAM_FRAME))


def mlp(sizes: list[int]) -> nn.Sequential:
    layers: list[nn.Module] = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        layers += [nn.Linear(a, b), nn.ReLU()]
    return nn.Sequential(*layers)


def full_precision(x: torch.Tensor) -> torch.Tensor:
    """``x`` in fp32 if it is a half-precision tensor (bf16 autocast's output), else unchanged (fp32, fp64)."""
    return x.float() if x.dtype in (torch.bfloat16, torch.float16) else x


def categorical(logits: torch.Tensor) -> torch.distributions.Categorical:
    """A categorical over the last axis, in full precision (under bf16 autocast too: log-probabilities and
    entropies are fp32). Its arguments are not validated (a check of every row on every call, on the hot
    path): masking uses -1e9, not -inf, so the logits are always finite."""
    return torch.distributions.Categorical(logits=full_precision(logits), validate_args=False)


def sample_categorical(probs: torch.Tensor, uniform: torch.Tensor) -> torch.Tensor:
    """One draw per row of ``probs`` (N, C) by inverting its cumulative sum at ``uniform`` (N,) in [0, 1): the
    first class whose cumulative probability reaches (1 - u) x the row's total. A class of probability 0 is never
    drawn. Two small ops where ``torch.multinomial`` costs ~90 us a call on a CPU, five calls per forward pass."""
    cdf = probs.cumsum(-1)
    point = (1.0 - uniform).unsqueeze(-1) * cdf[:, -1:]  # in (0, total]: never before the first class of mass
    return torch.searchsorted(cdf, point).squeeze(-1).clamp_max(probs.shape[-1] - 1)


def masked_max(x: torch.Tensor, present: torch.Tensor, dim: int) -> torch.Tensor:
    """Max-pool over ``dim`` among present elements (0 where none is present)."""
    filled = x.masked_fill(~present.unsqueeze(-1), float("-inf"))
    pooled = filled.amax(dim)
    return torch.where(torch.isinf(pooled), torch.zeros_like(pooled), pooled)


@dataclass
class PackedUnits:
    """The embeddings of the units a team sees, packed: no compute is spent on empty or hidden slots."""

    emb: torch.Tensor  # (P, E)
    batch: torch.Tensor  # (P,) team-step of each row
    slot: torch.Tensor  # (P,) unit slot of each row
    n_batch: int

    @staticmethod
    def from_dense(emb: torch.Tensor, present: torch.Tensor | None = None) -> "PackedUnits":
        """Pack (B, 189, E) embeddings, keeping the slots where ``present`` (B, 189) is true (all by default)."""
        if present is None:
            present = torch.ones(emb.shape[:2], dtype=torch.bool, device=emb.device)
        batch, slot = present.nonzero(as_tuple=True)
        return PackedUnits(emb[batch, slot], batch, slot, emb.shape[0])

    def lookup(self, slots: torch.Tensor) -> torch.Tensor:
        """Embeddings of the given slots (B, K) -> (B, K, E); zero where the slot holds no seen unit."""
        index = torch.full((self.n_batch, N_UNIT_SLOTS), -1, dtype=torch.long, device=self.emb.device)
        index[self.batch, self.slot] = torch.arange(self.emb.shape[0], device=self.emb.device)
        picked = index.gather(1, slots)  # (B, K)
        out = self.emb[picked.clamp_min(0)]
        return out * (picked >= 0).unsqueeze(-1)

    def attention(self, query: torch.Tensor) -> torch.Tensor:
        """Dot products of per-replica queries (B, K, E) with every seen unit -> logits (B, K, 189), 0 elsewhere."""
        k = query.shape[1]
        scores = (query[self.batch] * self.emb.unsqueeze(1)).sum(-1)  # (P, K)
        dense = scores.new_zeros(self.n_batch, N_UNIT_SLOTS, k).index_put((self.batch, self.slot), scores)
        return dense.transpose(1, 2)


def trunk_inputs(config: PolicyConfig, sizes: GameSizes) -> list[tuple[str, int, int]]:
    """The trunk's input (the columns of ``trunk.0.weight``) in ``Policy.encode``'s order: (part, rows, width of a
    row); an observation group's part is named after the group."""
    f, e = sizes.features, config.unit_embedding
    return [("global", 1, f["global"]), ("allied_heroes", 5, f["allied_heroes"]),
            ("pickups", sp.N_PICKUPS, f["pickups"]), ("minimap_net", 1, 16 * 5 * 5), ("pooled_units", 1, e),
            ("pooled_heroes", 1, e), ("pooled_items", 1, e), ("pooled_abilities", 1, e),
            ("nearby_net", 1, 16 * 4 * 4), ("previous_action", 1, f["previous_action"]), ("own_unit", 1, e),
            ("hero_identity", 1, ID_EMBEDDING)] + ([("goal", 1, config.goal_inputs)] if config.goal_inputs else []) + (
        [("flat_units", config.flat_unit_slots, f["units"] + sp.N_UNIT_REL_FEATURES)] if config.flat_unit_slots else [])


class Policy(nn.Module):
    def __init__(self, config: PolicyConfig | None = None, patch: Patch | str | None = None,
                 sizes: GameSizes | None = None):
        """``patch``: the game the policy plays (a ``Patch`` or a patch version; its observation features widen the
        inputs), or ``sizes`` given directly (surgery)."""
        super().__init__()
        self.config = c = config or PolicyConfig()
        self.sizes = s = sizes or GameSizes.of(patch)
        f = s.features
        e, hid = c.unit_embedding, c.element_hidden
        self.norms = nn.ModuleDict({  # keyed "obs_<group>": ModuleDict keys may not shadow its methods
            f"obs_{name}": RunningNorm(f[name], c.normalizer_clip)
            for name in {**sp.TEAM_GROUPS, **sp.HERO_GROUPS} if name not in RAW_GROUPS
        })
        # sets: a shared per-element network, then max-pool
        self.unit_net = mlp([f["units"], hid, e])
        self.unit_rel = nn.Linear(f["unit_rel"], 1)  # hero-relative term of the target logits
        # id embeddings: row 0 is "none" (id -1), row id + 1 is id
        self.hero_embed = nn.Embedding(s.n_heroes + 1, ID_EMBEDDING)
        self.hero_net = mlp([f["heroes"] + sp.N_MODIFIERS * f["modifiers"] + ID_EMBEDDING, hid, e])
        self.item_embed = nn.Embedding(s.n_items + 1, ID_EMBEDDING)
        self.item_net = mlp([f["items"] + ID_EMBEDDING, hid, e])
        self.ability_embed = nn.Embedding(s.n_abilities + 1, ID_EMBEDDING)
        self.ability_net = mlp([f["abilities"] + ID_EMBEDDING, hid, e])
        self.minimap_net = nn.Sequential(
            nn.Conv2d(f["minimap"], 16, 3, padding=1), nn.ReLU(),
            nn.Conv2d(16, 16, 3, stride=2, padding=1), nn.ReLU(), nn.Flatten(),
        )
        self.nearby_net = nn.Sequential(
            nn.Conv2d(f["nearby_map"], 16, 3, padding=1), nn.ReLU(),
            nn.Conv2d(16, 16, 3, stride=2, padding=1), nn.ReLU(), nn.Flatten(),
        )
        trunk_in = sum(rows * width for _, rows, width in self.trunk_inputs())
        self.trunk = mlp([trunk_in, c.trunk])
        self.n_pooled = int(c.trunk * c.cross_hero_fraction)
        if c.core == "lstm":
            self.lstm = nn.LSTMCell(c.trunk + self.n_pooled, c.lstm_size)
        else:  # a feed-forward core of the LSTM's width: the heads read the same size, the state stays zeros
            self.core_net = mlp([c.trunk + self.n_pooled, c.lstm_size])
        # heads
        a = c.action_embedding
        self.action_embed = nn.Embedding(s.n_primary, a)
        self.primary_query = nn.Linear(c.lstm_size, a)
        self.delay_head = nn.Linear(c.lstm_size, N_DELAY)
        self.conditioned = nn.Linear(c.lstm_size + a, c.lstm_size)  # LSTM output + chosen action
        self.target_query = nn.Linear(c.lstm_size, e)
        self.target_gate = nn.Embedding(s.n_primary, e)  # learned per-action sigmoid mask over key dims
        self.offset_x = nn.Linear(c.lstm_size, N_OFFSET)
        self.offset_y = nn.Linear(c.lstm_size, N_OFFSET)
        value_out = nn.Linear(c.value_hidden or c.lstm_size, 1)
        self.value_head = (nn.Sequential(nn.Linear(c.lstm_size, c.value_hidden), nn.ReLU(), value_out)
                           if c.value_hidden else value_out)
        self.win_head = nn.Linear(c.lstm_size, 1)
        nn.init.zeros_(self.target_gate.weight)
        for head in (self.delay_head, self.offset_x, self.offset_y, value_out, self.win_head):
            nn.init.normal_(head.weight, std=0.01)
            nn.init.zeros_(head.bias)

    def load_state_dict(self, state_dict, strict: bool = True, assign: bool = False):
        """As nn.Module's, accepting checkpoints written before ``unit_rel`` stopped being normalised, and with
        one clear error for weights that do not fit this model: written before hero embeddings, for a game with
        other hero / ability / item counts (``check_vocabularies``), or of another observation layout or size."""
        state_dict = {k: v for k, v in state_dict.items() if not k.startswith("norms.obs_unit_rel.")}
        check_vocabularies(state_dict, self.sizes)
        own = self.state_dict()
        wrong = [f"{k} {tuple(v.shape)} (this model: {tuple(own[k].shape)})"
                 for k, v in state_dict.items() if k in own and tuple(v.shape) != tuple(own[k].shape)
                 and not (k.startswith("norms.") and k.endswith(".count"))]  # a count per column is fine
        if wrong:
            raise ValueError(
                f"these weights do not fit this policy: {len(wrong)} tensors have other shapes, e.g. "
                f"{'; '.join(wrong[:3])}. They were written by a model of another size or for another observation "
                "layout: load them with the [policy] settings and the fivestack version that trained them, or train a "
                "new run.")
        return super().load_state_dict(state_dict, strict=strict, assign=assign)

    def trunk_inputs(self) -> list[tuple[str, int, int]]:
        return trunk_inputs(self.config, self.sizes)

    # ------------------------------------------------------------------ state
    def initial_state(self, n: int) -> tuple[torch.Tensor, torch.Tensor]:
        z = torch.zeros(n, self.config.lstm_size, device=self.value_head.weight.device)
        return z, z.clone()

    @torch.no_grad()
    def update_normalizers(self, obs: dict[str, torch.Tensor], keep: torch.Tensor | None = None) -> None:
        """Absorb ``obs`` (rows ``keep`` of its first axis; None: all) into the input normalisers."""
        for key, norm in self.norms.items():
            norm.update(normalizer_input(key, obs, keep))

    # ------------------------------------------------------------------ encoder
    def encode(self, obs: dict[str, torch.Tensor], hero_slots: torch.Tensor) -> tuple[torch.Tensor, "PackedUnits"]:
        """Observations of B team-steps -> (trunk features (B, K, trunk), the seen units' embeddings).

        The unit set is embedded once per team and shared by its K replicas (the five heroes see the same
        units); what differs per hero (distance, who attacks whom) enters the target head directly.
        ``hero_slots`` (B, K) are the hero indices 0-9 (also their unit slots) the K replicas drive.
        """
        n = {key[4:]: norm(obs[key[4:]]) for key, norm in self.norms.items() if key != "obs_units"}
        units_raw = obs["units"]
        b, k = units_raw.shape[0], hero_slots.shape[1]
        present = units_raw[..., sp.U_SEEN] > 0  # (B, 189)
        # embed only the units the team sees (about half the slots), once per team, and keep them packed:
        # row i of ``units`` is slot units.slot[i] of team-step units.batch[i]
        batch, slot = present.nonzero(as_tuple=True)
        emb = self.unit_net(self.norms["obs_units"](units_raw[batch, slot]))
        units = PackedUnits(emb, batch, slot, b)
        # max-pool per team-step: ``nonzero`` lists rows in order, so each team-step's units are one contiguous
        # segment; embeddings end in a ReLU, so a team-step that sees no unit pools to 0 (in fp32: under bf16
        # autocast too, where ``emb`` is bf16)
        pooled_units = torch.segment_reduce(full_precision(emb), "max", lengths=torch.bincount(batch, minlength=b),
                                            unsafe=True, initial=0.0)
        hero_in = torch.cat([n["heroes"], n["modifiers"].flatten(-2), self.hero_embed(obs["hero_ids"].long() + 1)], -1)
        # every hero of the game is a row (its identity is public); an enemy out of sight has zero features
        heroes = masked_max(self.hero_net(hero_in), obs["hero_ids"] >= 0, dim=1)
        item_ids = obs["item_ids"].long()
        items = self.item_net(torch.cat([n["items"], self.item_embed(item_ids + 1)], -1))
        items = masked_max(items.flatten(1, 2), (item_ids >= 0).flatten(1, 2), dim=1)
        ability_ids = obs["ability_ids"].long()
        abilities = self.ability_net(torch.cat([n["abilities"], self.ability_embed(ability_ids + 1)], -1))
        abilities = masked_max(abilities.flatten(1, 2), (ability_ids >= 0).flatten(1, 2), dim=1)
        minimap = self.minimap_net(n["minimap"].permute(0, 3, 1, 2))
        team_part = torch.cat([n["global"], n["allied_heroes"].flatten(1), n["pickups"].flatten(1), minimap,
                               pooled_units, heroes, items, abilities], -1)  # (B, ...)
        nearby = self.nearby_net(n["nearby_map"].flatten(0, 1).permute(0, 3, 1, 2)).view(b, k, -1)
        own = units.lookup(hero_slots.long())  # the controlled hero's own unit embedding (B, K, E)
        identity = self.hero_embed(obs["own_hero_id"].long() + 1)  # who each replica plays (B, K, ID_EMBEDDING)
        parts = [team_part.unsqueeze(1).expand(b, k, -1), nearby, n["previous_action"], own, identity]
        if self.config.goal_inputs:  # asymmetric self-play's goal (B, K, G): zeros where the observation has none
            goal = obs.get("goal")
            parts.append(goal.to(identity.dtype) if goal is not None
                         else identity.new_zeros(b, k, self.config.goal_inputs))
        if self.config.flat_unit_slots:  # fixed slots read flat: a unit's place in the input says which unit it is
            n_flat = self.config.flat_unit_slots
            rows = self.norms["obs_units"](units_raw[:, :n_flat]) * present[:, :n_flat, None]  # (B, S, F), 0 unseen
            relative = obs["unit_rel"][:, :, :n_flat]  # (B, K, S, 4), as the env scales it
            parts.append(torch.cat([rows.unsqueeze(1).expand(b, k, -1, -1), relative.to(rows.dtype)], -1).flatten(2))
        return self.trunk(torch.cat(parts, -1)), units

    def cross_hero_pool(self, x: torch.Tensor) -> torch.Tensor:
        """Append the max over the team's K replicas of the first 25% of each replica's vector."""
        pooled = x[..., : self.n_pooled].amax(dim=-2, keepdim=True).expand(*x.shape[:-1], self.n_pooled)
        return torch.cat([x, pooled], -1)

    # ------------------------------------------------------------------ heads
    def heads(self, core: torch.Tensor, units: "PackedUnits", unit_rel: torch.Tensor, masks: dict[str, torch.Tensor],
              actions: torch.Tensor | None, generator: torch.Generator | None = None, greedy: bool = False,
              logits: "HeadLogits | None" = None, with_entropy: bool = True):
        """Sample (``actions`` None) or score given actions, for N = B x K replicas.

        core (N, H); units: the seen units of B team-steps, shared by a team's K replicas; unit_rel (N, 189, 4).
        Returns actions (N, 5), log-probability (N,), entropy per head (N, 4) in ``HEADS`` order (a parameter
        head the action does not use contributes 0), value (N,), win logit (N,), and which parameters the
        action uses (N, 2): [target, offset]. ``logits``: the heads' logits for ``actions``, already computed
        (``head_logits``), so that a caller who also reads them pays for them once. ``with_entropy=False``: the
        entropy is None, not computed (a rollout step does not read it)."""
        primary_dist = categorical(self.primary_logits(core, masks) if logits is None else logits.primary)
        sample = actions is None
        # one uniform draw per replica and action field, all at once (``sample_categorical``)
        uniforms = torch.rand(core.shape[0], 5, generator=generator, device=core.device) if sample and not greedy \
            else None

        def draw(dist: torch.distributions.Categorical, field: int) -> torch.Tensor:
            """The most likely choice (greedy play) or a sample."""
            if greedy:
                return dist.probs.argmax(-1)
            return sample_categorical(dist.probs, uniforms[:, field])

        primary = draw(primary_dist, 0) if sample else actions[:, 0]
        if logits is None:
            logits = self.head_logits(core, units, unit_rel, masks, primary, primary_dist.logits)
        delay_dist, target_dist = categorical(logits.delay), categorical(logits.target)
        ox_dist, oy_dist = categorical(logits.offset_x), categorical(logits.offset_y)
        if sample:
            delay, target, ox, oy = draw(delay_dist, 1), draw(target_dist, 2), draw(ox_dist, 3), draw(oy_dist, 4)
            actions = torch.stack([primary, delay, target, ox, oy], -1)
        t_used, o_used = logits.used[:, 0], logits.used[:, 1]
        head_log_prob = torch.stack([primary_dist.log_prob(actions[:, 0]), delay_dist.log_prob(actions[:, 1]),
                                     t_used * target_dist.log_prob(actions[:, 2]),
                                     o_used * (ox_dist.log_prob(actions[:, 3]) + oy_dist.log_prob(actions[:, 4]))],
                                    -1)  # (N, heads), HEADS order: the action's log-probability is their sum
        entropy = None
        if with_entropy:
            entropy = torch.stack([primary_dist.entropy(), delay_dist.entropy(), t_used * target_dist.entropy(),
                                   o_used * (ox_dist.entropy() + oy_dist.entropy())], -1)  # (N, heads), HEADS order
        value = full_precision(self.value_head(core).squeeze(-1))  # fp32 under bf16 autocast too
        win_logit = full_precision(self.win_head(core).squeeze(-1))
        return actions, head_log_prob, entropy, value, win_logit, logits.used

    def head_logits(self, core: torch.Tensor, units: "PackedUnits", unit_rel: torch.Tensor,
                    masks: dict[str, torch.Tensor], primary: torch.Tensor,
                    primary_logits: torch.Tensor | None = None) -> "HeadLogits":
        """Every action head's logits for N replicas, the parameter heads conditioned on ``primary`` (N,), the
        primary action taken (or to be scored); masked entries are -1e9. What the imitation loss, its per-head
        accuracy and the KL term toward a reference policy read (``fivestack.rl.imitation``)."""
        rows = torch.arange(core.shape[0], device=core.device)
        primary = primary.long()
        if primary_logits is None:
            primary_logits = self.primary_logits(core, masks)
        target_logits, ox_logits, oy_logits = self.parameter_logits(core, units, unit_rel, primary)
        if "turned" in masks:  # a turned view's offset cell k is the map's N_OFFSET - 1 - k (env.obs_turn)
            turned = masks["turned"][:, None]
            ox_logits = torch.where(turned, ox_logits.flip(-1), ox_logits)
            oy_logits = torch.where(turned, oy_logits.flip(-1), oy_logits)
        target_mask = masks["target_mask"].bool()[rows, primary]  # (N, 189)
        used = torch.stack([target_mask.any(-1), masks["offset_mask"].bool()[rows, primary]], -1).float()
        return HeadLogits(full_precision(primary_logits), full_precision(self.delay_head(core)),
                          full_precision(target_logits).masked_fill(~target_mask, -1e9), full_precision(ox_logits),
                          full_precision(oy_logits), used)

    def primary_logits(self, core: torch.Tensor, masks: dict[str, torch.Tensor]) -> torch.Tensor:
        """(N, actions): the dot product of the LSTM output's query with each action's embedding, -1e9 where the
        action is not available."""
        logits = self.primary_query(core) @ self.action_embed.weight.T
        return logits.masked_fill(~masks["primary_mask"].bool(), -1e9)

    def parameter_logits(self, core: torch.Tensor, units: "PackedUnits", unit_rel: torch.Tensor,
                         primary: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """The logits of the heads conditioned on the chosen ``primary`` action (N,): unit target (N, 189),
        before its mask, and offsets x and y (N, 8)."""
        n_rows = core.shape[0]
        b = units.n_batch
        k = n_rows // b
        cond = F.relu(self.conditioned(torch.cat([core, self.action_embed(primary)], -1)))
        # attention over the team's unit embeddings; gating the keys per action = gating the query
        query = self.target_query(cond) * torch.sigmoid(self.target_gate(primary)) * 2.0  # (N, E)
        target_logits = units.attention(query.view(b, k, -1)).reshape(n_rows, -1)
        target_logits = target_logits + self.unit_rel(unit_rel).squeeze(-1)
        return target_logits, self.offset_x(cond), self.offset_y(cond)

    # ------------------------------------------------------------------ one step / a sequence
    def core_step(self, features: torch.Tensor, state, first: torch.Tensor):
        """One LSTM step for (T, K) replicas; ``first`` (T,) resets the state where a new game starts."""
        t, k, _ = features.shape
        keep = (1.0 - first.float()).repeat_interleave(k).unsqueeze(-1)
        h, c = state[0] * keep, state[1] * keep
        x = self.cross_hero_pool(features).reshape(t * k, -1)
        if self.config.core == "mlp":
            return self.core_net(x), (h, c)
        h, c = self.lstm(x, (h, c))
        return h, (h, c)

    def core_sequence(self, features: torch.Tensor, state, first: torch.Tensor):
        """``core_step`` over L steps at once: features (T, L, K, F), ``first`` (T, L), state ((T*K, H), (T*K, H))
        -> outputs (T, L, K, H) and the state after the last step.

        The LSTM runs as one fused call (``torch.lstm``, the kernel ``nn.LSTM`` calls) on the cell's own weights, so
        checkpoints keep the ``LSTMCell``'s names; it is split only at the steps where some row starts a new game,
        whose state is zeroed there, as ``core_step`` does. Equal to stepping the cell within float rounding."""
        t, steps, k, _ = features.shape
        x = self.cross_hero_pool(features)
        reset = first.bool().T.repeat_interleave(k, dim=1)  # (L, T*K): this row's game starts at this step
        if self.config.core == "mlp":
            keep = (~reset.any(0)).unsqueeze(-1).to(state[0].dtype)
            return self.core_net(x), (state[0] * keep, state[1] * keep)
        x = x.transpose(0, 1).reshape(steps, t * k, -1)  # step-major, as the kernel reads a sequence
        starts = [0] + (reset[1:].any(1).nonzero().flatten() + 1).tolist() + [steps]
        weights = (self.lstm.weight_ih, self.lstm.weight_hh, self.lstm.bias_ih, self.lstm.bias_hh)
        h, c = state
        outputs = []
        for a, b in zip(starts[:-1], starts[1:]):
            keep = (~reset[a]).unsqueeze(-1).to(h.dtype)
            out, h, c = torch.lstm(x[a:b], ((h * keep)[None], (c * keep)[None]), weights, True, 1, 0.0,
                                   self.training, False, False)  # biases, layers, dropout, train, bidirectional, batch_first
            h, c = h[0], c[0]
            outputs.append(out)
        core = torch.cat(outputs).view(steps, t, k, -1).transpose(0, 1)
        return core, (h, c)

    def act(self, obs: dict[str, torch.Tensor], state, first: torch.Tensor, hero_slots: torch.Tensor,
            generator: torch.Generator | None = None, greedy: bool = False):
        """One rollout step for T teams x K heroes: sampled actions (T, K, 5) (the most likely ones when
        ``greedy``), log-probs, values, new state."""
        features, units = self.encode(obs, hero_slots)
        t, k = features.shape[:2]
        core, state = self.core_step(features, state, first)
        masks = self.head_masks(obs, hero_slots)
        actions, head_log_prob, _, value, win_logit, _ = self.heads(core, units, obs["unit_rel"].flatten(0, 1),
                                                                    masks, None, generator, greedy,
                                                                    with_entropy=False)
        return (actions.view(t, k, 5), head_log_prob.view(t, k, len(HEADS)), value.view(t, k),
                torch.sigmoid(win_logit).view(t, k), state)

    def head_masks(self, obs: dict[str, torch.Tensor], hero_slots: torch.Tensor) -> dict[str, torch.Tensor]:
        """What the heads read beside the LSTM output, per replica (N = B x K): the env's action masks and, where
        the game turns Dire's view (``GameSizes.team_frame``), ``turned`` (N,): the replicas that play Dire."""
        masks = {name: obs[name].flatten(0, 1) for name in MASK_GROUPS}
        if self.sizes.team_frame:
            masks["turned"] = (hero_slots >= HEROES_PER_TEAM).reshape(-1)
        return masks

    def sequence_core(self, obs: dict[str, torch.Tensor], state, first: torch.Tensor,
                      hero_slots: torch.Tensor) -> "SequenceCore":
        """The LSTM outputs of L steps from a stored start state (truncated BPTT), and the state after them.

        Batch-first: obs groups are (T, L, ...), first (T, L), hero_slots (T, K), state ((T*K, H), (T*K, H))."""
        t, steps = first.shape
        flat = {name: value.flatten(0, 1) for name, value in obs.items()}
        slots = hero_slots.repeat_interleave(steps, 0)  # (T * L, K), as ``flat``'s rows
        features, units = self.encode(flat, slots)
        k = features.shape[1]
        core, state = self.core_sequence(features.view(t, steps, k, -1), state, first)
        core = core.flatten(0, 2)  # (T * L * K, H), team-major like ``flat``
        masks = self.head_masks(flat, slots)
        return SequenceCore(core, units, flat["unit_rel"].flatten(0, 1), masks, state, (t, steps, k))

    def forward_sequence(self, obs: dict[str, torch.Tensor], state, first: torch.Tensor, hero_slots: torch.Tensor,
                         actions: torch.Tensor, teacher_actions: torch.Tensor | None = None,
                         with_logits: bool = False) -> "SequenceScores":
        """Score stored actions over L steps from the stored start state (truncated BPTT).

        Batch-first: obs groups are (T, L, ...), first (T, L), hero_slots (T, K), actions (T, L, K, 5), state
        ((T*K, H), (T*K, H)). With ``teacher_actions`` (T, L, K, 5), also scores those (the labels of the
        imitation term), on the same LSTM outputs, head by head. ``with_logits``: also every head's logits for
        the stored actions (the KL term toward a reference policy reads them)."""
        seq = self.sequence_core(obs, state, first, hero_slots)
        actions = actions.reshape(-1, 5)
        logits = self.head_logits(seq.core, seq.units, seq.unit_rel, seq.masks, actions[:, 0])  # computed once
        _, head_log_prob, entropy, value, win_logit, used = self.heads(seq.core, seq.units, seq.unit_rel,
                                                                       seq.masks, actions, logits=logits)
        shape = seq.shape
        teacher = None
        if teacher_actions is not None:
            teacher = self.score_labels(seq, teacher_actions, actions)
        return SequenceScores(head_log_prob.view(*shape, len(HEADS)), entropy.view(*shape, len(HEADS)), value.view(shape),
                              win_logit.view(shape), used.view(*shape, 2), teacher, logits if with_logits else None)

    def score_labels(self, seq: "SequenceCore", labels: torch.Tensor,
                     fallback: torch.Tensor | None = None) -> "LabelScores":
        """Each head's log-probability of ``labels`` (T, L, K, 5), a teacher's actions, on the LSTM outputs of
        ``seq``, and whether each head's most likely choice is the label. Where a label is not an action the hero
        can take it is scored as ``fallback``'s action there (or a no-op) and marked invalid (weight it 0); a
        valid label's target is -1 only where its action takes none (then any slot scores the same)."""
        labels = labels.reshape(-1, 5)
        valid = valid_actions(seq.masks, labels)
        stand_in = torch.zeros_like(labels) if fallback is None else fallback.reshape(-1, 5)
        labels = torch.where(valid[:, None], labels.clamp_min(0), stand_in)
        logits = self.head_logits(seq.core, seq.units, seq.unit_rel, seq.masks, labels[:, 0])
        shape = seq.shape
        return LabelScores(logits.log_probs(labels).view(*shape, len(HEADS)),
                           logits.hits(labels).view(*shape, len(HEADS)), logits.used.view(*shape, 2),
                           valid.view(shape))


class HeadLogits(NamedTuple):
    """The action heads' logits for N replicas (fp32; -1e9 where masked), the parameter heads conditioned on one
    primary action, and which parameters that action uses."""

    primary: torch.Tensor  # (N, primary actions), masked by availability
    delay: torch.Tensor  # (N, 4)
    target: torch.Tensor  # (N, 189), masked by the action's valid targets
    offset_x: torch.Tensor  # (N, 9)
    offset_y: torch.Tensor  # (N, 9)
    used: torch.Tensor  # (N, 2) float: the action takes a [target, offset]

    def log_probs(self, actions: torch.Tensor) -> torch.Tensor:
        """(N, 4) each head's log-probability of ``actions`` (N, 5), in ``HEADS`` order; the offset head's is x's
        plus y's, and a parameter head the action does not use gives 0."""
        def pick(logits: torch.Tensor, column: int) -> torch.Tensor:
            return torch.log_softmax(logits, -1).gather(-1, actions[:, column:column + 1].long()).squeeze(-1)

        return torch.stack([pick(self.primary, 0), pick(self.delay, 1), self.used[:, 0] * pick(self.target, 2),
                            self.used[:, 1] * (pick(self.offset_x, 3) + pick(self.offset_y, 4))], -1)

    def hits(self, actions: torch.Tensor) -> torch.Tensor:
        """(N, 4) 1.0 where each head's most likely choice is ``actions``' (the offset head: both x and y), in
        ``HEADS`` order; a parameter head the action does not use counts as a hit (weigh by ``used``)."""
        def hit(logits: torch.Tensor, column: int) -> torch.Tensor:
            return logits.argmax(-1) == actions[:, column]

        target = hit(self.target, 2) | (self.used[:, 0] == 0)
        offset = (hit(self.offset_x, 3) & hit(self.offset_y, 4)) | (self.used[:, 1] == 0)
        return torch.stack([hit(self.primary, 0), hit(self.delay, 1), target, offset], -1).float()


class SequenceCore(NamedTuple):
    """``Policy.sequence_core``: what the heads read for T teams x L steps x K heroes."""

    core: torch.Tensor  # (T * L * K, H) LSTM outputs, team-major
    units: "PackedUnits"
    unit_rel: torch.Tensor  # (T * L * K, 189, 4)
    masks: dict  # the mask groups, (T * L * K, ...)
    state: tuple  # the LSTM state after the last step, ((T*K, H), (T*K, H))
    shape: tuple  # (T, L, K)


class LabelScores(NamedTuple):
    """How a policy scores a teacher's labels, (T, L, K, ...) each."""

    head_log_prob: torch.Tensor  # (T, L, K, 4) per head in ``HEADS`` order (0 for a parameter the label lacks)
    head_hit: torch.Tensor  # (T, L, K, 4) 1.0 where the head's most likely choice is the label's
    used: torch.Tensor  # (T, L, K, 2) the label's action takes a [target, offset]
    valid: torch.Tensor  # (T, L, K) bool: the label is an action the hero could take

    @property
    def log_prob(self) -> torch.Tensor:
        """(T, L, K) the label's whole log-probability, every head it uses."""
        return self.head_log_prob.sum(-1)


class SequenceScores(NamedTuple):
    """What ``Policy.forward_sequence`` returns, (T, L, K) each unless said."""

    head_log_prob: torch.Tensor  # (T, L, K, 4) the stored actions', per head in ``HEADS`` order (0 where unused)
    entropy: torch.Tensor  # (T, L, K, 4) per head, in ``HEADS`` order
    value: torch.Tensor
    win_logit: torch.Tensor
    used: torch.Tensor  # (T, L, K, 2): the action uses a [target, offset]
    teacher: "LabelScores | None"  # how the teacher's actions score (None without teacher actions)
    logits: HeadLogits | None = None  # every head's logits for the stored actions (``with_logits``), (T*L*K, ...)

    @property
    def log_prob(self) -> torch.Tensor:
        """(T, L, K) the stored actions' whole log-probability, every head they use."""
        return self.head_log_prob.sum(-1)


def valid_actions(masks: dict[str, torch.Tensor], actions: torch.Tensor) -> torch.Tensor:
    """(N,) bool: each action (N, 5) is allowed by the masks: a primary action the hero can take now, and a
    valid unit target if that action takes one. A primary of -1 (no action) is never valid."""
    rows = torch.arange(actions.shape[0], device=actions.device)
    primary = actions[:, 0].clamp(0, masks["primary_mask"].shape[-1] - 1)
    allowed = (actions[:, 0] >= 0) & masks["primary_mask"].bool()[rows, primary]
    target_mask = masks["target_mask"].bool()[rows, primary]  # (N, 189)
    target = actions[:, 2]
    target_ok = (target >= 0) & target_mask[rows, target.clamp(0, target_mask.shape[-1] - 1)]
    delay_ok = (actions[:, 1] >= 0) & (actions[:, 1] < N_DELAY)
    offsets_ok = ((actions[:, 3:5] >= 0) & (actions[:, 3:5] < N_OFFSET)).all(-1)
    return allowed & (~target_mask.any(-1) | target_ok) & delay_ok & offsets_ok


class CheckpointMismatch(ValueError):
    """Weights that were written for another game or an older policy than the one loading them."""


def check_vocabularies(state_dict: dict[str, torch.Tensor], sizes: GameSizes) -> None:
    """Raise ``CheckpointMismatch`` unless a policy's weights were written by a policy that embeds hero identities
    and for a game of ``sizes``' hero, ability and item counts (the rows of its embedding tables, less "none")."""
    if "trunk.0.weight" not in state_dict:
        return  # not a whole policy (a partial load): the generic shape check applies
    if "hero_embed.weight" not in state_dict:
        raise CheckpointMismatch(
            "this checkpoint was written before hero embeddings (its weights have no hero_embed table: a fivestack "
            "from before the 17-hero patch, whose policy read the hero slot as a one-hot): this version cannot load "
            "it; train a new run (or load it with the fivestack version that trained it)")
    saved = GameSizes(sizes.features, sizes.n_primary, state_dict["item_embed.weight"].shape[0] - 1,
                      state_dict["ability_embed.weight"].shape[0] - 1, state_dict["hero_embed.weight"].shape[0] - 1)
    if (saved.n_heroes, saved.n_abilities, saved.n_items) != (sizes.n_heroes, sizes.n_abilities, sizes.n_items):
        grows = (saved.n_heroes <= sizes.n_heroes and saved.n_abilities <= sizes.n_abilities
                 and saved.n_items <= sizes.n_items)
        fix = ("train a new run for this patch, or grow the run's policy to it with `fivestack surgery RUN --to "
               "CONFIG.toml [--patch VERSION]` (an empty CONFIG.toml keeps the policy's widths; new heroes, abilities "
               "and items get new embedding rows, old ones keep theirs)" if grows else
               "load it with the patch it was trained on ([game] patch), or train a new run for this patch (surgery "
               "never removes heroes, abilities or items)")
        raise CheckpointMismatch(
            f"this checkpoint's policy was built for a game of {saved.vocabularies()}, but this game has "
            f"{sizes.vocabularies()}: {fix}")


def parameter_count(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())


__all__ = ["Policy", "PolicyConfig", "GameSizes", "CheckpointMismatch", "check_vocabularies", "SequenceScores",
           "valid_actions", "RunningNorm", "ALL_GROUPS", "HEADS", "parameter_count", "N_UNIT_SLOTS"]
