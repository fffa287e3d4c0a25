"""Issue 30's drill (b), last-hit the enemy's lane creeps alone: the scenario is what it says, on hand-set states
(``fivestack/system/drills.py``, ``LastHitDrill``)."""

from pathlib import Path

import numpy as np
import pytest

from fivestack.game.engine import no_orders
from fivestack.game.geometry import BUILDING_POS, FOUNTAIN
from fivestack.game.layout import (A_MOVE, ACT_OFFSET_X, ACT_OFFSET_Y, ACT_PRIMARY, ALIVE, DEATHS, G_WAVE, HP, KILLER,
                                   KILLER_HERO, K_CREEP_MELEE, K_CREEP_RANGED, KIND, N_BUILDINGS_PER_TEAM, N_HEROES,
                                   SLOT_BUILDINGS, STEP_SECONDS, TEAM, X, Y)
from fivestack.runs.config import ConfigError, load_config
from fivestack.system.drill_eval import BotPlayer, do_nothing, drill_success
from fivestack.system.drills import (LAST_HIT_REWARD, MID_TIER1, OWNER_DRILL_IDLE, LastHitTally, lane_start,
                                     lasthit_figure)
from fivestack.system.rollout import RolloutWorker
from fivestack.system.rollout_hooks import Drill

CONFIG = Path(__file__).resolve().parents[2] / "configs" / "drill-lasthit.toml"
SMALL = ["rollout.games=4", "policy.lstm_size=16", "rollout.segment_steps=16",
         "drill.stagger=false"]  # whole windows from the first episode on (the staggered start: its own test)
HEROES = (0, 5)  # the hero of each side in 1v1


def lasthit_config(*overrides):
    return load_config(CONFIG, [*SMALL, *overrides])


def drill_worker(*overrides, seed=3):
    worker = RolloutWorker(lasthit_config(*overrides), seed=seed)
    hook = worker.hook(Drill)
    return worker, hook, hook.drill


def move_everyone(request):
    """Every row orders its hero to move 600 units up and right (the idle rows must not obey)."""
    result = do_nothing(request)
    result.actions[..., ACT_PRIMARY] = A_MOVE
    result.actions[..., ACT_OFFSET_X] = result.actions[..., ACT_OFFSET_Y] = 8
    return result


def play(worker, hook, steps):
    """``steps`` timesteps with no new orders, the drill looking after each; then one decision's end: the reward
    (teams, 1) and the games the drill ends."""
    for _ in range(steps - 1):
        worker.env.step(no_orders(worker.n_games, N_HEROES))
        hook.between_steps(worker, None, None)
    worker.env.step(no_orders(worker.n_games, N_HEROES))
    reward = np.zeros((worker.n_teams, 1), np.float32)
    none = np.zeros(worker.n_games, bool)
    terminated, _ = hook.after_decision(worker, reward, none.copy(), none.copy())
    return reward, terminated


def enemy_creep(worker, drill, g, kind=K_CREEP_MELEE):
    ui = worker.env.game.state.ui
    enemy = 1 - drill.side[g]
    return int(np.flatnonzero((ui[g, :, ALIVE] == 1) & (ui[g, :, TEAM] == enemy) & (ui[g, :, KIND] == kind))[0])


def first_wave(worker, hook):
    """Play until the first wave has spawned (a few timesteps in)."""
    for _ in range(40):
        play(worker, hook, 1)
        if (worker.env.game.state.gi[:, G_WAVE] > 0).all():
            return
    raise AssertionError("no wave in 40 timesteps")


def test_learner_starts_ahead_of_its_tower_and_the_idle_hero_in_its_fountain_seen_as_it_is():
    worker, hook, drill = drill_worker()
    uf = worker.env.game.state.uf
    assert set(drill.side) == {0, 1}  # drawn per episode (seed 3: both sides among 4 games)
    before = {name: arr.copy() for name, arr in worker.env.obs.items()}
    worker.env.observe_games(np.arange(4))  # the observations were already those of the placed heroes
    for name, arr in worker.env.obs.items():
        np.testing.assert_array_equal(arr, before[name], err_msg=name)
    for g in range(4):
        s = int(drill.side[g])
        np.testing.assert_allclose(uf[g, HEROES[s], [X, Y]], lane_start(s))
        assert np.hypot(*(uf[g, HEROES[1 - s], [X, Y]] - FOUNTAIN[1 - s])) < 500.0
        assert drill.running[g].tolist() == [s == 0, s == 1] and drill.idle[g, 1 - s]
    assert lane_start(0) == pytest.approx((6200 + 212.13, 6200 + 212.13), abs=0.1) and MID_TIER1 == 1
    assert lane_start(1) == pytest.approx((9800 - 212.13, 9800 - 212.13), abs=0.1)
    goal = worker._view()["goal"]
    for g in range(4):
        s = int(drill.side[g])
        np.testing.assert_allclose(goal[2 * g + s, 0], [1, 0, 0, 0, 0, 1])
        np.testing.assert_array_equal(goal[2 * g + 1 - s, 0], 0.0)


