// fivestack replay viewer: the replay UI of `fivestack view` (loading, timeline, planning view, scoreboard, feed).
// The replay arrives as /replay/meta.json (header, summary, events, array layout) and /replay/data.bin (the
// arrays, viewed as typed arrays without parsing). The map itself is drawn by map.js (window.FivestackMap),
// loaded first. window.viewer is the page's small API (used by tests).
//
// Map of this file: loading (load, setup) · geometry (the camera, resize) · drawing one timestep (draw: the
// map.js calls plus the selected hero's target lines) · policy outputs and the planning view (win probability,
// hero value) · hero detail, scoreboard, event feed, timeline ticks · interaction (seek, fog, select, mouse,
// keys, playback) · window.viewer.
"use strict";

(function () {
  const M = window.FivestackMap;
  const { COLORS, KIND, KIND_LABEL, TEAM_NAMES, TEAM_LABEL, rgb } = M;
  const TARGETED = new Set(["attack", "ability_1", "ability_2", "ability_3", "ultimate", "item_1", "item_2", "item_3",
    "item_4", "item_5", "item_6", "town_portal"]);
  const $ = (id) => document.getElementById(id);
  const DTYPES = { int8: Int8Array, uint8: Uint8Array, int16: Int16Array, uint16: Uint16Array, int32: Int32Array,
    uint32: Uint32Array, float32: Float32Array };

  const V = { ready: false, error: null, step: 0, fog: "none", selected: -1, playing: false, speed: 4, timing: {} };
  let meta = null, A = null, U = null, H = null, T = 0, mapSize = 16000, stepSeconds = 2 / 15, camera = null;
  let bg = null, rowOf = new Int32Array(256).fill(-1);
  let winSeries = null, winImplied = [false, false], lastPanelStep = -1, playTime = 0, lastFrameTs = null, hover = null;
  const canvas = $("map"), ctx = canvas.getContext("2d", { willReadFrequently: true });
  for (const key of ["zoom", "cx", "cy"]) {  // the camera's state, readable as before on window.viewer
    Object.defineProperty(V, key, { enumerable: true, get: () => (camera ? camera[key] : key === "zoom" ? 1 : 8000) });
  }

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
    bg = M.renderBackground(H, 2048);
    camera = new M.Camera(canvas, mapSize);
    U = {};
    for (const field of H.unit_fields) U[field] = A[`unit_${field}`];
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
  const project = (x, y) => camera.project(x, y);

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

  // ------------------------------------------------------------------ drawing one timestep
  function stepRows(t) {
    return [A.step_start[t], A.step_start[t + 1]];
  }
  const fogTeamOf = () => (V.fog === "radiant" ? 0 : V.fog === "dire" ? 1 : -1);
  const unitColor = (r) => M.unitColor(A.unit_kind[r], A.unit_team[r]);

  function draw() {
    if (!V.ready && !A) return;
    const t = V.step;
    M.drawBackground(ctx, camera, bg, A.step_night[t]);
    const [a, b] = stepRows(t);
    rowOf.fill(-1);
    for (let r = a; r < b; r++) rowOf[A.unit_unit[r]] = r;
    // while playing, units glide between this timestep and the next; a paused frame is exactly timestep t
    const frac = V.playing && t + 1 < T ? Math.max(0, Math.min(1, playTime / stepSeconds - t)) : 0;
    const glide = frac > 0 ? { units: U, start: A.step_start[t + 1], end: A.step_start[t + 2], frac } : null;
    M.drawUnits(ctx, camera, H, U, {
      start: a, end: b, fogTeam: fogTeamOf(), glide, selected: V.selected,
      runes: [A.step_runes[2 * t], A.step_runes[2 * t + 1]], underHeroes: drawTargets,
    });
    if (hover) drawTooltip();
  }

  // the selected hero's targets (drawn under the heroes): what it attacks, and the policy's target
  function drawTargets(g, pos, seen) {
    if (V.selected < 0 || !seen(V.selected)) return;
    const z = Math.sqrt(camera.zoom);
    const r = rowOf[V.selected];
    const [hx, hy] = pos(V.selected);
    const target = A.unit_target[r];
    if (target >= 0 && pos(target)) {
      const [tx, ty] = pos(target);
      g.strokeStyle = "rgba(255,255,255,0.75)"; g.lineWidth = 1.5; g.setLineDash([5, 4]);
      g.beginPath(); g.moveTo(hx, hy); g.lineTo(tx, ty); g.stroke(); g.setLineDash([]);
    }
    const pol = policyOf(V.step, V.selected);
    if (pol && pol.target >= 0 && TARGETED.has(pol.primary) && pos(pol.target)) {
      const [tx, ty] = pos(pol.target);
      g.strokeStyle = "#ffd866"; g.lineWidth = 2;
      g.beginPath(); g.moveTo(hx, hy); g.lineTo(tx, ty); g.stroke();
      g.beginPath(); g.arc(tx, ty, 9 * z, 0, Math.PI * 2); g.stroke();
    }
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
    const [start, end] = stepRows(V.step);
    return M.nearestRow(camera, U, px, py, { start, end, fogTeam: fogTeamOf(), heroesOnly, maxPx });
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
    canvas.addEventListener("mousedown", (e) => { drag = { x: e.offsetX, y: e.offsetY, cx: camera.cx, cy: camera.cy, moved: false }; });
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
          const s = camera.scale() / dpr();
          camera.centerOn(drag.cx - dx / s, drag.cy + dy / s);
        }
      }
      hover = [e.offsetX * dpr(), e.offsetY * dpr()];
      draw();
    });
    canvas.addEventListener("mouseleave", () => { hover = null; $("tooltip").hidden = true; draw(); });
    canvas.addEventListener("wheel", (e) => {
      e.preventDefault();
      const px = e.offsetX * dpr(), py = e.offsetY * dpr();
      camera.zoomAt(px, py, e.deltaY < 0 ? 1.2 : 1 / 1.2);
      draw();
    }, { passive: false });
    window.addEventListener("keydown", (e) => {
      if (e.target && e.target.tagName === "INPUT" && e.target.type !== "range" && e.target.type !== "radio") return;
      const second = Math.round(1 / stepSeconds);
      if (e.key === " ") { togglePlay(); e.preventDefault(); }
      else if (e.key === "ArrowRight") { seek(V.step + (e.shiftKey ? 10 : 1) * second); e.preventDefault(); }
      else if (e.key === "ArrowLeft") { seek(V.step - (e.shiftKey ? 10 : 1) * second); e.preventDefault(); }
      else if (e.key === "f" || e.key === "F") setFog({ none: "radiant", radiant: "dire", dire: "none" }[V.fog]);
      else if (e.key === "0") { camera.reset(); draw(); }
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
