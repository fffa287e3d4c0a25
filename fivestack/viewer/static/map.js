// fivestack map drawing, shared by the replay viewer (viewer.js) and the arena page (arena.js).
// It defines window.FivestackMap and nothing else; it knows the replay format's header and unit columns, never
// where they come from (a replay's typed arrays, or a live frame's plain arrays).
//
// Map of this file:
//   constants        COLORS, KIND, KIND_LABEL, TEAM_NAMES, TEAM_LABEL, and rgb / hpColor / unitColor
//   renderBackground(header, size) -> canvas: the static map (bases, river, lanes, trees, camps, rune spots)
//   Camera           world <-> canvas pixels: project, unproject, zoomAt, pan, centerOn, keepInside, reset
//   drawBackground(ctx, camera, background, night): clears the canvas and draws the static map (tinted at night)
//   drawUnits(ctx, camera, header, units, options): one timestep's unit rows, with fog, ruins or last-known
//                    outlines of missing buildings, runes, structures, creeps, heroes with bars and labels,
//                    optionally gliding towards another set of rows
//   nearestRow(camera, units, px, py, options): the row drawn nearest a canvas point (for clicks and hovers)
//
// Units are columns {unit, kind, team, x, y, hp, hp_max, mana, target, level, vis, vision} (typed arrays or
// plain arrays; mana in thousandths of max mana), drawn for rows [start, end). World coordinates: the map is
// header.map.size across, y up, Radiant's base bottom-left.
"use strict";