def test_idle_hero_gets_no_orders_and_its_rows_are_not_training_data():
    worker, hook, drill = drill_worker()
    owners = worker.row_owners()
    assert (owners == OWNER_DRILL_IDLE).sum() == 4 and (owners[drill.idle.reshape(-1)] == OWNER_DRILL_IDLE).all()
    uf = worker.env.game.state.uf
    idle_xy = np.array([uf[g, HEROES[1 - drill.side[g]], [X, Y]] for g in range(4)])
    learner_xy = np.array([uf[g, HEROES[drill.side[g]], [X, Y]] for g in range(4)])
    everything = worker.collect(move_everyone, team_spirit=0.0, keep_all=True)
    worker2, _, _ = drill_worker()
    batch = worker2.collect(move_everyone, team_spirit=0.0)
    assert len(batch) * 2 == len(everything)  # the idle half is dropped
    assert everything.info["past_opponent_steps"] * 2 == everything.info["hero_steps"]
    for g in range(4):
        np.testing.assert_array_equal(uf[g, HEROES[1 - drill.side[g]], [X, Y]], idle_xy[g])  # stood still
        assert np.hypot(*(uf[g, HEROES[drill.side[g]], [X, Y]] - learner_xy[g])) > 300.0  # the learner moved


@pytest.mark.parametrize("penalty", [0.0, 0.5])
def test_a_hand_set_last_hit_pays_one_and_counts_in_the_figure(penalty):
    worker, hook, drill = drill_worker("drill.seconds=12", f"drill.miss_penalty={penalty}")
    first_wave(worker, hook)
    play(worker, hook, 60)  # 9 s in: the wave walks its lane, far from the learner
    g = 0
    s = int(drill.side[g])
    ui, uf = worker.env.game.state.ui, worker.env.game.state.uf
    c = enemy_creep(worker, drill, g)
    hero = HEROES[s]
    assert np.hypot(*(uf[g, c, [X, Y]] - uf[g, hero, [X, Y]])) > 1000.0
    uf[g, c, HP] = 1.0
    uf[g, c, X], uf[g, c, Y] = uf[g, hero, X] + 100.0, uf[g, hero, Y] + 100.0  # next to the learner, who stands still
    drill.creep_xy[g, c] = uf[g, c, [X, Y]]  # hand-moved, not a new creep in the slot
    reward, _ = play(worker, hook, 20)  # 2.7 s: the hero's auto-attack (an idle hero fights what comes near)
    assert ui[g, c, ALIVE] == 0 and ui[g, c, KILLER_HERO] == hero
    assert reward[2 * g + s, 0] == LAST_HIT_REWARD and reward[2 * g + 1 - s, 0] == 0.0
    assert drill.last_hits[g] == 1 and drill.deaths[g] == 1
    drill.record = True
    reward, terminated = play(worker, hook, 12)  # past the 12 seconds: the episode (and the game) ends
    assert terminated[g] and reward[2 * g + s, 0] == 0.0  # paid once
    assert LastHitTally(g, 0, s, last_hits=1, creep_deaths=1, hero_deaths=0) in drill.tallies
    metrics = hook.info(worker)["drill"]
    assert metrics["drill/last_hits"] == 1 and metrics["drill/episodes"] == 4


