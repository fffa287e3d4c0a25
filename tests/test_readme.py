"""The README and its pages in ``docs/`` stay true to the code: generated tables, links, the CI commands (the
README's *Development* block).

The hero, ability, item, observation, action and reward-event tables are generated from the code. Each sits
between ``<!-- BEGIN generated:NAME -->`` and ``<!-- END generated:NAME -->`` in one of the documents
(``docs/game.md`` and ``docs/env.md`` today). After changing the patch data, the spaces or the reward events,
rewrite them with

    python tests/test_readme.py --write
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from fivestack.env import spaces
from fivestack.env.events import PAPER_WEIGHTS
from fivestack.game import layout
from fivestack.game.patch import (
    ACT_AREA_HEAL, ACT_BLINK, ACT_HEAL_OVER_TIME, ACT_MANA_OVER_TIME, ACT_STUN, ACT_TELEPORT, HEROES, ITEMS, Ability,
    Item,
)

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCUMENTS = [README, *sorted((ROOT / "docs").glob("*.md"))]  # where generated tables may live
TARGETS = {layout.T_NONE: "no target", layout.T_POINT: "point", layout.T_UNIT: "unit",
           layout.T_UNIT_OFFSET: "unit + offset"}
AFFECTS = {1: "enemies", 2: "allies", 3: "self"}
DAMAGE_TYPES = ("physical", "magical", "pure")
ATTRIBUTES = ("STR", "AGI", "INT")
SLOTS = ("1", "2", "3", "ultimate")


def _per_level(base: float, per_level: float, unit: str = "") -> str:
    return f"{base:g}{unit}" + (f" ({per_level:+g}/level)" if per_level else "")


def ability_effect(a: Ability) -> str:
    parts = []
    if a.damage:
        parts.append(f"{_per_level(a.damage, a.damage_per_level)} {DAMAGE_TYPES[a.damage_type]} damage")
    if a.heal:
        parts.append(f"heal {_per_level(a.heal, a.heal_per_level)}" + (" hp/s" if a.aura else ""))
    if a.stun:
        parts.append(f"stun {a.stun:g} s")
    if a.slow:
        parts.append(f"slow {a.slow:.0%} for {a.slow_time:g} s")
    if a.silence:
        parts.append(f"silence {a.silence:g} s")
    if a.dot:
        parts.append(f"{a.dot:g} magical damage/s (+50%/level) for {a.dot_time:g} s")
    buffs = []
    if a.buff_armor:
        buffs.append(f"+{a.buff_armor:g} armor")
    if a.buff_damage:
        buffs.append(f"+{a.buff_damage:g} damage")
    if a.buff_speed:
        buffs.append(f"+{a.buff_speed:.0%} move speed")
    if buffs:
        parts.append(f"{', '.join(buffs)}" + (f" for {a.buff_time:g} s" if a.buff_time else ""))
    if a.summon_count:
        parts.append(f"summon {a.summon_count} (health {a.summon_hp:g}, damage {a.summon_damage:g}; +25%/level) "
                     f"for {a.summon_time:g} s")
    if a.invisible_time:
        parts.append(f"invisible {a.invisible_time:g} s")
    if a.channel_time:
        parts.append(f"channelled {a.channel_time:g} s (lands each second)")
    if a.blink:
        parts.append("blink to the point")
    if a.aura:
        parts.append("passive aura (+50%/level)")
    if a.global_cast:
        parts.append("global")
    if a.radius:
        parts.append(f"radius {a.radius:g}")
    if a.cast_range:
        parts.append(f"range {a.cast_range:g}")
    if a.projectile_speed:
        parts.append(f"projectile {a.projectile_speed:g}/s")
    if not a.aura:
        parts.append(f"mana {_per_level(a.mana, a.mana_per_level)}")
        parts.append(f"cooldown {_per_level(a.cooldown, a.cooldown_per_level, ' s')}")
    numbers = "; ".join(parts)
    return f"{a.description[:1].upper()}{a.description[1:]}. {numbers[:1].upper()}{numbers[1:]}"


def heroes_table() -> str:
    lines = ["| Hero | Role | Primary | Attack | Damage | Move speed | Armor |", "|---|---|---|---|---|---|---|"]
    for h in HEROES:
        attack = "melee" if h.projectile_speed == 0 else f"ranged {h.attack_range:g}"
        lines.append(f"| {h.name} | {h.role} | {ATTRIBUTES[h.primary]} | {attack} | {h.damage:g} | {h.speed:g} | "
                     f"{h.armor:g} |")
    return "\n".join(lines)


def abilities_table() -> str:
    lines = ["| Hero | Slot | Ability | Target | Affects | Effect |", "|---|---|---|---|---|---|"]
    for h in HEROES:
        for slot, a in zip(SLOTS, h.abilities):
            lines.append(f"| {h.name} | {slot} | {a.name} | {TARGETS[a.target]} | {AFFECTS[a.affects]} | "
                         f"{ability_effect(a)} |")
    return "\n".join(lines)


def item_effect(it: Item) -> str:
    parts = []
    for value, label in ((it.strength, "STR"), (it.agility, "AGI"), (it.intelligence, "INT"),
                         (it.damage, "damage"), (it.armor, "armor"), (it.hp, "health"), (it.mana, "mana"),
                         (it.hp_regen, "health/s"), (it.mana_regen, "mana/s"), (it.speed, "move speed")):
        if value:
            parts.append(f"+{value:g} {label}")
    if it.active:
        kind = {ACT_HEAL_OVER_TIME: "heal over time", ACT_MANA_OVER_TIME: "mana over time",
                ACT_TELEPORT: "teleport", ACT_BLINK: "blink", ACT_STUN: "stun",
                ACT_AREA_HEAL: "area heal"}[it.active]
        active = f"active ({kind}, {TARGETS[it.target]}): {it.description}"
        if it.cooldown:
            active += f", cooldown {it.cooldown:g} s"
        parts.append(active)
    if it.charges:
        parts.append(f"consumable ({it.charges} charge{'s' if it.charges > 1 else ''})")
    return "; ".join(parts)


def items_table() -> str:
    lines = ["| Item | Cost | Effect |", "|---|---|---|"]
    for it in ITEMS:
        lines.append(f"| {it.name} | {it.cost:g} | {item_effect(it)} |")
    return "\n".join(lines)


def _shape(prefix: str, shape: tuple) -> str:
    return "(" + ", ".join([prefix, *map(str, shape)]) + ")"


def observation_table() -> str:
    lines = ["| Group | Shape | Shared by |", "|---|---|---|"]
    for name, shape in spaces.TEAM_GROUPS.items():
        lines.append(f"| `{name}` | `{_shape('games, 2', shape)}` | team |")
    for name, shape in spaces.TEAM_INT_GROUPS.items():
        lines.append(f"| `{name}` (int) | `{_shape('games, 2', shape)}` | team |")
    for name, shape in spaces.HERO_GROUPS.items():
        lines.append(f"| `{name}` | `{_shape('games, 10', shape)}` | hero |")
    for name, shape in spaces.HERO_INT_GROUPS.items():
        lines.append(f"| `{name}` (int) | `{_shape('games, 10', shape)}` | hero |")
    for name, shape in spaces.HERO_MASK_GROUPS.items():
        lines.append(f"| `{name}` (mask) | `{_shape('games, 10', shape)}` | hero |")
    return "\n".join(lines)


def primary_table() -> str:
    lines = ["| # | Primary action |", "|---|---|"]
    lines += [f"| {k} | `{name}` |" for k, name in enumerate(layout.PRIMARY_NAMES)]
    return "\n".join(lines)


EVENTS = {  # name: (team or solo, what the raw value counts)
    "win": ("team", "1 at the step the hero's team wins"),
    "hero_death": ("solo", "the hero died"),
    "courier_death": ("team", "the team's courier died"),
    "xp": ("solo", "experience gained"),
    "gold": ("solo", "gold gained"),
    "gold_spent": ("solo", "gold spent (items, buyback)"),
    "health": ("solo", "change of h(x) = (x + 1 - (1 - x)^4) / 2, x = health fraction"),
    "mana": ("solo", "change of the mana fraction"),
    "killed_hero": ("solo", "enemy heroes this hero killed"),
    "last_hit": ("solo", "enemy creeps and neutrals this hero last-hit"),
    "deny": ("solo", "own creeps this hero denied"),
    "aegis": ("team", "the team picked up the aegis"),
    "ancient_hp": ("team", "change of the own ancient's health fraction (<= 0)"),
    "megas": ("team", "the team lost its last barracks"),
    "tower_t1_hp": ("team", "change of own tier-1 towers' health fractions (<= 0)"),
    "tower_t2_hp": ("team", "same, tier 2"),
    "tower_t3_hp": ("team", "same, tier 3"),
    "tower_t4_hp": ("team", "same, tier 4"),
    "barracks_hp": ("team", "same, barracks"),
    "tower_t1_lost": ("team", "own tier-1 towers destroyed"),
    "tower_t2_lost": ("team", "own tier-2 towers destroyed"),
    "tower_t3_lost": ("team", "own tier-3 towers destroyed"),
    "tower_t4_lost": ("team", "own tier-4 towers destroyed"),
    "barracks_lost": ("team", "own barracks destroyed"),
    "ancient_lost": ("team", "own ancient destroyed"),
    "lane_outside_seconds": ("solo", "seconds spent over 1500 away from the assigned lane (first 10 minutes)"),
}


def events_table() -> str:
    lines = ["| Column | Event | Paper weight | Scope | Raw value |", "|---|---|---|---|---|"]
    for k, name in enumerate(layout.EVENT_NAMES):
        scope, meaning = EVENTS[name]
        lines.append(f"| {k} | `{name}` | {PAPER_WEIGHTS[name]:g} | {scope} | {meaning} |")
    return "\n".join(lines)


TABLES = {
    "heroes": heroes_table, "abilities": abilities_table, "items": items_table,
    "observations": observation_table, "primary": primary_table, "events": events_table,
}
BLOCK = re.compile(r"(<!-- BEGIN generated:(\w+) -->\n)(.*?)(<!-- END generated:\2 -->)", re.S)


def render(text: str) -> str:
    return BLOCK.sub(lambda m: m.group(1) + TABLES[m.group(2)]() + "\n" + m.group(4), text)


def test_generated_tables_are_up_to_date():
    names = []
    for path in DOCUMENTS:
        text = path.read_text(encoding="utf-8")
        names += [m.group(2) for m in BLOCK.finditer(text)]
        assert render(text) == text, f"{path.relative_to(ROOT)} is out of date: run `python tests/test_readme.py --write`"
    assert sorted(names) == sorted(TABLES), "every generated table appears exactly once in README.md and docs/*.md"


def test_tables_cover_the_data():
    assert abilities_table().count("\n") == 1 + 4 * len(HEROES)
    assert all(f"| {it.name} | {it.cost:g} |" in items_table() for it in ITEMS)
    assert all(f"`{name}`" in events_table() for name in layout.EVENT_NAMES)
    groups = {**spaces.TEAM_GROUPS, **spaces.TEAM_INT_GROUPS, **spaces.HERO_GROUPS, **spaces.HERO_INT_GROUPS,
              **spaces.HERO_MASK_GROUPS}
    assert all(f"`{name}`" in observation_table() for name in groups)
    assert primary_table().count("\n") == 1 + layout.N_PRIMARY


def test_development_block_is_exactly_the_ci_commands():
    """The first shell block of the README's *Development* section is what ``.ci/run`` runs, line for line."""
    text = README.read_text(encoding="utf-8")
    development = text.split("\n## Development", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```(?:bash|sh)?\n(.*?)```", development, re.S).group(1)
    commands = [line for line in block.splitlines() if line.strip()]
    assert commands == ["bash scripts/setup.sh", "pytest"]  # setup.sh: pip install -e ".[dev]" and chromium
    ci = (README.parent / ".ci" / "run").read_text(encoding="utf-8")
    ci_commands = [line.strip() for line in ci.splitlines()
                   if line.strip() and not line.lstrip().startswith("#") and not line.startswith(("set ", "cd "))]
    assert ci_commands == commands


LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def heading_anchors(markdown: str) -> set[str]:
    """The anchors a Markdown renderer gives the headings (GitHub's rule: lower case, punctuation dropped, spaces
    to hyphens), fenced code skipped."""
    text = re.sub(r"```.*?```", "", markdown, flags=re.S)
    return {re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
            for m in re.finditer(r"^#{1,6} (.+)$", text, re.M)}


def test_every_relative_link_and_picture_points_at_something():
    """Moving a section to docs/ (or a file elsewhere) must not leave a link or a picture pointing nowhere."""
    broken = []
    for doc in DOCUMENTS:
        text = doc.read_text(encoding="utf-8")
        for target in LINK.findall(re.sub(r"```.*?```", "", text, flags=re.S)):
            if re.match(r"[a-z]+:", target):
                continue  # http(s) and mailto links: nothing local to check
            path, _, anchor = target.partition("#")
            file = (doc.parent / path).resolve() if path else doc
            if not file.exists():
                broken.append(f"{doc.relative_to(ROOT)}: {target} (no such file)")
            elif anchor and file.suffix == ".md" and anchor not in heading_anchors(file.read_text(encoding="utf-8")):
                broken.append(f"{doc.relative_to(ROOT)}: {target} (no such heading)")
    assert not broken, "\n".join(broken)


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        for path in DOCUMENTS:
            path.write_text(render(path.read_text(encoding="utf-8")), encoding="utf-8")
    else:
        for name, make in TABLES.items():
            print(f"## {name}\n{make()}\n")
