// cfrlab's browser pages, what both draw with (loaded before app.js, the play page, and spot.js,
// the solved-spot view). Plain JS, no build step.
"use strict";

const SUITS = { c: "\u2663", d: "\u2666", h: "\u2665", s: "\u2660" };

function $(id) { return document.getElementById(id); }

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

// a card's text with its suit as a symbol ("A♠"); red: hearts and diamonds
function cardText(c) { return c.slice(0, -1) + (SUITS[c.slice(-1)] || c.slice(-1)); }
function red(c) { return c.endsWith("h") || c.endsWith("d"); }
