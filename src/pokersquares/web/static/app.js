// Poker Squares web page: Play (with advice and replay), Watch, Results.
// Plain JavaScript over the JSON API in pokersquares/web/app.py; no build step.
"use strict";

const SUITS = { C: "♣", D: "♦", H: "♥", S: "♠" };
const SUIT_NAMES = { C: "clubs", D: "diamonds", H: "hearts", S: "spades" };
const RANK_NAMES = { A: "ace", T: "10", J: "jack", Q: "queen", K: "king" };
const SIZE = 5;

// ---------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}
const $ = (id) => document.getElementById(id);
// Node.replaceChildren would show a null as the text "null".
const replaceChildren = (root, ...children) => root.replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// Statuses that say nothing about the request itself: no answer at all, too many requests,
// or a server (or a proxy before it) not ready for a moment.
const TRANSIENT = [0, 429, 502, 503, 504];
const PLACE_TRIES = 4;  // a card placed is asked for up to this many times
const fmt = (v, d = 1) => (v === null || v === undefined ? "" : Number(v).toFixed(d).replace(/\.0+$/, ""));
const signed = (v, d = 1) => `${v > 0 ? "+" : v < 0 ? "−" : ""}${fmt(Math.abs(v), d)}`;  // −0.28, +1.5
const seTitle = (se, d) => (se === null ? "one game: no standard error" : `± ${se.toFixed(d)} (standard error)`);
const duration = (s) => (s < 1 ? `${Math.round(s * 1000)} ms` : `${fmt(s, 2)} s`);

// Each tab is one client to the server, which bounds the work a client may ask for.
const CLIENT_ID = (() => {
  let id = sessionStorage.getItem("ps.client");
  if (!id) {
    id = Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => b.toString(16).padStart(2, "0")).join("");
    sessionStorage.setItem("ps.client", id);
  }
  return id;
})();

function hideToast() { $("toast").hidden = true; clearTimeout(toast.timer); }

// ``stay``: the message stays up until another replaces it.
function toast(message, stay = false) {
  const t = $("toast");
  t.textContent = message;
  t.hidden = false;
  clearTimeout(toast.timer);
  if (!stay) toast.timer = setTimeout(() => { t.hidden = true; }, 5000);
}

class ApiError extends Error {
  constructor(message, status) { super(message); this.status = status; }
}

// JSON bodies are built by hand where a seed may exceed JavaScript's exact integers:
// the seed's digits go into the JSON text as they were typed.
function jsonWithSeed(obj, seedText) {
  const text = JSON.stringify({ ...obj, seed: "__SEED__" });
  return text.replace('"__SEED__"', seedText === null || seedText === undefined ? "null" : seedText);
}

