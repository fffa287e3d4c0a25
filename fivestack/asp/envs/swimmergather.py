"""SwimmerGather, the paper's fifth world: a three-link swimmer in a viscous fluid (MuJoCo) in a gather arena.

The body (``SWIMMER_MJCF``, written here): three capsules of length 1 and radius 0.1 (density 1000) joined by
two hinges limited to +-100 degrees, free to slide in x and y and turn about z, in a medium of density 4000 and
viscosity 0.1 (MuJoCo's inertia-box fluid model), two motors of gear 150 with controls in [-1, 1]; time step
0.01 s, semi-implicit Euler. One action holds the two controls for 150 physics steps (the paper's frame skip
150: 1.5 s of simulated time).

Actions: 9 uniform bins in [-1, 1] per joint, as the paper. Here they form one softmax over the 81 pairs plus
STOP (index 81); the paper had a head per joint and a binary STOP head. Bob cannot STOP.

The swimmer's *location* is its centre of mass (``location``: the mean of the three segment centres, computed
from the joint positions). Self-play (reverse, Table 1): Alice swims from s_0 until STOP; Bob takes over from
where she is and succeeds when his location is within 0.3 of the location she started from. No apples or
bombs in self-play. Target task (166 actions): 8 green apples (+1 when the location comes within 1.0) and
8 red bombs (-1), each eaten once, on the even grid points of [-6, 6]^2 at least 2 from the start (RLLab's
gather layout). Every episode starts at the origin heading along +x, with joint angles, heading and
velocities perturbed by U(-0.1, 0.1).

State (one row per episode, ``STATE_DIM`` = 58): qpos (x, y, heading, bend1, bend2), qvel (5), then 16 objects
as (x, y, kind) with kind +1 apple, -1 bomb, 0 eaten or absent. Policy input (``INPUT_DIM`` = 36, plus t / t_max
from the trainer): the location / 4, cos and sin of the heading, the bends, the velocities; Bob's goal location
/ 4 and the goal relative to him in his own frame / 4 (zero on the target task); the paper's sensors: 10 bins over
the half-plane ahead (range 6), per bin 1 - distance / 6 of the nearest apple, then of the nearest bomb; the
episode-kind flag.

MuJoCo is imported on first use (``load_mujoco``): ``fivestack`` works without it, and this world then says
``pip install mujoco``.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from fivestack.asp.envs.base import ASPEnvBase
from fivestack.asp.selfplay import SelfPlayConfig

SWIMMER_MJCF = """
<mujoco model="gather_swimmer">
  <compiler angle="degree"/>
  <option timestep="0.01" density="4000" viscosity="0.1" integrator="Euler"/>
  <default>
    <geom type="capsule" size="0.1" density="1000" contype="0" conaffinity="0"/>
    <joint limited="true" armature="0.1"/>
    <motor ctrllimited="true" ctrlrange="-1 1" gear="150"/>
  </default>
  <worldbody>
    <body name="head">
      <joint name="slide_x" type="slide" axis="1 0 0" limited="false"/>
      <joint name="slide_y" type="slide" axis="0 1 0" limited="false"/>
      <joint name="heading" type="hinge" axis="0 0 1" limited="false"/>
      <geom name="front" fromto="0 0 0 -1 0 0"/>
      <body name="middle" pos="-1 0 0">
        <joint name="bend1" type="hinge" axis="0 0 1" range="-100 100"/>
        <geom name="centre" fromto="0 0 0 -1 0 0"/>
        <body name="tail" pos="-1 0 0">
          <joint name="bend2" type="hinge" axis="0 0 1" range="-100 100"/>
          <geom name="back" fromto="0 0 0 -1 0 0"/>
        </body>
      </body>
    </body>
  </worldbody>
  <actuator>
    <motor joint="bend1"/>
    <motor joint="bend2"/>
  </actuator>
