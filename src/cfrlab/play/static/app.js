// cfrlab browser play: draws the server's view of this session and posts the player's actions.
// Plain JS, no build step. The server validates every action; this page only offers legal ones.
"use strict";

let view = null;
let busy = false;
let renders = 0;  // exposed as <body data-renders> so tests can wait for the next answer

function cardEl(card) {
  if (!card) { const b = el("span", "card back"); b.title = "hidden"; return b; }
  const rank = card.slice(0, -1), suit = card.slice(-1);
  const c = el("span", "card" + (red(card) ? " red" : ""));
  c.dataset.card = card;
  c.title = card;
  c.append(el("span", "rank", rank === "T" ? "10" : rank), el("span", "suit", SUITS[suit] || suit));
  return c;
}

function cardsEl(cards, hiddenCount) {
  const box = el("span", "cards");
  const list = cards || Array(hiddenCount).fill(null);
  list.forEach((c) => box.append(cardEl(c)));
  return box;
}

function cardsText(cards) { return (cards || []).map(cardText).join(" "); }

async function api(path, body) {
  const opts = { method: body === undefined ? "GET" : "POST", credentials: "same-origin", headers: {} };
  if (body !== undefined) { opts.headers["Content-Type"] = "application/json"; opts.body = JSON.stringify(body); }
  const r = await fetch(path, opts);
  let data = null;
  try { data = await r.json(); } catch (e) { data = { detail: r.statusText }; }
  if (!r.ok) throw new Error(typeof data.detail === "string" ? data.detail : JSON.stringify(data.detail));
  return data;
}

async function run(path, body) {
  if (busy) return;
  busy = true;
  setEnabled(false);
  $("error").textContent = "";
  try { render(await api(path, body)); }
  catch (e) { $("error").textContent = e.message; setEnabled(true); }
  finally { busy = false; }
}

function setEnabled(on) {
  document.querySelectorAll("#actions button, #raise-button, .quick-size, #next-hand").forEach((b) => { b.disabled = !on; });
}

function seatEl(seat, holeCount) {
  const d = el("div", "seat" + (seat.folded ? " folded" : ""));
  d.append(el("span", "name", seat.name + " (" + seat.role + ")"));
  d.append(cardsEl(seat.cards, holeCount));
  d.append(el("span", "info", "in pot " + seat.spent + (seat.folded ? ", folded" : "")));
  return d;
}

function renderScore(v) {
  const s = $("score");
  s.textContent = "score: " + v.score.text + "  (" + (v.score.chips >= 0 ? "+" : "") + v.score.chips +
    " chips over " + v.hands_played + " hand" + (v.hands_played === 1 ? "" : "s") + ")";
  s.dataset.hands = String(v.hands_played);
  s.dataset.chips = String(v.score.chips);
  s.dataset.perGame = String(v.score.per_game);
}

function renderHistory(v) {
  const body = $("history").querySelector("tbody");
  body.textContent = "";
  v.history.forEach((h) => {
    const tr = el("tr");
    const others = h.cards.slice(1).map(cardsText).join(" | ");
    tr.append(el("td", "", String(h.hand_number + 1)), el("td", "", cardsText(h.cards[0])), el("td", "", others),
      el("td", "", cardsText(h.board)), el("td", "", h.betting),
      el("td", h.value > 0 ? "pos" : h.value < 0 ? "neg" : "", (h.value > 0 ? "+" : "") + h.value));
    body.append(tr);
  });
}

// Trainer mode: the server rates each of the player's decisions against the reference strategy
// (its play with this hand there, each action's EV, the EV the choice gave up) and sums the
// finished hands; the page only shows what it is sent.
function lossText(x) { return x < 0.01 ? x.toFixed(4) : x.toFixed(3); }

function renderTrainer(t) {
  const box = $("trainer");
  box.hidden = !t;
  if (!t) return;
  $("trainer-reference").textContent = "against " + t.reference;
  const list = $("advice");
  list.textContent = "";
  t.hand.forEach((a) => {
    const li = el("li", a.mistake ? "mistake" : "", a.cards + ", " + a.situation + ": " + a.text);
    li.dataset.chosen = a.chosen;
    li.dataset.loss = a.loss === null ? "" : String(a.loss);
    if (a.evs) {
      li.append(el("span", "evs", "EV (chips): " +
        a.words.map((w, i) => w + " " + (a.evs[i] >= 0 ? "+" : "") + a.evs[i].toFixed(3)).join(", ")));
    }
    list.append(li);
  });
  if (!t.hand.length) list.append(el("li", "hint", "your decisions this hand will be rated here"));
  const s = t.summary;
  const sum = $("trainer-summary");
  sum.dataset.decisions = String(s.decisions);
  sum.dataset.loss = String(s.total_loss);
  sum.dataset.mistakes = String(s.mistakes);
  sum.textContent = s.decisions + " decision" + (s.decisions === 1 ? "" : "s") + " in " + s.hands + " hand" +
    (s.hands === 1 ? "" : "s") + ", " + s.mistakes + " mistake" + (s.mistakes === 1 ? "" : "s") +
    "; EV given up " + s.total_loss.toFixed(3) + " chips, " + s.per_hand_text;
  const table = $("mistakes");
  const body = table.querySelector("tbody");
  body.textContent = "";
  table.hidden = !s.top.length;
  s.top.forEach((a) => {
    const word = (x) => a.words[a.actions.indexOf(x)];
    const tr = el("tr");
    tr.append(el("td", "", String(a.hand_number + 1)), el("td", "", a.cards), el("td", "", a.situation),
      el("td", "", word(a.chosen)), el("td", "", word(a.best)), el("td", "", lossText(a.loss)));
    body.append(tr);
  });
}