@pytest.mark.parametrize("penalty", [0.0, 0.5])
def test_a_creep_killed_by_the_learners_tower_counts_as_a_death_not_a_last_hit(penalty):
    """... and costs the learner drill.miss_penalty when it dies (nothing by default)."""
    worker, hook, drill = drill_worker("drill.seconds=10", f"drill.miss_penalty={penalty}")
    first_wave(worker, hook)
    g = 1
    s = int(drill.side[g])
    ui, uf = worker.env.game.state.ui, worker.env.game.state.uf
    hero = HEROES[s]
    uf[g, hero, [X, Y]] = FOUNTAIN[s]  # far from it all
    c = enemy_creep(worker, drill, g, K_CREEP_RANGED)
    tx, ty = BUILDING_POS[s][MID_TIER1]
    uf[g, c, X], uf[g, c, Y] = tx + 250.0, ty - 250.0  # beside the learner's mid tier-1 tower
    uf[g, c, HP] = 1.0
    drill.creep_xy[g, c] = uf[g, c, [X, Y]]  # hand-moved, not a new creep in the slot
    reward, _ = play(worker, hook, 20)
    tower = SLOT_BUILDINGS + s * N_BUILDINGS_PER_TEAM + MID_TIER1
    assert ui[g, c, ALIVE] == 0 and ui[g, c, KILLER] == tower and ui[g, c, KILLER_HERO] == -1
    assert drill.deaths[g] == 1 and drill.last_hits[g] == 0
    assert reward[2 * g + s, 0] == -penalty
    reward[2 * g + s, 0] = 0.0
    np.testing.assert_array_equal(reward, 0.0)  # no other team is paid or charged


@pytest.mark.parametrize("penalty", [0.0, 2.0])
def test_the_learners_death_costs_drill_death_penalty_once_and_is_counted(penalty):
    """A learner hero put at 1 health under the enemy's mid tier-1 tower dies to it: the decision in which it dies
    charges its team -drill.death_penalty (nothing by default), once, and the death shows in the episode's tally, in
    ``drill/hero_deaths`` and in the figure."""
    worker, hook, drill = drill_worker("drill.seconds=8", f"drill.death_penalty={penalty}")
    first_wave(worker, hook)
    g = 3
    s = int(drill.side[g])
    hero = HEROES[s]
    ui, uf, hi = worker.env.game.state.ui, worker.env.game.state.uf, worker.env.game.state.hi
    tx, ty = BUILDING_POS[1 - s][MID_TIER1]
    uf[g, hero, X], uf[g, hero, Y] = tx - 250.0, ty - 250.0  # in the enemy tower's reach, no creep near it yet
    uf[g, hero, HP] = 1.0
    reward, _ = play(worker, hook, 20)
    assert ui[g, hero, ALIVE] == 0 and hi[g, hero, DEATHS] == 1
    assert drill.hero_deaths[g] == 1 and drill.last_hits[g] == 0
    assert reward[2 * g + s, 0] == -penalty
    reward[2 * g + s, 0] = 0.0
    np.testing.assert_array_equal(reward, 0.0)  # the other games' learners are alive and charged nothing
    drill.record = True
    reward, _ = play(worker, hook, 2)
    assert reward[2 * g + s, 0] == 0.0  # charged once
    play(worker, hook, 60)  # past the 8 seconds: every episode ends
    tally = next(t for t in drill.tallies if t.game == g)
    assert tally.hero_deaths == 1 and sum(t.hero_deaths for t in drill.tallies) == 1
    assert hook.info(worker)["drill"]["drill/hero_deaths"] == 1
    assert lasthit_figure(drill.tallies)["hero_deaths_per_episode"] == 0.25


def test_a_respawned_slot_is_a_death_that_is_not_the_learners():
    worker, hook, drill = drill_worker()
    first_wave(worker, hook)
    g = 2
    s = int(drill.side[g])
    ui, uf = worker.env.game.state.ui, worker.env.game.state.uf
    c = enemy_creep(worker, drill, g)
    ui[g, c, KILLER_HERO] = HEROES[s]  # stale: must not be read for a creep alive again
    uf[g, c, X] += 1000.0  # the slot holds a new creep far away: the old one died
    play(worker, hook, 1)
    assert drill.deaths[g] == 1 and drill.last_hits[g] == 0


def test_do_nothing_last_hits_nothing_of_the_creeps_that_die():
    config = lasthit_config("drill.seconds=45")
    result = drill_success(do_nothing, config, episodes=4, seed=5)
    assert result["episodes"] == 4 and result["last_hits"] == 0 and result["success"] == 0.0
    assert result["creep_deaths"] >= 4  # the first waves meet mid at ~0:25 and fight: a real denominator
    assert result["ci95"][0] == 0.0 and 0.0 < result["ci95"][1] < 0.6


def test_the_scripted_bot_in_the_learners_place_takes_last_hits():
    """The reference player: the bot's orders reach the learner's hero (not the idle one, whose rows are not the
    learner's), so it last-hits creeps of the same games in which doing nothing takes none."""
    result = drill_success(BotPlayer("scripted"), lasthit_config("drill.seconds=45"), episodes=4, seed=5)
    assert result["episodes"] == 4 and result["creep_deaths"] >= 4
    assert result["last_hits"] >= 2 and result["success"] > 0.15


