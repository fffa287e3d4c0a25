// The draft screen: renders the server's draft state and sends picks. The server keeps the state and checks
// every pick (fivestack/draft/server.py); this page only shows what it answers:
// the pick order 1-2-2-2-2-1 with whose turn it is, the hero cards, both teams' picks, and after each pick
// Radiant's predicted win probability (minimax value, lineup-so-far mean) and the search's answer time.
// When the search is due to pick, the page asks it (POST /api/step), after a short pause so each pick is seen.
"use strict";

const SEARCH_DELAY_MS = { person: 250, watch: 600 };
let state = null;
let busy = false;
let stepTimer = null;

const $ = (id) => document.getElementById(id);
const pct = (p) => (p === null || p === undefined) ? "" : (100 * p).toFixed(1) + "%";
const secs = (s) => s < 0.1 ? `${(1000 * s).toFixed(1)} ms` : `${s.toFixed(2)} s`;

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") node.className = v; else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c);
  return node;
}

function showError(message) {
  const box = $("error");
  box.textContent = message;
  box.hidden = !message;
}

async function call(method, path, body) {
  const options = { method, headers: {} };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(path, options);
  const answer = await response.json();
  if (answer.error) throw new Error(answer.error.message);
  return answer;
}

async function send(path, body) {
  if (busy) return;
  busy = true;
  render();
  try {
    state = await call("POST", path, body);
    showError("");
  } catch (e) {
    showError(e.message);
  } finally {
    busy = false;
    render();
    schedule();
  }
}

function schedule() {
  clearTimeout(stepTimer);
  if (state && state.next && state.next.by === "search") {
    const delay = state.human === null ? SEARCH_DELAY_MS.watch : SEARCH_DELAY_MS.person;
    stepTimer = setTimeout(() => send("/api/step", {}), delay);
  }
}

function renderOrder() {
  const order = $("order");
  order.replaceChildren();
  let k = 0;
  for (const size of state.groups) {
    const group = el("div", { class: "group" });
    for (let i = 0; i < size; i++, k++) {
      const side = state.order[k];
      const pick = state.picks[k];
      const slot = el("div", { class: `slot ${side}`, "data-slot": String(k + 1) },
        el("span", { class: "n" }, String(k + 1)), pick ? pick.name : side);
      if (state.next && state.next.number === k + 1) slot.classList.add("now");
      group.append(slot);
    }
    order.append(group);
  }
}

function renderTeam(list, side) {
  list.replaceChildren();
  for (const p of state.picks.filter((p) => p.side === side)) {
    const who = p.by === "search" ? `search, ${secs(p.seconds)}` : "you";
    list.append(el("li", { "data-hero": String(p.hero), "data-pick": String(p.number) },
      p.name, el("span", { class: "meta" }, `pick ${p.number} (${who}): ${pct(p.value)}`)));
  }
}

function renderPool() {
  const taken = new Map(state.picks.map((p) => [p.hero, p.side]));
  const mine = state.next && state.next.by === "person";
  const pool = $("pool");
  pool.replaceChildren();
  for (const hero of state.pool) {
    const card = el("button", { class: "card", type: "button", "data-hero": String(hero.id) },
      el("span", { class: "num" }, String(hero.id + 1)), el("span", { class: "name" }, hero.name),
      el("span", { class: "role" }, hero.role || ""));
    const side = taken.get(hero.id);
    if (side) {
      card.classList.add(side);
      card.append(el("span", { class: "taken" }, `picked by ${side}`));
    }
    if (!mine || busy) card.classList.add("waiting");
    card.addEventListener("click", () => send("/api/pick", { hero: hero.id }));
    pool.append(card);
  }
  $("pool-note").textContent = mine ? "click a hero to pick it" : "";
}

function renderLog() {
  const body = $("log").tBodies[0];
  body.replaceChildren();
  for (const p of state.picks) {
    const other = p.search_name === null ? "" : (p.search_hero === p.hero ? "the same" :
      `${p.search_name} (${pct(p.search_value)})`);
    body.append(el("tr", { "data-pick": String(p.number) },
      el("td", {}, String(p.number)), el("td", { class: p.side.toLowerCase() }, p.side), el("td", {}, p.name),
      el("td", {}, p.by === "search" ? "search" : "you"), el("td", { class: "value" }, pct(p.value)),
      el("td", { class: "mean" }, pct(p.lineup_mean)), el("td", {}, other),
      el("td", { class: "seconds" }, p.seconds === null ? "" : secs(p.seconds))));
  }
}

function render() {
  if (!state) return;
  $("title").textContent = `${state.table}: ${state.pool.length} heroes, scored by ${state.scorer}`;
  const last = state.picks[state.picks.length - 1];
  const value = last ? last.value : state.start_value;
  const mean = last ? last.lineup_mean : state.start_mean;
  $("value").textContent = pct(value);
  $("bar-fill").style.width = `${(100 * value).toFixed(1)}%`;
  $("value-note").textContent = (state.complete ? "the final lineup's value. " : "with best play by both sides " +
    "from here (minimax). ") + `Lineup so far, mean over its completions: ${pct(mean)}.`;
  let status;
  if (state.complete) status = `Draft complete: Radiant ${pct(state.final_value)}`;
  else if (state.next.by === "person") status = `Pick ${state.next.number} of 10: your pick (${state.next.side})`;
  else status = `Pick ${state.next.number} of 10: the search picks for ${state.next.side}…`;
  $("status").textContent = status;
  $("status").dataset.complete = String(state.complete);
  $("human").value = state.human === null ? "none" : state.human.toLowerCase();
  $("first").value = state.first.toLowerCase();
  renderOrder();
  renderTeam($("radiant-picks"), "Radiant");
  renderTeam($("dire-picks"), "Dire");
  renderPool();
  renderLog();
}

$("setup").addEventListener("submit", (event) => {
  event.preventDefault();
  clearTimeout(stepTimer);
  const settings = { human: $("human").value, first: $("first").value };
  const start = () => { clearTimeout(stepTimer); if (busy) setTimeout(start, 50); else send("/api/new", settings); };
  start();  // after the request in flight, if any (the search's pick of the draft being left)
});

call("GET", "/api/state").then((s) => { state = s; render(); schedule(); }, (e) => showError(e.message));