async function api(method, path, body, rawBody) {
  const init = { method, headers: { "X-Client": CLIENT_ID } };
  if (body !== undefined || rawBody !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = rawBody !== undefined ? rawBody : JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch (e) {  // no answer at all: the browser's own words ("Failed to fetch") say little
    throw new ApiError("cannot reach the server (is it running? is the network up?)", 0);
  }
  let data = null;
  try { data = await res.json(); } catch (e) { data = null; }
  if (!res.ok) throw new ApiError((data && data.detail) || `${res.status} ${res.statusText}`, res.status);
  return { status: res.status, data };
}

// A wait the page may give up: a new deal, another agent or the Cancel button.
class Wait {
  constructor() { this.cancelled = false; }
  cancel() { this.cancelled = true; }
}
class Cancelled extends Error {}

// An agent may first have to prepare for the point system (HTTP 202), or the server may
// be busy (HTTP 503, 429): ask again until it answers, telling onWait what the server says.
async function untilReady(request, onWait, wait = new Wait()) {
  for (let busy = 0; ; ) {
    if (wait.cancelled) throw new Cancelled();
    let r;
    try {
      r = await request();
    } catch (e) {
      if (wait.cancelled) throw new Cancelled();  // an answer to a request nobody waits for
      if ((e.status !== 503 && e.status !== 429) || ++busy > 30) throw e;
      if (wait.cancelled) throw new Cancelled();
      onWait({ busy: true, detail: e.message });
      await sleep(800);
      continue;
    }
    if (wait.cancelled) throw new Cancelled();
    if (r.status !== 202) return r.data;
    onWait(r.data);
    await sleep(500);
  }
}

function preparingText(p) {
  if (p.busy) return `${p.detail} (asking again)`;
  return `${p.detail}; waiting ${fmt(p.waited)} s so far…`;
}

function store(key, value) {
  try { localStorage.setItem(key, JSON.stringify(value)); } catch (e) { /* private mode */ }
}
function load(key, fallback = null) {
  try { const v = localStorage.getItem(key); return v === null ? fallback : JSON.parse(v); } catch (e) { return fallback; }
}

const SEED_MIN = -(2n ** 63n), SEED_MAX = 2n ** 63n - 1n;

function seedValue(kindSelect, input) {
  if (kindSelect.value !== "seed") return null;
  const text = input.value.trim();
  if (!/^[-+]?\d+$/.test(text)) throw new ApiError("the deal seed must be a whole number, like 42", 0);
  const seed = BigInt(text);
  if (seed < SEED_MIN || seed > SEED_MAX) {
    throw new ApiError(`the deal seed must be between ${SEED_MIN} and ${SEED_MAX} (a 64-bit integer, as in the contest)`, 0);
  }
  return seed.toString();
}

// ---------------------------------------------------------------------------------
// Cards and boards
// ---------------------------------------------------------------------------------
function cardLabel(name) {
  return `${RANK_NAMES[name[0]] || name[0]} of ${SUIT_NAMES[name[1]]}`;
}

// ``inCell``: the cell around it names the card, so the card itself is decoration.
function cardEl(name, inCell = false) {
  const rank = name[0], suit = name[1];
  const color = suit === "H" || suit === "D" ? "red" : "black";
  const rankText = rank === "T" ? "10" : rank;
  const attrs = inCell ? { "aria-hidden": "true" } : { role: "img", "aria-label": cardLabel(name) };
  return el("div", { class: `card ${color}`, "data-card": name, ...attrs },
    el("span", { class: "corner" }, el("span", { text: rankText }), el("span", { text: SUITS[suit] })),
    el("span", { class: "pip", text: SUITS[suit] }),
    el("span", { class: "corner bottom" }, el("span", { text: rankText }), el("span", { text: SUITS[suit] })));
}

// Heat map colours: a dark blue to bright gold scale over the values of one advice.
const HEAT_STOPS = [[38, 52, 110], [40, 120, 160], [70, 170, 130], [170, 205, 90], [255, 214, 90]];
function heatRgb(t) {
  const x = Math.max(0, Math.min(1, t)) * (HEAT_STOPS.length - 1);
  const i = Math.min(HEAT_STOPS.length - 2, Math.floor(x)), f = x - i;
  return HEAT_STOPS[i].map((a, k) => Math.round(a + (HEAT_STOPS[i + 1][k] - a) * f));
}
// WCAG relative luminance, and the value's ink on a heat colour: white where it reads
// at 4.5:1 or better, else the felt's dark green, else black (one of them always does).
function luminance(rgb) {
  const f = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
  return 0.2126 * f(rgb[0]) + 0.7152 * f(rgb[1]) + 0.0722 * f(rgb[2]);
}
const FELT_DARK_LUMINANCE = luminance([15, 63, 36]);
function heatInk(rgb) {
  const l = luminance(rgb);
  if (1.05 / (l + 0.05) >= 4.5) return "light";
  return (l + 0.05) / (FELT_DARK_LUMINANCE + 0.05) >= 4.5 ? "bright" : "bright ink-black";
}
const HEAT_GRADIENT = `linear-gradient(90deg, ${HEAT_STOPS.map((c) => `rgb(${c.join(",")})`).join(", ")})`;

class Board {
  // A 5x5 grid with each row's hand at its right, each column's below, and the total.
  // ARIA grid: five rows of cells (each ending with its row's hand) and a row of the
  // column hands; the rows take no box of their own (display: contents).
  constructor(root, { onCell = null, label = "the 5 by 5 grid" } = {}) {
    this.root = root;
    this.onCell = onCell;
    this.cells = [];
    this.rowLabels = [];
    this.colLabels = [];
    root.replaceChildren();
    root.setAttribute("role", "grid");
    root.setAttribute("aria-label", label);
    for (let r = 0; r < SIZE; r++) {
      const row = el("div", { class: "board-line", role: "row" });
      for (let c = 0; c < SIZE; c++) {
        const cell = el("div", { class: "cell", "data-cell": r * SIZE + c, role: "gridcell" });
        this.cells.push(cell);
        row.append(cell);
      }
      const label = el("div", { class: "hand-label row-hand", "data-line": `row-${r}`, role: "gridcell" });
      this.rowLabels.push(label);
      row.append(label);
      root.append(row);
    }
    const bottom = el("div", { class: "board-line", role: "row" });
    for (let c = 0; c < SIZE; c++) {
      const label = el("div", { class: "hand-label col-hand", "data-line": `col-${c}`, role: "gridcell" });
      this.colLabels.push(label);
      bottom.append(label);
    }
    this.total = el("div", { class: "total", "data-total": "", role: "gridcell" });
    bottom.append(this.total);
    root.append(bottom);
  }

  render(view, { heat = null, cursor = null, interactive = false, otherChoice = null } = {}) {
    // Keep the keyboard focus on the board when its cells are replaced.
    const hadFocus = this.root.contains(document.activeElement) && document.activeElement !== this.root;
    let lo = Infinity, hi = -Infinity;
    if (heat) for (const v of heat.values) if (v !== null) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
    view.cells.forEach((name, i) => {
      const old = this.cells[i];
      const r = Math.floor(i / SIZE), c = i % SIZE;
      const where = `row ${r + 1}, column ${c + 1}`;
      let cell;
      if (name) {
        cell = el("div", { class: "cell filled", "data-cell": i, role: "gridcell", "aria-label": `${where}: ${cardLabel(name)}` }, cardEl(name, true));
        if (view.last_cell === i) cell.classList.add("last");
        if (heat && heat.choice === i) cell.classList.add("choice");  // the move these estimates chose
      } else {
        cell = interactive
          ? el("button", { class: "cell", type: "button", "data-cell": i, role: "gridcell", tabindex: -1,
            "aria-label": `${where}, empty`, onclick: () => this.onCell && this.onCell(i) })
          : el("div", { class: "cell", "data-cell": i, role: "gridcell", "aria-label": `${where}, empty` });
        if (heat) {
          const v = heat.values[i];
          if (v !== null && v !== undefined) {
            const t = hi > lo ? (v - lo) / (hi - lo) : 1;
            cell.classList.add("heat");
            const rgb = heatRgb(t);
            cell.style.background = `rgb(${rgb.join(", ")})`;
            const ink = heatInk(rgb);
            if (ink !== "light") cell.classList.add(...ink.split(" "));
            cell.append(el("span", { class: "value", text: fmt(v), "aria-hidden": "true" }));
            cell.dataset.value = v;
            cell.setAttribute("aria-label", `${where}, empty, estimate ${fmt(v)}${heat.choice === i ? ", the agent's choice" : ""}`);
          }
          if (heat.choice === i) cell.classList.add("choice");
        }
        if (otherChoice === i) cell.classList.add("other-choice");
      }
      if (cursor === i) {
        cell.classList.add("cursor");
        if (cell.tagName === "BUTTON") cell.tabIndex = 0;
      }
      old.replaceWith(cell);
      this.cells[i] = cell;
    });
    // One tab stop on an interactive board: the cursor's cell (or the first empty one).
    if (interactive && !this.cells.some((c) => c.tabIndex === 0)) {
      const first = this.cells.find((c) => c.tagName === "BUTTON");
      if (first) first.tabIndex = 0;
    }
    view.lines.forEach((line, k) => {
      const label = k < SIZE ? this.rowLabels[k] : this.colLabels[k - SIZE];
      const what = `${k < SIZE ? "row" : "column"} ${(k % SIZE) + 1}`;
      label.className = `hand-label ${k < SIZE ? "row-hand" : "col-hand"}`;
      label.removeAttribute("title");
      if (line.cards === 0) {
        label.classList.add("empty");
        label.replaceChildren(el("span", { class: "hand", text: "—" }));
        label.setAttribute("aria-label", `${what}: empty`);
        return;
      }
      if (line.points !== 0) label.classList.add(line.points > 0 ? "made" : "negative");
      label.replaceChildren(el("span", { class: "hand" }, el("span", { class: "long", text: line.hand }), el("span", { class: "short", text: abbrev(line.hand) })),
        el("span", { class: "pts", text: line.points }));
      label.title = `${what}: ${line.hand}, ${line.points} points`;
      label.setAttribute("aria-label", label.title);
    });
    this.total.replaceChildren(el("span", { class: "label", text: "total" }), el("span", { class: "pts", text: view.score }));
    this.total.setAttribute("aria-label", `total ${view.score}`);
    if (hadFocus) (this.cells.find((c) => c.tabIndex === 0) || this.root).focus({ preventScroll: true });
    return this;
  }
}

function renderHandTable(root, view) {
  const rows = view.hand_table.slice().reverse().map((h) =>
    el("tr", { class: h.count > 0 ? "made" : "none", "data-hand": h.hand },
      el("td", {}, el("abbr", { class: "abbr", text: abbrev(h.hand), "aria-hidden": "true" }), ` ${h.hand}`), el("td", { text: h.points }),
      el("td", { class: "count", text: h.count ? `× ${h.count}` : "" }),
      el("td", { class: "total", text: h.count ? h.total : "" })));
  root.replaceChildren(
    el("p", { class: "system-name" }, view.system.name,
      view.system.spec && view.system.spec.toLowerCase() !== view.system.name.toLowerCase() ? ` (${view.system.spec})` : ""),
    el("table", { class: "hands" },
      el("thead", {}, el("tr", {}, el("th", { text: "Hand" }), el("th", { text: "Points" }), el("th", { text: "Made" }), el("th", { text: "Total" }))),
      el("tbody", {}, rows),
      el("tfoot", {}, el("tr", {}, el("td", { text: view.done ? "Final" : "So far" }), el("td"), el("td"), el("td", { class: "total", "data-score": view.score, text: view.score })))));
}

function renderNextCard(root, view, extra = "") {
  // Unchanged, it stays as it is: a cursor move or a hint re-renders the page.
  const key = `${view.id}|${view.turn}|${view.card}|${view.done}|${extra}`;
  if (root.dataset.shown === key) return;
  root.dataset.shown = key;
  replaceChildren(root,
    el("span", { class: "label", text: view.done ? "Done" : "Place" }),
    view.card ? cardEl(view.card) : el("div", { class: "card placeholder" }),
    el("span", { class: "turn", text: view.done ? "25 / 25" : `card ${view.turn + 1} / 25` }),
    extra ? el("span", { class: "turn", text: extra }) : null);
}

// What a screen reader is told when a game is dealt or a card placed (the page shows it
// in several places at once): the card and its cell, the two hands it joined, the total
// and the next card.
function playAnnouncement(before, view) {
  const next = view.done ? `Game over: final score ${view.score}.`
    : `Next: ${cardLabel(view.card)}, card ${view.turn + 1} of 25.`;
  if (!before || before.id !== view.id) {
    return `Deal: ${view.system.name}, seed ${view.seed_text}, ${view.turn} of 25 cards placed. ${next}`;
  }
  if (view.turn !== before.turn + 1 || view.last_cell === null || view.last_cell === undefined) return null;
  const i = view.last_cell, r = Math.floor(i / SIZE), c = i % SIZE;
  const line = (what, k) => `${what}: ${view.lines[k].hand}, ${view.lines[k].points} points`;
  return `${cardLabel(view.cells[i])} placed in row ${r + 1}, column ${c + 1}. ${line(`Row ${r + 1}`, r)}; ` +
    `${line(`column ${c + 1}`, SIZE + c)}; total ${view.score}. ${next}`;
}

function renderDealInfo(root, view, prefix = "") {
  root.replaceChildren(prefix, "Point system ", el("strong", { text: view.system.name }), " · deal seed ",
    el("strong", { "data-seed": view.seed_text, text: view.seed_text }));
}

// What an agent's numbers mean (one line from the server), e.g. "tiger's estimate of the final score ...".
function valuesNote(agent) {
  const a = ((window.appConfig || {}).agents || []).find((x) => x.name === agent);
  return a && a.values ? `${a.values[0].toUpperCase()}${a.values.slice(1)}.` : "";
}

function renderLegend(root, heat, agent, what = "") {
  if (!heat) { root.hidden = true; return; }
  const vals = heat.values.filter((v) => v !== null);
  root.hidden = false;
  if (!vals.length) {
    root.replaceChildren(el("span", {}, el("span", { class: "star", text: "★" }), ` ${agent}'s choice (this agent gives no per-cell estimates)`));
    return;
  }
  root.replaceChildren(el("span", { text: `${agent}'s values${what ? ` ${what}` : ""}` }), el("span", { text: fmt(Math.min(...vals)) }),
    el("span", { class: "bar", style: `background: ${HEAT_GRADIENT}` }), el("span", { text: fmt(Math.max(...vals)) }),
    el("span", {}, el("span", { class: "star", text: "★" }), " its choice"),
    el("span", { class: "values-note", "data-values-note": "", text: valuesNote(agent) }));
}

// ---------------------------------------------------------------------------------
// Point system picker
// ---------------------------------------------------------------------------------
const SYSTEM_KINDS = [
  ["american", "American"], ["british", "British"], ["ameritish", "Ameritish (seed)"],
  ["random", "Random (seed)"], ["hypercorner", "Hypercorner (seed)"], ["single", "Single hand"],
  ["single-random", "Single hand (seed)"], ["custom", "Custom (ten values)"],
];
const AMERICAN_POINTS = [0, 2, 5, 10, 15, 20, 25, 50, 75, 100];

class SystemPicker {
  constructor(root, hands, storageKey) {
    this.storageKey = storageKey;
    const saved = load(storageKey, {});
    this.kind = el("select", { "aria-label": "point system", "data-role": "kind" },
      SYSTEM_KINDS.map(([v, t]) => el("option", { value: v, text: t })));
    this.seed = el("input", { type: "text", inputmode: "numeric", placeholder: "seed", "aria-label": "point system seed", "data-role": "system-seed", value: saved.seed || "1" });
    this.hand = el("select", { "aria-label": "scoring hand", "data-role": "hand" },
      hands.map((h) => el("option", { value: h.replace(/ /g, "_"), text: h })));
    this.custom = hands.map((h, i) => el("input", { type: "number", min: -128, max: 127, step: 1, "aria-label": `${h} points`,
      "data-role": "custom", value: saved.custom ? saved.custom[i] : AMERICAN_POINTS[i] }));
    this.preview = el("div", { class: "preview" });
    this.seedRow = el("div", { class: "inline" }, this.seed);
    this.customBox = el("div", { class: "custom-points" }, hands.map((h, i) => el("label", {}, h, this.custom[i])));
    root.replaceChildren(el("div", { class: "field" }, el("label", { text: "Point system" }), this.kind, this.seedRow, this.hand), this.customBox, this.preview);
    this.seedRow.style.marginTop = this.hand.style.marginTop = "6px";
    this.kind.value = saved.kind || "american";
    if (saved.hand) this.hand.value = saved.hand;
    for (const x of [this.kind, this.seed, this.hand, ...this.custom]) x.addEventListener("input", () => this.changed());
    this.changed();
    // The first preview at once, not after the typing delay, and the page is ready only
    // when it is shown: it arrived after the page was, and pushed "Deal a new game" down
    // under the pointer of a quick first click (which then hit something else).
    clearTimeout(this.timer);
    this.ready = this.showPreview();
  }

  spec() {
    const k = this.kind.value, seed = this.seed.value.trim();
    if (k === "american" || k === "british") return k;
    if (k === "ameritish" || k === "random" || k === "hypercorner") return `${k}:${seed}`;
    if (k === "single") return `single:${this.hand.value}`;
    if (k === "single-random") return `single:random:${seed}`;
    return this.custom.map((x) => x.value.trim()).join(",");
  }

  changed() {
    const k = this.kind.value;
    this.seedRow.hidden = !["ameritish", "random", "hypercorner", "single-random"].includes(k);
    this.hand.hidden = k !== "single";
    this.customBox.hidden = k !== "custom";
    store(this.storageKey, { kind: k, seed: this.seed.value, hand: this.hand.value, custom: this.custom.map((x) => x.value) });
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.showPreview(), 150);
  }

  async showPreview() {
    const spec = this.spec();
    try {
      const { data } = await api("GET", `/api/systems?spec=${encodeURIComponent(spec)}`);
      if (spec !== this.spec()) return;
      this.preview.className = "preview";
      this.preview.replaceChildren(el("ul", { class: "points-chips", "aria-label": "points per hand" },
        data.table.map((h) => el("li", { title: h.hand }, el("abbr", { class: "abbr", text: abbrev(h.hand), "aria-hidden": "true" }),
          ` ${h.hand} `, el("strong", { text: h.points })))));
    } catch (e) {
      this.preview.className = "preview error";
      this.preview.textContent = e.message;
    }
  }
}

function abbrev(hand) {
  return { "high card": "HC", "one pair": "1P", "two pair": "2P", "three of a kind": "3K", straight: "St", flush: "Fl",
    "full house": "FH", "four of a kind": "4K", "straight flush": "SF", "royal flush": "RF" }[hand] || hand;
}