def test_the_chance_counter_sees_the_bot_take_its_chances_and_doing_nothing_take_none():
    """``benchmarks/lasthit_chances.py``: at the decisions where one attack would last-hit a creep, the scripted
    hero (whose own rule defines a chance) orders that attack far more often than not; doing nothing never does."""
    import importlib.util
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "lasthit_chances.py"
    spec = importlib.util.spec_from_file_location("lasthit_chances", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    config = lasthit_config("drill.seconds=50", "game.patch='0.5'")  # 0.5: the bot holds fire between decisions
    counts = {}
    for name, player in (("bot", BotPlayer("scripted")), ("nothing", do_nothing)):
        counter = bench.ChanceCounter(player)
        drill_success(counter, config, episodes=4, seed=5)
        counts[name] = counter.counts
    bot, nothing = counts["bot"], counts["nothing"]
    assert bot["decisions"] == nothing["decisions"] > 0 and bot["chances"] >= 10  # (chances: where the hero walks)
    assert bot["took"] > 0.7 * bot["chances"] and bot["ready"] > 0
    assert nothing["took"] == nothing["attacks"] == 0 and nothing["no_attack"] == nothing["chances"]


def test_an_unknown_bot_is_named_with_the_choices():
    with pytest.raises(ValueError, match="unknown bot 'scriptd'.*scripted"):
        BotPlayer("scriptd")


@pytest.mark.parametrize("overrides, key", [
    (["drill.name='lasthits'"], "drill.name"),
    (["game.mode='5v5'"], "game.mode"),
    (["policy.goal_inputs=0"], "policy.goal_inputs"),
    (["asp.share=0.25"], "asp.share"),
    (["pool.bot_fraction=0.3"], "pool.bot_fraction"),
    (["pool.past_fraction=0.2"], "pool.past_fraction"),
    (["drill.seconds=700"], "drill.seconds"),
    (["drill.miss_penalty=-1"], "drill.miss_penalty"),
    (["drill.death_penalty=-1"], "drill.death_penalty"),
])
def test_config_rules_name_the_key(overrides, key):
    with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
        load_config(CONFIG, overrides)


def test_the_config_trains_from_scratch_and_ignores_the_walk_keys():
    config = load_config(CONFIG, ["drill.min_distance=100", "drill.max_distance=50"])  # walk's keys: not read
    assert config.drill.name == "lasthit" and config.drill.seconds == 90.0 and config.game.mode == "1v1"
    assert config.clone.bot == "" and config.ppo.kl_weight == 0
    assert config.pool.bot_fraction == 0 and config.pool.past_fraction == 0


def test_staggered_first_episodes_end_apart_then_run_whole_windows():
    """``drill.stagger``: each slot's first episode begins part-way into its window (the time-left input says how
    far) and ends when that input reaches 0, at a different timestep in each slot; every later episode is a whole
    window. Without it every slot starts with the whole window and they all end together."""
    seconds = 3.0
    for stagger in (True, False):
        worker, hook, drill = drill_worker(f"drill.seconds={seconds}", f"drill.stagger={str(stagger).lower()}")
        games = np.arange(worker.n_games)
        first_left = drill.time_left(worker.env, games)
        ended_at = np.full((2, worker.n_games), -1)  # the timestep each slot's first and second episodes ended
        for step in range(1, 2 * round(seconds / STEP_SECONDS) + 4):
            _, over = play(worker, hook, 1)
            for g in np.flatnonzero(over):
                ended_at[int(ended_at[0, g] >= 0), g] = step
                worker.start_new_games(np.array([g]))  # as the worker restarts what the drill ends
        whole = int(np.ceil(seconds / STEP_SECONDS - 1e-6))  # timesteps of a whole window (the step that reaches it)
        assert (ended_at >= 0).all()
        assert (ended_at[1] - ended_at[0] == whole).all()  # the second episodes: a whole window each
        if stagger:
            assert (first_left < 1).all() and len(set(ended_at[0])) == worker.n_games
            assert np.allclose(ended_at[0], np.ceil(first_left * seconds / STEP_SECONDS - 1e-6), atol=1)
        else:
            assert (first_left == 1).all() and (ended_at[0] == whole).all()


def test_an_evaluation_measures_whole_windows_whatever_drill_stagger_says():
    plain = drill_success(do_nothing, lasthit_config("drill.seconds=45"), episodes=4, seed=5)
    staggered = drill_success(do_nothing, lasthit_config("drill.seconds=45", "drill.stagger=true"), episodes=4, seed=5)
    assert staggered == plain and plain["creep_deaths"] >= 4
