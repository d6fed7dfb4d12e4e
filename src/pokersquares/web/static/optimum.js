// The perfect-information optimum in the page: after a game on the Play page, a
// "Best possible for this deal" panel (the best grid of the deal's 25 cards, asked
// of GET /api/optimum, and that grid on request); on the Results page, each run's
// fraction of its deals' optima and its regret (GET /api/optimum/regret).
// app.js announces every game view with a "pokersquares:game" event; nothing else
// ties this file to it.
(() => {
  "use strict";
  const SUITS = { C: "♣", D: "♦", H: "♥", S: "♠" };

  function node(tag, attrs = {}, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (k === "text") e.textContent = v; else e.setAttribute(k, v);
    }
    e.append(...children);
    return e;
  }

  // The tab's client id, as app.js keeps it: the server bounds the solves a client waits for.
  const headers = () => { const id = sessionStorage.getItem("ps.client"); return id ? { "X-Client": id } : {}; };

  async function getJson(url) {
    const r = await fetch(url, { headers: headers() });
    const data = await r.json().catch(() => ({}));
    if (!r.ok) {
      const e = new Error(data.detail || `the server answered ${r.status}`);
      e.busy = r.status === 429 || r.status === 503;  // the solver is busy: ask again later
      throw e;
    }
    return data;
  }

  const BUSY_TRIES = 20, BUSY_WAIT_MS = 3000;

  function cardNode(name) {
    const suit = name[1], rank = name[0] === "T" ? "10" : name[0];
    return node("span", { class: `optimum-card ${suit === "D" || suit === "H" ? "red" : "black"}`, text: rank + SUITS[suit] });
  }

  function gridTable(opt) {
    const lines = opt.view.lines;
    const table = node("table", { class: "optimum-grid", "data-role": "optimum-grid" });
    const cap = node("caption", { text: `The best grid found: ${opt.score} points` });
    table.append(cap);
    for (let r = 0; r < 5; r++) {
      const tr = node("tr");
      for (let c = 0; c < 5; c++) tr.append(node("td", {}, cardNode(opt.grid[r * 5 + c])));
      const row = lines[r];
      tr.append(node("td", { class: "optimum-hand", text: `${row.hand} ${row.points}` }));
      table.append(tr);
    }
    const tr = node("tr");
    for (let c = 0; c < 5; c++) {
      const col = lines[5 + c];
      tr.append(node("td", { class: "optimum-hand", text: `${col.hand} ${col.points}` }));
    }
    table.append(tr);
    return table;
  }

  function percent(x) { return `${Math.round(100 * x)}%`; }

  // -- Play: the panel after a game ---------------------------------------------------------
  let shown = null;

  function panel() {
    let p = document.getElementById("optimum-panel");
    if (!p) {
      p = node("div", { id: "optimum-panel", class: "optimum-panel", "aria-live": "polite" });
      p.hidden = true;
      const over = document.getElementById("play-over");
      if (over) over.after(p); else document.body.append(p);
    }
    return p;
  }

  function showOptimum(p, opt, score) {
    const verdict = opt.proven ? "proven optimal"
      : `the best grid found; no grid can make more than ${opt.bound}`;
    const lines = [node("p", {}, "These 25 cards could have made ",
      node("strong", { "data-role": "optimum-score", text: String(opt.score) }), ` points (${verdict}).`)];
    if (opt.score > 0) lines.push(node("p", { text: `You scored ${score}: ${percent(score / opt.score)} of it.` }));
    else lines.push(node("p", { text: `You scored ${score}.` }));
    const button = node("button", { type: "button", "data-role": "optimum-show", text: "Show the best grid" });
    const holder = node("div");
    button.addEventListener("click", () => {
      if (holder.firstChild) { holder.replaceChildren(); button.textContent = "Show the best grid"; return; }
      holder.replaceChildren(gridTable(opt));
      button.textContent = "Hide the best grid";
    });
    p.replaceChildren(node("h3", { text: "Best possible for this deal" }), ...lines, button, holder);
  }

  document.addEventListener("pokersquares:game", async (event) => {
    const view = event.detail, p = panel();
    if (!view || !view.done) { p.hidden = true; shown = null; return; }
    const key = `${view.seed_text}|${view.system.spec}`;
    if (shown === key) return;
    shown = key;
    p.hidden = false;
    p.replaceChildren(node("h3", { text: "Best possible for this deal" }),
      node("p", { class: "note", text: "Finding the best arrangement of these 25 cards…" }));
    const url = `/api/optimum?seed=${encodeURIComponent(view.seed_text)}&system=${encodeURIComponent(view.system.spec)}`;
    for (let tries = 1; shown === key; tries++) {
      try {
        const opt = await getJson(url);
        if (shown === key) showOptimum(p, opt, view.score);
        return;
      } catch (e) {
        if (shown !== key) return;
        if (!e.busy || tries >= BUSY_TRIES) {
          p.replaceChildren(node("h3", { text: "Best possible for this deal" }), node("p", { class: "note error", text: e.message }));
          return;
        }
        p.replaceChildren(node("h3", { text: "Best possible for this deal" }),
          node("p", { class: "note", text: `${e.message} (asking again in ${BUSY_WAIT_MS / 1000} s)` }));
        await new Promise((r) => setTimeout(r, BUSY_WAIT_MS));
      }
    }
  });

  // -- Results: runs against their deals' optima ----------------------------------------------
  async function showRegret() {
    const section = document.getElementById("view-results");
    if (!section || section.hidden) return;
    let box = document.getElementById("optimum-results");
    if (!box) {
      box = node("div", { id: "optimum-results", class: "optimum-results" });
      section.append(box);
    }
    let data;
    try { data = await getJson("/api/optimum/regret"); } catch (e) { box.replaceChildren(); return; }
    if (!data.runs.length) { box.replaceChildren(); return; }
    const table = node("table", { class: "optimum-regret" });
    table.append(node("tr", {}, ...["run", "player", "system", "deals (proven)", "mean optimum", "mean score",
      "fraction of optimum", "regret"].map((h) => node("th", { scope: "col", text: h }))));
    for (const r of data.runs) {
      // One deal has no standard error (it is not 0: nothing says how far another deal would fall).
      const se = (x, d) => (r.deals > 1 ? ` ± ${x.toFixed(d)}` : "");
      const frac = r.fraction === null ? "–" : `${r.fraction.toFixed(3)}${se(r.fraction_stderr, 3)}`;
      // A person's games under the name they gave, as the table of runs shows them.
      const player = r.player === "human" && r.player_name && r.player_name !== "human" ? `human (${r.player_name})` : r.player;
      table.append(node("tr", { "data-run": String(r.run_id) }, ...[String(r.run_id), player, r.system,
        `${r.deals} (${r.proven})`, r.mean_optimum.toFixed(2), r.mean_score.toFixed(2), frac,
        `${r.regret.toFixed(2)}${se(r.regret_stderr, 2)}`].map((t) => node("td", { text: t }))));
    }
    box.replaceChildren(node("h2", { text: "Against the deals' perfect-information optima" }),
      node("p", { class: "note", text: "The optimum of a deal is the best grid its 25 cards allow if all are known "
        + "in advance (pokersquares optimum). Where it is not proven, the best grid found stands in, so regret is a lower bound." }),
      // On a phone the wide table scrolls sideways in its own box (focusable, for the keyboard), not the page.
      node("div", { class: "table-scroll", tabindex: "0", role: "region", "aria-label": "runs against the optima" }, table));
  }

  window.addEventListener("hashchange", showRegret);
  document.addEventListener("click", (e) => { if (e.target.closest && e.target.closest("#tab-results")) setTimeout(showRegret, 0); });
  document.addEventListener("DOMContentLoaded", showRegret);
})();