function fillAgents(select, agents, storageKey, preferred = "champion") {
  select.replaceChildren(...agents.map((a) => el("option", { value: a.name, title: a.description, text: a.name })));
  const saved = load(storageKey);
  const names = agents.map((a) => a.name);
  if (names.length) select.value = names.includes(saved) ? saved : names.includes(preferred) ? preferred : names[0];
  if (!select.dataset.bound) {
    select.dataset.bound = "true";
    select.addEventListener("change", () => store(storageKey, select.value));
  }
}

// On a first start the server imports (and compiles) its agents after it answers:
// say so, and fill the agent lists when they are there.
async function waitForAgents() {
  const notes = [$("play-hint-status"), $("watch-status")];
  for (const n of notes) n.textContent = "The agents are loading (a first start compiles them, up to a minute or two)…";
  for (;;) {
    await sleep(1000);
    let config;
    try { ({ data: config } = await api("GET", "/api/config")); } catch (e) { continue; }
    if (config.agents_loading) continue;
    window.appConfig = config;
    fillAgents($("play-agent"), config.agents.filter((a) => a.advises !== false), "ps.play.agent");
    fillAgents($("replay-agent"), config.agents, "ps.replay.agent");
    fillAgents($("review-agent"), config.agents.filter((a) => a.reviews), "ps.review.agent");
    fillAgents($("watch-agent"), config.agents, "ps.watch.agent");
    for (const n of notes) n.textContent = "";
    return;
  }
}

// A cell as the page names it: r1c1 is the top left.
function cellLabel(i) {
  return `r${Math.floor(i / SIZE) + 1}c${(i % SIZE) + 1}`;
}

// Points a reviewed move gave away: to a tenth, or a hundredth below a tenth (a move
// within 0.005 of the best agrees with the coach, and is not listed).
function lossText(x) {
  return x.toFixed(x < 0.1 ? 2 : 1);
}

// A button whose request is under way: marked busy rather than disabled, so that it
// keeps the keyboard focus (a disabled button loses it to the page).
function setBusy(button, busy) {
  button.setAttribute("aria-disabled", String(busy));
  button.classList.toggle("busy", busy);
}

function bindRange(input, output, storageKey, unit = " s") {
  const saved = load(storageKey);
  if (saved !== null) input.value = saved;
  const show = () => { output.textContent = `${input.value}${unit}`; store(storageKey, input.value); };
  input.addEventListener("input", show);
  show();
}

