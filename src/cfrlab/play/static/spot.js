// cfrlab solved-spot view: walks the tree through /api/spot/node and draws the 13x13 grid, each
// cell split left to right by the class's action frequencies (its height the class's weight per
// combo). Plain JS, no build step. The path is in the address (#x b10), so Back works too.
"use strict";

let node = null;
let hand = null;  // the hand class shown in the side panel
let renders = 0;  // <body data-renders>: tests wait for the next drawing

function pct(x) { return x === null ? "–" : (100 * x).toFixed(1) + "%"; }
function num(x, d) { return x === null ? "–" : x.toFixed(d); }
function rendered() { renders += 1; document.body.dataset.renders = String(renders); }

async function getJSON(url) {
  const r = await fetch(url);
  const body = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(body.detail || ("HTTP " + r.status));
  return body;
}

function currentPath() { return decodeURIComponent(location.hash.slice(1)); }
function go(path) {
  if (path === currentPath()) { load(); return; }
  location.hash = encodeURIComponent(path);  // hashchange loads it
}

// a class's cell: the action colours side by side, widths the frequencies
function gradient(strategy, colors) {
  const stops = [];
  let at = 0;
  strategy.forEach((f, k) => {
    const end = at + 100 * (f || 0);
    stops.push(`${colors[k]} ${at.toFixed(2)}% ${end.toFixed(2)}%`);
    at = end;
  });
  return `linear-gradient(to right, ${stops.join(", ")})`;
}

function drawGrid() {
  const grid = $("grid");
  grid.replaceChildren();
  const colors = node.actions.map(a => a.color);
  for (const row of node.grid) {
    for (const cell of row) {
      const c = el("div", "cell" + (cell.strategy ? "" : " empty"));
      c.dataset.hand = cell.hand;
      c.setAttribute("role", "gridcell");
      if (cell.strategy) {
        const fill = el("div", "fill");
        fill.style.height = Math.max(8, 100 * cell.density).toFixed(1) + "%";
        fill.style.background = gradient(cell.strategy, colors);
        c.append(fill);
        c.dataset.strategy = cell.strategy.map(x => x.toFixed(4)).join(" ");
        c.title = cell.hand + ": " + node.actions.map((a, k) => `${a.label} ${pct(cell.strategy[k])}`).join(", ");
      }
      if (cell.hand === hand) c.classList.add("chosen");
      c.append(el("span", "name", cell.hand));
      c.addEventListener("click", () => showHand(cell.hand));
      grid.append(c);
    }
  }
  const legend = $("legend");
  legend.replaceChildren(...node.actions.map(a => {
    const s = el("span");
    const i = el("i");
    i.style.background = a.color;
    s.append(i, `${a.label} ${pct(a.frequency)}`);
    return s;
  }));
}

function drawNode() {
  $("error").textContent = "";
  const trail = $("trail");
  trail.replaceChildren();
  const root = el("a", "", "root");
  root.addEventListener("click", () => go(""));
  trail.append(root);
  for (const t of node.trail) {
    const a = el(t.path === null ? "span" : "a", "", t.token);
    if (t.path !== null) a.addEventListener("click", () => go(t.path));
    trail.append(" ", a);
  }
  $("where").textContent = `${node.player.toUpperCase()} acts on the ${node.street}, pot ${node.pot}, ` +
    `${node.combos} combos`;
  $("board").replaceChildren(...node.board.map(c => el("span", "card" + (red(c) ? " red" : ""), cardText(c))));
  const actions = $("actions");
  actions.replaceChildren();
  $("river").hidden = true;
  for (const a of node.actions) {
    const b = el("button");
    b.type = "button";
    b.dataset.token = a.token;
    b.style.background = a.color;
    b.append(el("span", "", a.label), el("span", "freq", pct(a.frequency)));
    if (a.next.kind === "decision") b.addEventListener("click", () => go(a.next.path));
    else if (a.next.kind === "card") b.addEventListener("click", () => chooseRiver(a.next));
    else { b.disabled = true; b.title = a.next.what === "fold" ? "the hand ends (fold)" : "the hand ends (showdown)"; }
    actions.append(b);
  }
  $("back").disabled = node.parent === null;
  $("freqs").replaceChildren(...node.actions.map(a => {
    const d = el("div");
    d.style.width = (100 * (a.frequency || 0)).toFixed(2) + "%";
    d.style.background = a.color;
    d.title = `${a.label} ${pct(a.frequency)}`;
    return d;
  }));
  drawGrid();
}

function chooseRiver(next) {
  const box = $("river-cards");
  box.replaceChildren(...next.cards.map(c => {
    const b = el("button", red(c) ? "red" : "", cardText(c));
    b.type = "button";
    b.dataset.card = c;
    b.addEventListener("click", () => go(`${next.path} ${c}`));
    return b;
  }));
  $("river").hidden = false;
}

async function showHand(name, count = true) {
  hand = name;
  for (const c of document.querySelectorAll(".cell")) c.classList.toggle("chosen", c.dataset.hand === name);
  try {
    const h = await getJSON(`/api/spot/hand?path=${encodeURIComponent(node.path)}&hand=${encodeURIComponent(name)}`);
    drawHand(h);
  } catch (e) {
    $("error").textContent = e.message;
  }
  if (count) rendered();
}

function drawHand(h) {
  $("hand-title").textContent = `${h.hand} (${h.player.toUpperCase()}): ` +
    (h.combos.length ? `EV ${num(h.ev, 3)}` : "not in the range here");
  const box = $("hand");
  box.replaceChildren();
  if (!h.combos.length) return;
  const t = el("table");
  t.id = "hand-combos";
  const head = el("tr");
  for (const x of ["combo", "weight", ...h.labels, "EV", "equity"]) head.append(el("th", "", x));
  t.append(el("thead"));
  t.tHead.append(head);
  const body = el("tbody");
  const rows = [{ combo: "all", weight: h.weight, strategy: h.strategy, ev: h.ev, equity: null }, ...h.combos];
  for (const c of rows) {
    const tr = el("tr");
    tr.dataset.combo = c.combo;
    tr.append(el("td", "", c.combo), el("td", "", num(c.weight, 4)),
      ...c.strategy.map(x => el("td", "", pct(x))), el("td", "", num(c.ev, 3)), el("td", "", pct(c.equity)));
    body.append(tr);
  }
  t.append(body);
  box.append(t);
}

async function load() {
  try {
    node = await getJSON(`/api/spot/node?path=${encodeURIComponent(currentPath())}`);
    drawNode();
    if (hand) await showHand(hand, false);
  } catch (e) {
    $("error").textContent = e.message;
  }
  rendered();
}

async function start() {
  try {
    const s = await getJSON("/api/spot");
    $("summary").textContent = s.spot;
    const expl = s.exploitability_pct === null
      ? `exploitability not shown (the file's record is ignored: ${s.ignored})`
      : `exploitability ${s.recorded ? "recorded at solve time " : ""}${num(s.exploitability_pct, 3)}% of the pot`;
    $("figures").textContent = `${expl} · EV OOP ${num(s.ev_oop, 3)}, IP ${num(s.ev_ip, 3)}` +
      (s.locked.length ? " · locked nodes" : "");
  } catch (e) {
    $("error").textContent = e.message;
  }
  $("back").addEventListener("click", () => { if (node && node.parent !== null) go(node.parent); });
  window.addEventListener("hashchange", load);
  await load();
}

start();