</mujoco>
"""

FRAME_SKIP = 150
BINS = np.linspace(-1.0, 1.0, 9)
NUM_ACTIONS = len(BINS) ** 2 + 1          # 81 control pairs + STOP
STOP = NUM_ACTIONS - 1
N_APPLES, N_BOMBS = 8, 8
N_OBJECTS = N_APPLES + N_BOMBS
QPOS, QVEL = slice(0, 5), slice(5, 10)
OBJECTS = slice(10, 10 + 3 * N_OBJECTS)
STATE_DIM = 10 + 3 * N_OBJECTS
CATCH_RANGE = 1.0                          # an object is eaten when the location comes this close
SENSOR_BINS, SENSOR_RANGE, SENSOR_SPAN = 10, 6.0, np.pi
ARENA = 6                                  # objects on the even grid points of [-6, 6]^2 ...
MIN_SPACING = 2.0                          # ... at least this far from the start
SUCCESS_RADIUS = 0.3                       # Bob's self-play test on the location
START_NOISE = 0.1
INPUT_DIM = 11 + 4 + 2 * SENSOR_BINS + 1
MUJOCO_MISSING = ("SwimmerGather needs MuJoCo, which is not installed: pip install mujoco "
                  "(or pip install -e '.[dev]', whose dev extra includes it)")


def missing_mujoco_message(error: BaseException | None = None) -> str:
    """The one error a user without MuJoCo sees (with the import's own reason when there is one)."""
    return MUJOCO_MISSING + (f" [{type(error).__name__}: {error}]" if error is not None else "")


def load_mujoco():
    """Import mujoco on first use, or raise one ImportError naming ``pip install mujoco``."""
    try:
        import mujoco
    except ImportError as e:
        raise ImportError(missing_mujoco_message(e)) from None
    return mujoco


def location(states: np.ndarray) -> np.ndarray:
    """(..., 2) centre of mass of the three equal segments from (x, y, heading, bend1, bend2): segment k points
    back from its joint along the angle heading + bend1 + ... + bend_k."""
    s = np.asarray(states)
    x, y, h, b1, b2 = (s[..., i] for i in range(5))
    angles = (h, h + b1, h + b1 + b2)
    back = [np.stack([-np.cos(a), -np.sin(a)], -1) for a in angles]
    joint1 = back[0]
    joint2 = joint1 + back[1]
    centres = (0.5 * back[0], joint1 + 0.5 * back[1], joint2 + 0.5 * back[2])
    return np.stack([x, y], -1) + sum(centres) / 3.0


def to_body_frame(vec: np.ndarray, heading: np.ndarray) -> np.ndarray:
    """(..., 2) world vectors seen from a swimmer heading ``heading``: (ahead, to its left)."""
    c, s = np.cos(heading), np.sin(heading)
    return np.stack([c * vec[..., 0] + s * vec[..., 1], -s * vec[..., 0] + c * vec[..., 1]], -1)


def sensors(states: np.ndarray) -> np.ndarray:
    """(..., 2 * SENSOR_BINS): per bin of the half-plane ahead, 1 - d / range of the nearest apple, then bomb."""
    s = np.asarray(states)
    loc = location(s)
    objects = s[..., OBJECTS].reshape(*s.shape[:-1], N_OBJECTS, 3)
    rel = to_body_frame(objects[..., :2] - loc[..., None, :], s[..., 2:3])
    dist = np.linalg.norm(rel, axis=-1)
    angle = np.arctan2(rel[..., 1], rel[..., 0])
    visible = (objects[..., 2] != 0) & (dist < SENSOR_RANGE) & (np.abs(angle) < SENSOR_SPAN / 2)
    bin_of = np.clip(((angle + SENSOR_SPAN / 2) / SENSOR_SPAN * SENSOR_BINS).astype(np.int64), 0, SENSOR_BINS - 1)
    reading = np.where(visible, 1.0 - dist / SENSOR_RANGE, 0.0)
    out = np.zeros((*s.shape[:-1], 2 * SENSOR_BINS))
    for j in range(N_OBJECTS):
        column = bin_of[..., j] + np.where(objects[..., j, 2] < 0, SENSOR_BINS, 0)
        current = np.take_along_axis(out, column[..., None], -1)[..., 0]
        np.put_along_axis(out, column[..., None], np.maximum(current, reading[..., j])[..., None], -1)
    return out


def place_objects(rng: np.random.Generator) -> np.ndarray:
    """(N_OBJECTS, 3): apples then bombs on distinct even grid points of the arena, away from the start."""
    grid = np.arange(-ARENA, ARENA + 1, 2, dtype=np.float64)
    points = np.stack(np.meshgrid(grid, grid), -1).reshape(-1, 2)
    points = points[np.linalg.norm(points, axis=1) >= MIN_SPACING]
    chosen = points[rng.choice(len(points), N_OBJECTS, replace=False)]
    kind = np.r_[np.ones(N_APPLES), -np.ones(N_BOMBS)]
    return np.concatenate([chosen, kind[:, None]], 1)


def eat(states: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Remove the objects within CATCH_RANGE of the location on ``rows`` (in place); the reward per row is
    +1 per apple and -1 per bomb removed."""
    loc = location(states[:, QPOS])
    objects = states[:, OBJECTS].reshape(len(states), N_OBJECTS, 3)
    close = (np.linalg.norm(objects[..., :2] - loc[:, None], axis=-1) < CATCH_RANGE) & rows[:, None]
    reward = (objects[..., 2] * close).sum(1)
    objects[..., 2] = np.where(close, 0.0, objects[..., 2])
    states[:, OBJECTS] = objects.reshape(len(states), -1)
    return reward


class SwimmerGather(ASPEnvBase):
    """``n`` swimmers in lockstep, one MjData each; ``state`` mirrors them (see the module docstring).

    ``step`` calls ``mj_step`` once per moving swimmer with ``nstep=FRAME_SKIP`` (150 physics steps in C per
    call: the Python around it is about 2% of the step's time). With ``threads`` > 1 the moving swimmers are
    stepped together by ``mujoco.rollout`` on that many threads: each swimmer's full physical state and warm
    start go in and its state after the 150 steps is written back, the numbers ``mj_step`` gives for one
    action; over many actions they drift apart by about 1e-6 (rollout does not hand back the solver's warm
    start, which matters at the joint limits; ``tests/asp/test_batched.py``). Off by default; for a machine
    with spare cores."""
    tabular = False
    bob_stops = False
    num_actions = NUM_ACTIONS
    state_dim = STATE_DIM
    input_dim = INPUT_DIM

    def __init__(self, n: int, t_max_target: int = 166, seed: int = 0, threads: int = 1):
        mujoco = load_mujoco()
        self.threads = threads
        self._mj = mujoco
        self.model = mujoco.MjModel.from_xml_string(SWIMMER_MJCF)
        self.data = [mujoco.MjData(self.model) for _ in range(n)]
        self.n = n
        self.t_max_target = t_max_target
        self.state = np.zeros((n, STATE_DIM))
        self.handovers: list[np.ndarray] = []     # per self-play batch: (rows, 3) seed row, ahead, left
        self.reset(np.random.default_rng(seed), np.zeros(n, bool))

    def _write(self, rows) -> None:
        for i in rows:
            d = self.data[i]
            self._mj.mj_resetData(self.model, d)
            d.qpos[:] = self.state[i, QPOS]
            d.qvel[:] = self.state[i, QVEL]
            self._mj.mj_forward(self.model, d)

    def reset(self, rng, target):
        self.state = np.zeros((self.n, STATE_DIM))
        self.state[:, :10] = rng.uniform(-START_NOISE, START_NOISE, (self.n, 10))
        for i in np.flatnonzero(target):
            self.state[i, OBJECTS] = place_objects(rng).reshape(-1)
        self._write(range(self.n))

    def set_state(self, states, where):
        self.state[where] = states[where]
        self._write(np.flatnonzero(where))

    def step(self, actions, moving, target):
        actions = np.asarray(actions)
        if self.threads > 1 and np.any(moving):
            self._step_rollout(actions, np.asarray(moving, bool))
            reward = eat(self.state, np.asarray(moving, bool) & np.asarray(target, bool))
            return reward, np.zeros(self.n, bool), np.zeros(self.n, bool)
        for i in np.flatnonzero(moving):
            d = self.data[i]
            a = int(actions[i])
            d.ctrl[0], d.ctrl[1] = BINS[a // len(BINS)], BINS[a % len(BINS)]
            self._mj.mj_step(self.model, d, nstep=FRAME_SKIP)
            self.state[i, QPOS] = d.qpos
            self.state[i, QVEL] = d.qvel
        reward = eat(self.state, np.asarray(moving, bool) & np.asarray(target, bool))
        return reward, np.zeros(self.n, bool), np.zeros(self.n, bool)

    def _step_rollout(self, actions, moving):
        """Every moving swimmer's FRAME_SKIP physics steps in one ``mujoco.rollout`` call on ``threads`` threads."""
        mj = self._mj
        from mujoco import rollout

        if not hasattr(self, "_pool"):
            self._pool = [mj.MjData(self.model) for _ in range(self.threads)]
            self._spec = mj.mjtState.mjSTATE_FULLPHYSICS
            self._nstate = mj.mj_stateSize(self.model, self._spec)
        rows = np.flatnonzero(moving)
        init = np.empty((len(rows), self._nstate))
        warm = np.empty((len(rows), self.model.nv))
        ctrl = np.empty((len(rows), 1, self.model.nu))
        for k, i in enumerate(rows):
            d = self.data[i]
            a = int(actions[i])
            d.ctrl[0], d.ctrl[1] = BINS[a // len(BINS)], BINS[a % len(BINS)]
            mj.mj_getState(self.model, d, init[k], self._spec)
            warm[k] = d.qacc_warmstart
            ctrl[k, 0] = d.ctrl
        out, _ = rollout.rollout(self.model, self._pool, init, np.repeat(ctrl, FRAME_SKIP, 1), nstep=FRAME_SKIP,
                                 initial_warmstart=warm, persistent_pool=True)
        for k, i in enumerate(rows):
            d = self.data[i]
            mj.mj_setState(self.model, d, out[k, -1], self._spec)
            self.state[i, QPOS] = d.qpos
            self.state[i, QVEL] = d.qvel

    def target_goal(self):
        """No goal location on the target task: ``encode`` zeroes the goal where z = 1."""
        return np.zeros_like(self.state)

    def encode(self, states, goals, z):
        states, goals = np.asarray(states), np.asarray(goals)
        z = np.asarray(z, np.float64)[..., None]
        loc = location(states[..., QPOS])
        heading = states[..., 2]
        own = np.concatenate([loc / 4, np.cos(heading)[..., None], np.sin(heading)[..., None],
                              states[..., 3:5], states[..., QVEL]], -1)
        goal_loc = location(goals[..., QPOS])
        goal = np.concatenate([goal_loc / 4, to_body_frame(goal_loc - loc, heading) / 4], -1) * (1 - z)
        return np.concatenate([own, goal, sensors(states), z], -1).astype(np.float32)

    def success(self, states, goals):
        return np.linalg.norm(location(states[:, QPOS]) - location(goals[:, QPOS]), axis=-1) < SUCCESS_RADIUS

    def count_key(self, states):
        cell = np.floor(location(states[:, QPOS]) / 1.0).astype(np.int64) + 1000
        return cell[:, 0] * 10000 + cell[:, 1]

    def task_stats(self, s0, s_star):
        """Where Alice handed over, relative to her start in its frame (ahead, left), and how far; the points
        are also kept (``handovers``) for the hand-over plot."""
        offset = to_body_frame(location(s_star[:, QPOS]) - location(s0[:, QPOS]), s0[:, 2])
        self.handovers.append(offset.astype(np.float32))
        return {"distance": np.linalg.norm(offset, axis=-1), "ahead": offset[:, 0], "left": offset[:, 1]}

    def run_extras(self, max_points: int = 1500) -> dict:
        """Alice's hand-over points for the JSON: (batch, ahead, left), evenly thinned to ``max_points``."""
        if not self.handovers:
            return {}
        batch = np.concatenate([np.full(len(h), k) for k, h in enumerate(self.handovers)])
        points = np.concatenate(self.handovers)
        keep = np.unique(np.linspace(0, len(points) - 1, min(max_points, len(points))).astype(int))
        return {"handovers": {"batch": batch[keep].tolist(), "ahead": points[keep, 0].round(3).tolist(),
                              "left": points[keep, 1].round(3).tolist(), "batches": len(self.handovers)}}


GAIT = (8 * 9 + 8, 8 * 9 + 0, 0 * 9 + 0, 0 * 9 + 8)   # (+1, +1), (+1, -1), (-1, -1), (-1, +1): a travelling wave


def reference_levels(episodes: int = 100, seed: int = 0, t_max_target: int = 166) -> dict:
    """What moving without steering earns on the target task: uniformly random actions, and a hand-written
    travelling-wave gait (``GAIT``, repeated) that swims roughly straight. Per policy: mean apples eaten, bombs
    touched, target reward and distance from the start after ``t_max_target`` actions, over ``episodes``."""
    rng = np.random.default_rng(seed)
    env = SwimmerGather(episodes, t_max_target, seed)
    out = {}
    for name in ("random", "gait"):
        env.reset(rng, np.ones(episodes, bool))
        start = location(env.state[:, QPOS])
        kinds = env.state[:, OBJECTS].reshape(episodes, N_OBJECTS, 3)[..., 2].copy()
        reward = np.zeros(episodes)
        for t in range(t_max_target):
            a = rng.integers(0, STOP, episodes) if name == "random" else np.full(episodes, GAIT[t % len(GAIT)])
            reward += env.step(a, np.ones(episodes, bool), np.ones(episodes, bool))[0]
        gone = (env.state[:, OBJECTS].reshape(episodes, N_OBJECTS, 3)[..., 2] == 0) & (kinds != 0)
        out[name] = {"apples": round(float((gone & (kinds > 0)).sum(1).mean()), 3),
                     "bombs": round(float((gone & (kinds < 0)).sum(1).mean()), 3),
                     "reward": round(float(reward.mean()), 3), "reward_std": round(float(reward.std()), 3),
                     "distance": round(float(np.linalg.norm(location(env.state[:, QPOS]) - start, axis=1).mean()), 2)}
    return out


def config() -> SelfPlayConfig:
    """Table 1, SwimmerGather column: lr 0.003, t_max 200 for self-play (Alice + Bob) and 166 target actions,
    entropy 0.003 in self-play and 0 on the target task, gamma 0.01, 10% target episodes, reverse; MLP 50-50
    tanh (the paper does not give the swimmer's sizes), RMSProp, init N(0, 0.2); Bob acts at least once and
    the policies see t / t_max, as the paper's inputs had. Deviations, for the budget (see docs/asp.md):
    batch 40 episodes per seed (paper 256), so 4 target episodes and 36 self-play episodes per update; the
    target-only baselines update on batches of 4 target episodes too (``METHOD_OVERRIDES``), the same
    number of target episodes per update as self-play's Bob. Alice's STOP logit starts at +1.45, so her
    STOP has probability 0.05 per action at first (the paper's binary STOP head starts at 0.5; an even
    softmax over 82 actions would give 0.012). Evaluation: every 40 target episodes, 16 fresh target
    episodes per seed, sampled actions."""
    return SelfPlayConfig(mode="reverse", gamma=0.01, t_max=200, target_share=0.1, batch=40, lr=0.003,
                     entropy=0.003, entropy_target=0.0, hidden=(50, 50), count_alpha=0.1,
                     eval_every=40, eval_episodes=16, bob_must_act=True, time_input=True,
                     alice_stop_bias=1.45)


def ppo_config() -> SelfPlayConfig:
    """The labelled second learner: the same settings with PPO's clipped surrogate (``SelfPlayConfig.algo``)."""
    cfg = config()
    cfg.algo = "ppo"
    return cfg


def make(n: int, threads: int = 1) -> SwimmerGather:
    return SwimmerGather(n, threads=threads)


METHODS = ("self_play", "target_only", "count_based")
METHOD_OVERRIDES = {"target_only": {"batch": 4}, "count_based": {"batch": 4}}
EPISODES = 400
ALICE_PLOTS = ("t_a", "distance", "bob_success")
METRIC = "reward"
REWARD_FLOOR = -np.inf                     # the std band may go below 0: bombs cost -1


def summary(results: dict) -> dict:
    """Target reward (apples - bombs per 166-action episode) at the end and averaged over training, the
    first budget at which each method's mean curve reaches a level, and Alice's drift."""
    from fivestack.asp.experiments import final
    r = results["methods"]
    out = {"final_reward": {m: final(v, "reward") for m, v in r.items()},
           "final_reward_per_seed": {m: v["reward"]["per_seed_final"] for m, v in r.items()},
           "mean_reward_over_training": {m: round(float(np.mean(v["reward"]["mean"])), 4) for m, v in r.items()},
           "target_episodes": results["episodes"]}
    for m, v in r.items():
        if "handovers" in v:
            h = v["handovers"]
            ahead, left = np.array(h["ahead"]), np.array(h["left"])
            late = np.array(h["batch"]) >= h["batches"] // 2
            out.setdefault("alice_handover_second_half", {})[m] = {
                "mean_ahead": round(float(ahead[late].mean()), 3), "mean_left": round(float(left[late].mean()), 3),
                "mean_distance": round(float(np.hypot(ahead[late], left[late]).mean()), 3)}
        if "seconds" in v:
            out.setdefault("seconds", {})[m] = v["seconds"]
    return out


def plot_handovers(results: dict, path) -> None:
    """Where Alice hands over to Bob, relative to her start (her start heading points right), in thirds of
    training: the paper's Figure 8."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = [(m, v["handovers"]) for m, v in results["methods"].items() if "handovers" in v]
    if not runs:
        return
    fig, axes = plt.subplots(len(runs), 3, figsize=(11, 3.6 * len(runs)), squeeze=False)
    for row, (m, h) in zip(axes, runs):
        batch, ahead, left = np.array(h["batch"]), np.array(h["ahead"]), np.array(h["left"])
        edges = np.linspace(0, h["batches"], 4).astype(int)
        lim = max(1.0, float(np.percentile(np.hypot(ahead, left), 99)))
        for k, ax in enumerate(row):
            part = (batch >= edges[k]) & (batch < max(edges[k + 1], edges[k] + 1))
            ax.hist2d(ahead[part], left[part], bins=30, range=[[-lim, lim], [-lim, lim]], cmap="viridis")
            ax.plot(0, 0, "r+", markersize=12)
            ax.set_aspect("equal")
            ax.set_title(f"{m}: batches {edges[k]}-{edges[k + 1]} ({part.sum()} hand-overs)", fontsize=9)
            ax.set_xlabel("ahead of the start heading")
            ax.set_ylabel("to its left")
    fig.suptitle(f"swimmergather: where Alice hands over ({results['seeds']} seeds pooled)")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def extra_plots(results: dict, stem) -> None:
    plot_handovers(results, f"{stem}_alice.png")


PPO_VARIANT = SimpleNamespace(make=make, config=ppo_config, METHODS=("self_play", "target_only"),
                              METHOD_OVERRIDES=METHOD_OVERRIDES, EPISODES=EPISODES, ALICE_PLOTS=ALICE_PLOTS,
                              METRIC=METRIC, REWARD_FLOOR=REWARD_FLOOR, summary=summary,
                              extra_plots=extra_plots)