// ---------------------------------------------------------------------------------
// Play
// ---------------------------------------------------------------------------------
// The tab's game id lives in sessionStorage (a reload of this tab resumes it, other
// tabs keep their own games); the last game anywhere lives in localStorage, so that a
// new tab resumes it, and enough to rebuild it if the server has forgotten it.
const play = {
  game: null, hint: null, cursor: 12, busy: false, replay: null, replayStep: 25, hintAsked: null, review: null,

  init(config) {
    this.picker = new SystemPicker($("play-system"), config.hands, "ps.play.system");
    fillAgents($("play-agent"), config.agents.filter((a) => a.advises !== false), "ps.play.agent");
    fillAgents($("replay-agent"), config.agents, "ps.replay.agent");
    fillAgents($("review-agent"), config.agents.filter((a) => a.reviews), "ps.review.agent");
    bindRange($("play-think"), $("play-think-out"), "ps.play.think");
    $("play-think").max = config.limits.think_s;
    this.board = new Board($("play-board"), { onCell: (i) => this.place(i) });
    this.youBoard = new Board($("replay-you"), { label: "your game" });
    this.agentBoard = new Board($("replay-agent-board"), { label: "the agent's game" });
    this.reviewBoard = new Board($("review-board"), { label: "the grid before the move reviewed" });
    $("play-new").addEventListener("click", () => this.confirmNewGame());
    $("play-again").addEventListener("click", async () => {
      await this.newGame();
      this.keepFocus();
    });
    $("play-daily").addEventListener("click", () => this.startDaily());
    $("play-hint").addEventListener("click", () => this.askHint());
    $("play-hint-cancel").addEventListener("click", () => this.cancelHint(true));
    $("play-agent").addEventListener("change", () => { this.cancelHint(false); this.hint = null; this.render(); });
    $("replay-go").addEventListener("click", () => this.replayWith($("replay-agent").value));
    $("review-go").addEventListener("click", () => this.reviewWith($("review-agent").value));
    $("play-deal-kind").addEventListener("change", () => { $("play-seed").hidden = $("play-deal-kind").value !== "seed"; });
    $("play-seed").hidden = true;
    $("replay-step").addEventListener("input", () => this.showReplayStep(Number($("replay-step").value)));
    $("replay-first").addEventListener("click", () => this.showReplayStep(0));
    $("replay-prev").addEventListener("click", () => this.showReplayStep(this.replayStep - 1));
    $("replay-next").addEventListener("click", () => this.showReplayStep(this.replayStep + 1));
    $("replay-last").addEventListener("click", () => this.showReplayStep(25));
    return this.picker.ready.then(() => this.resume());
  },

  async resume() {
    const id = sessionStorage.getItem("ps.play.id") || (load("ps.play.last") || {}).id;
    if (id) {
      try {
        const { data } = await api("GET", `/api/games/${encodeURIComponent(id)}`);
        return this.setGame(data);
      } catch (e) {
        if (e.status !== 404) { toast(e.message); }
      }
    }
    // This tab's own game first: the last one anywhere may be another tab's.
    let last = null;
    try { last = JSON.parse(sessionStorage.getItem("ps.play.this")); } catch (e) { /* none */ }
    last = last || load("ps.play.last");
    if (last && last.system) {
      // The server forgot the game (restarted, or dropped it): rebuild it from its deal and moves.
      try {
        const { data } = await api("POST", "/api/games", undefined, jsonWithSeed({ system: last.system, moves: last.moves || [], name: playerName() }, last.seed));
        const daily = load("ps.daily.game");  // a daily deal rebuilt is the daily deal still
        if (daily && daily.id === last.id) store("ps.daily.game", { id: data.id, date: daily.date });
        return this.setGame(data);
      } catch (e) { /* start afresh below */ }
    }
    return this.newGame();
  },

  // A game in progress is not thrown away without asking.
  confirmNewGame() {
    const g = this.game;
    if (!g || g.done || g.turn === 0 || window.confirm("Abandon this game and deal a new one?")) return this.newGame();
    return Promise.resolve();
  },

  // The button or result that held the focus is gone: the keyboard's focus goes to the
  // new board, not the page.
  keepFocus() {
    const a = document.activeElement;
    if (!a || a === document.body || a.closest("[hidden]")) this.focusBoard();
  },

  // The daily deal: the same seed and point system for everyone today.
  async startDaily() {
    const g = this.game;
    if (g && !g.done && g.turn > 0 && !window.confirm("Abandon this game and play the daily deal?")) return;
    try {
      const { data } = await api("GET", "/api/daily");
      await this.newGame(data);
    } catch (e) { toast(e.message); }
  },

  async newGame(deal = null) {
    let seed;
    try { seed = deal ? String(deal.seed) : seedValue($("play-deal-kind"), $("play-seed")); } catch (e) { return toast(e.message); }
    const system = deal ? deal.system : this.picker.spec();
    const asked = this.dealt = (this.dealt || 0) + 1;  // the last deal asked for is the one shown
    try {
      const { data } = await api("POST", "/api/games", undefined, jsonWithSeed({ system, name: playerName() }, seed));
      if (asked !== this.dealt) return;
      this.replay = null;
      if (deal) store("ps.daily.game", { id: data.id, date: deal.date });  // another tab's daily deal stays its
      this.setGame(data);
    } catch (e) { toast(e.message); }
  },

  setGame(view) {
    if (!this.game || this.game.id !== view.id) {
      this.replay = null;
      this.cancelHint(false);
      $("replay-status").textContent = "";
      $("review-status").textContent = "";
      $("review-moves").replaceChildren();
      $("review-moves").hidden = true;
      $("review-move").hidden = true;
      this.review = null;
      this.hint = null;  // advice on another game's card (a new deal is at turn 0 too)
      this.unsaved = null;
    }
    const said = playAnnouncement(this.game, view);
    if (said) $("play-said").textContent = said;
    // A card placed while the advice on it was still coming: that advice is about a card
    // already played (the server would refuse it as about another turn), so it is dropped
    // and H asks about the new card.
    if (this.wait && this.game && this.game.id === view.id && this.game.turn !== view.turn) this.cancelHint(false);
    this.game = view;
    if (this.hint && this.hint.turn !== view.turn) this.hint = null;
    sessionStorage.setItem("ps.play.id", view.id);
    const daily = load("ps.daily.game");
    this.daily = daily && daily.id === view.id ? daily : null;
    const kept = { id: view.id, system: view.system.spec, seed: view.seed_text, moves: view.moves };
    store("ps.play.last", kept);
    sessionStorage.setItem("ps.play.this", JSON.stringify(kept));
    if (view.cells[this.cursor] !== null) this.cursor = this.firstEmpty(this.cursor);
    this.render();
    document.dispatchEvent(new CustomEvent("pokersquares:game", { detail: view }));  // optimum.js listens
  },

  firstEmpty(from = 0) {
    for (let k = 0; k < 25; k++) { const i = (from + k) % 25; if (this.game.cells[i] === null) return i; }
    return null;
  },

  async place(cell) {
    if (!this.game || this.busy === this.game.id || this.game.done || this.game.cells[cell] !== null) return;
    const id = this.game.id;
    this.busy = id;  // one card at a time in a game (a new game need not wait for the old one's answer)
    // Until the server answers, the cell clicked shows the card is on its way.
    const pending = this.board.cells[cell];
    pending.classList.add("pending");
    this.board.root.setAttribute("aria-busy", "true");
    const turn = this.game.turn;
    try {
      for (let tries = 1; ; tries++) {
        try {
          // The name as typed now: one typed after the deal is the one recorded with the game.
          // An empty name is sent too: cleared before the end, the game is recorded without one.
          const { data } = await api("POST", `/api/games/${id}/place`, { cell, turn, name: playerName() ?? "" });
          // A new game dealt meanwhile stays: the answer is about the game left behind.
          if (!this.game || this.game.id !== id) return;
          this.cursor = cell;
          hideToast();  // an earlier failure's message is stale now
          // The last card's answer says whether the game is in the result store yet.
          this.unsaved = data.recorded === false ? data.record_detail : null;
          this.setGame(data);
          return;
        } catch (e) {
          if (!this.game || this.game.id !== id) return;
          // No answer, or a server (or a proxy before it) busy for a moment: the same card
          // for the same turn is asked again, a few times. If an earlier try did land, the
          // server says the turn has passed (409): the game as the server holds it is shown.
          if (TRANSIENT.includes(e.status) && tries < PLACE_TRIES) {
            await sleep(300 * tries);
            if (!this.game || this.game.id !== id) return;
            continue;
          }
          if (e.status === 409 && tries > 1) { hideToast(); await this.resume(); return; }
          if (e.status === 404) {
            // The server forgot the game (it restarted): rebuilt from this tab's moves, the
            // card clicked is placed on it; only a game that could not be rebuilt is said.
            await this.resume();
            const g = this.game;
            if (g && g.id !== id && !g.done && g.turn === turn && g.cells[cell] === null) {
              this.busy = false;
              return this.place(cell);
            }
          }
          toast(e.message);
          if (e.status === 409 || e.status === 404) await this.resume();
          return;
        }
      }
    } finally {
      pending.classList.remove("pending");
      if (this.busy === id) {
        this.busy = false;
        this.board.root.removeAttribute("aria-busy");
      }
    }
  },

  // After a 404 about the game ``id``: the server forgot it (it restarted, or dropped it to
  // make room), and it is rebuilt from this tab's deal and moves; whether it was.
  async rebuilt(id) {
    if (!this.game || this.game.id !== id) return false;
    await this.resume();
    return !!this.game && this.game.id !== id;
  },

  // ``again``: asked once more on the game rebuilt after the server forgot it.
  async askHint(again = false) {
    if (!this.game || this.game.done || this.wait) return;
    const agent = $("play-agent").value, seconds = Number($("play-think").value), turn = this.game.turn, id = this.game.id;
    const system = this.game.system.spec;
    const status = $("play-hint-status"), wait = new Wait();
    this.wait = wait;
    this.waitFor = { agent, system };
    status.className = "note";
    status.textContent = `${agent} is thinking…`;
    setBusy($("play-hint"), true);
    $("play-hint-cancel").hidden = false;
    try {
      const data = await untilReady(() => api("POST", `/api/games/${id}/hint`, { agent, seconds, turn }),
        (p) => { status.textContent = preparingText(p); }, wait);
      if (!this.game || this.game.id !== id || this.game.turn !== turn) { status.textContent = ""; return; }
      this.hint = data;
      const r = Math.floor(data.choice / SIZE) + 1, c = (data.choice % SIZE) + 1;
      // With others waiting for the same agent, the server shares the seconds asked among them.
      const n = data.others_waiting, shared = n ? ` of the ${duration(data.asked)} asked: ${n} other request${n > 1 ? "s were" : " was"} waiting for ${agent}` : "";
      status.textContent = `${agent} would place ${cardLabel(this.game.card)} at row ${r}, column ${c} (${duration(data.seconds)}${shared}).`;
      this.render();
    } catch (e) {
      if (e instanceof Cancelled) return;
      // Not "start a new one": the game is rebuilt and the card's advice asked for again.
      if (e.status === 404 && !again && await this.rebuilt(id)) return await this.askHint(true);
      status.className = "note error";
      status.textContent = e.message;
      // Played on from another tab: the board shows the game as the server holds it.
      if (e.status === 409 && this.game && this.game.id === id) this.resume();
    } finally {
      if (this.wait === wait) {
        this.wait = null;
        setBusy($("play-hint"), false);
        $("play-hint-cancel").hidden = true;
      }
    }
  },

  // Stop waiting for advice; with ``tell``, the server drops the agent's preparation
  // if no one else waits for it, and the page says so.
  cancelHint(tell) {
    const wait = this.wait;
    $("play-hint-status").textContent = tell && wait ? "Cancelled." : "";
    $("play-hint-status").className = "note";
    if (!wait) return;
    wait.cancel();
    this.wait = null;
    setBusy($("play-hint"), false);
    $("play-hint-cancel").hidden = true;
    if (tell) api("POST", "/api/agents/cancel", this.waitFor).catch(() => {});
  },

  focusBoard() {
    const cell = $("play-board").querySelector("button.cell[tabindex='0']");
    if (cell) { cell.focus({ preventScroll: true }); this.showFocus(); }
  },

  // The cell the keyboard moved to, scrolled into view if it was not (at a large zoom or
  // on a phone, the lower rows can be below the window or under the Hint bar).
  showFocus() {
    const a = document.activeElement;
    if (a && $("play-board").contains(a)) a.scrollIntoView({ block: "nearest", inline: "nearest" });
  },

  render() {
    const g = this.game;
    if (!g) return;
    const boardHadFocus = $("play-board").contains(document.activeElement);
    this.board.render(g, { heat: this.hint, cursor: g.done ? null : this.cursor, interactive: !g.done });
    renderNextCard($("play-next"), g);
    renderDealInfo($("play-info"), g, this.daily ? `Daily deal ${this.daily.date} · ` : "");
    renderHandTable($("play-hands"), g);
    renderLegend($("play-legend"), this.hint, this.hint ? this.hint.agent : "");
    if (!this.hint && !this.wait && !$("play-hint-status").classList.contains("error")) $("play-hint-status").textContent = "";
    $("play-hint").disabled = g.done;
    const justOver = g.done && $("play-over").hidden;
    $("play-over").hidden = !g.done;
    document.body.toggleAttribute("data-game-over", g.done);  // a phone's Hint bar goes
    const motion = window.matchMedia("(prefers-reduced-motion: reduce)").matches ? "auto" : "smooth";
    if (justOver) requestAnimationFrame(() => $("play-over").scrollIntoView({ block: "nearest", behavior: motion }));
    // The last card placed from the board: the focus goes to the result (the board has no
    // empty cell left to hold it), whence Tab reaches Replay and Review.
    if (justOver && (boardHadFocus || document.activeElement === document.body)) $("play-over").focus({ preventScroll: true });
    $("daily-result").hidden = !(g.done && this.daily);
    if (justOver && this.daily) this.dailyResult(g);
    $("play-final").textContent = g.score;
    $("play-record").textContent = g.done && this.unsaved ? `Not saved yet: ${this.unsaved}; the server will try again.` : "";
    $("replay").hidden = !(g.done && this.replay);
    if (g.done && this.replay) this.showReplayStep(this.replayStep);
  },

  // Your best on today's deal (kept in this browser, per name: two students may share a
  // computer) and the agents' scores on it.
  async dailyResult(g) {
    const date = this.daily.date, bests = load("ps.daily.best", {}), key = JSON.stringify([date, playerName() ?? ""]);
    for (const old of Object.keys(bests)) if (!old.startsWith(`["${date}",`)) delete bests[old];  // other days'
    bests[key] = Math.max(bests[key] ?? -Infinity, g.score);
    store("ps.daily.best", bests);
    const root = $("daily-result"), scores = el("ul", { class: "daily-agents" });
    root.replaceChildren(el("p", {}, `Daily deal ${date}: you scored ${g.score}; your best today is `, el("strong", { "data-daily-best": "", text: bests[key] }), "."),
      el("p", { class: "note", text: "The agents on this deal:" }), scores);
    const names = (window.appConfig.agents || []).map((a) => a.name).filter((n) => ["greedy", "og", "gettysburg", "tiger", "champion"].includes(n));
    for (const agent of names) {
      const item = el("li", { "data-agent": agent, text: `${agent}: playing…` });
      scores.append(item);
      try {
        const r = await untilReady(() => api("POST", `/api/games/${g.id}/replay`, { agent }), (p) => { item.textContent = `${agent}: ${preparingText(p)}`; });
        item.textContent = `${agent}: ${r.agent_score}`;
      } catch (e) { item.textContent = `${agent}: ${e.message}`; }
      if (!this.game || this.game.id !== g.id) return;
    }
  },

  async replayWith(agent, again = false) {
    const id = this.game.id, status = $("replay-status");
    status.className = "note";
    status.textContent = `${agent} is playing this deal…`;
    if ($("replay-go").getAttribute("aria-disabled") === "true") return;
    setBusy($("replay-go"), true);
    try {
      this.replay = await untilReady(() => api("POST", `/api/games/${id}/replay`, { agent }), (p) => { status.textContent = preparingText(p); });
      const diff = this.replay.player_score - this.replay.agent_score;
      status.textContent = diff > 0 ? `You beat ${agent} by ${diff}.` : diff < 0 ? `${agent} scored ${-diff} more.` : `A tie with ${agent}.`;
      this.replayStep = 25;
      this.render();
    } catch (e) {
      if (e.status === 404 && !again && await this.rebuilt(id)) {  // the server forgot the game: rebuilt, asked again
        setBusy($("replay-go"), false);
        return await this.replayWith(agent, true);
      }
      status.className = "note error";
      status.textContent = e.message;
    } finally { setBusy($("replay-go"), false); }
  },

  // The coach's judgement of each of your moves: the costliest first.
  async reviewWith(agent, again = false) {
    const id = this.game.id, status = $("review-status"), list = $("review-moves");
    status.className = "note";
    status.textContent = `${agent} is reviewing your moves…`;
    if ($("review-go").getAttribute("aria-disabled") === "true") return;
    setBusy($("review-go"), true);
    try {
      const r = await untilReady(() => api("POST", `/api/games/${id}/review`, { agent }), (p) => { status.textContent = preparingText(p); });
      if (!this.game || this.game.id !== id) return;
      const costly = r.moves.filter((m) => !m.agrees).sort((a, b) => b.loss - a.loss || a.turn - b.turn);
      // The review judges by the agent's evaluation alone; its hints search further, so a
      // hint followed can still count here as a move given away: said, not hidden.
      status.textContent = `By its evaluation alone (no search, so its hints can differ), ${agent} would have played ${r.agreed} of your 25 cards where you did` +
        (costly.length ? `; by its estimates of the final score the others gave away ${r.loss.toFixed(1)} points. The costliest:` : ".");
      this.review = r;
      list.replaceChildren(...costly.slice(0, 5).map((m) => el("li", { "data-turn": m.turn },
        el("button", { type: "button", class: "link", title: "show this move",
          text: `card ${m.turn}, ${m.card_name}: you ${cellLabel(m.cell)}, ${agent} ${cellLabel(m.best)} (−${lossText(m.loss)}${m.exact ? ", exact" : ""})` }))));
      for (const button of list.querySelectorAll("button")) {
        button.addEventListener("click", () => this.showReviewedMove(Number(button.parentElement.dataset.turn)));
      }
      list.hidden = costly.length === 0;
      $("review-move").hidden = true;
    } catch (e) {
      if (e.status === 404 && !again && await this.rebuilt(id)) {  // the server forgot the game: rebuilt, asked again
        setBusy($("review-go"), false);
        return await this.reviewWith(agent, true);
      }
      status.className = "note error";
      status.textContent = e.message;
    } finally { setBusy($("review-go"), false); }
  },

  // A reviewed move: the grid before it, the coach's value of each empty cell, its
  // choice starred and the cell played dashed.
  showReviewedMove(turn) {
    const r = this.review, m = r && r.moves[turn - 1];
    if (!m) return;
    $("review-move").hidden = false;
    this.reviewBoard.render(r.steps[turn - 1], { heat: { values: m.values, choice: m.best }, otherChoice: m.cell });
    $("review-caption").textContent = `card ${turn}, ${cardLabel(m.card_name)}: you played ${cellLabel(m.cell)} (dashed), ` +
      (m.exact ? `best play is ${cellLabel(m.best)} (★), exactly ${lossText(m.loss)} points better`
        : `${r.agent}'s evaluation alone prefers ${cellLabel(m.best)} (★), by its estimate ${lossText(m.loss)} points better`);
    renderLegend($("review-legend"), { values: m.values, choice: m.best }, r.agent, m.exact ? "(exact expected final scores)" : "");
  },

  showReplayStep(step) {
    if (!this.replay) return;
    step = Math.max(0, Math.min(25, step));
    this.replayStep = step;
    const you = this.replay.player[step], them = this.replay.agent_steps[step];
    this.youBoard.render(you);
    this.agentBoard.render(them);
    $("replay-step").value = step;
    $("replay-you-score").textContent = you.score;
    $("replay-agent-name").textContent = this.replay.agent;
    $("replay-agent-score").textContent = them.score;
    $("replay-caption").textContent = step === 0 ? "before the first card"
      : `card ${step}: ${cardLabel(you.card)} — you ${cellLabel(you.last_cell)}, ${this.replay.agent} ${cellLabel(them.last_cell)}`;
  },

  onKey(e) {
    const g = this.game;
    if (!g) return false;
    const key = e.key;
    if (g.done && this.replay && (key === "ArrowLeft" || key === "ArrowRight")) {
      this.showReplayStep(this.replayStep + (key === "ArrowRight" ? 1 : -1));
      return true;
    }
    if (key === "n" || key === "N") {
      // A stray key press should not throw away a game in progress.
      this.confirmNewGame().then(() => this.keepFocus());
      return true;
    }
    if (g.done) return false;
    if (key === "h" || key === "H") { this.askHint(); return true; }
    const moves = { ArrowUp: -SIZE, ArrowDown: SIZE, ArrowLeft: -1, ArrowRight: 1 };
    if (key in moves) {
      let r = Math.floor(this.cursor / SIZE), c = this.cursor % SIZE;
      if (key === "ArrowUp") r = (r + 4) % 5; else if (key === "ArrowDown") r = (r + 1) % 5;
      else if (key === "ArrowLeft") c = (c + 4) % 5; else c = (c + 1) % 5;
      this.cursor = r * SIZE + c;
      this.render();
      // The arrows move the board's cursor wherever the focus was (a button, say): the
      // focus goes with it, so that Enter then places the card there.
      this.focusBoard();
      return true;
    }
    if (key === "Enter" || key === " ") { this.place(this.cursor).then(() => this.showFocus()); return true; }
    return false;
  },
};