(function () {
  const COLORS = {
    radiantHero: [61, 220, 132], direHero: [255, 82, 82],
    radiantCreep: [46, 160, 98], direCreep: [205, 60, 60],
    neutral: [214, 168, 74], bigNeutral: [176, 112, 255],
    radiantBuilding: [38, 140, 86], direBuilding: [170, 48, 48],
  };
  const KIND = { hero: 0, creep_melee: 1, creep_ranged: 2, creep_siege: 3, tower: 4, barracks: 5, ancient: 6,
    fountain: 7, neutral: 8, big_neutral: 9, courier: 10 };
  const KIND_LABEL = ["hero", "melee creep", "ranged creep", "siege creep", "tower", "barracks", "ancient",
    "fountain", "neutral creep", "big neutral", "courier"];
  const TEAM_NAMES = ["radiant", "dire", "neutral"];
  const TEAM_LABEL = ["Radiant", "Dire", "Neutral"];
  const RUNE_COLORS = { 1: "#ffd866" };  // bounty; every other rune is drawn light blue
  const TELEPORT = 800;  // a unit that moved further than this between two sets of rows jumps instead of gliding

  const rgb = (c, a) => (a === undefined ? `rgb(${c[0]},${c[1]},${c[2]})` : `rgba(${c[0]},${c[1]},${c[2]},${a})`);
  const hpColor = (frac) => (frac > 0.5 ? "#4fc66a" : frac > 0.25 ? "#e0c040" : "#e04a3a");
  const isStructure = (kind) => kind >= KIND.tower && kind <= KIND.fountain;

  function unitColor(kind, team) {
    if (team === 2) return kind === KIND.big_neutral ? COLORS.bigNeutral : COLORS.neutral;
    if (kind === KIND.hero || kind === KIND.courier) return team === 0 ? COLORS.radiantHero : COLORS.direHero;
    if (isStructure(kind)) return team === 0 ? COLORS.radiantBuilding : COLORS.direBuilding;
    return team === 0 ? COLORS.radiantCreep : COLORS.direCreep;
  }

  // ------------------------------------------------------------------ the static map
  function renderBackground(header, size) {
    const map = header.map, mapSize = map.size;
    const c = document.createElement("canvas");
    c.width = c.height = size;
    const g = c.getContext("2d");
    const k = size / mapSize;
    const P = (x, y) => [x * k, (mapSize - y) * k];
    g.fillStyle = "#26331f";
    g.fillRect(0, 0, size, size);
    for (const f of map.buildings.filter((b) => b.kind === "fountain")) {  // bases
      const [x, y] = P(f.x, f.y);
      const grad = g.createRadialGradient(x, y, 0, x, y, 4200 * k);
      const col = f.team === "radiant" ? COLORS.radiantHero : COLORS.direHero;
      grad.addColorStop(0, rgb(col, 0.22));
      grad.addColorStop(1, rgb(col, 0.0));
      g.fillStyle = grad;
      g.beginPath(); g.arc(x, y, 4200 * k, 0, Math.PI * 2); g.fill();
    }
    const hw = map.river.half_width;  // the river along x + y = size
    g.fillStyle = "#1f4866";
    g.beginPath();
    const r1 = P(0, mapSize - hw * Math.SQRT2), r2 = P(0, mapSize + hw * Math.SQRT2);
    const r3 = P(mapSize + hw * Math.SQRT2, 0), r4 = P(mapSize - hw * Math.SQRT2, 0);
    g.moveTo(...r1); g.lineTo(...r2); g.lineTo(...r3); g.lineTo(...r4); g.closePath(); g.fill();
    g.strokeStyle = "#6b5a40"; g.lineWidth = 420 * k; g.lineCap = "round"; g.lineJoin = "round";  // lanes
    for (const pts of Object.values(map.lanes)) {
      g.beginPath();
      pts.forEach(([x, y], i) => (i ? g.lineTo(...P(x, y)) : g.moveTo(...P(x, y))));
      g.stroke();
    }
    const grid = map.walk_grid, cs = grid.cell_size * k;  // trees and cliffs: the blocked walk cells
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
    g.strokeStyle = "rgba(214,168,74,0.55)"; g.lineWidth = 2;  // camps, the big neutral's pit, rune spots
    for (const [x, y] of map.camps) { g.beginPath(); g.arc(...P(x, y), 260 * k, 0, Math.PI * 2); g.stroke(); }
    g.strokeStyle = "rgba(176,112,255,0.7)";
    g.beginPath(); g.arc(...P(...map.big_neutral), 380 * k, 0, Math.PI * 2); g.stroke();
    g.strokeStyle = "rgba(255,216,102,0.6)";
    for (const [x, y] of map.rune_spots) {
      const [px, py] = P(x, y), r = 150 * k;
      g.beginPath(); g.moveTo(px, py - r); g.lineTo(px + r, py); g.lineTo(px, py + r); g.lineTo(px - r, py); g.closePath(); g.stroke();
    }
    return c;
  }

  // ------------------------------------------------------------------ the camera
  // zoom 1 shows the whole map in the canvas's shorter side; (cx, cy) is the world point at the canvas's centre.
  class Camera {
    constructor(canvas, mapSize, { minZoom = 1, maxZoom = 12, recenterAtMin = true } = {}) {
      Object.assign(this, { canvas, mapSize, minZoom, maxZoom, recenterAtMin });
      this.reset();
    }
    reset() { this.zoom = this.minZoom; this.cx = this.mapSize / 2; this.cy = this.mapSize / 2; }
    scale() { return (Math.min(this.canvas.width, this.canvas.height) / this.mapSize) * this.zoom; }
    project(x, y) {
      const s = this.scale();
      return [(x - this.cx) * s + this.canvas.width / 2, (this.cy - y) * s + this.canvas.height / 2];
    }
    unproject(px, py) {
      const s = this.scale();
      return [(px - this.canvas.width / 2) / s + this.cx, this.cy - (py - this.canvas.height / 2) / s];
    }
    centerOn(x, y) { this.cx = x; this.cy = y; }
    // move the centre so that the view strays at most marginPx canvas pixels off the map (an axis along which the
    // view is wider than that: centred)
    keepInside(marginPx = 0) {
      const s = this.scale(), m = marginPx / s, size = this.mapSize;
      const fit = (c, half) => (half - m > size / 2 ? size / 2 : Math.max(half - m, Math.min(size - half + m, c)));
      this.cx = fit(this.cx, this.canvas.width / 2 / s);
      this.cy = fit(this.cy, this.canvas.height / 2 / s);
    }
    pan(dxPx, dyPx) { const s = this.scale(); this.cx -= dxPx / s; this.cy += dyPx / s; }
    // zoom by `factor`, keeping the world point under canvas pixel (px, py) where it is
    zoomAt(px, py, factor) {
      const [wx, wy] = this.unproject(px, py);
      this.zoom = Math.max(this.minZoom, Math.min(this.maxZoom, this.zoom * factor));
      const [nx, ny] = this.unproject(px, py);
      this.cx += wx - nx; this.cy += wy - ny;
      if (this.recenterAtMin && this.zoom === this.minZoom) { this.cx = this.mapSize / 2; this.cy = this.mapSize / 2; }
    }
  }

  function drawBackground(ctx, camera, background, night) {
    const W = camera.canvas.width, H = camera.canvas.height, s = camera.scale(), size = camera.mapSize;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.fillStyle = "#0b0f13";
    ctx.fillRect(0, 0, W, H);
    const [ox, oy] = camera.project(0, size);
    ctx.imageSmoothingEnabled = true;
    ctx.drawImage(background, ox, oy, size * s, size * s);
    if (night) { ctx.fillStyle = "rgba(20,30,80,0.22)"; ctx.fillRect(ox, oy, size * s, size * s); }
  }

  // ------------------------------------------------------------------ one timestep's units
  function bar(ctx, x, y, w, frac, color) {
    ctx.fillStyle = "rgba(0,0,0,0.75)";
    ctx.fillRect(x - w / 2 - 1, y - 1, w + 2, 5);
    ctx.fillStyle = color;
    ctx.fillRect(x - w / 2, y, Math.max(0, Math.min(1, frac)) * w, 3);
  }

  // a structure's shape at (px, py): filled and outlined, or (fill null) only outlined
  function structureShape(ctx, kind, px, py, size, fill, stroke, lineWidth) {
    ctx.strokeStyle = stroke; ctx.lineWidth = lineWidth;
    if (fill) ctx.fillStyle = fill;
    ctx.beginPath();
    if (kind === KIND.ancient) {
      ctx.moveTo(px, py - size); ctx.lineTo(px + size, py); ctx.lineTo(px, py + size); ctx.lineTo(px - size, py); ctx.closePath();
    } else if (kind === KIND.fountain) {
      ctx.arc(px, py, size, 0, Math.PI * 2);
    } else if (kind === KIND.barracks) {
      ctx.rect(px - size * 1.4, py - size * 0.8, size * 2.8, size * 1.6);
    } else {
      ctx.rect(px - size, py - size, size * 2, size * 2);
    }
    if (fill) ctx.fill();
    ctx.stroke();
  }
  const structureSize = (kind, z) => (kind === KIND.ancient ? 11 : kind === KIND.fountain ? 8 : kind === KIND.tower ? 6.5 : 5) * z;

  let rowOf = new Int32Array(256), glideRow = new Int32Array(256), fogCanvas = null;
  function indexRows(table, units, start, end) {
    let top = 0;
    for (let r = start; r < end; r++) top = Math.max(top, units.unit[r]);
    if (top >= table.length) table = new Int32Array(Math.max(top + 1, table.length * 2));
    table.fill(-1);
    for (let r = start; r < end; r++) table[units.unit[r]] = r;
    return table;
  }

  function visibleTo(units, r, team) {
    if (team < 0 || units.team[r] === team) return true;
    if (isStructure(units.kind[r])) return true;  // structures are always known
    return (units.vis[r] & (1 << team)) !== 0;
  }

  // options: start, end (rows; default all); fogTeam (-1: no fog; 0/1: darken what that team cannot see and hide
  // the units it does not see); glide {units, start, end, frac}: draw each unit frac of the way towards its row
  // there; runes [spot 0, spot 1] (0 none, 1 bounty, other codes other runes); selected (a hero index, ringed);
  // missingBuilding(bld) -> "ruin" | "outline" | null for a header building with no row (default "ruin");
  // underHeroes(ctx, pos, seen): called before the heroes are drawn, with pos(unit) -> [px, py] or null (no row)
  // and seen(unit) -> whether the unit is drawn (has a row the fog team sees);
  // label(unit, level) -> a hero's label (default "NAME LEVEL").
  // Returns pos(unit) -> [px, py] or null: where each unit was drawn.
  function drawUnits(ctx, camera, header, units, options = {}) {
    const start = options.start || 0, end = options.end === undefined ? units.unit.length : options.end;
    const fogTeam = options.fogTeam === undefined ? -1 : options.fogTeam;
    const selected = options.selected === undefined ? -1 : options.selected;
    const W = camera.canvas.width, Hh = camera.canvas.height, s = camera.scale();
    const U = units, buildings = header.map.buildings;
    rowOf = indexRows(rowOf, U, start, end);
    const glide = options.glide && options.glide.frac > 0 ? options.glide : null;
    if (glide) glideRow = indexRows(glideRow, glide.units, glide.start || 0, glide.end === undefined ? glide.units.unit.length : glide.end);
    const at = (r) => {
      const n = glide && U.unit[r] < glideRow.length ? glideRow[U.unit[r]] : -1;
      const G = glide && glide.units;
      if (n < 0 || Math.abs(G.x[n] - U.x[r]) + Math.abs(G.y[n] - U.y[r]) > TELEPORT) return camera.project(U.x[r], U.y[r]);
      return camera.project(U.x[r] + (G.x[n] - U.x[r]) * glide.frac, U.y[r] + (G.y[n] - U.y[r]) * glide.frac);
    };
    const pos = (u) => (u >= 0 && u < rowOf.length && rowOf[u] >= 0 ? at(rowOf[u]) : null);
    if (fogTeam >= 0) {  // fog: darken what the team cannot see
      if (!fogCanvas) fogCanvas = document.createElement("canvas");
      if (fogCanvas.width !== W || fogCanvas.height !== Hh) { fogCanvas.width = W; fogCanvas.height = Hh; }
      const f = fogCanvas.getContext("2d");
      f.globalCompositeOperation = "source-over";
      f.clearRect(0, 0, W, Hh);
      f.fillStyle = "rgba(4,6,10,0.66)";
      f.fillRect(0, 0, W, Hh);
      f.globalCompositeOperation = "destination-out";
      f.fillStyle = "#000";
      for (let r = start; r < end; r++) {
        if (U.team[r] !== fogTeam) continue;
        const [px, py] = at(r);
        f.beginPath(); f.arc(px, py, U.vision[r] * s, 0, Math.PI * 2); f.fill();
      }
      ctx.drawImage(fogCanvas, 0, 0);
    }
    const z = Math.sqrt(camera.zoom);
    const missing = options.missingBuilding || (() => "ruin");
    for (const bld of buildings) {  // buildings without a row: ruins, or where they were last seen
      if (rowOf[bld.unit] >= 0) continue;
      const how = missing(bld);
      const [px, py] = camera.project(bld.x, bld.y);
      if (how === "ruin") {
        const r = Math.max(4, 110 * s);
        ctx.strokeStyle = "rgba(150,150,150,0.6)"; ctx.lineWidth = 2;
        ctx.beginPath(); ctx.moveTo(px - r, py - r); ctx.lineTo(px + r, py + r); ctx.moveTo(px + r, py - r); ctx.lineTo(px - r, py + r); ctx.stroke();
      } else if (how === "outline") {
        const kind = KIND[bld.kind], team = TEAM_NAMES.indexOf(bld.team);
        structureShape(ctx, kind, px, py, structureSize(kind, z), null, rgb(unitColor(kind, team), 0.75), 1.5);
      }
    }
    const runes = options.runes || [0, 0];
    for (let k = 0; k < 2; k++) {
      if (!runes[k]) continue;
      const [px, py] = camera.project(...header.map.rune_spots[k]);
      ctx.fillStyle = RUNE_COLORS[runes[k]] || "#7fd3ff";
      ctx.beginPath(); ctx.arc(px, py, Math.max(3.5, 90 * s), 0, Math.PI * 2); ctx.fill();
    }
    for (let r = start; r < end; r++) {  // structures
      const kind = U.kind[r];
      if (!isStructure(kind)) continue;
      const [px, py] = at(r);
      const size = structureSize(kind, z);
      structureShape(ctx, kind, px, py, size, rgb(unitColor(kind, U.team[r])), "#0a0d10", 1.5);
      if (kind === KIND.tower) {
        const tier = buildings.find((bb) => bb.unit === U.unit[r]);
        if (tier && tier.tier && size >= 6) {
          ctx.fillStyle = "#0a0d10"; ctx.font = `bold ${Math.round(size * 1.4)}px sans-serif`;
          ctx.textAlign = "center"; ctx.textBaseline = "middle";
          ctx.fillText(String(tier.tier), px, py + 0.5);
        }
      }
      if (kind !== KIND.fountain && U.hp[r] < U.hp_max[r]) {
        const frac = U.hp[r] / U.hp_max[r];
        bar(ctx, px, py + size + 3, size * 2.6, frac, hpColor(frac));
      }
    }
    for (let r = start; r < end; r++) {  // creeps, neutrals, couriers
      const kind = U.kind[r];
      if (kind === KIND.hero || isStructure(kind) || !visibleTo(U, r, fogTeam)) continue;
      const [px, py] = at(r);
      ctx.fillStyle = rgb(unitColor(kind, U.team[r]));
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
      if (camera.zoom >= 2.5 && U.hp[r] < U.hp_max[r]) {
        const frac = U.hp[r] / U.hp_max[r];
        bar(ctx, px, py - 5 * z - 4, 10 * z, frac, hpColor(frac));
      }
    }
    if (options.underHeroes) options.underHeroes(ctx, pos, (u) => pos(u) !== null && visibleTo(U, rowOf[u], fogTeam));
    const labels = [];  // heroes, then their labels on top
    for (let r = start; r < end && U.unit[r] < 10; r++) {
      if (U.kind[r] !== KIND.hero || !visibleTo(U, r, fogTeam)) continue;
      const h = U.unit[r];
      const [px, py] = at(r);
      const rad = 7.5 * z;
      ctx.fillStyle = rgb(unitColor(KIND.hero, U.team[r]));
      ctx.beginPath(); ctx.arc(px, py, rad, 0, Math.PI * 2); ctx.fill();
      ctx.strokeStyle = h === selected ? "#ffffff" : "#0a0d10";
      ctx.lineWidth = h === selected ? 3 : 2;
      ctx.beginPath(); ctx.arc(px, py, rad + (h === selected ? 2.5 : 1), 0, Math.PI * 2); ctx.stroke();
      labels.push([r, h, px, py, rad]);
    }
    ctx.textAlign = "center"; ctx.textBaseline = "bottom";
    ctx.font = "600 11px system-ui, sans-serif";
    const label = options.label || ((h, level) => `${h < header.heroes.length ? header.heroes[h].name : "?"} ${level}`);
    const placed = [];
    for (const [r, h, px, py, rad] of labels) {
      const frac = U.hp[r] / Math.max(1, U.hp_max[r]);
      bar(ctx, px, py - rad - 9, 26, frac, hpColor(frac));
      if (U.mana[r] > 0) bar(ctx, px, py - rad - 5, 26, U.mana[r] / 1000, "#4a90e2");
      const text = label(h, U.level[r]);
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
      ctx.fillStyle = U.team[r] === 0 ? "#c9f5dc" : "#ffd0d0";
      ctx.fillText(text, px, ty);
    }
    return pos;
  }

  // the row (of rows [start, end)) drawn nearest canvas pixel (px, py), within maxPx, or -1; options: start, end,
  // fogTeam (skip rows that team does not see), heroesOnly, maxPx (default 14), skip(r) -> true to pass a row by
  function nearestRow(camera, units, px, py, options = {}) {
    const start = options.start || 0, end = options.end === undefined ? units.unit.length : options.end;
    const fogTeam = options.fogTeam === undefined ? -1 : options.fogTeam, maxPx = options.maxPx || 14;
    let best = -1, bestD = maxPx * maxPx;
    for (let r = start; r < end; r++) {
      if (options.heroesOnly && units.kind[r] !== KIND.hero) continue;
      if (!visibleTo(units, r, fogTeam) || (options.skip && options.skip(r))) continue;
      const [x, y] = camera.project(units.x[r], units.y[r]);
      const d = (x - px) ** 2 + (y - py) ** 2;
      if (d < bestD) { bestD = d; best = r; }
    }
    return best;
  }

  window.FivestackMap = {
    COLORS, KIND, KIND_LABEL, TEAM_NAMES, TEAM_LABEL, rgb, hpColor, unitColor, isStructure, visibleTo,
    renderBackground, Camera, drawBackground, drawUnits, nearestRow,
  };
})();
