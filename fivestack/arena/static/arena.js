// fivestack arena page: a person plays one hero of a live game that runs on the server (`fivestack arena`).
// The page only draws and sends commands: it says hello over the WebSocket /ws with the token the server wrote
// into <meta name="arena-token">, gets the "welcome" (the map, the heroes, the player's hero and abilities), then
// a "frame" per timestep (7.5 a second) holding only the units the player's team sees. Units glide between the
// last two frames. The map is drawn by map.js (window.FivestackMap), loaded first.
//
// Map of this file:
//   state and window.arena (the tests' API: connected, welcome, lastFrame, frames, errors, sendOrder,
//                           heroScreenPos, screenPosOf, plus ended, paused, follow, camera)
//   connection    connect, hello, messages (welcome, frame, error, paused/resumed, end, pong), reconnect, ping
//   frames        onFrame: interpolation anchors, buildings seen destroyed, the win-probability history
//   drawing       render (every animation frame): camera follow, map + units under the team's fog, enemy
//                 buildings not in sight as last-known outlines, order and click markers; the minimap
//   HUD           top bar, hero panel (bars, abilities, items, gold, buttons), win probability sparkline,
//                 toasts, pause overlay, end screen
//   input         mouse (right-click move/attack, A + click attack-move, left-click select, drag pan, wheel
//                 zoom), keys (the spec's "Keys on the page"), minimap clicks
"use strict";