// ---------------------------------------------------------------------------------
// Watch
// ---------------------------------------------------------------------------------
const watch = {
  game: null, running: false, wait: null, moving: null, current: null,

  init(config) {
    this.picker = new SystemPicker($("watch-system"), config.hands, "ps.watch.system");
    fillAgents($("watch-agent"), config.agents, "ps.watch.agent");
    bindRange($("watch-think"), $("watch-think-out"), "ps.watch.think");
    bindRange($("watch-speed"), $("watch-speed-out"), "ps.watch.speed");
    setPlayButton(false);
    $("watch-think").max = config.limits.think_s;
    this.board = new Board($("watch-board"), { label: "the agent's grid" });
    $("watch-new").addEventListener("click", () => this.newDeal());
    $("watch-play").addEventListener("click", () => (this.running ? this.pause() : this.run()));
    $("watch-step").addEventListener("click", () => this.step());
    $("watch-agent").addEventListener("change", () => this.stop());
    $("watch-deal-kind").addEventListener("change", () => { $("watch-seed").hidden = $("watch-deal-kind").value !== "seed"; });
    $("watch-seed").hidden = true;
    return this.picker.ready.then(() => this.resume());
  },

  async resume() {
    const id = sessionStorage.getItem("ps.watch.id");
    if (id) {
      try {
        const { data } = await api("GET", `/api/games/${encodeURIComponent(id)}`);
        this.setGame(data);
        return;
      } catch (e) { /* deal a new one */ }
    }
    await this.newDeal();
  },

  // A new deal or another agent: stop, and forget what the old one was waiting for.
  stop() {
    this.pause();
    if (this.wait) this.wait.cancel();
    this.wait = null;
    $("watch-status").textContent = "";
    $("watch-status").className = "note";
    if (this.game) this.setGame(this.game);
  },

  async newDeal() {
    this.stop();
    let seed;
    try { seed = seedValue($("watch-deal-kind"), $("watch-seed")); } catch (e) { return toast(e.message); }
    try {
      const { data } = await api("POST", "/api/games", undefined, jsonWithSeed({ system: this.picker.spec() }, seed));
      $("watch-log").replaceChildren();
      this.setGame(data);
    } catch (e) { toast(e.message); }
  },

  // ``heat``: the estimates of the move just made, shown until the next one.
  setGame(view, heat = null, agent = "") {
    this.game = view;
    sessionStorage.setItem("ps.watch.id", view.id);
    this.board.render(view, { heat });
    renderNextCard($("watch-next"), view);
    renderDealInfo($("watch-info"), view);
    renderHandTable($("watch-hands"), view);
    renderLegend($("watch-legend"), heat, agent, heat ? `for ${heat.card}` : "");
    $("watch-step").disabled = view.done;
    $("watch-play").disabled = view.done;
    if (view.done) {
      this.pause();
      $("watch-status").textContent = `${$("watch-agent").value} finished with ${view.score} points.`;
    }
  },

  // One move at a time: a move is under way while ``this.wait`` is set (a new deal or
  // another agent cancels it and clears it, so that the new deal need not wait).
  step() {
    if (this.wait || !this.game || this.game.done) return Promise.resolve(false);
    const wait = new Wait();
    this.wait = wait;
    this.moving = this.move(wait);
    return this.moving;
  },

  async move(wait) {
    const agent = $("watch-agent").value, seconds = Number($("watch-think").value);
    const before = this.game, status = $("watch-status");
    status.className = "note";
    status.textContent = `${agent} is thinking about ${cardLabel(before.card)}…`;
    try {
      const data = await untilReady(
        () => api("POST", `/api/games/${before.id}/agent-move`, { agent, seconds, turn: before.turn }),
        (p) => { status.textContent = preparingText(p); }, wait);
      // The placement, with the estimates that chose it left on the board until the next move.
      this.setGame(data.game, { values: data.values, choice: data.choice, card: before.card }, agent);
      if (!data.game.done) status.textContent = `${agent} placed ${cardLabel(before.card)} in row ${Math.floor(data.choice / SIZE) + 1}, column ${(data.choice % SIZE) + 1}.`;
      this.log(agent, before, data);
      return true;
    } catch (e) {
      if (e instanceof Cancelled) return false;
      status.className = "note error";
      status.textContent = e.message;
      this.pause();
      return false;
    } finally {
      if (this.wait === wait) this.wait = null;
    }
  },

  log(agent, before, data) {
    const i = data.choice, name = before.card;
    const est = data.values[i] === null ? "" : ` · estimate ${fmt(data.values[i])}`;
    const color = name[1] === "H" || name[1] === "D" ? "red" : "black";
    $("watch-log").prepend(el("li", {}, el("span", { class: `c ${color}`, text: `${name[0] === "T" ? "10" : name[0]}${SUITS[name[1]]}` }),
      ` → row ${Math.floor(i / SIZE) + 1}, column ${(i % SIZE) + 1}${est} · ${duration(data.seconds)} · total ${data.game.score}`));
  },

  // Each Play runs its own loop; Pause and Play pressed quickly end the old loop (it sees
  // it is no longer the current one) and let the move under way land before the next.
  async run() {
    if (!this.game || this.game.done) return;
    const run = {};
    this.current = run;
    this.running = true;
    setPlayButton(true);
    const mine = () => this.running && this.current === run;
    if (this.wait && this.moving) await this.moving;
    while (mine() && !this.game.done) {
      if (!(await this.step())) break;
      if (mine()) await sleep(Number($("watch-speed").value) * 1000);
    }
    if (this.current === run) this.pause();
  },

  pause() {
    this.running = false;
    setPlayButton(false);
  },
};

// Play and pause as drawn icons: the emoji glyphs show as empty boxes without an emoji font.
function setPlayButton(running) {
  const icon = running
    ? svgEl("svg", { class: "icon", viewBox: "0 0 10 10", "aria-hidden": "true" }, svgEl("rect", { x: 1, y: 1, width: 3, height: 8 }), svgEl("rect", { x: 6, y: 1, width: 3, height: 8 }))
    : svgEl("svg", { class: "icon", viewBox: "0 0 10 10", "aria-hidden": "true" }, svgEl("path", { d: "M2 1 L9 5 L2 9 Z" }));
  $("watch-play").replaceChildren(icon, running ? " Pause" : " Play");
}

// ---------------------------------------------------------------------------------
// Charts: plain SVG
// ---------------------------------------------------------------------------------
const SVG_NS = "http://www.w3.org/2000/svg";
const PALETTE = ["#f2c14e", "#6ec6ff", "#ff8a65", "#b39ddb", "#81c784", "#f48fb1", "#e0e0e0", "#4dd0e1", "#dce775", "#a1887f"];

function svgEl(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== null && v !== undefined) node.setAttribute(k, v);
  for (const c of children.flat()) if (c !== null && c !== undefined) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return node;
}

function niceTicks(lo, hi, count = 5) {
  if (hi <= lo) hi = lo + 1;
  const raw = (hi - lo) / count, mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) || raw;
  const ticks = [];
  for (let t = Math.ceil(lo / step) * step; t <= hi + 1e-9; t += step) ticks.push(Math.round(t * 1e6) / 1e6);
  return ticks;
}

