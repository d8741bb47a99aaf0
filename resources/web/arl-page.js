// Agent Review Loop: page helper, injected into the isolated ApplicationWorld only.
// The document's own scripts are blocked by CSP and cannot see this world or its bridge.
//
// Offsets count UTF-16 code units into document.body.textContent (the anchor contract),
// built by walking Text nodes under <body> in tree order (as hypothesis
// anchoring/text-range.ts and Apache Annotator highlight-text.ts do). Highlights are
// painted with the CSS Custom Highlight API, which never changes the DOM, so textContent
// stays equal to the engine's extraction.
//
// The page is hostile and may clobber names (DOM clobbering): an element with id="__arl"
// shows up as window.__arl, and <img name="body"> or <form name="createRange"> replace
// document.body or document.createRange (Document's named properties override its
// built-ins). So nothing is read from page-reachable names: the "already ran" guard checks
// an own property of this world's window, and every DOM entry point is taken from the
// prototypes (Document.prototype, EventTarget.prototype), which no element can shadow.
(function () {
  "use strict";
  var own = Object.prototype.hasOwnProperty;
  if (own.call(window, "__arl")) return;
  var DP = Document.prototype;
  function getter(proto, name) { return Object.getOwnPropertyDescriptor(proto, name).get; }
  var bodyOf = getter(DP, "body"), headOf = getter(DP, "head");
  var rootOf = getter(DP, "documentElement");
  var mk = { walker: DP.createTreeWalker, range: DP.createRange, element: DP.createElement,
             fragment: DP.createDocumentFragment };
  var listen = EventTarget.prototype.addEventListener;
  var textOf = getter(Node.prototype, "textContent");
  function body() { return bodyOf.call(document); }
  function head() { return headOf.call(document); }
  function root() { return rootOf.call(document); }
  function newRange() { return mk.range.call(document); }
  function newElement(name) { return mk.element.call(document, name); }
  function bodyText() { var b = body(); return b ? textOf.call(b) : ""; }
  var CONTEXT = 32;
  // The document under review is untrusted and may carry its own CSS. Every name this
  // script gives the page (highlight names, the overlay element, the style element) carries
  // a random suffix per page load, so the document's CSS cannot target the verdict marks;
  // the overlay's own look is set inline with !important, which no stylesheet overrides.
  var NS = (function () {
    var a = new Uint32Array(2);
    crypto.getRandomValues(a);
    return "arl-" + a[0].toString(36) + a[1].toString(36);
  })();
  var state = { nodes: null, starts: null, spans: [], ranges: {}, bridge: null,
                kinds: {}, labels: true, overlay: null, index: null, homes: null,
                always: [], redraws: 0 };
  // Set by arl-early.js (run when the document was created): whether the document is laid
  // out as it is seen, and which of its blocks are shown now.
  var early = own.call(window, "__arlEarly") ? window.__arlEarly :
    { lazy: false, shown: new Set(), listeners: [], blocks: "" };
  // Badges of spans outside every lazily laid out block (a short document: all of them)
  // are drawn at most this many, in the order given (the table's: needs review first).
  var MAX_ALWAYS = 1000;

  function textNodes() {
    if (state.nodes) return state.nodes;
    var nodes = [], starts = [], pos = 0;
    var b = body();
    if (b) {
      var walker = mk.walker.call(document, b, NodeFilter.SHOW_TEXT);
      var n;
      while ((n = walker.nextNode())) {
        nodes.push(n); starts.push(pos); pos += n.data.length;
      }
    }
    state.nodes = nodes; state.starts = starts; state.length = pos; state.index = null;
    return nodes;
  }

  // The place of a text node in textNodes() (a Map built once, at the first question).
  function nodeIndex(node) {
    if (!state.index) {
      var m = new Map(), nodes = state.nodes;
      for (var i = 0; i < nodes.length; i++) m.set(nodes[i], i);
      state.index = m;
    }
    var i = state.index.get(node);
    return i === undefined ? -1 : i;
  }

  // Start boundary: the last node with starts[i] <= off. End boundary (strict): the last
  // node with starts[i] < off, so a range ending at a node's end stays inside that node.
  function nodeIndexAt(off, strict) {
    var starts = state.starts, lo = 0, hi = starts.length - 1, ans = 0;
    while (lo <= hi) {
      var mid = (lo + hi) >> 1;
      if (strict ? starts[mid] < off : starts[mid] <= off) { ans = mid; lo = mid + 1; }
      else { hi = mid - 1; }
    }
    return ans;
  }

  function rangeFor(start, end) {
    var nodes = textNodes();
    if (!nodes.length || start < 0 || end < start || end > state.length) return null;
    var a = nodeIndexAt(start, false), b = end > start ? nodeIndexAt(end, true) : a;
    var r = newRange();
    r.setStart(nodes[a], start - state.starts[a]);
    r.setEnd(nodes[b], end - state.starts[b]);
    return r;
  }

  // Global UTF-16 offset of a (container, offset) boundary point.
  function offsetOf(container, offset) {
    var nodes = textNodes();
    if (container.nodeType === Node.TEXT_NODE) {
      var i = nodeIndex(container);
      if (i >= 0) return state.starts[i] + offset;
    }
    // Element boundary: count the text of every text node before the boundary point.
    var probe = newRange();
    probe.setStart(body(), 0);
    try { probe.setEnd(container, offset); } catch (e) { return null; }
    var lo = 0, hi = nodes.length;  // first node not fully before the boundary
    while (lo < hi) {
      var mid = (lo + hi) >> 1;
      var cmp = probe.comparePoint(nodes[mid], nodes[mid].data.length);
      if (cmp <= 0) lo = mid + 1; else hi = mid;
    }
    if (lo >= nodes.length) return state.length;
    return state.starts[lo];
  }

  var ROOM = "body, body *{line-height:2.3 !important;}\n";

  function ensureStyle(css) {
    var el = state.style;
    if (!el || !el.isConnected) {
      el = state.style = newElement("style");
      el.id = NS + "-style";
      early.ownStyle = el;  // our marks' rules: no rule of the document (arl-early.js)
      (head() || root()).appendChild(el);
    }
    el.textContent = css;
  }

  // The box of the character next to a collapsed range, as a zero-width rect at the
  // range's side of it; null if there is no character either side.
  function edgeRect(r) {
    textNodes();
    var at = offsetOf(r.startContainer, r.startOffset);
    if (at === null) return null;
    var tries = [[at - 1, at, "right"], [at, at + 1, "left"]];
    for (var i = 0; i < tries.length; i++) {
      var t = tries[i];
      if (t[0] < 0 || t[1] > state.length) continue;
      var cr = rangeFor(t[0], t[1]);
      if (!cr) continue;
      var b = cr.getBoundingClientRect();
      if (b.width || b.height) {
        var x = t[2] === "right" ? b.right : b.left;
        return {left: x, top: b.top, width: 0, height: b.height};
      }
    }
    return null;
  }

  function ensureOverlay() {
    if (state.overlay && state.overlay.host.isConnected) return state.overlay;
    // The overlay sits under <html>, outside <body>: body.textContent is unchanged.
    var host = newElement(NS + "-overlay");
    var pin = {position: "absolute", left: "0", top: "0", width: "0", height: "0",
               "z-index": "2147483647", "pointer-events": "none", display: "block",
               visibility: "visible", opacity: "1", transform: "none", filter: "none",
               "clip-path": "none", mask: "none", overflow: "visible", contain: "none"};
    Object.keys(pin).forEach(function (k) { host.style.setProperty(k, pin[k], "important"); });
    var shadow = host.attachShadow({ mode: "closed" });
    var style = newElement("style");
    style.textContent =
      ".b{position:absolute;font:600 10px/1.15 system-ui,sans-serif;padding:0 3px;" +
      "border-radius:3px;white-space:nowrap;transform:translateY(-100%);" +
      "box-shadow:0 0 0 1px rgba(0,0,0,.35);}" +
      ".b.focus{outline:3px solid #000;outline-offset:1px;}" +
      ".m{position:absolute;width:3px;border-radius:1px;opacity:.9;}";
    shadow.appendChild(style);
    var layer = newElement("div");
    shadow.appendChild(layer);
    root().appendChild(host);
    state.overlay = { host: host, layer: layer };
    return state.overlay;
  }

  // spec: {kinds: {name: {bg, fg, line, style, label, icon, text}}, spans: [{id, kind, start,
  //        end, label?}], labels: bool}
  function highlight(spec) {
    var t0 = performance.now();
    textNodes();
    var t1 = performance.now();
    var kinds = spec.kinds || {};
    state.kinds = kinds;
    var css = "";
    if (window.CSS && CSS.highlights) CSS.highlights.clear();
    var groups = {};
    Object.keys(kinds).forEach(function (k) {
      var s = kinds[k];
      // deco: the line drawn (underline by default; line-through for deleted text,
      // "none" for a fill alone), so a mark is never told by its colour alone.
      var deco = s.deco || "underline";
      css += "::highlight(" + NS + "-" + k + "){background-color:" + s.bg +
        " !important;color:" + (s.text || "inherit") + " !important;" +
        (deco === "none" ? "text-decoration:none !important;" :
         "text-decoration:" + deco + " " + (s.style || "solid") + " " + s.line + " " +
         (s.thick || "2px") + " !important;text-underline-offset:3px !important;") + "}\n";
      groups[k] = [];
    });
    css += "::highlight(" + NS + "-focus){background-color:rgba(255,255,0,.55) !important;" +
      "color:#000 !important;}\n";
    css += FIND_CSS;
    // Room above each line for the verdict badges (layout only; the text is unchanged).
    if (wantsRoom() || (spec.labels !== false &&
                        (spec.spans || []).some(function (sp) { return sp.label; }))) {
      css += ROOM;
    }
    ensureStyle(css);
    state.spans = spec.spans || [];
    state.ranges = {};
    // upTo (the first part of a held page, firstScreen): a span ending past the text read
    // so far is neither made nor failed; it is drawn with the whole page.
    var upTo = typeof spec.upTo === "number" ? spec.upTo : null;
    var made = 0, failed = [], later = 0;
    state.spans.forEach(function (sp) {
      if (upTo !== null && sp.end > upTo) { later++; return; }
      var r = rangeFor(sp.start, sp.end);
      if (!r) { failed.push(sp.id); return; }
      state.ranges[sp.id] = r;
      (groups[sp.kind] = groups[sp.kind] || []).push(r);
      made++;
    });
    if (window.CSS && CSS.highlights && window.Highlight) {
      Object.keys(groups).forEach(function (k) {
        if (!groups[k].length) return;
        // Added one by one: a spread of 50,000 Ranges or more overflows the call stack.
        var h = new Highlight();
        for (var i = 0; i < groups[k].length; i++) h.add(groups[k][i]);
        h.priority = (kinds[k] && kinds[k].priority) || 0;
        CSS.highlights.set(NS + "-" + k, h);
      });
    }
    state.labels = spec.labels !== false;
    var t2 = performance.now();
    placeBadges();
    var t3 = performance.now();
    drawLabels();
    var t4 = performance.now();
    early.reveal();  // a held page whose first part was not drawn alone: shown with its marks
    // ms: where the time went (text nodes, ranges and highlights, badge homes, badges).
    return { made: made, failed: failed, length: state.length, later: later,
             ms: [t1 - t0, t2 - t1, t3 - t2, t4 - t3].map(Math.round) };
  }

  // Where each badge belongs: in a lazily laid out document, the block its span starts in
  // (drawn while that block is shown); else (or outside every such block) always.
  function placeBadges() {
    state.homes = new Map();
    state.homeOfId = new Map();
    state.always = [];
    state.spans.forEach(function (sp) {
      if (!sp.label && !sp.mark) return;
      var r = state.ranges[sp.id];
      if (!r) return;
      var home = early.lazy ? homeFor(r.startContainer) : null;
      if (!home) { state.always.push(sp); return; }
      state.homeOfId.set(sp.id, home);
      var list = state.homes.get(home);
      if (!list) state.homes.set(home, list = []);
      list.push(sp);
    });
  }

  // The block a badge starting in ``n`` belongs to: the one holding it, else (text between
  // blocks, where a deleted paragraph leaves its caret mark) the block beside it. Drawing a
  // badge outside every block would lay out skipped blocks all over the page.
  function homeFor(n) {
    var el = n.nodeType === Node.ELEMENT_NODE ? n : n.parentElement;
    var home = el ? el.closest(early.blocks) : null;
    for (var s = n; !home && s && s !== body(); s = s.parentElement) {
      var next = s.nextElementSibling, sib = next || s.previousElementSibling;
      // a group of blocks (arl-early.js): the block of it beside ``s``
      if (sib && sib.localName === early.group) {
        sib = sib === next ? sib.firstElementChild : sib.lastElementChild;
      }
      if (sib && sib.matches(early.blocks)) home = sib;
    }
    return home;
  }

  // The badges to draw now: those always drawn, those of the blocks shown, and those of
  // ``pinned`` (the block the last jump went to: drawn before its first frame says it is
  // shown, and kept while the blocks around it are laid out).
  function badgesNow(pinned) {
    var out = state.always.slice(0, MAX_ALWAYS);
    if (!state.homes || !state.homes.size) return out;
    var seen = new Set();
    function add(home) {
      if (seen.has(home)) return;
      seen.add(home);
      var list = state.homes.get(home);
      if (list) out = out.concat(list);
    }
    early.shown.forEach(add);
    if (pinned) state.pinned = pinned;
    if (state.pinned) add(state.pinned);
    return out;
  }

  // Shown blocks change as the user scrolls (and sizes change as skipped blocks are laid
  // out): the badges are drawn again once per frame, after the layout.
  var redrawPending = false;
  function scheduleRedraw() {
    if (redrawPending) return;
    redrawPending = true;
    requestAnimationFrame(function () {
      redrawPending = false;
      drawLabels();
    });
  }
  early.listeners.push(function () { if (state.homes) scheduleRedraw(); });

  function drawLabels(pinned) {
    var t0 = performance.now();
    try { drawLabelsNow(pinned); } finally {
      state.drawMs = performance.now() - t0;
    }
  }

  function drawLabelsNow(pinned) {
    var ov = ensureOverlay();
    ov.layer.textContent = "";
    state.redraws++;
    if (!state.labels) return;
    var sx = window.scrollX, sy = window.scrollY;
    var frag = mk.fragment.call(document);
    badgesNow(pinned).forEach(function (sp) {
      var r = state.ranges[sp.id];
      if (!r) return;
      var rects = r.getClientRects();
      var rect = rects.length ? rects[0] : r.getBoundingClientRect();
      var k = state.kinds[sp.kind] || {};
      if (!sp.label || r.collapsed) {
        if (!rect.width && !rect.height && !rect.top && !rect.left) {
          // A collapsed range at a text-node boundary has no box: measure the character
          // before it (or after it) and stand at its edge instead of the page's corner.
          rect = edgeRect(r) || rect;
          if (!rect.width && !rect.height && !rect.top && !rect.left) return;
        }
      }
      if (!sp.label || sp.mark) {  // a caret mark where text was removed
        var m = newElement("span");
        m.className = "m";
        m.style.left = (rect.left + sx - 1) + "px";
        m.style.top = (rect.top + sy) + "px";
        m.style.height = Math.max(rect.height, 12) + "px";
        m.style.background = k.line || "#E69F00";
        frag.appendChild(m);
        if (!sp.label) return;
      }
      var b = newElement("span");
      b.className = sp.id === state.focusId ? "b focus" : "b";
      b.dataset.id = sp.id;
      b.textContent = sp.label;
      b.style.left = (rect.left + sx) + "px";
      b.style.top = (rect.top + sy - 1) + "px";
      b.dataset.at = rect.top + sy - 1;  // where it stands above its text (page px)
      b.dataset.below = rect.bottom + sy;  // the bottom of its text's first box (page px)
      b.style.background = k.badge || k.line || "#000";
      b.style.color = k.badgeText || "#fff";
      frag.appendChild(b);
    });
    ov.layer.appendChild(frag);
    if (state.observed) state.drawnOn = bodySize();
    var badges = ov.layer.children;
    spreadBadges(badges);
    // Keep every badge inside the page's width (no sideways scrolling because of us).
    var maxX = root().clientWidth + sx - 2;
    for (var i = 0; i < badges.length; i++) {
      var bw = badges[i].offsetWidth, left = parseFloat(badges[i].style.left);
      if (left + bw > maxX) badges[i].style.left = Math.max(sx, maxX - bw) + "px";
    }
    for (var j = 0; j < badges.length; j++) {
      if (badges[j].dataset.at) badges[j].dataset.h = badges[j].offsetHeight;
    }
    keepBadgesInside();
  }

  // Two badges whose texts start close together on one line ("May 😀 Please read", three
  // short sentences) stood one over the other, the first hidden: on each line, left to
  // right, a badge starts no sooner than BADGE_GAP after the one before it ends.
  var BADGE_GAP = 3;  // CSS px
  function spreadBadges(badges) {
    // Every width is read before any badge moves: a read after a move would lay the
    // overlay out again, once per badge.
    var rows = {}, shared = [];
    for (var i = 0; i < badges.length; i++) {
      var b = badges[i];
      if (!b.dataset.at) continue;  // a caret mark, not a badge
      var row = rows[b.dataset.at];
      if (!row) row = rows[b.dataset.at] = [];
      else if (row.length === 1) shared.push(row);
      row.push({b: b, left: parseFloat(b.style.left), width: 0});
    }
    shared.forEach(function (row) {
      row.forEach(function (x) { x.width = x.b.offsetWidth; });
    });
    shared.forEach(function (row) {
      row.sort(function (x, y) { return x.left - y.left; });
      var end = -Infinity;
      row.forEach(function (x) {
        var left = Math.max(x.left, end + BADGE_GAP);
        if (left !== x.left) x.b.style.left = left + "px";
        end = left + x.width;
      });
    });
  }

  // A badge stands above its text (translateY(-100%)); for text on the view's first line
  // (the page's first line, or a line the view is scrolled to) that is above the view's
  // top edge, and the badge was cut. Brought down over the top of its line, it hid the
  // line's first words. Such a badge stands below its text's first box instead, in the
  // room the labels' line height leaves under each line, while some of its text is in
  // view: inside the view, never over its text; its outline (a chosen comment's) is kept
  // clear too. Run after each drawing, scroll and change of focus.
  var BADGE_EDGE = 1, FOCUS_EDGE = 5;  // CSS px between a badge and the view's top, or its text
  function keepBadgesInside() {
    if (!state.overlay) return;
    var sy = window.scrollY, badges = state.overlay.layer.children;
    for (var i = 0; i < badges.length; i++) {
      var b = badges[i];
      if (!b.dataset.at) continue;  // a caret mark, not a badge
      var at = parseFloat(b.dataset.at), below = parseFloat(b.dataset.below);
      var edge = b.classList.contains("focus") ? FOCUS_EDGE : BADGE_EDGE;
      var h = parseFloat(b.dataset.h || "0");
      var least = sy + edge + h;  // its least bottom, whole inside the view
      // no room above its text inside the view: under its text (top is the badge's bottom)
      var top = at < least && below > sy ? below + edge + h : at;
      if (parseFloat(b.style.top) !== top) b.style.top = top + "px";
    }
  }
  var insidePending = false;
  listen.call(window, "scroll", function () {
    linkStillMoving();
    if (insidePending) return;
    insidePending = true;
    requestAnimationFrame(function () { insidePending = false; keepBadgesInside(); });
  }, { passive: true });

  var relayoutTimer = null;
  listen.call(window, "resize", function () {
    clearTimeout(relayoutTimer);
    relayoutTimer = setTimeout(drawLabels, 100);
  });
  // A skipped block laid out at last moves what follows it (and, above the view, the
  // view's scroll anchoring moves the page under the badges, which stand in page
  // coordinates): the badges follow in the same frame. A ResizeObserver is told after
  // the frame's layout and before its paint, so the badges are drawn again there, never
  // shown a frame where their text is not (a comment picked far down lost its badge for a
  // frame or two, 60-150 ms, as the blocks above it were laid out).
  function observeBody() {
    if (state.observed || !early.lazy || !window.ResizeObserver || !body()) return;
    state.observed = true;
    new ResizeObserver(function () {
      // (not when the badges were drawn on this very layout: a drawing in this frame's
      // animation callbacks laid the page out first)
      if (state.homes && bodySize() !== state.drawnOn) drawLabels();
    }).observe(body());
  }
  // The body's size ("width x height", CSS px), the layout the badges were drawn on.
  function bodySize() {
    var r = body().getBoundingClientRect();
    return r.width + "x" + r.height;
  }

  // The block a span's badge belongs to (null: always drawn, or no badge).
  function homeOf(id) {
    return (state.homeOfId && state.homeOfId.get(id)) || null;
  }

  function focus(id) {
    state.focusId = id;
    var r = state.ranges[id];
    if (window.CSS && CSS.highlights) CSS.highlights.delete(NS + "-focus");
    if (state.overlay) {
      state.overlay.layer.querySelectorAll(".b").forEach(function (b) {
        b.classList.toggle("focus", b.dataset.id === id);
      });
      keepBadgesInside();  // a chosen badge's outline needs room above it
    }
    if (!r) return false;
    if (window.Highlight) CSS.highlights.set(NS + "-focus", new Highlight(r));
    var rect = r.getBoundingClientRect();
    if (r.collapsed && !rect.width && !rect.height) {
      // A point (where a deleted comment's text stood) has no box: the character beside it.
      var edge = edgeRect(r);
      if (edge) rect = {top: edge.top, bottom: edge.top + edge.height, width: 0, height: edge.height};
    }
    // Only a span out of view is scrolled to: one already on screen stays where it is (the
    // page does not jump when a comment just added there is selected). A view with no
    // height yet (its tab not shown) has no "in view": it scrolls when it gets one.
    if (!window.innerHeight) {
      if (!state.focusWaits) {
        state.focusWaits = true;
        window.addEventListener("resize", function again() {
          if (!window.innerHeight) return;
          window.removeEventListener("resize", again);
          state.focusWaits = false;
          if (state.focusId) focus(state.focusId);
        });
      }
      return true;
    }
    var shown = rect.top >= 0 && rect.bottom <= window.innerHeight && (rect.width || rect.height);
    if (!shown) {
      var third = window.innerHeight / 3;
      window.scrollTo({ top: Math.max(0, rect.top + window.scrollY - third),
                        left: 0, behavior: "instant" });
      settle(function () {
        var now = r.getBoundingClientRect();
        if (r.collapsed && !now.width && !now.height) {
          var e = edgeRect(r);
          return e ? e.top : null;
        }
        return now.top;
      }, third);
      // Its badge at once, before the next frame says its block is shown.
      if (state.homes && state.homes.size) drawLabels(homeOf(id));
    }
    return true;
  }

  // The offset of the first character shown at the top of the view (for panes that
  // scroll together), or null when the page has no text there.
  var PROBE_Y = 6;
  function topOffset() {
    textNodes();
    var b = body();
    if (!b || !state.length) return null;
    var x = Math.max(8, b.getBoundingClientRect().left + 4);
    for (var y = PROBE_Y; y < Math.min(window.innerHeight, 400); y += 12) {
      var r = document.caretRangeFromPoint ? document.caretRangeFromPoint(x, y) : null;
      if (!r || !b.contains(r.startContainer)) continue;
      var off = offsetOf(r.startContainer, r.startOffset);
      if (off !== null) return off;
    }
    return null;
  }

  // The character at the top of the view, where it stands: {off, y (CSS px from the
  // view's top), top (the page is at its very top)}; null when there is none.
  function topPlace() {
    var place = sampleTop();
    return place && { off: place.off, y: place.y, top: place.top, moves: textMoves.count,
                      hold: textMoves.epoch };
  }
  function topPlaceNow() {
    var off = topOffset();
    if (off === null) return null;
    return { off: off, y: placeOf(off), top: window.scrollY <= 0 };
  }
  // For the scroll link (app/scroll_link.py): how many times the text at the top of the
  // view moved in it since the link's last hold of the page (``topPlace().moves``, and
  // ``.hold``: which hold). The character is read at each ask, against the one read
  // before: a scroll that left it where it was (Chromium's scroll anchoring, moving the
  // page under a text that stays put as the blocks above the view are laid out at last)
  // is no move. Nor is a move while the link holds the page (``linkQuiet(ms, hold)``: a
  // move of its own, or a jump to a comment), a hold that lasts while the page goes on
  // scrolling by itself (each scroll adds LINK_STILL_MS, up to LINK_HOLD_MAX_MS from the
  // hold: the blocks a jump brings near are laid out over several frames, which may be
  // long), nor the page putting the text back where a scroll of ours asked (``settle``).
  // Where the hold ends, the character is read afresh.
  var LINK_STILL_MS = 150, LINK_HOLD_MAX_MS = 1000;
  var textMoves = { count: 0, last: null, quietUntil: 0, capUntil: 0, timer: null, epoch: 0 };
  function linkHeld() { return performance.now() < textMoves.quietUntil; }
  function linkStillMoving() {
    if (!linkHeld()) return;
    var until = Math.min(textMoves.capUntil, performance.now() + LINK_STILL_MS);
    textMoves.quietUntil = Math.max(textMoves.quietUntil, until);
  }
  function sampleTop() {
    var place = topPlaceNow(), last = textMoves.last;
    var same = last && place && last.off === place.off && Math.abs(last.y - place.y) <= 1;
    if (!same && !linkHeld()) textMoves.count++;
    textMoves.last = place;
    return place;
  }
  // The text at the top read afresh, no move counted (a page still loading is not read).
  function noteTop() {
    if (state.nodes) textMoves.last = topPlaceNow();
  }
  // ``hold``: the link's number for this hold; the count starts again from it.
  function linkQuiet(ms, hold) {
    textMoves.epoch = hold;
    textMoves.count = 0;
    var now = performance.now();
    textMoves.quietUntil = Math.max(textMoves.quietUntil, now + (+ms || 0));
    textMoves.capUntil = Math.max(textMoves.quietUntil, now + LINK_HOLD_MAX_MS);
    clearTimeout(textMoves.timer);
    textMoves.timer = setTimeout(function read() {
      var left = textMoves.quietUntil - performance.now();
      if (left > 0) { textMoves.timer = setTimeout(read, left); return; }
      noteTop();  // where the hold left the text
    }, +ms || 0);
    return true;
  }
  // The height (CSS px from the view's top) of the character at ``off``.
  function placeOf(off) {
    textNodes();
    off = Math.max(0, Math.min(off, state.length));
    var r = rangeFor(off, Math.min(off + 1, state.length));
    if (!r) return null;
    var rect = r.getBoundingClientRect();
    if (!rect.width && !rect.height && !rect.top) { r = edgeRect(r); rect = r || rect; }
    return rect.top;
  }
  // Scroll so that the character at ``off`` stands ``y`` CSS px below the top of the
  // view (at the top, PROBE_Y, when ``y`` is not given).
  function scrollToOffset(off, y) {
    var at = placeOf(off);
    if (at === null) return false;
    var want = typeof y === "number" && isFinite(y) ? y : PROBE_Y;
    window.scrollTo({ top: Math.max(0, at + window.scrollY - want), left: 0,
                      behavior: "instant" });
    settle(function () { return placeOf(off); }, want);
    return true;
  }

  // In a document laid out as it is seen, the blocks a scroll brings into view get their
  // real height in the next frame (they counted 3em until then), which moves the text
  // they come before: what a scroll was for (a character at a height) drifts away, by
  // screens after a long jump. So for a few frames after such a scroll, once each frame
  // is laid out, the page is scrolled back to put it where it was asked; a newer scroll of
  // ours takes over. ``top()``: where it stands now (CSS px from the view's top, null
  // when it cannot be measured); ``want``: where it should.
  var SETTLE_FRAMES = 6;
  function settle(top, want) {
    if (!early.lazy) return;
    var token = state.settleToken = (state.settleToken || 0) + 1;
    var left = SETTLE_FRAMES;
    function again() {
      if (token !== state.settleToken || left-- <= 0) return;
      requestAnimationFrame(function () {
        setTimeout(function () {  // after that frame's layout
          if (token !== state.settleToken) return;
          var at = top();
          if (typeof at !== "number" || !isFinite(at)) return;
          if (Math.abs(at - want) > 1) {
            window.scrollTo({ top: Math.max(0, at + window.scrollY - want), left: 0,
                              behavior: "instant" });
            // the text put back where it was asked: no move of the reader's for the link
            if (!linkHeld()) noteTop();
          }
          again();
        }, 0);
      });
    }
    again();
  }

  // Find in the page, over body.textContent (the text the marks count in), so it reaches
  // text not laid out yet (Chromium's own find lays out every skipped block of a long
  // document first: seconds). Case is ignored (Unicode simple case folding) and a space
  // in the words matches any run of white space, as a reader sees it. Every match is
  // painted, the current one stronger and underlined in black (not told by colour alone),
  // and it is scrolled to. Text that no reader sees
  // (inside script, style, noscript, template) is not searched.
  var UNSEEN = { SCRIPT: 1, STYLE: 1, NOSCRIPT: 1, TEMPLATE: 1, TITLE: 1 };
  var MAX_HITS = 100000;
  var found = { words: null, hits: [], at: -1 };
  function unseen(node) {
    var p = node.parentElement;
    return !!(p && UNSEEN[p.tagName]);
  }
  function hitsOf(words) {
    var hits = [];
    var parts = words.trim().split(/\s+/).filter(Boolean).map(function (w) {
      return w.replace(/[.*+?^${}()|[\]\\\/]/g, "\\$&");
    });
    if (!parts.length) return hits;
    var re;
    try { re = new RegExp(parts.join("\\s+"), "giu"); } catch (e) { return hits; }
    var text = bodyText(), m;
    while ((m = re.exec(text)) && hits.length < MAX_HITS) {
      if (!m[0].length) { re.lastIndex++; continue; }
      var i = nodeIndexAt(m.index, false);
      if (!unseen(state.nodes[i])) hits.push([m.index, m.index + m[0].length]);
    }
    return hits;
  }
  function findText(words, backward) {
    textNodes();
    var fresh = words !== found.words;
    if (fresh) {
      if (!state.style || state.style.textContent.indexOf(NS + "-findnow") < 0) {
        ensureStyle((state.style ? state.style.textContent : "") + FIND_CSS);
      }
      found = { words: words, hits: hitsOf(words || ""), at: -1 };
      var hl = window.CSS && CSS.highlights;
      if (hl) { hl.delete(NS + "-find"); hl.delete(NS + "-findnow"); }
      if (hl && window.Highlight && found.hits.length) {
        var all = new Highlight();
        found.hits.forEach(function (h) { var r = rangeFor(h[0], h[1]); if (r) all.add(r); });
        all.priority = 5;
        hl.set(NS + "-find", all);
      }
    }
    var n = found.hits.length;
    if (!n) return { count: 0, at: -1 };
    if (fresh) {
      // The first match at or after the top of the view (the last before it, backward).
      var top = topOffset();
      top = top === null ? 0 : top;
      var k = 0;
      while (k < n && found.hits[k][0] < top) k++;
      found.at = backward ? (k - 1 + n) % n : k % n;
    } else {
      found.at = backward ? (found.at - 1 + n) % n : (found.at + 1) % n;
    }
    var h = found.hits[found.at], r = rangeFor(h[0], h[1]);
    if (r && window.Highlight) {
      var now = new Highlight(r);
      now.priority = 6;
      CSS.highlights.set(NS + "-findnow", now);
      var rect = r.getBoundingClientRect();
      if (rect.top < 0 || rect.bottom > window.innerHeight) {
        window.scrollTo({ top: Math.max(0, rect.top + window.scrollY - window.innerHeight / 3),
                          left: 0, behavior: "instant" });
      }
    }
    return { count: n, at: found.at };
  }
  var FIND_CSS = "::highlight(" + NS + "-find){background-color:rgba(255,215,0,.55) " +
    "!important;color:#000 !important;}\n::highlight(" + NS + "-findnow){background-color:" +
    "#FF9632 !important;color:#000 !important;text-decoration:underline 3px solid #000 " +
    "!important;text-underline-offset:2px;}\n";

  function selectSpan(id) {
    var r = state.ranges[id];
    if (!r) return false;
    var sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(r.cloneRange());
    return true;
  }

  function selectOffsets(start, end) {
    var r = rangeFor(start, end);
    if (!r) return false;
    var sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(r);
    return true;
  }

  // Context is counted in characters (code points), never splitting a surrogate pair.
  function isHigh(c) { return c >= 0xD800 && c <= 0xDBFF; }
  function isLow(c) { return c >= 0xDC00 && c <= 0xDFFF; }
  function stepBack(text, i, n) {
    while (n-- > 0 && i > 0) {
      i -= (i >= 2 && isLow(text.charCodeAt(i - 1)) && isHigh(text.charCodeAt(i - 2))) ? 2 : 1;
    }
    return i;
  }
  function stepForward(text, i, n) {
    while (n-- > 0 && i < text.length) {
      i += (isHigh(text.charCodeAt(i)) && isLow(text.charCodeAt(i + 1))) ? 2 : 1;
    }
    return i;
  }

  // The current selection as an anchor: the quote is the slice of body.textContent
  // (never Selection.toString(), which follows innerText rules).
  function selectionAnchor() {
    var sel = window.getSelection();
    var b = body();
    if (!sel || sel.rangeCount === 0 || sel.isCollapsed || !b) return null;
    var r = sel.getRangeAt(0);
    if (!b.contains(r.commonAncestorContainer) && r.commonAncestorContainer !== b) return null;
    var s = offsetOf(r.startContainer, r.startOffset);
    var e = offsetOf(r.endContainer, r.endOffset);
    if (s === null || e === null || e <= s) return null;
    var text = bodyText();
    return { quote: text.slice(s, e), prefix: text.slice(stepBack(text, s, CONTEXT), s),
             suffix: text.slice(e, stepForward(text, e, CONTEXT)), dom_path: "body",
             start_offset: s, end_offset: e };
  }

  // Selections made here snap to whole words, as word processors do, and lose the spaces
  // at their ends: the word boundaries are the browser's own (Intl.Segmenter, ICU, with
  // its dictionaries for scripts written without spaces: Thai, Chinese, Japanese, Khmer).
  // Holding Alt while selecting keeps the exact characters. Only when the view asked for
  // it (#arl-snap): the document views of a bundle never change a selection.
  function wantsSnap() { return location.hash.indexOf("arl-snap") >= 0; }
  var WINDOW = 200;  // characters looked at around each end for its word
  var isSpace = /\s/;
  function wordAround(text, at, segmenter) {
    // The word-like segment holding the character at ``at`` within a window of text.
    var lo = Math.max(0, at - WINDOW), hi = Math.min(text.length, at + WINDOW);
    var segs = segmenter.segment(text.slice(lo, hi));
    var seg = segs.containing(at - lo);
    if (!seg || !seg.isWordLike) return null;
    return [lo + seg.index, lo + seg.index + seg.segment.length];
  }
  function snapped(s, e) {
    var text = bodyText();
    if (typeof Intl === "undefined" || !Intl.Segmenter) return [s, e];
    var lang = root().lang || undefined;
    var seg;
    try { seg = new Intl.Segmenter(lang, { granularity: "word" }); }
    catch (err) { seg = new Intl.Segmenter(undefined, { granularity: "word" }); }
    while (s < e && isSpace.test(text[s])) s++;
    while (e > s && isSpace.test(text[e - 1])) e--;
    if (e <= s) return [s, e];
    var first = wordAround(text, s, seg), last = wordAround(text, e - 1, seg);
    if (first) s = Math.min(s, first[0]);
    if (last) e = Math.max(e, last[1]);
    return [s, e];
  }
  function snapSelection(exact) {
    if (exact || !wantsSnap()) return false;
    var sel = window.getSelection();
    if (!sel || sel.rangeCount === 0 || sel.isCollapsed) return false;
    textNodes();
    var r = sel.getRangeAt(0);
    var s = offsetOf(r.startContainer, r.startOffset);
    var e = offsetOf(r.endContainer, r.endOffset);
    if (s === null || e === null || e <= s) return false;
    var se = snapped(s, e);
    if (se[1] <= se[0] || (se[0] === s && se[1] === e)) return false;
    return selectOffsets(se[0], se[1]);
  }
  listen.call(document, "mouseup", function (ev) { snapSelection(ev.altKey); });
  listen.call(document, "keyup", function (ev) {
    if (ev.key === "Shift") snapSelection(ev.altKey);
  });

  var selTimer = null;
  listen.call(document, "selectionchange", function () {
    clearTimeout(selTimer);
    selTimer = setTimeout(function () {
      if (!state.bridge) return;
      state.bridge.selectionChanged(JSON.stringify(selectionAnchor()));
    }, 60);
  });

  function wantsRoom() { return location.hash.indexOf("arl-labels") >= 0; }

  // The bridge to the view; "ready" (with the text's length) is said once the whole page
  // is read (a held page connects while its first part is shown, and says it later).
  function connect() {
    if (state.connecting || typeof QWebChannel === "undefined" || !own.call(window, "qt") ||
        !qt.webChannelTransport) return;
    state.connecting = true;
    new QWebChannel(qt.webChannelTransport, function (channel) {
      state.bridge = channel.objects.bridge || null;
      announce();
    });
  }
  function announce() {
    if (!state.bridge || !state.complete || state.announced) return;
    state.announced = true;
    state.bridge.pageReady(JSON.stringify({ length: (textNodes(), state.length) }));
  }

  // A held page (#arl-first): the view's server sent the document's first part and holds
  // the rest until its first screen is drawn. The marks of that part are drawn now, when
  // its text is sure to stay the start of the whole text: the parser only ever adds text
  // after what it has read, except foster parenting (text misplaced in a table goes before
  // the table), so no table may be open where the part ends. ``path``: the document's own
  // path (a call that reached the page being replaced waits). Answers {first, made, ...}
  // (highlight's answer), {wait: why, length}, {unsafe: why} or {complete: true}.
  var HTML_NS = "http://www.w3.org/1999/xhtml";
  function firstScreen(spec, path) {
    if (location.pathname !== path) return { wait: "another page" };
    if (state.complete) return { complete: true };
    var b = body();
    if (!b) return { wait: "no body yet", length: 0 };
    var last = b;
    while (last.lastChild) last = last.lastChild;
    for (var n = last; n && n !== b; n = n.parentNode) {
      if (n.nodeType === 1 && n.namespaceURI === HTML_NS && n.localName === "table") {
        return { unsafe: "a table is open where the first part ends" };
      }
    }
    state.nodes = null;
    textNodes();
    var length = state.length;
    // The first screen is all there only when the part read reaches below the view.
    if (!length || root().scrollHeight <= window.scrollY + window.innerHeight) {
      return { wait: "the part read does not fill the view", length: length };
    }
    observeBody();
    early.fixed = last;  // the blocks up to here hold Ranges now: arl-early.js never moves them
    var out;
    try {
      out = highlight(Object.assign({}, spec, { upTo: length }));
    } finally {
      early.reveal();  // the text and its marks in one frame
    }
    state.early = { length: length, text: bodyText(), same: null };
    out.first = true;
    return out;
  }

  // The whole page is read (DOMContentLoaded): the text is counted again over all of it.
  function finish() {
    if (state.complete) return;
    state.complete = true;
    state.nodes = null;
    state.index = null;
    if (state.early) {
      // Whether the first part's text was the start of the whole text (for the tests).
      state.early.same = bodyText().slice(0, state.early.length) === state.early.text;
    }
    observeBody();
    plainTextDirection();
    // Reserve the room before the first layout when the view asked for labels.
    if (wantsRoom() && !state.style) ensureStyle(ROOM);
    connect();
    announce();
  }

  var api = {
    ns: NS,
    markBoxes: function () {  // where the caret marks stand (for tests and the smoke test)
      if (!state.overlay) return [];
      return [].map.call(state.overlay.layer.querySelectorAll(".m"), function (m) {
        return [parseFloat(m.style.left), parseFloat(m.style.top)];
      });
    },
    // For tests and benchmarks: whether the page is laid out as it is seen, how many
    // times the badges were drawn, and the badges on screen now ({id: [left, top]},
    // viewport coordinates).
    lazy: function () { return !!early.lazy; },
    redraws: function () { return state.redraws; },
    // How the last badge drawing went: milliseconds, badges drawn, always-drawn spans.
    drawStats: function () {
      return { ms: Math.round(state.drawMs || 0), drawn: state.overlay ?
               state.overlay.layer.children.length : 0, always: state.always.length,
               shown: early.shown.size };
    },
    // The badges' boxes as drawn ({id: [top, bottom]}, viewport CSS px).
    badgeBoxes: function () {
      var out = {};
      if (!state.overlay) return out;
      [].forEach.call(state.overlay.layer.querySelectorAll(".b"), function (b) {
        var r = b.getBoundingClientRect();
        out[b.dataset.id] = [r.top, r.bottom];
      });
      return out;
    },
    // The badges' edges as drawn ({id: [left, right, top]}, viewport CSS px).
    badgeEdges: function () {
      var out = {};
      if (!state.overlay) return out;
      [].forEach.call(state.overlay.layer.querySelectorAll(".b"), function (b) {
        var r = b.getBoundingClientRect();
        out[b.dataset.id] = [r.left, r.right, r.top];
      });
      return out;
    },
    badgesOnScreen: function () {
      var out = {};
      if (!state.overlay) return out;
      var sx = window.scrollX, sy = window.scrollY, h = window.innerHeight;
      [].forEach.call(state.overlay.layer.querySelectorAll(".b"), function (b) {
        var x = parseFloat(b.style.left) - sx, y = parseFloat(b.style.top) - sy;
        if (y >= 0 && y <= h + 20) out[b.dataset.id] = [x, y];
      });
      return out;
    },
    find: findText,
    highlight: highlight, focus: focus, selectSpan: selectSpan, selectOffsets: selectOffsets,
    selectionAnchor: selectionAnchor, rangeFor: rangeFor,
    topOffset: topOffset, scrollToOffset: scrollToOffset, topPlace: topPlace, placeOf: placeOf,
    linkQuiet: linkQuiet,
    snapSelection: snapSelection, snapped: function (s, e) { textNodes(); return snapped(s, e); },
    bodyText: bodyText, firstScreen: firstScreen,
    complete: function () { return !!state.complete; },
    // Whether a held page's first part was the start of its whole text (null: not held).
    firstPartHeld: function () { return state.early ? state.early.same : null; },
    length: function () { textNodes(); return state.length; },
    reset: function () { state.nodes = null; }
  };
  // An own, fixed property of this world's window: it shadows any element named __arl.
  function define() {
    Object.defineProperty(window, "__arl", { value: Object.freeze(api), writable: false,
                                             configurable: false, enumerable: false });
  }
  // A plain text (served as text/plain, or a bundle's .html wrapper of its .txt: a body
  // that is one bare <pre>) has no markup to say its direction: each of its paragraphs
  // (lines) takes the direction of its first strong letter, as dir="auto" would per block
  // (UAX #9 rules P2-P3, CSS unicode-bidi: plaintext), so a Persian, Arabic or Hebrew line
  // reads right to left. Only a style changes: the text and its offsets stay the same.
  function plainTextDirection() {
    var b = body();
    if (!b) return;
    var pre = b.firstElementChild;
    if (!pre || pre.tagName !== "PRE" || pre.nextElementSibling) return;
    var plain = document.contentType === "text/plain" ||
                (!pre.attributes.length && !b.attributes.length);
    if (!plain) return;
    pre.style.setProperty("unicode-bidi", "plaintext", "important");
    pre.style.setProperty("text-align", "start", "important");
  }
  // This script runs when the document is created (after arl-early.js). A held page has
  // the helper at once, for its first screen; any other page gets it once it is read
  // whole (DOMContentLoaded), as before.
  var held = location.hash.indexOf("arl-first") >= 0;
  if (document.readyState !== "loading") {
    define();
    finish();
  } else {
    if (held) { define(); connect(); }
    listen.call(document, "DOMContentLoaded", function () {
      if (!held) define();
      finish();
    }, { once: true });
  }
})();