(function () {
  const M = window.FivestackMap;
  const $ = (id) => document.getElementById(id);
  const canvas = $("map"), ctx = canvas.getContext("2d");
  const mini = $("minimap"), mctx = mini.getContext("2d");
  const token = (document.querySelector('meta[name="arena-token"]') || {}).content || "";
  const MAP_MAX = 16000;
  const HOVER_PX = 18;  // a unit counts as "under the cursor" this close (CSS pixels)

  const S = { connected: false, welcome: null, lastFrame: null, frames: 0, errors: [], ended: null, paused: false,
    follow: true, status: "connecting" };
  let ws = null, game = null, header = null, team = 0, hero = 0, stepMs = 2000 / 15, camera = null, bg = null;
  let prevFrame = null, lastArrival = 0, drawnPos = null, mouse = null, armed = null, selectedUnit = -1;
  let retries = 0, pingSent = 0, pingMs = null, pingTimer = null, fatal = null;
  const destroyed = new Set();  // enemy buildings the team saw fall (or found gone while looking at their spot)
  const winHistory = [];
  const markers = [];  // click feedback: {x, y, color, t}
  const dpr = () => window.devicePixelRatio || 1;
  const clamp = (v, lo, hi) => Math.max(lo, Math.min(hi, v));
  const fmtTime = (sec) => { sec = Math.max(0, Math.floor(sec)); return `${Math.floor(sec / 60)}:${String(sec % 60).padStart(2, "0")}`; };
  const pretty = (name) => String(name).replace(/_/g, " ");
  const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));

  // ------------------------------------------------------------------ connection
  function setStatus(status, text) {
    S.status = status;
    $("conn").className = status;
    $("conn-text").textContent = text;
  }

  function connect() {
    const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`;
    setStatus("connecting", retries ? `reconnecting (${retries})` : "connecting");
    ws = new WebSocket(url);
    ws.onopen = () => { retries = 0; send({ type: "hello", token }); };
    ws.onmessage = (e) => {
      let msg;
      try { msg = JSON.parse(e.data); } catch (err) { toast("bad_message", "the server sent something that is not JSON"); return; }
      onMessage(msg);
    };
    ws.onclose = (e) => {
      S.connected = false;
      clearInterval(pingTimer);
      if (S.ended) { setStatus("closed", "game over"); return; }
      if (fatal) { setStatus("closed", fatal); return; }
      retries += 1;
      if (retries > 40) { setStatus("closed", "disconnected: is `fivestack arena` still running?"); return; }
      setStatus("closed", `disconnected${e.code ? ` (${e.code})` : ""}, retrying`);
      setTimeout(connect, Math.min(3000, 500 * retries));
    };
  }

  function send(obj) {
    if (!ws || ws.readyState !== WebSocket.OPEN) return false;
    ws.send(JSON.stringify(obj));
    return true;
  }

  // an order for the player's hero: {order: NAME, ...fields} (the protocol's names)
  function sendOrder(obj) {
    if (S.ended) return false;
    return send(Object.assign({ type: "order", hero }, obj));
  }

  function onMessage(msg) {
    switch (msg.type) {
      case "welcome": onWelcome(msg); break;
      case "frame": onFrame(msg); break;
      case "error":
        S.errors.push(msg);
        if (msg.code === "bad_token" || msg.code === "busy") fatal = msg.code === "busy" ? "another page plays this game" : "wrong token: reload the page from the terminal's URL";
        toast(msg.code, msg.message);
        break;
      case "paused": setPaused(true); break;
      case "resumed": setPaused(false); break;
      case "end": onEnd(msg); break;
      case "pong": if (msg.id === pingSent) { pingMs = performance.now() - pingSent; showConnected(); } break;
      default: break;
    }
  }

  function showConnected() {
    setStatus("connected", pingMs === null ? "connected" : `connected · ${Math.max(1, Math.round(pingMs))} ms`);
  }

  function onWelcome(msg) {
    S.connected = true;
    S.welcome = msg;
    showConnected();
    clearInterval(pingTimer);
    pingTimer = setInterval(() => { pingSent = Math.floor(performance.now()); send({ type: "ping", id: pingSent }); }, 2000);
    if (game) return;  // a reconnect: the game is the same
    game = msg.game;
    header = game.header;
    team = game.player.team;
    hero = game.player.hero;
    stepMs = (game.step_seconds || 2 / 15) * 1000;
    bg = M.renderBackground(header, 3072);
    camera = new M.Camera(canvas, header.map.size, { minZoom: 1, maxZoom: 12, recenterAtMin: false });
    camera.zoom = 3.2;
    resize();
    const enemy = game.against === "trained" ? `the trained ${game.mode === "1v1" ? "hero" : "team"}` : game.against;
    const mates = game.mode === "5v5" ? ` · teammates: ${game.coop ? "trained policy (co-op)" : game.teammates || "scripted"}` : "";
    $("matchup").innerHTML = `${esc(game.mode)} · you: <b class="${M.TEAM_NAMES[team]}">${esc(game.player.name)}</b> (${M.TEAM_LABEL[team]}) vs ${esc(enemy)}${esc(mates)}`;
    $("hero-name").innerHTML = `<span class="${M.TEAM_NAMES[team]}">${esc(game.player.name)}</span>`;
    $("win-who").textContent = `(${M.TEAM_LABEL[team]})`;
    buildHud();
  }

  // ------------------------------------------------------------------ frames
  function onFrame(f) {
    if (!game) return;
    prevFrame = S.lastFrame;
    S.lastFrame = f;
    S.frames += 1;
    lastArrival = performance.now();
    if (typeof f.paused === "boolean") setPaused(f.paused);
    noteDestroyed(f);
    winHistory.push(f.win_prob === null || f.win_prob === undefined ? NaN : f.win_prob);
    if (winHistory.length > 4500) winHistory.splice(0, winHistory.length - 4500);
    updateHud(f);
  }

  const rowOfUnit = (units, u) => units.unit.indexOf(u);

  // an enemy building missing from the frame although an own unit's vision covers its spot has fallen
  function noteDestroyed(f) {
    const U = f.units, present = new Set(U.unit);
    for (const b of header.map.buildings) {
      if (present.has(b.unit) || destroyed.has(b.unit) || M.TEAM_NAMES.indexOf(b.team) === team) continue;
      for (let r = 0; r < U.unit.length; r++) {
        if (U.team[r] === team && Math.hypot(U.x[r] - b.x, U.y[r] - b.y) < U.vision[r] - 50) { destroyed.add(b.unit); break; }
      }
    }
  }

  function missingBuilding(b) {
    if (M.TEAM_NAMES.indexOf(b.team) === team || destroyed.has(b.unit)) return "ruin";
    return "outline";  // not in sight: where it stood when last known
  }

  // ------------------------------------------------------------------ drawing
  function resize() {
    canvas.width = Math.max(200, Math.round(window.innerWidth * dpr()));
    canvas.height = Math.max(200, Math.round(window.innerHeight * dpr()));
  }

  // progress (0..1) from the previous frame to the last; glide rows for map.js
  function interpolation(now) {
    const f = S.lastFrame;
    if (!prevFrame || prevFrame.step !== f.step - 1 || S.paused) return { p: 1, glide: null };
    const p = clamp((now - lastArrival) / stepMs, 0, 1);
    return { p, glide: { units: prevFrame.units, frac: 1 - p } };
  }

  function heroWorldPos(p) {
    const f = S.lastFrame;
    if (!f) return null;
    const r = rowOfUnit(f.units, hero);
    if (r < 0) return null;
    let x = f.units.x[r], y = f.units.y[r];
    const q = prevFrame && prevFrame.step === f.step - 1 ? rowOfUnit(prevFrame.units, hero) : -1;
    if (q >= 0 && p < 1) {
      const px = prevFrame.units.x[q], py = prevFrame.units.y[q];
      if (Math.abs(px - x) + Math.abs(py - y) <= 800) { x = px + (x - px) * p; y = py + (y - py) * p; }
    }
    return [x, y];
  }

  function render(now) {
    requestAnimationFrame(render);
    if (!camera) { drawWaiting(); return; }
    const f = S.lastFrame;
    if (canvas.width !== Math.round(window.innerWidth * dpr()) || canvas.height !== Math.round(window.innerHeight * dpr())) resize();
    const { p, glide } = f ? interpolation(now) : { p: 1, glide: null };
    const me = heroWorldPos(p);
    if (S.follow && me) camera.centerOn(me[0], me[1] - (70 * dpr()) / camera.scale());  // the hero a little above the HUD
    camera.keepInside(260 * dpr());
    M.drawBackground(ctx, camera, bg, f ? f.night : false);
    if (!f) { drawnPos = null; return; }
    drawnPos = M.drawUnits(ctx, camera, header, f.units, {
      fogTeam: team, glide, selected: hero, missingBuilding, underHeroes: drawOrders, runes: f.runes,
    });
    drawSelection();
    drawMarkers(now);
    drawMinimap(f);
  }

  function drawWaiting() {
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.fillStyle = "#0b0f13"; ctx.fillRect(0, 0, canvas.width, canvas.height);
  }

  // under the heroes: the player's standing order and attack target
  function drawOrders(g, pos, seen) {
    const f = S.lastFrame, mine = pos(hero);
    if (!mine) return;
    const order = f.me && f.me.order;
    if (order) {
      const [tx, ty] = camera.project(order.x, order.y);
      g.strokeStyle = order.order === "move" ? "rgba(120,255,160,0.55)" : "rgba(255,120,120,0.6)";
      g.lineWidth = 1.5; g.setLineDash([6, 5]);
      g.beginPath(); g.moveTo(mine[0], mine[1]); g.lineTo(tx, ty); g.stroke(); g.setLineDash([]);
      g.beginPath(); g.arc(tx, ty, 5, 0, Math.PI * 2); g.stroke();
    }
    const r = rowOfUnit(f.units, hero), target = r >= 0 ? f.units.target[r] : -1;
    if (target >= 0 && seen(target)) {
      const [tx, ty] = pos(target);
      g.strokeStyle = "rgba(255,90,90,0.85)"; g.lineWidth = 2;
      g.beginPath(); g.moveTo(mine[0], mine[1]); g.lineTo(tx, ty); g.stroke();
      g.beginPath(); g.arc(tx, ty, 10 * Math.sqrt(camera.zoom), 0, Math.PI * 2); g.stroke();
    }
  }

  function drawSelection() {
    if (selectedUnit < 0 || !drawnPos) return;
    const p = drawnPos(selectedUnit);
    if (!p) return;
    ctx.strokeStyle = "#ffd866"; ctx.lineWidth = 2;
    ctx.beginPath(); ctx.arc(p[0], p[1], 11 * Math.sqrt(camera.zoom), 0, Math.PI * 2); ctx.stroke();
  }

  function drawMarkers(now) {
    for (let i = markers.length - 1; i >= 0; i--) {
      const m = markers[i], age = (now - m.t) / 450;
      if (age >= 1) { markers.splice(i, 1); continue; }
      const [px, py] = camera.project(m.x, m.y);
      ctx.strokeStyle = m.color; ctx.globalAlpha = 1 - age; ctx.lineWidth = 2;
      ctx.beginPath(); ctx.arc(px, py, 4 + 14 * age, 0, Math.PI * 2); ctx.stroke();
      ctx.globalAlpha = 1;
    }
  }

  function drawMinimap(f) {
    const w = mini.width, k = w / header.map.size;
    const P = (x, y) => [x * k, (header.map.size - y) * k];
    mctx.drawImage(bg, 0, 0, w, w);
    mctx.fillStyle = "rgba(4,6,10,0.45)"; mctx.fillRect(0, 0, w, w);
    for (const b of header.map.buildings) {
      if (f.units.unit.indexOf(b.unit) >= 0 || destroyed.has(b.unit) || M.TEAM_NAMES.indexOf(b.team) === team) continue;
      const [x, y] = P(b.x, b.y);
      mctx.strokeStyle = M.rgb(M.unitColor(M.KIND[b.kind], M.TEAM_NAMES.indexOf(b.team)), 0.8);
      mctx.lineWidth = 1; mctx.strokeRect(x - 2.5, y - 2.5, 5, 5);
    }
    const U = f.units;
    for (let r = 0; r < U.unit.length; r++) {
      const [x, y] = P(U.x[r], U.y[r]), kind = U.kind[r];
      mctx.fillStyle = M.rgb(M.unitColor(kind, U.team[r]));
      const s = kind === M.KIND.hero ? 4 : M.isStructure(kind) ? 3 : 1.6;
      if (kind === M.KIND.hero) {
        mctx.beginPath(); mctx.arc(x, y, s, 0, Math.PI * 2); mctx.fill();
        if (U.unit[r] === hero) { mctx.strokeStyle = "#fff"; mctx.lineWidth = 1.5; mctx.stroke(); }
      } else mctx.fillRect(x - s, y - s, 2 * s, 2 * s);
    }
    const [x0, y0] = camera.unproject(0, 0), [x1, y1] = camera.unproject(canvas.width, canvas.height);
    const [a, b] = P(x0, y0), [c, d] = P(x1, y1);
    mctx.strokeStyle = "rgba(255,255,255,0.8)"; mctx.lineWidth = 1;
    mctx.strokeRect(a, b, c - a, d - b);
  }

  // ------------------------------------------------------------------ HUD
  const abilityButtons = [], itemButtons = [];

  function buildHud() {
    const box = $("abilities");
    box.innerHTML = "";
    game.abilities.forEach((a, k) => {
      const b = document.createElement("button");
      b.className = `slot ability${a.ultimate ? " ult" : ""}`;
      b.title = `${a.name} (${a.key}, ${a.target === "none" ? "no target" : `targets a ${a.target === "point" ? "point" : "unit"}`}): ${a.description || ""}`;
      b.innerHTML = `<kbd>${esc(a.key)}</kbd><span class="name">${esc(a.name)}</span><span class="pips"></span><span class="cost"></span><span class="cd" hidden></span>`;
      b.addEventListener("click", () => useSlot("ability", k, null));
      box.appendChild(b);
      abilityButtons.push(b);
    });
    const items = $("items");
    items.innerHTML = "";
    for (let k = 0; k < 6; k++) {
      const b = document.createElement("button");
      b.className = "slot item empty";
      b.innerHTML = `<span class="name"></span><kbd>${k + 1}</kbd><span class="cd" hidden></span>`;
      b.addEventListener("click", () => useSlot("item", k, null));
      items.appendChild(b);
      itemButtons.push(b);
    }
    for (const b of document.querySelectorAll("#hud button")) {  // buttons never take the focus: keys stay orders
      b.tabIndex = -1;
      b.addEventListener("mousedown", (e) => e.preventDefault());
    }
    $("btn-tp").addEventListener("click", townPortal);
    $("btn-glyph").addEventListener("click", () => sendOrder({ order: "glyph" }));
    $("btn-buyback").addEventListener("click", () => sendOrder({ order: "buyback" }));
  }

  function setCooldown(el, seconds) {
    const cd = el.querySelector(".cd");
    cd.hidden = !(seconds > 0);
    if (seconds > 0) cd.textContent = seconds >= 10 ? String(Math.ceil(seconds)) : seconds.toFixed(1);
  }

  function updateHud(f) {
    $("kills-radiant").textContent = f.kills[0];
    $("kills-dire").textContent = f.kills[1];
    $("clock").textContent = fmtTime(f.time);
    $("daynight").textContent = f.night ? "night" : "day";
    $("daynight").className = f.night ? "night" : "day";
    const me = f.me;
    if (!me) return;
    $("hero-level").textContent = me.level;
    $("hp-fill").style.width = `${(100 * clamp(me.hp / Math.max(1, me.hp_max), 0, 1)).toFixed(1)}%`;
    $("hp-text").textContent = `${Math.ceil(Math.max(0, me.hp))} / ${Math.round(me.hp_max)}`;
    $("mana-fill").style.width = `${(100 * clamp(me.mana / Math.max(1, me.mana_max), 0, 1)).toFixed(1)}%`;
    $("mana-text").textContent = `${Math.floor(me.mana)} / ${Math.round(me.mana_max)}`;
    $("gold").textContent = Math.floor(me.gold);
    $("dead").hidden = me.alive !== false;
    $("respawn").textContent = Math.ceil(me.respawn || 0);
    $("order-text").textContent = me.order ? (me.order.order === "move" ? "moving" : "attack-moving") : "";
    me.abilities.forEach((a, k) => {
      const b = abilityButtons[k];
      if (!b) return;
      b.classList.toggle("ready", !!a.ready);
      b.classList.toggle("unlearnt", a.level <= 0);
      b.classList.toggle("nomana", a.mana > me.mana);
      b.querySelector(".cost").textContent = a.level > 0 ? Math.round(a.mana) : "";
      const maxLevel = game.abilities[k].ultimate ? 3 : 4;
      b.querySelector(".pips").innerHTML = Array.from({ length: maxLevel }, (_, i) => `<i${i < a.level ? ' class="on"' : ""}></i>`).join("");
      setCooldown(b, a.cooldown);
    });
    me.items.forEach((it, k) => {
      const b = itemButtons[k];
      const info = it ? itemInfo(it.name) : null;
      b.className = `slot item${!it ? " empty" : info && !info.active ? " passive" : it.ready ? " ready" : ""}`;
      b.querySelector(".name").textContent = it ? pretty(it.name) : "";
      b.title = it ? `${pretty(it.name)}${info && info.active ? ` (${k + 1}, ${info.target === "none" ? "no target" : `targets a ${info.target}`})` : " (passive)"}` : "empty";
      setCooldown(b, it ? it.cooldown : 0);
    });
    $("btn-glyph").classList.toggle("off", !me.glyph_ready);
    $("btn-buyback").classList.toggle("off", !me.buyback_ready);
    $("btn-buyback").title = `buyback: respawn now for ${Math.round(me.buyback_cost)} gold (B)`;
    drawWin(f.win_prob);
  }

  const itemInfo = (name) => game.items.find((i) => i.name === name) || null;

  function drawWin(p) {
    const none = p === null || p === undefined;
    $("nopolicy").hidden = !none;
    $("spark").hidden = none;
    $("win-value").hidden = none;
    $("win-value").textContent = none ? "" : `${(p * 100).toFixed(1)}%`;
    $("win-value").className = none ? "muted" : p >= 0.5 ? M.TEAM_NAMES[team] : M.TEAM_NAMES[1 - team];
    if (none) return;
    const c = $("spark"), g = c.getContext("2d"), w = c.width, h = c.height;
    g.clearRect(0, 0, w, h);
    g.strokeStyle = "#2a3440"; g.setLineDash([3, 3]); g.beginPath(); g.moveTo(0, h / 2); g.lineTo(w, h / 2); g.stroke(); g.setLineDash([]);
    g.fillStyle = "#5d6874"; g.font = "9px sans-serif"; g.textBaseline = "middle"; g.fillText("50%", 2, h / 2 - 6);
    const n = winHistory.length, span = Math.max(n, 450);  // at least a minute of game time across
    const colour = team === 0 ? M.COLORS.radiantHero : M.COLORS.direHero;
    const points = [];
    for (let i = 0; i < n; i++) {
      const v = winHistory[i];
      if (!Number.isNaN(v)) points.push([(i / (span - 1)) * (w - 1), h - 3 - v * (h - 6)]);
    }
    if (points.length < 2) return;
    const fill = g.createLinearGradient(0, 0, 0, h);
    fill.addColorStop(0, M.rgb(colour, 0.35)); fill.addColorStop(1, M.rgb(colour, 0.02));
    g.beginPath(); g.moveTo(points[0][0], h);
    for (const [x, y] of points) g.lineTo(x, y);
    g.lineTo(points[points.length - 1][0], h); g.closePath(); g.fillStyle = fill; g.fill();
    g.beginPath();
    points.forEach(([x, y], i) => (i ? g.lineTo(x, y) : g.moveTo(x, y)));
    g.strokeStyle = M.rgb(colour); g.lineWidth = 1.6; g.stroke();
  }

  function toast(code, message, hint) {
    const box = $("toasts");
    const el = document.createElement("div");
    el.className = `toast${hint ? " hint" : ""}`;
    el.innerHTML = hint ? esc(message) : `<b>${esc(code)}</b>${esc(message)}`;
    box.appendChild(el);
    while (box.children.length > 4) box.removeChild(box.firstChild);
    setTimeout(() => el.classList.add("fade"), 3500);
    setTimeout(() => el.remove(), 4100);
  }

  function setPaused(on) {
    S.paused = !!on;
    $("pause").hidden = !S.paused || !!S.ended;
  }

  function onEnd(msg) {
    S.ended = msg;
    $("pause").hidden = true;
    const title = { win: "Victory", loss: "Defeat", draw: "Draw" }[msg.outcome] || "Game over";
    $("end-title").textContent = title;
    $("end-title").className = msg.outcome || "";
    const winner = msg.winner ? `${M.TEAM_LABEL[M.TEAM_NAMES.indexOf(msg.winner)]} won` : "no winner";
    $("end-reason").textContent = `${winner}${msg.reason ? ` · ${msg.reason}` : ""}`;
    const f = S.lastFrame;
    $("end-score").textContent = f ? `kills ${f.kills[0]} : ${f.kills[1]} after ${fmtTime(f.time)}` : "";
    if (msg.replay) {
      $("end-replay").hidden = false;
      $("end-path").textContent = msg.replay;
      $("end-command").textContent = `fivestack view ${msg.replay}`;
    }
    $("end").hidden = false;
    setStatus("closed", "game over");
  }

  // ------------------------------------------------------------------ input
  const canvasPx = (e) => [e.offsetX * dpr(), e.offsetY * dpr()];
  const worldAt = (px, py) => camera.unproject(px, py).map((v) => clamp(Math.round(v), 0, MAP_MAX));

  // the unit drawn under a canvas point: which(r) filters rows
  function unitUnder(px, py, which) {
    const f = S.lastFrame;
    if (!f || !camera) return -1;
    const r = M.nearestRow(camera, f.units, px, py, { fogTeam: team, maxPx: HOVER_PX * dpr(), skip: (row) => !which(f.units, row) });
    return r < 0 ? -1 : f.units.unit[r];
  }
  const enemyOf = (U, r) => U.team[r] !== team;
  const anyUnit = () => true;
  const otherUnit = (U, r) => U.unit[r] !== hero;

  function mark(x, y, color) { markers.push({ x, y, color, t: performance.now() }); }

  function rightClick(px, py) {
    const target = unitUnder(px, py, enemyOf);
    const f = S.lastFrame;
    if (target >= 0) {
      const r = rowOfUnit(f.units, target);
      mark(f.units.x[r], f.units.y[r], "#ff6060");
      sendOrder({ order: "attack", unit: target });
    } else {
      const [x, y] = worldAt(px, py);
      mark(x, y, "#7dffa8");
      sendOrder({ order: "move", x, y });
    }
  }

  // an ability (Q W E R) or item (1-6) at the cursor; at: canvas pixel or null (a button: arm, then click)
  function useSlot(kind, slot, at) {
    const f = S.lastFrame;
    if (!f || !game) return;
    let target, name, state;
    if (kind === "ability") {
      target = game.abilities[slot].target; name = game.abilities[slot].name; state = f.me.abilities[slot];
    } else {
      state = f.me.items[slot];
      if (!state) { toast("", `item slot ${slot + 1} is empty`, true); return; }
      const info = itemInfo(state.name);
      if (info && !info.active) { toast("", `${pretty(state.name)} has no active use`, true); return; }
      target = info ? info.target : "none"; name = pretty(state.name);
    }
    if (!state.ready) { toast("", `${name}: ${notReady(state, f.me)}`, true); return; }
    if (target === "none") { sendOrder({ order: kind, slot }); return; }
    if (!at) { arm({ kind, slot, name }); return; }
    const [x, y] = worldAt(...at);
    if (target === "point") { mark(x, y, "#ffd866"); sendOrder({ order: kind, slot, x, y }); return; }
    const unit = unitUnder(at[0], at[1], otherUnit);
    if (unit < 0) { toast("", `${name} needs a unit under the cursor`, true); return; }
    const fields = { order: kind, slot, unit };
    if (target === "unit_offset") Object.assign(fields, { x, y });
    sendOrder(fields);
  }

  function notReady(state, me) {
    if (me.alive === false) return "your hero is dead";
    if (state.level === 0) return "not learnt yet (it is learnt on a level-up)";
    if (state.cooldown > 0) return `on cooldown for ${state.cooldown.toFixed(1)} s`;
    if (state.mana > me.mana) return `needs ${Math.round(state.mana)} mana`;
    return "not possible now";
  }

  function arm(what) {
    armed = what;
    canvas.classList.toggle("attack", !!what);
    for (const b of [...abilityButtons, ...itemButtons]) b.classList.remove("armed");
    if (what && what.kind === "ability") abilityButtons[what.slot].classList.add("armed");
    if (what && what.kind === "item") itemButtons[what.slot].classList.add("armed");
    if (what) toast("", what.kind === "attack_move" ? "attack-move: left-click a point" : `${what.name}: left-click a target`, true);
  }

  function townPortal() {
    const f = S.lastFrame;
    if (!f) return;
    const U = f.units;
    const ancient = header.map.buildings.find((b) => b.kind === "ancient" && M.TEAM_NAMES.indexOf(b.team) === team);
    let best = -1, bestD = Infinity;
    for (let r = 0; r < U.unit.length; r++) {  // the own building nearest the own ancient (the fountain is no target)
      if (U.team[r] !== team || !M.isStructure(U.kind[r]) || U.kind[r] === M.KIND.fountain) continue;
      const d = ancient ? Math.hypot(U.x[r] - ancient.x, U.y[r] - ancient.y) : 0;
      if (d < bestD) { bestD = d; best = U.unit[r]; }
    }
    if (best < 0) { toast("", "no building of yours to teleport to", true); return; }
    sendOrder({ order: "town_portal", unit: best });
  }

  function leftClick(px, py) {
    if (armed) {
      const what = armed;
      arm(null);
      if (what.kind === "attack_move") {
        const [x, y] = worldAt(px, py);
        mark(x, y, "#ff6060");
        sendOrder({ order: "attack_move", x, y });
      } else useSlot(what.kind, what.slot, [px, py]);
      return;
    }
    selectedUnit = unitUnder(px, py, anyUnit);
    describeSelection();
  }

  function describeSelection() {
    const f = S.lastFrame, box = $("selection");
    const r = f && selectedUnit >= 0 ? rowOfUnit(f.units, selectedUnit) : -1;
    if (r < 0) { box.textContent = "left-click a unit to inspect it"; box.className = "muted"; return; }
    const U = f.units, u = U.unit[r], kind = U.kind[r];
    const name = u < 10 ? `${header.heroes[u].name} (level ${U.level[r]})` : `${M.KIND_LABEL[kind]} #${u}`;
    box.className = "";
    box.innerHTML = `<b class="${M.TEAM_NAMES[U.team[r]]}">${M.TEAM_LABEL[U.team[r]]}</b> ${esc(name)} · hp ${U.hp[r]} / ${U.hp_max[r]}`;
  }

  function bindInput() {
    let drag = null;
    canvas.addEventListener("contextmenu", (e) => e.preventDefault());
    canvas.addEventListener("mousedown", (e) => {
      canvas.focus();
      if (!camera) return;
      if (e.button === 2) { arm(null); rightClick(...canvasPx(e)); } else if (e.button === 0) {
        drag = { x: e.offsetX, y: e.offsetY, cx: camera.cx, cy: camera.cy, moved: false };
      }
    });
    window.addEventListener("mouseup", (e) => {
      if (drag && !drag.moved && e.button === 0 && e.target === canvas) leftClick(...canvasPx(e));
      drag = null;
    });
    canvas.addEventListener("mousemove", (e) => {
      mouse = canvasPx(e);
      if (drag && !armed) {
        const dx = e.offsetX - drag.x, dy = e.offsetY - drag.y;
        if (Math.abs(dx) + Math.abs(dy) > 4) { drag.moved = true; setFollow(false); }
        if (drag.moved) { const s = camera.scale() / dpr(); camera.centerOn(drag.cx - dx / s, drag.cy + dy / s); }
      }
    });
    canvas.addEventListener("mouseleave", () => { mouse = null; });
    canvas.addEventListener("wheel", (e) => {
      e.preventDefault();
      if (!camera) return;
      const factor = e.deltaY < 0 ? 1.2 : 1 / 1.2;
      if (S.follow) camera.zoom = clamp(camera.zoom * factor, camera.minZoom, camera.maxZoom);
      else camera.zoomAt(...canvasPx(e), factor);
    }, { passive: false });
    window.addEventListener("keydown", onKey);
    window.addEventListener("resize", resize);
    const miniWorld = (e) => {
      const k = header.map.size / mini.clientWidth;
      return [clamp(Math.round(e.offsetX * k), 0, MAP_MAX), clamp(Math.round(header.map.size - e.offsetY * k), 0, MAP_MAX)];
    };
    mini.addEventListener("contextmenu", (e) => e.preventDefault());
    mini.addEventListener("mousedown", (e) => {
      if (!camera) return;
      const [x, y] = miniWorld(e);
      if (e.button === 2) { mark(x, y, "#7dffa8"); sendOrder({ order: "move", x, y }); } else { setFollow(false); camera.centerOn(x, y); }
    });
    mini.addEventListener("mousemove", (e) => { if (e.buttons === 1 && camera) camera.centerOn(...miniWorld(e)); });
  }

  function setFollow(on) {
    S.follow = on;
    $("follow-state").textContent = on ? "on" : "off";
  }

  function onKey(e) {
    if (e.ctrlKey || e.metaKey || e.altKey || !game) return;
    const key = e.key.length === 1 ? e.key.toUpperCase() : e.key;
    if (e.repeat && key !== "ArrowLeft" && key !== "ArrowRight" && key !== "ArrowUp" && key !== "ArrowDown") return;
    const abilityKey = game.abilities.findIndex((a) => a.key === key);
    let handled = true;
    if (abilityKey >= 0) useSlot("ability", abilityKey, mouse);
    else if (key >= "1" && key <= "6") useSlot("item", Number(key) - 1, mouse);
    else if (key === "A") arm({ kind: "attack_move" });
    else if (key === "S") sendOrder({ order: "stop" });
    else if (key === "H") sendOrder({ order: "hold" });
    else if (key === "G") sendOrder({ order: "glyph" });
    else if (key === "B") sendOrder({ order: "buyback" });
    else if (key === "T") townPortal();
    else if (key === "P") { if (!S.ended) send({ type: S.paused ? "resume" : "pause" }); }
    else if (key === " ") setFollow(!S.follow);
    else if (key === "Escape") { arm(null); selectedUnit = -1; describeSelection(); }
    else if (key.startsWith("Arrow")) {
      setFollow(false);
      const step = 60 * dpr();
      camera.pan(key === "ArrowLeft" ? step : key === "ArrowRight" ? -step : 0, key === "ArrowUp" ? step : key === "ArrowDown" ? -step : 0);
    } else handled = false;
    if (handled) e.preventDefault();
  }

  // ------------------------------------------------------------------ the page's API (tests use it)
  // page (CSS) coordinates of a canvas pixel, of a world point, and of the player's hero as drawn
  function pageOf(px, py) {
    const rect = canvas.getBoundingClientRect();
    return [rect.left + px / dpr(), rect.top + py / dpr()];
  }
  S.sendOrder = sendOrder;
  S.send = send;
  S.screenPosOf = (x, y) => (camera ? pageOf(...camera.project(x, y)) : null);
  S.heroScreenPos = () => {
    const p = drawnPos && drawnPos(hero);
    if (p) return pageOf(...p);
    const w = heroWorldPos(1);
    return w ? S.screenPosOf(...w) : null;
  };
  Object.defineProperty(S, "camera", { get: () => camera });
  window.arena = S;
  bindInput();
  connect();
  requestAnimationFrame(render);
})();
