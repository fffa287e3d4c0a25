"""One-off: turn a checkpoint of the slot one-hot policy (before hero embeddings) into one of the hero-embedding
policy, approximately, for the fixed 5-hero lineup (slot s plays hero type s % 5), in the current patch (its
17 heroes and 68 abilities: the old abilities keep their embedding rows, the new ones get the initialisation's).

    python scripts/convert_slot_identity.py fivestack/match/trained OUT_DIR [--side mean|radiant|dire]

The old trunk read a one-hot of the hero *slot* (10 columns); the new one reads the embedding of the hero *type*.
Each type t gets the embedding e_t (a unit vector) and the trunk column that maps e_t to the old columns of its
two slots t and t + 5: their mean (``--side mean``, the default: both sides shifted by half their difference),
or exactly one side's column (``radiant`` / ``dire``: that side plays exactly as before, the other is shifted by
the whole difference). The heroes set's net gets zero weights on the embedding, so it is unchanged. Not exact for
both sides at once (no team-absolute input exists to fold the difference into): re-evaluate the result before
shipping it. On 1,200 greedy 1v1 decisions of the shipped arena policy against the scripted bot (4 games, seed
100, 300 steps, Radiant): ``radiant`` agrees on every action; ``mean`` on 98.6% of primary actions and 69.3% of
whole actions (targets and offsets).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import torch
from safetensors.torch import load_file, save_file

from fivestack.model.policy import ID_EMBEDDING, Policy, PolicyConfig

SLOTS, TYPES = 10, 5
GROWN_TABLES = ("ability_embed.weight", "item_embed.weight")  # embedding tables a bigger patch lengthens


def convert(old: dict[str, torch.Tensor], config: PolicyConfig, side: str = "mean") -> dict[str, torch.Tensor]:
    """The new policy's weights from ``old`` (a slot one-hot policy of ``config``, no goal inputs)."""
    if "hero_embed.weight" in old:
        raise SystemExit("these weights already have hero embeddings: nothing to convert")
    if config.goal_inputs:
        raise SystemExit("a policy with goal inputs (asymmetric self-play) is not handled")
    new = Policy(config).state_dict()
    for key, value in old.items():
        if key in new and new[key].shape == value.shape:
            new[key] = value.clone()
        elif key in GROWN_TABLES and new[key].shape[1:] == value.shape[1:]:
            # the patch grew (17 heroes, 68 abilities): old ids keep their rows, the new ones keep their
            # initialisation, as surgery's add_vocabulary does
            new[key][: value.shape[0]] = value
    trunk = old["trunk.0.weight"]  # its last SLOTS columns are the slot one-hot
    out = torch.zeros_like(new["trunk.0.weight"])
    out[:, :-ID_EMBEDDING] = trunk[:, :-SLOTS]
    embed = torch.zeros_like(new["hero_embed.weight"])
    for t in range(TYPES):
        radiant, dire = trunk[:, -SLOTS + t], trunk[:, -SLOTS + t + TYPES]
        embed[t + 1, t] = 1.0
        out[:, -ID_EMBEDDING + t] = {"mean": (radiant + dire) / 2, "radiant": radiant, "dire": dire}[side]
    new["trunk.0.weight"], new["hero_embed.weight"] = out, embed
    hero_net = torch.zeros_like(new["hero_net.0.weight"])
    hero_net[:, : old["hero_net.0.weight"].shape[1]] = old["hero_net.0.weight"]
    new["hero_net.0.weight"] = hero_net
    return new


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", type=Path, help="a folder with model.safetensors and policy.json (the arena's)")
    parser.add_argument("out", type=Path)
    parser.add_argument("--side", choices=("mean", "radiant", "dire"), default="mean")
    args = parser.parse_args()
    info = json.loads((args.source / "policy.json").read_text())
    config = PolicyConfig(**info["policy"])
    weights = convert(load_file(str(args.source / "model.safetensors")), config, args.side)
    Policy(config).load_state_dict(weights)  # fits the current policy
    args.out.mkdir(parents=True, exist_ok=True)
    save_file({k: v.contiguous() for k, v in weights.items()}, str(args.out / "model.safetensors"))
    info["converted"] = {"from": "slot one-hot identity", "side": args.side,
                         "note": "approximate (scripts/convert_slot_identity.py); the evaluated figures are the "
                                 "original's, not re-measured"}
    (args.out / "policy.json").write_text(json.dumps(info, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
