// fivestack replay viewer: draws a replay served by `fivestack view` on a 2D canvas.
// The replay arrives as /replay/meta.json (header, summary, events, array layout) and /replay/data.bin
// (the arrays, viewed as typed arrays without parsing). window.viewer is the page's small API (used by tests).
"use strict";

(function () {
  const COLORS = {
    radiantHero: [61, 220, 132], direHero: [255, 82, 82],
    radiantCreep: [46, 160, 98], direCreep: [205, 60, 60],
    neutral: [214, 168, 74], bigNeutral: [176, 112, 255],
    radiantBuilding: [38, 140, 86], direBuilding: [170, 48, 48],
  };
  const rgb = (c, a) => (a === undefined ? `rgb(${c[0]},${c[1]},${c[2]})` : `rgba(${c[0]},${c[1]},${c[2]},${a})`);
  const KIND = { hero: 0, creep_melee: 1, creep_ranged: 2, creep_siege: 3, tower: 4, barracks: 5, ancient: 6,
    fountain: 7, neutral: 8, big_neutral: 9, courier: 10 };
  const TEAM_NAMES = ["radiant", "dire", "neutral"];
  const TEAM_LABEL = ["Radiant", "Dire", "Neutral"];
  const KIND_LABEL = ["hero", "melee creep", "ranged creep", "siege creep", "tower", "barracks", "ancient",
    "fountain", "neutral creep", "big neutral", "courier"];
  const TARGETED = new Set(["attack", "ability_1", "ability_2", "ability_3", "ultimate", "item_1", "item_2", "item_3",
    "item_4", "item_5", "item_6", "town_portal"]);
  const $ = (id) => document.getElementById(id);
  const DTYPES = { int8: Int8Array, uint8: Uint8Array, int16: Int16Array, uint16: Uint16Array, int32: Int32Array,
    uint32: Uint32Array, float32: Float32Array };

  const V = {
    ready: false, error: null, step: 0, fog: "none", selected: -1, playing: false, speed: 4,
    zoom: 1, cx: 8000, cy: 8000, timing: {},
  };
  let meta = null, A = null, H = null, T = 0, mapSize = 16000, stepSeconds = 2 / 15;
  let bg = null, fogCanvas = null, rowOf = new Int32Array(256).fill(-1), nextRow = new Int32Array(256).fill(-1);
  let winSeries = null, winImplied = [false, false], lastPanelStep = -1, playTime = 0, lastFrameTs = null, hover = null;
  const canvas = $("map"), ctx = canvas.getContext("2d", { willReadFrequently: true });

  // ------------------------------------------------------------------ loading
  function fail(message) {
    V.error = message;
    V.failed = true;
    const box = $("error");
    box.textContent = "Cannot open this replay:\n" + message;
    box.hidden = false;
    $("title").textContent = "replay could not be loaded";
  }

  async function load() {
    try {
      const r = await fetch("replay/meta.json", { cache: "no-store" });
      if (!r.ok) throw new Error(`the server answered ${r.status} for replay/meta.json`);
      meta = await r.json();
      V.timing.meta_ms = performance.now();
      if (meta.error) { fail(meta.error); return; }
      const d = await fetch("replay/data.bin", { cache: "no-store" });
      if (!d.ok) throw new Error(`the server answered ${d.status} for replay/data.bin`);
      const buf = await d.arrayBuffer();
      V.timing.data_ms = performance.now();
      if (buf.byteLength !== meta.bytes) throw new Error(`replay data has ${buf.byteLength} bytes, expected ${meta.bytes}`);
      A = {};
      for (const [name, spec] of Object.entries(meta.arrays)) {
        const Ctor = DTYPES[spec.dtype];
        if (!Ctor) throw new Error(`array ${name} has unsupported dtype ${spec.dtype}`);
        A[name] = new Ctor(buf, spec.offset, spec.length);
      }
      setup();
    } catch (e) {
      fail(String(e && e.message ? e.message : e));
    }
  }

  function setup() {
    H = meta.header;
    T = A.step_frame.length;
    mapSize = H.map.size;
    stepSeconds = H.time.step_seconds;
    V.nSteps = T;
    const players = H.players || {};
    $("title").textContent = `${meta.name}  ·  ${H.config.mode}  ·  Radiant (${players.radiant || "?"}) vs Dire (${players.dire || "?"})`;
    const s = meta.summary;
    $("outcome").textContent = s.outcome === "win" ? `${cap(s.winner)} won after ${fmtTime(s.duration_seconds)}`
      : s.outcome === "truncated" ? `time limit at ${fmtTime(s.duration_seconds)}` : "unfinished recording";
    $("scrubber").max = String(Math.max(0, T - 1));
    $("nopolicy").hidden = hasPolicy();
    if (!hasPolicy()) {
      const p = H.players || {};
      $("nopolicy").textContent = `no policy outputs: Radiant (${p.radiant || "?"}) and Dire (${p.dire || "?"}) were bots`;
      $("winprob").style.opacity = 0.35;
    }
    buildWinSeries();
    bg = renderBackground(2048);
    fogCanvas = document.createElement("canvas");
    resize();
    bindUi();
    seek(0);
    V.ready = true;
    V.timing.ready_ms = performance.now();
    requestAnimationFrame(tick);
  }

  const hasPolicy = () => !!(A && A.policy_value && H.policy && (H.policy.radiant || H.policy.dire));
  const cap = (s) => (s ? s[0].toUpperCase() + s.slice(1) : "");
  function fmtTime(sec) {
    sec = Math.max(0, Math.floor(sec));
    return `${Math.floor(sec / 60)}:${String(sec % 60).padStart(2, "0")}`;
  }
  const stepTime = (t) => A.step_frame[t] / H.time.frames_per_second;
  const heroName = (h) => (h >= 0 && h < 10 ? H.heroes[h].name : "?");
  const heroTeam = (h) => (h < 5 ? 0 : 1);

  // ------------------------------------------------------------------ geometry
  function scale() { return (Math.min(canvas.width, canvas.height) / mapSize) * V.zoom; }
  function project(x, y) {
    const s = scale();
    return [(x - V.cx) * s + canvas.width / 2, (V.cy - y) * s + canvas.height / 2];
  }
  function unproject(px, py) {
    const s = scale();
    return [(px - canvas.width / 2) / s + V.cx, V.cy - (py - canvas.height / 2) / s];
  }

  function resize() {
    const r = canvas.getBoundingClientRect();
    const dpr = window.devicePixelRatio || 1;
    canvas.width = Math.max(200, Math.round(r.width * dpr));
    canvas.height = Math.max(200, Math.round(r.height * dpr));
    const t = $("ticks"), tr = t.getBoundingClientRect();
    t.width = Math.max(50, Math.round(tr.width));
    drawTicks();
    if (V.ready) draw();
  }

  // ------------------------------------------------------------------ static map
  function renderBackground(size) {
    const c = document.createElement("canvas");
    c.width = c.height = size;
    const g = c.getContext("2d");
    const k = size / mapSize;
    const P = (x, y) => [x * k, (mapSize - y) * k];
    g.fillStyle = "#26331f";
    g.fillRect(0, 0, size, size);
    // bases
    const fountains = H.map.buildings.filter((b) => b.kind === "fountain");
    for (const f of fountains) {
      const [x, y] = P(f.x, f.y);
      const grad = g.createRadialGradient(x, y, 0, x, y, 4200 * k);
      const col = f.team === "radiant" ? COLORS.radiantHero : COLORS.direHero;
      grad.addColorStop(0, rgb(col, 0.22));
      grad.addColorStop(1, rgb(col, 0.0));
      g.fillStyle = grad;
      g.beginPath(); g.arc(x, y, 4200 * k, 0, Math.PI * 2); g.fill();
    }
    // river along x + y = size
    const hw = H.map.river.half_width;
    g.fillStyle = "#1f4866";
    g.beginPath();
    const r1 = P(0, mapSize - hw * Math.SQRT2), r2 = P(0, mapSize + hw * Math.SQRT2);
    const r3 = P(mapSize + hw * Math.SQRT2, 0), r4 = P(mapSize - hw * Math.SQRT2, 0);
    g.moveTo(...r1); g.lineTo(...r2); g.lineTo(...r3); g.lineTo(...r4); g.closePath(); g.fill();
    // lanes
    g.strokeStyle = "#6b5a40"; g.lineWidth = 420 * k; g.lineCap = "round"; g.lineJoin = "round";
    for (const pts of Object.values(H.map.lanes)) {
      g.beginPath();
      pts.forEach(([x, y], i) => (i ? g.lineTo(...P(x, y)) : g.moveTo(...P(x, y))));
      g.stroke();
    }
    // trees and cliffs (blocked walk cells)
    const grid = H.map.walk_grid, cs = grid.cell_size * k;
    g.fillStyle = "#11200f";
    for (let i = 0; i < grid.cells; i++) {
      const row = grid.rows[i];
      for (let j = 0; j < grid.cells; j++) {
        if (row.charCodeAt(j) === 48) {
          const [x, y] = P(i * grid.cell_size, (j + 1) * grid.cell_size);
          g.fillRect(x - 0.5, y - 0.5, cs + 1, cs + 1);
        }
      }
    }
    g.fillStyle = "#0b170a";
    for (let i = 0; i < grid.cells; i++) {
      const row = grid.rows[i];
      for (let j = 0; j < grid.cells; j++) {
        if (row.charCodeAt(j) === 48 && (i * 7 + j * 13) % 3 === 0) {
          const [x, y] = P((i + 0.5) * grid.cell_size, (j + 0.5) * grid.cell_size);
          g.beginPath(); g.arc(x, y, cs * 0.32, 0, Math.PI * 2); g.fill();
        }
      }
    }
    // camps, big neutral pit, rune spots
    g.strokeStyle = "rgba(214,168,74,0.55)"; g.lineWidth = 2;
    for (const [x, y] of H.map.camps) { g.beginPath(); g.arc(...P(x, y), 260 * k, 0, Math.PI * 2); g.stroke(); }
    g.strokeStyle = "rgba(176,112,255,0.7)";
    g.beginPath(); g.arc(...P(...H.map.big_neutral), 380 * k, 0, Math.PI * 2); g.stroke();
    g.strokeStyle = "rgba(255,216,102,0.6)";
    for (const [x, y] of H.map.rune_spots) {
      const [px, py] = P(x, y), r = 150 * k;
      g.beginPath(); g.moveTo(px, py - r); g.lineTo(px + r, py); g.lineTo(px, py + r); g.lineTo(px - r, py); g.closePath(); g.stroke();
    }
    return c;
  }

  // ------------------------------------------------------------------ drawing one timestep
  function stepRows(t) {
    return [A.step_start[t], A.step_start[t + 1]];
  }

  function visibleTo(r, team) {
    if (team < 0) return true;
    if (A.unit_team[r] === team) return true;
    const kind = A.unit_kind[r];
    if (kind >= KIND.tower && kind <= KIND.fountain) return true; // structures are always known
    return (A.unit_vis[r] & (1 << team)) !== 0;
  }

  function unitColor(r) {
    const kind = A.unit_kind[r], team = A.unit_team[r];
    if (team === 2) return kind === KIND.big_neutral ? COLORS.bigNeutral : COLORS.neutral;
    if (kind === KIND.hero || kind === KIND.courier) return team === 0 ? COLORS.radiantHero : COLORS.direHero;
    if (kind >= KIND.tower && kind <= KIND.fountain) return team === 0 ? COLORS.radiantBuilding : COLORS.direBuilding;
    return team === 0 ? COLORS.radiantCreep : COLORS.direCreep;
  }

  function bar(x, y, w, frac, color) {
    ctx.fillStyle = "rgba(0,0,0,0.75)";
    ctx.fillRect(x - w / 2 - 1, y - 1, w + 2, 5);
    ctx.fillStyle = color;
    ctx.fillRect(x - w / 2, y, Math.max(0, Math.min(1, frac)) * w, 3);
  }

  function hpColor(frac) { return frac > 0.5 ? "#4fc66a" : frac > 0.25 ? "#e0c040" : "#e04a3a"; }

  function draw() {
    if (!V.ready && !A) return;
    const t = V.step;
    const W = canvas.width, Hh = canvas.height, s = scale();
    const fogTeam = V.fog === "radiant" ? 0 : V.fog === "dire" ? 1 : -1;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.fillStyle = "#0b0f13";
    ctx.fillRect(0, 0, W, Hh);
    const [ox, oy] = project(0, mapSize);
    ctx.imageSmoothingEnabled = true;
    ctx.drawImage(bg, ox, oy, mapSize * s, mapSize * s);
    if (A.step_night[t]) { ctx.fillStyle = "rgba(20,30,80,0.22)"; ctx.fillRect(ox, oy, mapSize * s, mapSize * s); }
    const [a, b] = stepRows(t);
    rowOf.fill(-1);
    for (let r = a; r < b; r++) rowOf[A.unit_unit[r]] = r;
    // while playing, units glide between this timestep and the next; a paused frame is exactly timestep t
    const frac = V.playing && t + 1 < T ? Math.max(0, Math.min(1, playTime / stepSeconds - t)) : 0;
    if (frac > 0) {
      nextRow.fill(-1);
      const [c, d] = stepRows(t + 1);
      for (let r = c; r < d; r++) nextRow[A.unit_unit[r]] = r;
    }
    const at = (r) => {
      const n = frac > 0 ? nextRow[A.unit_unit[r]] : -1;
      if (n < 0 || Math.abs(A.unit_x[n] - A.unit_x[r]) + Math.abs(A.unit_y[n] - A.unit_y[r]) > 800) {
        return project(A.unit_x[r], A.unit_y[r]);  // not alive next, or a teleport: no gliding
      }
      return project(A.unit_x[r] + (A.unit_x[n] - A.unit_x[r]) * frac, A.unit_y[r] + (A.unit_y[n] - A.unit_y[r]) * frac);
    };
    // fog: darken what the chosen team cannot see
    if (fogTeam >= 0) {
      if (fogCanvas.width !== W || fogCanvas.height !== Hh) { fogCanvas.width = W; fogCanvas.height = Hh; }
      const f = fogCanvas.getContext("2d");
      f.globalCompositeOperation = "source-over";
      f.clearRect(0, 0, W, Hh);
      f.fillStyle = "rgba(4,6,10,0.66)";
      f.fillRect(0, 0, W, Hh);
      f.globalCompositeOperation = "destination-out";
      f.fillStyle = "#000";
      for (let r = a; r < b; r++) {
        if (A.unit_team[r] !== fogTeam) continue;
        const [px, py] = at(r);
        f.beginPath(); f.arc(px, py, A.unit_vision[r] * s, 0, Math.PI * 2); f.fill();
      }
      ctx.drawImage(fogCanvas, 0, 0);
    }
    // destroyed buildings: ruins
    ctx.strokeStyle = "rgba(150,150,150,0.6)"; ctx.lineWidth = 2;
    for (const bld of H.map.buildings) {
      if (rowOf[bld.unit] >= 0) continue;
      const [px, py] = project(bld.x, bld.y), r = Math.max(4, 110 * s);
      ctx.beginPath(); ctx.moveTo(px - r, py - r); ctx.lineTo(px + r, py + r); ctx.moveTo(px + r, py - r); ctx.lineTo(px - r, py + r); ctx.stroke();
    }
    // runes
    for (let k = 0; k < 2; k++) {
      const rune = A.step_runes[2 * t + k];
      if (!rune) continue;
      const [x, y] = H.map.rune_spots[k];
      const [px, py] = project(x, y);
      ctx.fillStyle = rune === 1 ? "#ffd866" : "#7fd3ff";
      ctx.beginPath(); ctx.arc(px, py, Math.max(3.5, 90 * s), 0, Math.PI * 2); ctx.fill();
    }
    const z = Math.sqrt(V.zoom);
    // structures
    for (let r = a; r < b; r++) {
      const kind = A.unit_kind[r];
      if (kind < KIND.tower || kind > KIND.fountain) continue;
      const [px, py] = at(r);
      const col = unitColor(r);
      const size = (kind === KIND.ancient ? 11 : kind === KIND.fountain ? 8 : kind === KIND.tower ? 6.5 : 5) * z;
      ctx.fillStyle = rgb(col);
      ctx.strokeStyle = "#0a0d10"; ctx.lineWidth = 1.5;
      if (kind === KIND.ancient) {
        ctx.beginPath(); ctx.moveTo(px, py - size); ctx.lineTo(px + size, py); ctx.lineTo(px, py + size); ctx.lineTo(px - size, py); ctx.closePath();
        ctx.fill(); ctx.stroke();
      } else if (kind === KIND.fountain) {
        ctx.beginPath(); ctx.arc(px, py, size, 0, Math.PI * 2); ctx.fill(); ctx.stroke();
      } else if (kind === KIND.barracks) {
        ctx.fillRect(px - size * 1.4, py - size * 0.8, size * 2.8, size * 1.6);
        ctx.strokeRect(px - size * 1.4, py - size * 0.8, size * 2.8, size * 1.6);
      } else {
        ctx.fillRect(px - size, py - size, size * 2, size * 2);
        ctx.strokeRect(px - size, py - size, size * 2, size * 2);
        const tier = H.map.buildings.find((bb) => bb.unit === A.unit_unit[r]);
        if (tier && tier.tier && size >= 6) {
          ctx.fillStyle = "#0a0d10"; ctx.font = `bold ${Math.round(size * 1.4)}px sans-serif`;
          ctx.textAlign = "center"; ctx.textBaseline = "middle";
          ctx.fillText(String(tier.tier), px, py + 0.5);
        }
      }
      if (kind !== KIND.fountain && A.unit_hp[r] < A.unit_hp_max[r]) {
        const frac = A.unit_hp[r] / A.unit_hp_max[r];
        bar(px, py + size + 3, size * 2.6, frac, hpColor(frac));
      }
    }
    // creeps, neutrals, couriers
    for (let r = a; r < b; r++) {
      const kind = A.unit_kind[r];
      if (kind === KIND.hero || (kind >= KIND.tower && kind <= KIND.fountain)) continue;
      if (!visibleTo(r, fogTeam)) continue;
      const [px, py] = at(r);
      ctx.fillStyle = rgb(unitColor(r));
      if (kind === KIND.courier) {
        const q = 5 * z;
        ctx.beginPath(); ctx.moveTo(px, py - q); ctx.lineTo(px + q, py + q * 0.8); ctx.lineTo(px - q, py + q * 0.8); ctx.closePath(); ctx.fill();
      } else if (kind === KIND.creep_siege) {
        const q = 3.5 * z;
        ctx.fillRect(px - q, py - q, 2 * q, 2 * q);
      } else {
        const q = (kind === KIND.big_neutral ? 7 : kind === KIND.creep_ranged ? 2.8 : 3.3) * z;
        ctx.beginPath(); ctx.arc(px, py, q, 0, Math.PI * 2); ctx.fill();
      }
      if (V.zoom >= 2.5 && A.unit_hp[r] < A.unit_hp_max[r]) {
        const frac = A.unit_hp[r] / A.unit_hp_max[r];
        bar(px, py - 5 * z - 4, 10 * z, frac, hpColor(frac));
      }
    }
    // selected hero's targets (under the heroes)
    if (V.selected >= 0 && rowOf[V.selected] >= 0 && visibleTo(rowOf[V.selected], fogTeam)) {
      const r = rowOf[V.selected];
      const [hx, hy] = at(r);
      const target = A.unit_target[r];
      if (target >= 0 && rowOf[target] >= 0) {
        const [tx, ty] = at(rowOf[target]);
        ctx.strokeStyle = "rgba(255,255,255,0.75)"; ctx.lineWidth = 1.5; ctx.setLineDash([5, 4]);
        ctx.beginPath(); ctx.moveTo(hx, hy); ctx.lineTo(tx, ty); ctx.stroke(); ctx.setLineDash([]);
      }
      const pol = policyOf(t, V.selected);
      if (pol && pol.target >= 0 && TARGETED.has(pol.primary) && rowOf[pol.target] >= 0) {
        const tr = rowOf[pol.target];
        const [tx, ty] = at(tr);
        ctx.strokeStyle = "#ffd866"; ctx.lineWidth = 2;
        ctx.beginPath(); ctx.moveTo(hx, hy); ctx.lineTo(tx, ty); ctx.stroke();
        ctx.beginPath(); ctx.arc(tx, ty, 9 * z, 0, Math.PI * 2); ctx.stroke();
      }
    }
    // heroes, then their labels on top
    const labels = [];
    for (let r = a; r < b && A.unit_unit[r] < 10; r++) {
      if (A.unit_kind[r] !== KIND.hero || !visibleTo(r, fogTeam)) continue;
      const h = A.unit_unit[r];
      const [px, py] = at(r);
      const rad = 7.5 * z;
      ctx.fillStyle = rgb(unitColor(r));
      ctx.beginPath(); ctx.arc(px, py, rad, 0, Math.PI * 2); ctx.fill();
      ctx.strokeStyle = h === V.selected ? "#ffffff" : "#0a0d10";
      ctx.lineWidth = h === V.selected ? 3 : 2;
      ctx.beginPath(); ctx.arc(px, py, rad + (h === V.selected ? 2.5 : 1), 0, Math.PI * 2); ctx.stroke();
      labels.push([r, h, px, py, rad]);
    }
    ctx.textAlign = "center"; ctx.textBaseline = "bottom";
    ctx.font = "600 11px system-ui, sans-serif";
    const placed = [];
    for (const [r, h, px, py, rad] of labels) {
      const frac = A.unit_hp[r] / Math.max(1, A.unit_hp_max[r]);
      bar(px, py - rad - 9, 26, frac, hpColor(frac));
      if (A.unit_mana[r] > 0) bar(px, py - rad - 5, 26, A.unit_mana[r] / 1000, "#4a90e2");
      const text = `${heroName(h)} ${A.unit_level[r]}`;
      const tw = ctx.measureText(text).width;
      let ty = py - rad - 11;
      for (let k = 0; k < 6; k++) {  // lift a label that would overlap one already drawn
        const hit = placed.some(([x0, y0, w0]) => Math.abs(x0 - px) < (w0 + tw) / 2 + 2 && Math.abs(y0 - ty) < 12);
        if (!hit) break;
        ty -= 12;
      }
      placed.push([px, ty, tw]);
      ctx.lineWidth = 3; ctx.strokeStyle = "rgba(0,0,0,0.85)";
      ctx.strokeText(text, px, ty);
      ctx.fillStyle = h < 5 ? "#c9f5dc" : "#ffd0d0";
      ctx.fillText(text, px, ty);
    }
    if (hover) drawTooltip();
  }

  // ------------------------------------------------------------------ policy outputs
  function policyOf(t, h) {
    if (!hasPolicy()) return null;
    const v = A.policy_value[t * 10 + h];
    if (Number.isNaN(v)) return null;
    const act = Array.from(A.policy_action.subarray((t * 10 + h) * 5, (t * 10 + h) * 5 + 5));
    return { value: v, winProb: A.policy_win_prob[t * 10 + h], action: act,
      primary: H.primary_actions[act[0]] || String(act[0]), target: A.policy_target[t * 10 + h] };
  }

  function buildWinSeries() {
    winSeries = null;
    if (!hasPolicy()) return;
    const out = [new Float32Array(T).fill(NaN), new Float32Array(T).fill(NaN)];
    for (let t = 0; t < T; t++) {
      for (let team = 0; team < 2; team++) {
        let sum = 0, n = 0;
        for (let h = team * 5; h < team * 5 + 5; h++) {
          const p = A.policy_win_prob[t * 10 + h];
          if (!Number.isNaN(p)) { sum += p; n++; }
        }
        if (n) out[team][t] = sum / n;
      }
    }
    // a side played by a bot has no win-probability head: show the other side's complement, dashed
    winSeries = out;
    winImplied = [!H.policy.radiant, !H.policy.dire];
    for (let team = 0; team < 2; team++) {
      if (!winImplied[team]) continue;
      for (let t = 0; t < T; t++) out[team][t] = 1 - out[1 - team][t];
    }
    const names = ["Radiant", "Dire"];
    $("winprob-legend").innerHTML = [0, 1].map((team) => `<span class="${TEAM_NAMES[team]}">${winImplied[team] ? "- - " : "&#9644; "}${names[team]}${winImplied[team] ? ` = 1 &minus; ${names[1 - team]} (bot)` : " win probability"}</span>`).join("");
  }

  function drawSeries(g, series, color, w, h, lo, hi, dashed) {
    g.strokeStyle = color; g.lineWidth = 1.6; g.setLineDash(dashed ? [4, 3] : []);
    g.beginPath();
    let pen = false;
    const cols = Math.min(w, T);
    for (let c = 0; c < cols; c++) {
      const t = Math.floor((c / Math.max(1, cols - 1)) * (T - 1));
      const v = series[t];
      if (Number.isNaN(v)) { pen = false; continue; }
      const x = (t / Math.max(1, T - 1)) * (w - 1), y = h - 4 - ((v - lo) / (hi - lo || 1)) * (h - 8);
      if (pen) g.lineTo(x, y); else g.moveTo(x, y);
      pen = true;
    }
    g.stroke(); g.setLineDash([]);
  }

  function drawPlanning() {
    const c = $("winprob"), g = c.getContext("2d"), w = c.width, h = c.height;
    g.fillStyle = "#0e1318"; g.fillRect(0, 0, w, h);
    g.strokeStyle = "#2a3440"; g.lineWidth = 1; g.setLineDash([3, 3]);
    g.beginPath(); g.moveTo(0, h / 2); g.lineTo(w, h / 2); g.stroke(); g.setLineDash([]);
    g.fillStyle = "#8b96a3"; g.font = "10px sans-serif"; g.textAlign = "left"; g.textBaseline = "top";
    g.fillText("100%", 3, 2); g.textBaseline = "bottom"; g.fillText("0%", 3, h - 1);
    g.textBaseline = "middle"; g.fillText("50%", 3, h / 2 - 6);
    // game minutes along the bottom, every 5
    const total = stepTime(T - 1);
    g.textAlign = "center"; g.textBaseline = "bottom";
    for (let m = 5; m * 60 < total; m += 5) {
      const x = ((m * 60) / total) * (w - 1);
      g.fillStyle = "#1f2830"; g.fillRect(x, 0, 1, h);
      g.fillStyle = "#5d6874"; g.fillText(`${m}m`, x, h - 10);
    }
    // kills as ticks along the bottom
    for (const e of meta.events) {
      if (e.type !== "kill" && e.type !== "building_destroyed") continue;
      const x = (e.step / Math.max(1, T - 1)) * (w - 1);
      const team = e.type === "kill" ? (e.victim < 5 ? 1 : 0) : (e.team === "radiant" ? 1 : 0);
      g.fillStyle = rgb(team === 0 ? COLORS.radiantHero : COLORS.direHero, 0.7);
      g.fillRect(x, h - (e.type === "kill" ? 5 : 9), 1.5, e.type === "kill" ? 5 : 9);
    }
    if (winSeries) {
      drawSeries(g, winSeries[0], rgb(COLORS.radiantHero), w, h, 0, 1, winImplied[0]);
      drawSeries(g, winSeries[1], rgb(COLORS.direHero), w, h, 0, 1, winImplied[1]);
    }
    const x = (V.step / Math.max(1, T - 1)) * (w - 1);
    g.strokeStyle = "#ffd866"; g.lineWidth = 1;
    g.beginPath(); g.moveTo(x, 0); g.lineTo(x, h); g.stroke();
    if (winSeries) {
      g.font = "11px sans-serif"; g.textBaseline = "top"; g.textAlign = x > w - 90 ? "right" : "left";
      const tx = x > w - 90 ? x - 4 : x + 4;
      for (let team = 0; team < 2; team++) {
        const v = winSeries[team][V.step];
        if (Number.isNaN(v)) continue;
        g.fillStyle = rgb(team === 0 ? COLORS.radiantHero : COLORS.direHero);
        g.fillText(`${(v * 100).toFixed(1)}%`, tx, 4 + team * 13);
      }
    }
  }

  function drawHeroValue() {
    const c = $("heroval");
    const h0 = V.selected;
    if (!hasPolicy() || h0 < 0 || !anyPolicy(h0)) { c.hidden = true; return; }
    c.hidden = false;
    const g = c.getContext("2d"), w = c.width, h = c.height;
    const series = new Float32Array(T);
    let lo = Infinity, hi = -Infinity;
    for (let t = 0; t < T; t++) {
      const v = A.policy_value[t * 10 + h0];
      series[t] = v;
      if (!Number.isNaN(v)) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
    }
    if (lo === hi) { lo -= 1; hi += 1; }
    g.fillStyle = "#0e1318"; g.fillRect(0, 0, w, h);
    if (lo < 0 && hi > 0) {
      const y0 = h - 4 - ((0 - lo) / (hi - lo)) * (h - 8);
      g.strokeStyle = "#2a3440"; g.setLineDash([3, 3]); g.beginPath(); g.moveTo(0, y0); g.lineTo(w, y0); g.stroke(); g.setLineDash([]);
    }
    drawSeries(g, series, "#ffd866", w, h, lo, hi, false);
    const x = (V.step / Math.max(1, T - 1)) * (w - 1);
    g.strokeStyle = "#ffffff"; g.lineWidth = 1; g.beginPath(); g.moveTo(x, 0); g.lineTo(x, h); g.stroke();
    g.fillStyle = "#8b96a3"; g.font = "10px sans-serif"; g.textAlign = "left"; g.textBaseline = "top";
    g.fillText(`value of ${heroName(h0)}  [${lo.toFixed(2)}, ${hi.toFixed(2)}]`, 3, 2);
  }
  function anyPolicy(h) {
    for (let t = 0; t < T; t += 50) if (!Number.isNaN(A.policy_value[t * 10 + h])) return true;
    return false;
  }

  function describeUnit(u, t) {
    if (u < 0) return "none";
    if (u < 10) return `${heroName(u)} (${TEAM_LABEL[heroTeam(u)]})`;
    const r = rowOf[u];
    if (r >= 0) return `${TEAM_LABEL[A.unit_team[r]]} ${KIND_LABEL[A.unit_kind[r]]} #${u}`;
    const bld = H.map.buildings.find((b) => b.unit === u);
    if (bld) return `${cap(bld.team)} ${bld.kind} #${u} (destroyed)`;
    return `unit #${u} (not alive now)`;
  }

  function heroDetail() {
    const box = $("hero-detail");
    const h = V.selected, t = V.step;
    if (h < 0) { box.innerHTML = '<p class="muted">Click a hero on the map or in the scoreboard.</p>'; return; }
    const info = H.heroes[h], st = heroStats(t, h), r = rowOf[h];
    const alive = r >= 0;
    const hpFrac = alive ? A.unit_hp[r] / Math.max(1, A.unit_hp_max[r]) : 0;
    const mana = alive ? A.unit_mana[r] / 1000 : 0;
    const pol = policyOf(t, h);
    let policyRows;
    if (pol) {
      const targetText = TARGETED.has(pol.primary) ? describeUnit(pol.target, t) : "(none for this action)";
      policyRows = `<tr><td>value</td><td><b>${pol.value.toFixed(3)}</b></td></tr>
        <tr><td>win probability</td><td><b>${(pol.winProb * 100).toFixed(1)}%</b></td></tr>
        <tr><td>action</td><td>${esc(pol.primary)} <span class="muted">delay ${pol.action[1]}, offset (${pol.action[3] - 4}, ${pol.action[4] - 4})</span></td></tr>
        <tr><td>policy target</td><td>${esc(targetText)}</td></tr>`;
    } else {
      policyRows = `<tr><td>policy</td><td class="muted">no policy outputs for this hero${hasPolicy() ? " at this step" : ""}</td></tr>`;
    }
    box.innerHTML = `<div class="name ${TEAM_NAMES[heroTeam(h)]}">${esc(info.name)} <span class="muted">${esc(info.role)} · ${TEAM_LABEL[heroTeam(h)]} · level ${st.level}</span></div>
      ${alive ? `<div class="bar hp"><i style="width:${(hpFrac * 100).toFixed(1)}%"></i></div>
      <div class="bar mana"><i style="width:${(mana * 100).toFixed(1)}%"></i></div>` : ""}
      <table>
      <tr><td>health</td><td>${alive ? `${A.unit_hp[r]} / ${A.unit_hp_max[r]}` : `dead, respawns in ${st.respawn} s`}</td></tr>
      <tr><td>K / D / A</td><td>${st.kills} / ${st.deaths} / ${st.assists}</td></tr>
      <tr><td>LH / DN</td><td>${st.last_hits} / ${st.denies}</td></tr>
      <tr><td>gold · net worth</td><td>${st.gold} · ${st.net_worth}</td></tr>
      <tr><td>items</td><td>${esc(st.items.join(", ") || "none")}</td></tr>
      <tr><td>attacking</td><td>${alive ? esc(describeUnit(A.unit_target[r], t)) : "-"}</td></tr>
      ${policyRows}
      </table>`;
  }

  function heroStats(t, h) {
    const base = (t * 10 + h) * H.hero_stats.length;
    const out = {};
    H.hero_stats.forEach((name, k) => { out[name] = A.hero_stats[base + k]; });
    out.gold = A.hero_gold[t * 10 + h];
    out.net_worth = A.hero_net_worth[t * 10 + h];
    out.items = [];
    for (let s = 0; s < 9; s++) {
      const id = A.hero_items[(t * 10 + h) * 9 + s];
      if (id >= 0) out.items.push(H.item_names[id].replace(/_/g, " "));
    }
    return out;
  }

  function esc(s) {
    return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
  }

  function scoreboard() {
    const t = V.step;
    let html = "<tr><th>hero</th><th class=num>lvl</th><th class=num>K/D/A</th><th class=num>LH/DN</th><th class=num>gold</th><th class=num>net</th></tr>";
    for (let team = 0; team < 2; team++) {
      const heroes = H.heroes.filter((x) => x.active && heroTeam(x.index) === team);
      const tot = heroes.reduce((acc, x) => acc + A.hero_net_worth[t * 10 + x.index], 0);
      html += `<tr class="team"><td colspan=4 class="${TEAM_NAMES[team]}">${TEAM_LABEL[team]} (${esc((H.players || {})[TEAM_NAMES[team]] || "?")}) · ${A.step_kills[2 * t + team]} kills</td><td></td><td class=num>${tot}</td></tr>`;
      for (const x of heroes) {
        const h = x.index, st = heroStats(t, h);
        const dead = rowOf[h] < 0;
        html += `<tr class="hero${h === V.selected ? " selected" : ""}${dead ? " dead" : ""}" data-hero="${h}">
          <td><span class="${TEAM_NAMES[team]}">&#9679;</span> ${esc(x.name)}${dead ? ` <span class=muted>(${st.respawn}s)</span>` : ""}
          <div class="items">${esc(st.items.join(", "))}</div></td>
          <td class=num>${st.level}</td><td class=num>${st.kills}/${st.deaths}/${st.assists}</td>
          <td class=num>${st.last_hits}/${st.denies}</td><td class=num>${st.gold}</td><td class=num>${st.net_worth}</td></tr>`;
      }
    }
    $("scoreboard").innerHTML = html;
  }

  function eventText(e) {
    const hn = (h) => `<span class="${h < 5 ? "radiant" : "dire"}">${esc(heroName(h))}</span>`;
    switch (e.type) {
      case "kill": return e.killer >= 0 ? `${hn(e.killer)} killed ${hn(e.victim)}` : `${hn(e.victim)} died`;
      case "building_destroyed": return `<span class="${e.team}">${cap(e.team)}</span> lost ${e.kind === "tower" ? `tier-${e.tier} tower` : e.kind}${e.lane ? ` (${e.lane})` : ""}`;
      case "courier_death": return `<span class="${e.team}">${cap(e.team)}</span> courier died`;
      case "aegis": return `${e.hero >= 0 ? hn(e.hero) : cap(e.team)} took the aegis`;
      case "rune": return `${e.hero >= 0 ? hn(e.hero) : "someone"} took a ${e.rune.replace(/_/g, " ")} rune`;
      case "purchase": return `${hn(e.hero)} bought ${esc(e.items.map((i) => i.replace(/_/g, " ")).join(", ") || "an item")} (${e.gold} g)`;
      case "game_over": return e.winner ? `<b class="${e.winner}">${cap(e.winner)} wins</b>` : `game over (${e.outcome})`;
      default: return null;
    }
  }

  let feedCache = null;
  function feed() {
    const showPurchases = $("show-purchases").checked;
    if (!feedCache || feedCache.p !== showPurchases) {
      feedCache = { p: showPurchases, list: meta.events.filter((e) => e.type !== "last_hit" && e.type !== "deny" && (showPurchases || e.type !== "purchase")) };
    }
    const list = feedCache.list;
    let lo = 0, hi = list.length;
    while (lo < hi) { const m = (lo + hi) >> 1; if (list[m].step <= V.step) lo = m + 1; else hi = m; }
    const shown = list.slice(Math.max(0, lo - 60), lo).reverse();
    $("feed").innerHTML = shown.map((e) => `<li data-step="${e.step}"><span class="t">${fmtTime(e.frame / H.time.frames_per_second)}</span>${eventText(e)}</li>`).join("")
      || '<li class="muted">nothing yet</li>';
  }

  function drawTicks() {
    const c = $("ticks");
    if (!meta || !A) return;
    const g = c.getContext("2d"), w = c.width, h = c.height;
    g.clearRect(0, 0, w, h);
    for (const e of meta.events) {
      let col = null, hh = 6;
      if (e.type === "kill") col = e.victim < 5 ? COLORS.direHero : COLORS.radiantHero;
      else if (e.type === "building_destroyed") { col = e.team === "radiant" ? COLORS.direHero : COLORS.radiantHero; hh = 12; }
      if (!col) continue;
      const x = 7 + (e.step / Math.max(1, T - 1)) * (w - 14);
      g.fillStyle = rgb(col, 0.85); g.fillRect(x, h - hh, 1.5, hh);
    }
  }

  function panels() {
    const t = V.step;
    $("clock").textContent = fmtTime(stepTime(t));
    $("timelabel").textContent = `${fmtTime(stepTime(t))} / ${fmtTime(stepTime(T - 1))}  ·  step ${t}`;
    $("score-radiant").textContent = A.step_kills[2 * t];
    $("score-dire").textContent = A.step_kills[2 * t + 1];
    $("daynight").textContent = A.step_night[t] ? "night" : "day";
    $("scrubber").value = String(t);
    scoreboard();
    feed();
    drawPlanning();
    heroDetail();
    drawHeroValue();
    lastPanelStep = t;
  }

  // ------------------------------------------------------------------ interaction
  function seek(t) {
    t = Math.max(0, Math.min(T - 1, Math.round(Number(t)) || 0));
    V.step = t;
    playTime = t * stepSeconds;
    draw();
    panels();
    return t;
  }

  function setFog(team) {
    if (!["none", "radiant", "dire"].includes(team)) throw new Error(`fog must be none, radiant or dire, not ${team}`);
    V.fog = team;
    for (const el of document.querySelectorAll('input[name="fog"]')) el.checked = el.value === team;
    draw();
  }

  function select(h) {
    V.selected = h >= 0 && h < 10 ? h : -1;
    draw();
    panels();
  }

  function nearestUnit(px, py, heroesOnly, maxPx) {
    const [a, b] = stepRows(V.step);
    const fogTeam = V.fog === "radiant" ? 0 : V.fog === "dire" ? 1 : -1;
    let best = -1, bestD = maxPx * maxPx;
    for (let r = a; r < b; r++) {
      if (heroesOnly && A.unit_kind[r] !== KIND.hero) continue;
      if (!visibleTo(r, fogTeam)) continue;
      const [x, y] = project(A.unit_x[r], A.unit_y[r]);
      const d = (x - px) ** 2 + (y - py) ** 2;
      if (d < bestD) { bestD = d; best = r; }
    }
    return best;
  }

  function drawTooltip() {
    const tip = $("tooltip");
    const r = nearestUnit(hover[0], hover[1], false, 14);
    if (r < 0) { tip.hidden = true; return; }
    const u = A.unit_unit[r], kind = A.unit_kind[r];
    let name = u < 10 ? `${heroName(u)} (level ${A.unit_level[r]})` : `${KIND_LABEL[kind]} #${u}`;
    if (kind === KIND.tower) {
      const bld = H.map.buildings.find((b) => b.unit === u);
      if (bld) name = `tier-${bld.tier} tower, ${bld.lane}`;
    }
    tip.innerHTML = `<b class="${TEAM_NAMES[A.unit_team[r]]}">${TEAM_LABEL[A.unit_team[r]]}</b> ${esc(name)}<br>hp ${A.unit_hp[r]} / ${A.unit_hp_max[r]}${A.unit_mana[r] ? ` · mana ${(A.unit_mana[r] / 10).toFixed(0)}%` : ""}`;
    const dpr = window.devicePixelRatio || 1;
    tip.style.left = `${hover[0] / dpr + 14}px`;
    tip.style.top = `${hover[1] / dpr + 10}px`;
    tip.hidden = false;
  }

  function bindUi() {
    $("scrubber").addEventListener("input", (e) => { seek(e.target.value); });
    $("play").addEventListener("click", () => togglePlay());
    $("speed").addEventListener("change", (e) => { V.speed = Number(e.target.value); });
    V.speed = Number($("speed").value);
    for (const el of document.querySelectorAll('input[name="fog"]')) el.addEventListener("change", () => setFog(el.value));
    $("show-purchases").addEventListener("change", () => feed());
    $("scoreboard").addEventListener("click", (e) => {
      const row = e.target.closest("tr[data-hero]");
      if (row) select(Number(row.dataset.hero));
    });
    $("feed").addEventListener("click", (e) => {
      const li = e.target.closest("li[data-step]");
      if (li) seek(Number(li.dataset.step));
    });
    const chartSeek = (e) => {
      const rect = e.target.getBoundingClientRect();
      seek(((e.clientX - rect.left) / rect.width) * (T - 1));
    };
    $("winprob").addEventListener("click", chartSeek);
    $("heroval").addEventListener("click", chartSeek);
    const dpr = () => window.devicePixelRatio || 1;
    let drag = null;
    canvas.addEventListener("mousedown", (e) => { drag = { x: e.offsetX, y: e.offsetY, cx: V.cx, cy: V.cy, moved: false }; });
    window.addEventListener("mouseup", (e) => {
      if (drag && !drag.moved && e.target === canvas) {
        const r = nearestUnit(e.offsetX * dpr(), e.offsetY * dpr(), true, 16);
        select(r >= 0 ? A.unit_unit[r] : -1);
      }
      drag = null;
    });
    canvas.addEventListener("mousemove", (e) => {
      if (drag) {
        const dx = e.offsetX - drag.x, dy = e.offsetY - drag.y;
        if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
        if (drag.moved) {
          const s = scale() / dpr();
          V.cx = drag.cx - dx / s; V.cy = drag.cy + dy / s;
        }
      }
      hover = [e.offsetX * dpr(), e.offsetY * dpr()];
      draw();
    });
    canvas.addEventListener("mouseleave", () => { hover = null; $("tooltip").hidden = true; draw(); });
    canvas.addEventListener("wheel", (e) => {
      e.preventDefault();
      const px = e.offsetX * dpr(), py = e.offsetY * dpr();
      const [wx, wy] = unproject(px, py);
      V.zoom = Math.max(1, Math.min(12, V.zoom * (e.deltaY < 0 ? 1.2 : 1 / 1.2)));
      const [nx, ny] = unproject(px, py);
      V.cx += wx - nx; V.cy += wy - ny;
      if (V.zoom === 1) { V.cx = mapSize / 2; V.cy = mapSize / 2; }
      draw();
    }, { passive: false });
    window.addEventListener("keydown", (e) => {
      if (e.target && e.target.tagName === "INPUT" && e.target.type !== "range" && e.target.type !== "radio") return;
      const second = Math.round(1 / stepSeconds);
      if (e.key === " ") { togglePlay(); e.preventDefault(); }
      else if (e.key === "ArrowRight") { seek(V.step + (e.shiftKey ? 10 : 1) * second); e.preventDefault(); }
      else if (e.key === "ArrowLeft") { seek(V.step - (e.shiftKey ? 10 : 1) * second); e.preventDefault(); }
      else if (e.key === "f" || e.key === "F") setFog({ none: "radiant", radiant: "dire", dire: "none" }[V.fog]);
      else if (e.key === "0") { V.zoom = 1; V.cx = V.cy = mapSize / 2; draw(); }
      else if (e.key === "Escape") select(-1);
    });
    window.addEventListener("resize", resize);
    if (window.ResizeObserver) new ResizeObserver(() => {
      const r = canvas.getBoundingClientRect(), dpr = window.devicePixelRatio || 1;
      if (Math.round(r.width * dpr) !== canvas.width || Math.round(r.height * dpr) !== canvas.height) resize();
    }).observe(canvas);
  }

  function togglePlay(on) {
    V.playing = on === undefined ? !V.playing : !!on;
    if (V.playing && V.step >= T - 1) seek(0);
    $("play").innerHTML = V.playing ? "&#10074;&#10074;" : "&#9654;";
    lastFrameTs = null;
    if (!V.playing && V.ready) draw();  // a paused frame shows timestep V.step exactly
  }

  function tick(ts) {
    if (V.playing) {
      if (lastFrameTs !== null) {
        playTime += ((ts - lastFrameTs) / 1000) * V.speed;
        const t = Math.min(T - 1, Math.floor(playTime / stepSeconds));
        V.step = t;
        draw();
        if (t !== lastPanelStep) panels();
        if (t >= T - 1) togglePlay(false);
      }
      lastFrameTs = ts;
    }
    requestAnimationFrame(tick);
  }

  // ------------------------------------------------------------------ the page's API (tests use it)
  V.seek = seek;
  V.setFog = setFog;
  V.select = select;
  V.play = () => togglePlay(true);
  V.pause = () => togglePlay(false);
  V.project = (x, y) => project(x, y).map((v) => Math.round(v * 1000) / 1000);
  V.units = (t) => {
    const [a, b] = stepRows(t === undefined ? V.step : t), out = [];
    for (let r = a; r < b; r++) {
      out.push({ unit: A.unit_unit[r], kind: A.unit_kind[r], team: A.unit_team[r], x: A.unit_x[r], y: A.unit_y[r],
        hp: A.unit_hp[r], vis: A.unit_vis[r], color: unitColor(r) });
    }
    return out;
  };
  V.pixel = (px, py) => Array.from(ctx.getImageData(Math.floor(px), Math.floor(py), 1, 1).data.slice(0, 3));
  V.colors = COLORS;
  window.viewer = V;
  load();
})();