// Half pot, pot and all-in: the server computes them from the pot shown (a pot-size raise calls,
// then raises by the pot), clamped to the legal range; a button only fills the box.
const QUICK_NAMES = { half: "\u00bd pot", pot: "Pot", allin: "All-in" };

function renderQuickSizes(sizes) {
  document.querySelectorAll(".quick-size").forEach((b) => {
    const amount = sizes[b.dataset.size];
    b.hidden = amount === undefined;
    b.dataset.amount = amount === undefined ? "" : String(amount);
    b.textContent = QUICK_NAMES[b.dataset.size] + (amount === undefined ? "" : " (" + amount + ")");
  });
}

function fillQuickSize(size) {
  const b = document.querySelector(".quick-size[data-size='" + size + "']");
  if (!b || b.hidden || b.disabled || !b.dataset.amount) return;
  const inp = $("raise-amount");
  inp.value = b.dataset.amount;
  inp.focus();  // Enter now raises to it
}

function render(v) {
  view = v;
  $("matchup").textContent = "\u2014 you vs " + v.names.slice(1).join(", ") + " at " + v.game;
  renderScore(v);
  renderHistory(v);
  renderTrainer(v.trainer);
  if (v.hand_number === null) return;
  const holeCount = v.seats[0].cards ? v.seats[0].cards.length : 1;
  const opp = $("opponents");
  opp.textContent = "";
  v.seats.slice(1).forEach((s) => opp.append(seatEl(s, holeCount)));
  const me = $("me");
  me.textContent = "";
  me.append(seatEl(v.seats[0], holeCount));
  const board = $("board");
  board.textContent = "";
  const flat = [].concat(...v.board);
  if (flat.length) flat.forEach((c) => board.append(cardEl(c)));
  else board.append(el("span", "hint", "no board cards yet"));
  $("pot").textContent = "Pot " + v.pot + (v.to_call ? " \u00b7 to call " + v.to_call : "") +
    " \u00b7 hand " + (v.hand_number + 1);
  const ev = $("events");
  ev.textContent = "";
  v.events.forEach((e) => ev.append(el("li", "", v.round_names[e.round] + ": " + e.who + " " + e.text)));

  const actions = $("actions");
  actions.textContent = "";
  v.legal.forEach((a) => {
    const b = el("button", "", a.label);
    b.type = "button";
    b.dataset.action = a.action;
    b.addEventListener("click", () => run("/api/action", { action: a.action, hand_number: v.hand_number }));
    actions.append(b);
  });
  const rb = $("raise-box");
  rb.hidden = !v.raise_range;
  if (v.raise_range) {
    const inp = $("raise-amount");
    inp.min = v.raise_range[0]; inp.max = v.raise_range[1];
    if (!inp.value || +inp.value < v.raise_range[0] || +inp.value > v.raise_range[1]) inp.value = v.raise_range[0];
    $("raise-range").textContent = "from " + v.raise_range[0] + " to " + v.raise_range[1] + " chips in total";
    renderQuickSizes(v.quick_raises || {});
  }
  const res = $("result");
  res.className = "result";
  res.textContent = "";
  if (v.hand_over && v.result) {
    const names = v.result.hand_names || [];
    const hands = names[0] ? " (" + names[0] + " against " +
      names.slice(1).filter((n) => n).join(", ") + ")" : "";
    res.textContent = v.result.text + (v.result.showdown ? " at the showdown" + hands + "." : ".");
    res.classList.add(v.result.value > 0 ? "won" : v.result.value < 0 ? "lost" : "split");
  } else if (v.your_turn) {
    res.textContent = "Your turn.";
  }
  $("next-hand").hidden = !v.hand_over;
  setEnabled(true);
  renders += 1;
  document.body.dataset.renders = String(renders);
}

document.addEventListener("DOMContentLoaded", () => {
  $("raise-button").addEventListener("click", () => {
    if (view) run("/api/action", { action: "r" + $("raise-amount").value, hand_number: view.hand_number });
  });
  document.querySelectorAll(".quick-size").forEach((b) => {
    b.addEventListener("click", () => fillQuickSize(b.dataset.size));
  });
  $("raise-amount").addEventListener("keydown", (e) => {
    if (e.key === "Enter") { e.preventDefault(); $("raise-button").click(); }
  });
  document.addEventListener("keydown", (e) => {  // h, p, a fill the box unless typing somewhere
    const typing = e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement;
    if (typing || e.ctrlKey || e.metaKey || e.altKey || $("raise-box").hidden) return;
    const size = { h: "half", p: "pot", a: "allin" }[e.key.toLowerCase()];
    if (size) { e.preventDefault(); fillQuickSize(size); }
  });
  $("next-hand").addEventListener("click", () => run("/api/next", {}));
  $("new-match").addEventListener("click", () => run("/api/reset", {}));
  run("/api/state");
});