function chart(width, height, title, label) {
  return svgEl("svg", { class: "chart", viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": label || title },
    title ? svgEl("text", { class: "title", x: 0, y: 13 }, title) : null);
}

// A histogram of scores with the mean marked.
function histogramChart(scores, title, color = PALETTE[0]) {
  const W = 560, H = 230, L = 44, R = 12, T = 26, B = 34;
  const svg = chart(W, H, title, `${title}: histogram of ${scores.length} scores`);
  if (!scores.length) return svg;
  const lo = Math.min(...scores), hi = Math.max(...scores);
  const bins = Math.max(1, Math.min(30, Math.ceil(Math.sqrt(scores.length)), hi - lo + 1));
  const width = Math.max(1, Math.ceil((hi - lo + 1) / bins));
  const counts = new Array(bins).fill(0);
  for (const s of scores) counts[Math.min(bins - 1, Math.floor((s - lo) / width))] += 1;
  const top = Math.max(...counts);
  const x = (v) => L + ((v - lo) / (bins * width)) * (W - L - R);
  const y = (c) => H - B - (c / top) * (H - T - B);
  for (const t of niceTicks(0, top, 4)) {
    svg.append(svgEl("line", { class: "grid", x1: L, x2: W - R, y1: y(t), y2: y(t) }),
      svgEl("text", { x: L - 6, y: y(t) + 4, "text-anchor": "end" }, t));
  }
  counts.forEach((c, i) => {
    if (!c) return;
    const x0 = x(lo + i * width), x1 = x(lo + (i + 1) * width);
    svg.append(svgEl("rect", { x: x0 + 1, y: y(c), width: Math.max(1, x1 - x0 - 2), height: y(0) - y(c), fill: color, rx: 2 },
      svgEl("title", {}, `${lo + i * width}${width > 1 ? `–${lo + (i + 1) * width - 1}` : ""}: ${c} games`)));
  });
  svg.append(svgEl("line", { class: "axis", x1: L, x2: W - R, y1: y(0), y2: y(0) }));
  for (const t of niceTicks(lo, hi + 1, 6)) {
    if (t < lo || t > lo + bins * width) continue;
    svg.append(svgEl("text", { x: x(t), y: H - B + 16, "text-anchor": "middle" }, t));
  }
  const mean = scores.reduce((a, b) => a + b, 0) / scores.length;
  svg.append(svgEl("line", { x1: x(mean + 0.5), x2: x(mean + 0.5), y1: T, y2: y(0), stroke: "#fff", "stroke-dasharray": "4 3", "stroke-width": 1.5 }),
    svgEl("text", { x: x(mean + 0.5) + 4, y: T + 10, fill: "#fff" }, `mean ${fmt(mean, 1)}`),
    svgEl("text", { x: (L + W - R) / 2, y: H - 4, "text-anchor": "middle" }, "score"));
  return svg;
}

// Normalised score per system, one bar per player in each system's group.
function groupedBarsChart(systems, players, value, title) {
  const W = Math.max(560, 70 + systems.length * (players.length * 14 + 18)), H = 250, L = 40, R = 10, T = 26, B = 62;
  const svg = chart(W, H, title);
  const y = (v) => H - B - v * (H - T - B);
  for (const t of [0, 0.25, 0.5, 0.75, 1]) {
    svg.append(svgEl("line", { class: "grid", x1: L, x2: W - R, y1: y(t), y2: y(t) }), svgEl("text", { x: L - 6, y: y(t) + 4, "text-anchor": "end" }, t));
  }
  const group = (W - L - R) / systems.length, bar = Math.min(16, (group - 10) / players.length);
  systems.forEach((s, i) => {
    const gx = L + i * group + (group - bar * players.length) / 2;
    players.forEach((p, j) => {
      const v = value(s, p);
      svg.append(svgEl("rect", { x: gx + j * bar, y: y(v), width: Math.max(1, bar - 2), height: Math.max(0.5, y(0) - y(v)), fill: PALETTE[j % PALETTE.length], rx: 1 },
        svgEl("title", {}, `${p} on ${s}: ${fmt(v, 3)}`)));
    });
    const lx = L + i * group + group / 2;
    svg.append(svgEl("text", { x: lx, y: H - B + 14, "text-anchor": "end", transform: `rotate(-35 ${lx} ${H - B + 14})` }, s.length > 16 ? `${s.slice(0, 15)}…` : s));
  });
  svg.append(svgEl("line", { class: "axis", x1: L, x2: W - R, y1: y(0), y2: y(0) }));
  return svg;
}

// The tournament score (sum of normalised scores) per player, ranked.
// With standard errors (the bootstrap over deals), each bar carries "score ± se".
function rankingChart(ranking, scores, maxScore, players, se = {}) {
  const W = 560, row = 26, L = 120, R = 100, T = 22;
  const H = T + ranking.length * row + 6;
  const svg = chart(W, H, "Tournament score (sum of normalised scores)");
  const x = (v) => L + (maxScore > 0 ? v / maxScore : 0) * (W - L - R);
  ranking.forEach((p, i) => {
    const yy = T + i * row;
    svg.append(svgEl("text", { x: L - 8, y: yy + 16, "text-anchor": "end" }, p.length > 16 ? `${p.slice(0, 15)}…` : p),
      svgEl("rect", { x: L, y: yy + 4, width: Math.max(1, x(scores[p]) - L), height: row - 8, rx: 3, fill: PALETTE[players.indexOf(p) % PALETTE.length] }),
      svgEl("text", { x: x(scores[p]) + 6, y: yy + 16 }, fmt(scores[p], 3) + (p in se ? ` ± ${fmt(se[p], 2)}` : "")));
  });
  return svg;
}

function quantile(sorted, q) {
  const pos = (sorted.length - 1) * q, i = Math.floor(pos), f = pos - i;
  return i + 1 < sorted.length ? sorted[i] + f * (sorted[i + 1] - sorted[i]) : sorted[i];
}

// Score distributions of the players on one system: box (quartiles), whiskers (min, max), mean dot.
function boxPlotChart(system, players, cellOf) {
  const W = 300, H = 200, L = 40, R = 8, T = 24, B = 40;
  const svg = chart(W, H, system, `score distributions on ${system}`);
  const all = players.flatMap((p) => cellOf(p).scores);
  if (!all.length) return svg;
  let lo = Math.min(...all), hi = Math.max(...all);
  if (hi === lo) { lo -= 1; hi += 1; }
  const y = (v) => H - B - ((v - lo) / (hi - lo)) * (H - T - B);
  for (const t of niceTicks(lo, hi, 4)) {
    if (t < lo || t > hi) continue;
    svg.append(svgEl("line", { class: "grid", x1: L, x2: W - R, y1: y(t), y2: y(t) }), svgEl("text", { x: L - 5, y: y(t) + 4, "text-anchor": "end" }, t));
  }
  const slot = (W - L - R) / players.length, bw = Math.min(30, slot * 0.55);
  players.forEach((p, j) => {
    const scores = cellOf(p).scores.slice().sort((a, b) => a - b);
    const cx = L + slot * (j + 0.5), color = PALETTE[j % PALETTE.length];
    svg.append(svgEl("text", { x: cx, y: H - B + 14, "text-anchor": "middle" }, p.length > 9 ? `${p.slice(0, 8)}…` : p));
    if (!scores.length) return;
    const [mn, q1, md, q3, mx] = [0, 0.25, 0.5, 0.75, 1].map((q) => quantile(scores, q));
    const mean = scores.reduce((a, b) => a + b, 0) / scores.length;
    svg.append(
      svgEl("line", { x1: cx, x2: cx, y1: y(mx), y2: y(mn), stroke: color, "stroke-width": 1.5 }),
      svgEl("rect", { x: cx - bw / 2, y: y(q3), width: bw, height: Math.max(1, y(q1) - y(q3)), fill: color, "fill-opacity": 0.35, stroke: color, "stroke-width": 1.5, rx: 2 },
        svgEl("title", {}, `${p}: mean ${fmt(mean, 2)}, median ${fmt(md, 1)}, quartiles ${fmt(q1, 1)}–${fmt(q3, 1)}, range ${mn}–${mx}, ${scores.length} games`)),
      svgEl("line", { x1: cx - bw / 2, x2: cx + bw / 2, y1: y(md), y2: y(md), stroke: color, "stroke-width": 2.5 }),
      svgEl("circle", { cx, cy: y(mean), r: 3.2, fill: "#fff" }));
  });
  svg.append(svgEl("line", { class: "axis", x1: L, x2: L, y1: T, y2: H - B }));
  return svg;
}

// A chart in a box that scrolls sideways on a phone: keyboard users can focus it to scroll.
const scrollable = (svg) => el("div", { class: "chart-scroll", tabindex: 0, role: "region", "aria-label": svg.getAttribute("aria-label") || "chart" }, svg);

// A date and time in the reader's own zone, from epoch seconds.
function dateText(epoch) {
  if (!epoch) return "";
  const d = new Date(epoch * 1000), pad = (n) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

// The name the person gave (kept in this browser), sent with each new game and recorded
// with it when it is finished: a class's students are told apart on the Results tab.
function playerName() {
  const name = $("play-name").value.trim();
  return name ? name : undefined;
}

function keepPlayerName() {
  const input = $("play-name");
  input.value = load("ps.name", "");
  input.addEventListener("change", () => store("ps.name", input.value.trim()));
}

// A run's player as listed: a person's games with the name they gave.
const shownPlayer = (r) => (r.player === "human" && r.player_name && r.player_name !== "human" ? `human (${r.player_name})` : r.player);

// A count with its thousands marked: Runs (20,000).
const count = (n) => Number(n).toLocaleString("en-US");
const plural = (n, word) => `${count(n)} ${word}${Number(n) === 1 ? "" : "s"}`;

// Games played in the browser (player "human") per point system, beside the agents' runs:
// the server sums up every one of them ({system_name, games, mean, best}), not only the
// runs of the page.
function humanSummary(humans, people = []) {
  // (On a class's server they are every student's: the table by name tells them apart.)
  if (!humans.length) return el("p", { class: "note", text: "Games you finish on the Play tab are recorded here as player human." });
  const th = (text, num = false) => el("th", { class: num ? "num" : null, scope: "col", text });
  const cells = (h) => [el("td", { text: h.system_name }), el("td", { class: "num", text: count(h.games) }),
    el("td", { class: "num", text: fmt(h.mean, 1) }), el("td", { class: "num", text: h.best })];
  return el("div", { "data-humans": "" }, el("h2", { text: "Games played in the browser" }),
    el("table", { class: "data" }, el("thead", {}, el("tr", {}, th("system"), th("games", true), th("mean", true), th("best", true))),
      el("tbody", {}, humans.map((h) => el("tr", {}, cells(h))))),
    people.length ? el("div", { class: "table-scroll", tabindex: 0, role: "region", "aria-label": "games by name", "data-people": "" },
      el("table", { class: "data" }, el("caption", { text: "By the name given" }),
        el("thead", {}, el("tr", {}, th("name"), th("system"), th("games", true), th("mean", true), th("best", true))),
        el("tbody", {}, people.map((h) => el("tr", {}, el("td", { text: h.name }), cells(h))))))
      : null);
}

function legend(players) {
  return el("div", { class: "legend" }, players.map((p, j) => el("span", {}, el("span", { class: "sw", style: `background:${PALETTE[j % PALETTE.length]}` }), p)));
}

// ---------------------------------------------------------------------------------
// Results
// ---------------------------------------------------------------------------------
// The server gives the runs a page at a time (the newest first; every game a person
// finishes is a run): "Show older runs" adds the next page to the table.
const results = {
  index: null, selected: null,

  init() { if (document.body.dataset.view === "results") this.show(); },

  async show() {
    const root = $("results-root");
    try {
      const { data } = await api("GET", "/api/results");
      this.index = data;
    } catch (e) {
      root.replaceChildren(el("div", { class: "panel" }, el("p", { class: "note error", text: e.message })));
      return;
    }
    if (!this.index.available) {
      root.replaceChildren(el("div", { class: "panel", "data-results": "empty" }, el("h2", { text: "Results" }), el("p", { class: "note", text: this.index.detail })));
      return;
    }
    this.list = el("div", { class: "panel results-list" });
    this.detail = el("div", { class: "panel results-detail", id: "results-detail" });
    root.replaceChildren(this.list, this.detail);
    this.renderList();
    const [, kind, id] = location.hash.split("/");
    const t = this.index.tournaments;
    if (kind === "tournament" || kind === "run") this.open(kind, Number(id));
    else if (t.length) this.open("tournament", t[t.length - 1].tournament_id);
    else if (this.index.runs.length) this.open("run", this.index.runs[this.index.runs.length - 1].run_id);  // the newest
    else this.detail.replaceChildren(el("p", { class: "note", text: "The store holds no runs yet." }));
  },

  opener(kind, id) {
    return el("button", { type: "button", class: "link", "aria-label": `open ${kind} ${id}`, onclick: (e) => { e.stopPropagation(); this.open(kind, id); } }, String(id));
  },

  // The rows of a page of runs (oldest first, as the server gives them), the newest on top.
  runRows(runs) {
    return runs.slice().reverse().map((r) => el("tr", { class: `pick${r.player === "human" ? " human" : ""}`, "data-run": r.run_id, onclick: () => this.open("run", r.run_id) },
      el("td", { class: "num" }, this.opener("run", r.run_id)), el("td", { text: shownPlayer(r) }), el("td", { text: r.system_name }),
      el("td", { class: "num", text: `${r.finished}/${r.games}` }), el("td", { class: "num", text: r.mean === null ? "–" : fmt(r.mean, 2) }),
      el("td", { class: "date", text: dateText(r.created) })));
  },

  renderList() {
    const { runs, runs_total, humans, people, tournaments, tournaments_total, path } = this.index;
    const th = (text, num = false) => el("th", { class: num ? "num" : null, scope: "col", text });
    const tRows = tournaments.slice().reverse().map((t) => el("tr", { class: "pick", "data-tournament": t.tournament_id, onclick: () => this.open("tournament", t.tournament_id) },
      el("td", { class: "num" }, this.opener("tournament", t.tournament_id)), el("td", { text: t.players.join(", ") }),
      el("td", { class: "num", text: t.system_names.length }), el("td", { class: "num", text: t.games }), el("td", { class: "date", text: dateText(t.created) })));
    this.runBody = el("tbody", {}, this.runRows(runs));
    this.olderButton = el("button", { type: "button", id: "results-older", onclick: () => this.showOlder() }, "Show older runs");
    this.runsShown = el("p", { class: "note", id: "results-runs-shown", role: "status" });
    this.runsHeading = el("h2", { id: "results-runs-heading" });
    replaceChildren(this.list,
      el("p", { class: "note", text: `Store: ${path}` }),
      el("p", {}, el("a", { class: "button-link", href: "/api/results/export.csv", download: "pokersquares-games.csv" }, "Export every game (CSV)")),
      humanSummary(humans, people || []),
      el("h2", { text: `Tournaments (${count(tournaments_total)})` }),
      tournaments.length ? el("div", { class: "table-scroll", tabindex: 0, role: "region", "aria-label": "tournaments" }, el("table", { class: "data" }, el("thead", {}, el("tr", {}, th("#", true), th("players"), th("systems", true), th("games", true), th("date"))), el("tbody", {}, tRows)))
        : el("p", { class: "note", text: "none yet (pokersquares tournament …)" }),
      tournaments.length < tournaments_total ? el("p", { class: "note", text: `the newest ${count(tournaments.length)} shown` }) : null,
      this.runsHeading,
      el("div", { class: "table-scroll", tabindex: 0, role: "region", "aria-label": "runs" }, el("table", { class: "data" }, el("thead", {}, el("tr", {}, th("#", true), th("player"), th("system"), th("games", true), th("mean", true), th("date"))), this.runBody)),
      this.runsShown, this.olderButton);
    this.nextBefore = this.index.next_before;
    this.showCount(runs_total);
  },

  // How many runs the store holds and the table shows; the button stays while older ones are left.
  showCount(total) {
    const shown = this.runBody.children.length;
    this.runsHeading.textContent = `Runs (${count(total)})`;
    this.runsShown.textContent = this.nextBefore === null ? "" : `the newest ${count(shown)} of ${count(total)} shown`;
    this.olderButton.hidden = this.nextBefore === null;
  },

  async showOlder() {
    const button = this.olderButton, body = this.runBody;
    if (button.getAttribute("aria-disabled") === "true") return;
    setBusy(button, true);
    try {
      const { data } = await api("GET", `/api/results?before=${this.nextBefore}`);
      if (body !== this.runBody) return;  // the list was shown afresh meanwhile
      const rows = this.runRows(data.runs);
      body.append(...rows);
      this.nextBefore = data.next_before;
      this.markSelected();
      this.showCount(data.runs_total);
      // The button goes with the last page: the keyboard's focus goes to the first run added.
      if (this.nextBefore === null && rows.length) rows[0].querySelector("button").focus();
    } catch (e) {
      if (body === this.runBody) this.runsShown.textContent = `older runs could not be loaded: ${e.message}`;
    } finally {
      setBusy(button, false);
    }
  },

  // The open run or tournament's row, where the table has it (an older run may not be on it yet).
  markSelected() {
    for (const tr of this.list.querySelectorAll("tr.selected")) tr.classList.remove("selected");
    const row = this.selected && this.list.querySelector(`tr[data-${this.selected.kind}="${this.selected.id}"]`);
    if (row) row.classList.add("selected");
  },

  async open(kind, id) {
    this.selected = { kind, id };
    this.markSelected();
    // Not if another tab was opened meanwhile: its address stays.
    if (document.body.dataset.view === "results") history.replaceState(null, "", `#results/${kind}/${id}`);
    this.detail.replaceChildren(el("p", { class: "note", text: "Loading…" }));
    const asked = this.opening = {};  // only the last one clicked is shown, whichever answers last
    try {
      const { data } = await api("GET", `/api/results/${kind === "run" ? "runs" : "tournaments"}/${id}`);
      if (asked !== this.opening) return;
      if (kind === "run") this.showRun(data); else this.showTournament(data);
    } catch (e) {
      if (asked !== this.opening) return;
      this.detail.replaceChildren(el("p", { class: "note error", text: e.message }));
    }
  },

  showRun(d) {
    const r = d.run, s = d.summary;
    const kv = (pairs) => el("dl", { class: "kv" }, pairs.flatMap(([k, v]) => [el("dt", { text: k }), el("dd", { text: v })]));
    const parts = [
      el("h2", { text: `Run ${r.run_id}: ${shownPlayer(r)} on ${r.system_name}` }),
      kv([["player", shownPlayer(r)], ["point system", `${r.system_name}: ${r.points.join(", ")}`], ["seeds", `${r.seed_text} … ${r.last_seed_text}`],
        ["games", `${r.finished} of ${r.games}`], ["mean", s.mean === null ? "–" : `${fmt(s.mean, 2)}${s.stderr === null ? " (one game: no standard error)" : ` ± ${fmt(s.stderr, 2)} (standard error)`}`],
        ["sd, min, max", s.mean === null ? "–" : `${s.stdev === null ? "–" : fmt(s.stdev, 2)}, ${s.min}, ${s.max}`],
        ["time", `${fmt(r.time_per_game, 2)} s per game allowed, ${s.seconds_per_game === null ? "–" : fmt(s.seconds_per_game, 3)} s used; ${fmt(r.prep_time, 1)} s preparation`],
        ["penalties", s.penalties], ["tournament", r.tournament_id === null ? "–" : r.tournament_id], ["recorded", dateText(r.created)]]),
      el("p", {}, el("a", { class: "button-link", href: `/api/results/export.csv?run=${r.run_id}`, download: `pokersquares-run-${r.run_id}.csv` }, "Export this run (CSV)")),
      scrollable(histogramChart(d.scores, `Scores of ${d.scores.length} games`)),
    ];
    const h = d.hands;
    if (h && h.games) {  // where the mean comes from: lines and points per game by hand type
      const th = (text) => el("th", { scope: "col", text });
      parts.push(el("h2", { text: `Hands made per game (${h.games} grids${h.left_out ? `; ${h.left_out} penalised games left out` : ""})` }),
        el("table", { class: "hands", id: "results-hands" },
          el("thead", {}, el("tr", {}, th("hand"), th("worth"), th("lines per game"), th("points per game"))),
          el("tbody", {}, h.hands.map((x) => el("tr", {},
            el("td", { text: x.hand }), el("td", { text: x.points }),
            el("td", { text: x.lines_per_game.toFixed(3), title: seTitle(x.lines_stderr, 3) }),
            el("td", { text: x.points_per_game.toFixed(2), title: seTitle(x.points_stderr, 2) })))),
          el("tfoot", {}, el("tr", {}, el("td", { text: "all ten lines" }), el("td"), el("td", { text: "10" }),
            el("td", { text: h.mean.toFixed(2) })))));
    }
    if (d.best) {
      const board = el("div", { class: "board compact", id: "results-best" });
      new Board(board, { label: "the best game" }).render({ ...d.best, last_cell: null });
      parts.push(el("h2", { text: `Best game: ${d.best.score} (game ${d.best.game_index}, seed ${d.best.seed_text})` }), board);
    }
    if (r.tournament_id !== null) parts.push(el("p", {}, el("button", { type: "button", onclick: () => this.open("tournament", r.tournament_id) }, `Open tournament ${r.tournament_id}`)));
    this.detail.replaceChildren(...parts);
  },

  showTournament(t) {
    const { players, systems, ranking } = t;
    const best = {};
    for (const s of systems) best[s] = Math.max(...players.map((p) => t.normalized[s][p]));
    const head = el("tr", {}, el("th", { class: "num", text: "rank" }), el("th", { text: "player" }),
      systems.map((s) => el("th", { class: "num", title: `${s}: ${t.system_points[s].join(", ")}`, text: s })), el("th", { class: "num", text: "total" }));
    // Level sums share a rank (1, 2, 2, 4), as the command line's standings give them: ranked
    // by the order the players were listed in, the one listed last was told it had lost.
    let rank = 0;
    const ranks = ranking.map((p, i) => (rank = i === 0 || t.scores[p] !== t.scores[ranking[i - 1]] ? i + 1 : rank));
    const penalised = (s, p) => (t.penalties && t.penalties[s] && t.penalties[s][p]) || 0;
    const rows = ranking.map((p, i) => el("tr", { "data-player": p },
      el("td", { class: "num", text: ranks[i] }), el("td", {}, el("span", { class: "sw", style: `display:inline-block;width:9px;height:9px;border-radius:2px;margin-right:5px;background:${PALETTE[players.indexOf(p) % PALETTE.length]}` }), p),
      systems.map((s) => {
        const c = t.cells[s][p];
        const behind = t.behind_first && t.behind_first[s];
        const gap = !behind || behind.first === null ? "" : behind.first === p ? "; first on this system"
          : `; ${fmt(behind.players[p].diff, 2)} ± ${fmt(behind.players[p].se, 2)} against ${behind.first}, paired game by game`;
        // The gap to the first, on the page (a tooltip is out of reach on a phone or to a screen reader).
        const mine = behind && behind.first !== null && behind.first !== p ? behind.players[p] : null;
        const gapLine = !behind || behind.first === null || c.mean === null ? null
          : behind.first === p ? el("small", { class: "gap first", text: "first" })
          : el("small", { class: `gap${mine.close ? "" : " far"}`, text: `${signed(mine.diff, 2)} ± ${fmt(mine.se, 2)}${mine.close ? "" : " ✗"}` });
        return el("td", { class: `num${t.normalized[s][p] === best[s] ? " best" : ""}`, title: c.mean === null ? "no games" : `mean ${fmt(c.mean, 2)}${c.stderr === null || c.stderr === undefined ? "" : ` ± ${fmt(c.stderr, 2)}`} over ${c.games} games (run ${c.run_id})${gap}` },
          fmt(t.normalized[s][p], 3), el("br"), el("small", { class: "note", text: c.mean === null ? "–" : `μ ${fmt(c.mean, 1)}` }),
          gapLine ? [el("br"), gapLine] : null,
          // On the page, not in the tooltip alone: a phone or a screen reader never sees a title.
          penalised(s, p) ? [el("br"), el("small", { class: "penalised", text: plural(penalised(s, p), "penalised game") })] : null);
      }),
      el("td", { class: "num best", text: fmt(t.scores[p], 3) })));
    const maxScore = Math.max(...Object.values(t.scores), 0);
    replaceChildren(this.detail,
      el("h2", { text: `Tournament ${t.tournament_id}${t.complete ? "" : " (incomplete)"}` }),
      el("p", { class: "note", text: `${players.length} players × ${systems.length} point systems × ${t.games} games, seeds from ${t.seed_text}. Per system each total is normalised to (total − min) / (max − min); a player's tournament score is the sum. Below each mean: the player's mean minus the first's on that system, paired game by game, ± its standard error; ✗ where it is behind by more than one standard error.` }),
      el("div", { class: "table-scroll", tabindex: 0, role: "region", "aria-label": "tournament table" }, el("table", { class: "data tournament-table", id: "tournament-table" }, el("thead", {}, head), el("tbody", {}, rows))),
      this.penaltyReasons(t),
      scrollable(rankingChart(ranking, t.scores, maxScore, players, t.score_se || {})),
      legend(players),
      scrollable(groupedBarsChart(systems, players, (s, p) => t.normalized[s][p], "Normalised score per point system")),
      el("h2", { text: "Score distributions per player and point system" }),
      el("div", { class: "small-multiples" }, systems.map((s) => boxPlotChart(s, players, (p) => t.cells[s][p]))));
  },

  // Why each player's penalised games scored the penalty, as the command line's standings say
  // it: per player and reason (at most `most` reasons a player, most games first), its games,
  // the systems and the deal seeds. The counts alone left a student scored 0 on a system no
  // way to learn why but an export of every game. Null when no game was penalised.
  penaltyReasons(t, most = 3) {
    const reasons = t.penalty_reasons_text || {};
    const items = [];
    for (const p of t.players) {
      const found = new Map();  // reason -> { systems, seeds, n }, in the order first met
      for (const s of t.systems) {
        for (const [reason, seeds] of Object.entries((reasons[s] || {})[p] || {})) {
          const f = found.get(reason) || { systems: [], seeds: [], n: 0 };
          f.systems.push(s); f.seeds.push(...seeds); f.n += seeds.length;
          found.set(reason, f);
        }
      }
      const ordered = [...found].sort((a, b) => b[1].n - a[1].n);
      for (const [reason, f] of ordered.slice(0, most)) {
        items.push(el("li", {}, el("strong", { text: p }),
          `: ${plural(f.n, "game")} (${f.systems.join(", ")}; ${seedsText(f.seeds)}): ${reason}`));
      }
      if (ordered.length > most) {
        const runs = t.systems.map((s) => t.cells[s][p].run_id).filter((r) => r !== null && r !== undefined);
        items.push(el("li", {}, el("strong", { text: p }), `: ${plural(ordered.length - most, "more reason")}; `,
          el("a", { href: `/api/results/export.csv?${runs.map((r) => `run=${r}`).join("&")}`, download: `pokersquares-tournament-${t.tournament_id}-games.csv` },
            `the CSV of ${p}'s games`), " gives each game's"));
      }
    }
    if (!items.length) return null;
    return el("section", { class: "penalty-reasons", id: "tournament-penalties", "aria-labelledby": "tournament-penalties-h" },
      el("h2", { id: "tournament-penalties-h", text: "Penalised games and why" }),
      el("p", { class: "note" }, "By deal seed: ", el("code", { text: "pokersquares play --seed N" }),
        " with the player, point system and limits of the tournament shows one again."),
      el("ul", {}, items));
  },
};

// "seed 7", "seeds 1, 3", or the first `shown` in order and how many more. Seeds are text
// (JavaScript's numbers lose digits past 2**53), in order as integers.
function seedsText(seeds, shown = 5) {
  const sorted = [...new Set(seeds)].sort((a, b) => { const d = BigInt(a) - BigInt(b); return d < 0n ? -1 : d > 0n ? 1 : 0; });
  const more = sorted.length > shown ? ` and ${sorted.length - shown} more` : "";
  return `seed${sorted.length !== 1 ? "s" : ""} ${sorted.slice(0, shown).join(", ")}${more}`;
}
window.results = results;

// ---------------------------------------------------------------------------------
// Tabs and start-up
// ---------------------------------------------------------------------------------
const views = { play, watch };

function showView(name) {
  name = name.split("/")[0];
  if (!["play", "watch", "results"].includes(name)) name = "play";
  for (const tab of document.querySelectorAll(".tabs a")) {
    tab.setAttribute("aria-selected", String(tab.dataset.view === name));
    tab.setAttribute("aria-controls", `view-${tab.dataset.view}`);
  }
  for (const v of ["play", "watch", "results"]) $(`view-${v}`).hidden = v !== name;
  if (name === "results" && window.appConfig) results.show();
  if (document.body.dataset.view && document.body.dataset.view !== name) hideToast();  // it was about the other tab
  document.body.dataset.view = name;
}

document.addEventListener("keydown", (e) => {
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  const t = e.target;
  if (t && (t.tagName === "INPUT" || t.tagName === "SELECT" || t.tagName === "TEXTAREA")) return;
  if (t && t.closest && t.closest("[role=tab]") && switchTab(t.closest("[role=tab]"), e.key)) { e.preventDefault(); return; }
  if (document.body.dataset.view !== "play") return;
  // A focused button, link or summary (the tabs, "How to play") answers Enter and Space itself.
  if ((e.key === "Enter" || e.key === " ") && t && t.closest && t.closest("button, a[href], summary, [role=button], [role=tab]")) return;
  if (play.onKey(e)) e.preventDefault();
});

// The section tabs as a tab list: the arrows, Home and End move to another tab and open it.
function switchTab(tab, key) {
  const tabs = [...document.querySelectorAll(".tabs [role=tab]")], i = tabs.indexOf(tab);
  const to = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: tabs.length - 1 }[key];
  if (to === undefined || i < 0) return false;
  const next = tabs[(to + tabs.length) % tabs.length];
  next.focus();
  location.hash = next.getAttribute("href");  // optimum.js listens for the change too
  showView(next.dataset.view);  // now, not when the change event comes
  return true;
}

// On a phone the Hint bar is fixed at the bottom of the screen and grows with its message:
// the page keeps that much room below its last line (app.css reads --dock-height).
function keepRoomForTheHintBar() {
  const dock = document.querySelector(".hint-dock");
  if (!dock || typeof ResizeObserver === "undefined") return;
  // The browser scrolls to what the keyboard focuses only if it is off the screen: a control
  // under the bar (or under it once the bar grows) is brought up above it (html's
  // scroll-padding keeps the bar's height).
  const keepAbove = (t) => {
    const bar = dock.getBoundingClientRect();
    if (!t || !t.matches(":focus-visible") || dock.contains(t) || getComputedStyle(dock).position !== "fixed" || !bar.height) return;
    if (t.getBoundingClientRect().bottom > bar.top) t.scrollIntoView({ block: "nearest" });
  };
  new ResizeObserver(() => {
    // On the root: html's scroll-padding reads it too.
    document.documentElement.style.setProperty("--dock-height", `${Math.ceil(dock.getBoundingClientRect().height)}px`);
    keepAbove(document.activeElement);
  }).observe(dock);
  document.addEventListener("focusin", (e) => keepAbove(e.target));
}

// The first stop of the keyboard: past the header and the tabs, to the tab shown (the
// tab's own address stays: the link's is only for a page without its script).
function skipToContent(e) {
  e.preventDefault();
  const view = document.querySelector(".view:not([hidden])");
  if (!view) return;
  view.setAttribute("tabindex", "-1");
  view.focus();
}

async function start() {
  keepRoomForTheHintBar();
  keepPlayerName();
  $("skip-link").addEventListener("click", skipToContent);
  window.addEventListener("hashchange", () => {
    const name = location.hash.slice(1).split("/")[0];
    if (name !== document.body.dataset.view) showView(name);
  });
  showView(location.hash.slice(1));
  // A server that is restarting, busy or behind a proxy that is not ready yet is asked
  // again for a while: the page would otherwise stay empty until a reload.
  let config;
  for (let tries = 1; ; tries++) {
    try {
      ({ data: config } = await api("GET", "/api/config"));
      hideToast();
      break;
    } catch (e) {
      const message = e.status ? `the server cannot start the page: ${e.message}` : e.message;
      if (!TRANSIENT.includes(e.status) || tries >= 40) {
        toast(`${message}; reload the page to try again`, true);
        return;
      }
      toast(`${message} (asking again)`, true);
      await sleep(Math.min(5000, 500 * tries));
    }
  }
  window.appConfig = config;
  await Promise.all([play.init(config), watch.init(config)]);
  results.init(config);
  document.body.dataset.ready = "true";
  if (config.agents_loading) waitForAgents();
}

start();
