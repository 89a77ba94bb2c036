// The dashboard's one script. It places the strings the server rendered
// (every word about a roll comes from the plugin's render layer) as text
// only: textContent, never markup. It sends nothing but the event stream's
// GET and, when asked, the history picture's.
"use strict";

(function () {
  const cards = new Map(); // key -> card (the server's JSON)
  const explains = new Map(); // key -> Map(node -> explain's text)
  const sections = new Map(); // key -> <section>
  let open = null; // { key, node, button }
  let asOf = []; // by context's place: "as of …" while its connection is lost, else null

  const $ = (id) => document.getElementById(id);

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  // The `contexts` event: the header's words (live, or which contexts are
  // stale since when) and each context's line.
  function renderContexts(data) {
    const link = $("link");
    link.textContent = data.header;
    link.className = data.stale ? "link stale" : "link";
    const lines = data.contexts;
    const ul = $("contexts");
    ul.replaceChildren();
    asOf = lines.map((c) => c.asOf || null);
    for (const c of lines) {
      const li = el("li", c.trouble ? "trouble" : "");
      li.append(el("span", "ctx-name", c.name), document.createTextNode(": "), el("span", "", c.connection));
      if (c.asOf) li.append(document.createTextNode(" · "), el("span", "as-of", c.asOf));
      if (c.servers) li.append(el("span", "servers", c.servers));
      if (c.empty) li.append(el("span", "empty", c.empty));
      ul.append(li);
    }
    for (const [key, section] of sections) markStale(key, section);
  }

  // A card of a context whose connection is lost keeps its verdict only as
  // of the reading's time (the server's words), dimmed, in no success colour.
  function markStale(key, section) {
    const when = asOf[Number(key.split("/")[0])] || null;
    section.classList.toggle("stale", when !== null);
    const verdict = section.querySelector("h2 .verdict");
    let span = section.querySelector("h2 .as-of");
    if (when === null) {
      if (span) span.remove();
      return;
    }
    if (!span) {
      span = el("span", "as-of");
      verdict.after(span);
    }
    span.textContent = when;
  }

  function nodeButton(key, n) {
    const b = el("button", "node " + n.tone);
    b.type = "button";
    b.dataset.node = n.name;
    b.setAttribute("aria-pressed", open && open.key === key && open.node === n.name ? "true" : "false");
    b.append(el("span", "name", n.name));
    // The separator ends the part before it, inside its unbreakable span, so a
    // narrow cell wraps between parts and no line starts with " · ".
    const parts = [el("span", "state", n.state)];
    for (const part of [n.role, n.ready, n.inFlight, n.held]) {
      if (part) parts.push(el("span", "", part));
    }
    if (n.mark) parts.push(el("span", "mark", n.mark));
    const cells = el("span", "cells");
    parts.forEach((text, i) => {
      const part = el("span", "part");
      part.append(text);
      if (i + 1 < parts.length) part.append(document.createTextNode(" ·"));
      if (i > 0) cells.append(document.createTextNode(" "));
      cells.append(part);
    });
    b.append(cells);
    b.addEventListener("click", () => showExplain(key, n.name, b));
    return b;
  }

  function renderCard(card) {
    const key = card.key;
    const h = card.headline;
    const s = el("section", "cluster " + h.tone);
    s.dataset.key = key;
    s.setAttribute("aria-label", h.location);
    const title = el("h2");
    title.append(el("span", "location", h.location), el("span", "verdict " + h.tone, h.verdict));
    // Servers asked and not read, said on the verdict (the server's words).
    if (h.servers) title.append(el("span", "servers-unread", h.servers));
    if (h.context !== null && h.context !== undefined) {
      title.append(el("span", "ctx", h.context));
    }
    s.append(title, el("p", "summary", h.summary));
    const parts = el("ul", "parts");
    for (const p of h.parts) parts.append(el("li", "", p));
    s.append(parts);
    if (h.asides.length) {
      const asides = el("ul", "asides");
      for (const a of h.asides) asides.append(el("li", "", a));
      s.append(asides);
    }
    const grid = el("div", "shards");
    for (const shard of card.shards) {
      const box = el("div", "shard");
      box.append(el("h3", "", shard.label));
      const nodes = el("div", "nodes");
      for (const n of shard.nodes) nodes.append(nodeButton(key, n));
      box.append(nodes);
      grid.append(box);
    }
    s.append(grid);
    const history = el("details", "history");
    history.append(el("summary", "", "history"));
    history.addEventListener("toggle", () => {
      if (history.open && !history.querySelector("img")) {
        const path = "/history/" + key.split("/").map(encodeURIComponent).join("/");
        const img = el("img");
        img.alt = "history of " + h.location;
        img.src = path;
        // The picture whole, in a tab of its own (on a phone it is small).
        const whole = el("a");
        whole.href = path;
        whole.target = "_blank";
        whole.rel = "noopener";
        whole.append(img);
        history.append(whole);
      }
    });
    s.append(history);
    return s;
  }

  function place(key, section) {
    const old = sections.get(key);
    const hadFocus = old && old.contains(document.activeElement) ? document.activeElement : null;
    const keys = [...cards.keys()].sort();
    const next = keys[keys.indexOf(key) + 1];
    const after = next !== undefined ? sections.get(next) : null;
    const old_details = old ? old.querySelector("details.history") : null;
    if (old_details && old_details.open) {
      const fresh = section.querySelector("details.history");
      fresh.replaceWith(old_details);
    }
    markStale(key, section);
    if (old) old.replaceWith(section);
    else $("clusters").insertBefore(section, after && after.isConnected ? after : null);
    sections.set(key, section);
    if (hadFocus && hadFocus.dataset && hadFocus.dataset.node !== undefined) {
      for (const b of section.querySelectorAll("button.node")) {
        if (b.dataset.node === hadFocus.dataset.node) { b.focus(); break; }
      }
    }
    if (open && open.key === key) {
      for (const b of section.querySelectorAll("button.node")) {
        if (b.dataset.node === open.node) open.button = b;
      }
      refreshExplain();
    }
  }

  function showExplain(key, node, button) {
    if (open && open.button) open.button.setAttribute("aria-pressed", "false");
    open = { key, node, button };
    button.setAttribute("aria-pressed", "true");
    $("explain-title").textContent = node;
    refreshExplain();
    $("explain").hidden = false;
    $("explain-text").focus();
  }

  function refreshExplain() {
    const words = explains.get(open.key);
    const text = words ? words.get(open.node) : undefined;
    $("explain-text").textContent = text !== undefined ? text : "";
  }

  function closeExplain() {
    $("explain").hidden = true;
    if (open && open.button) {
      open.button.setAttribute("aria-pressed", "false");
      if (open.button.isConnected) open.button.focus();
    }
    open = null;
  }

  function onCluster(data) {
    const card = data.card;
    cards.set(card.key, card);
    let words = explains.get(card.key);
    if (!words) { words = new Map(); explains.set(card.key, words); }
    for (const [node, text] of Object.entries(data.explain)) words.set(node, text);
    place(card.key, renderCard(card));
  }

  function onGone(key) {
    cards.delete(key);
    explains.delete(key);
    const s = sections.get(key);
    if (s) s.remove();
    sections.delete(key);
    if (open && open.key === key) closeExplain();
  }

  // A new stream starts with the whole view again.
  function onReset() {
    for (const s of sections.values()) s.remove();
    sections.clear();
    cards.clear();
    explains.clear();
  }

  function connect() {
    const link = $("link");
    const source = new EventSource("/events");
    // Open, the stream's first event (the contexts) says what the header is.
    source.addEventListener("open", () => { link.textContent = "connected"; link.className = "link"; });
    source.addEventListener("error", () => { link.textContent = "reconnecting…"; link.className = "link down"; });
    source.addEventListener("reset", onReset);
    source.addEventListener("contexts", (e) => renderContexts(JSON.parse(e.data)));
    source.addEventListener("cluster", (e) => onCluster(JSON.parse(e.data)));
    source.addEventListener("gone", (e) => onGone(JSON.parse(e.data)));
  }

  $("explain-close").addEventListener("click", closeExplain);
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && open) closeExplain();
  });
  connect();
})();
