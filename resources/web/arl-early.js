// Agent Review Loop: the first of our page scripts, run in the isolated ApplicationWorld
// when the document is created, before the parser has read a byte of it.
//
// A long document (the view asks with #arl-lazy) is laid out as it is seen: its text blocks
// get CSS content-visibility:auto, so Chromium styles, lays out and paints only the blocks
// on screen (and near it), and skips the rest until they are scrolled to. Only the layout
// changes: the text nodes, body.textContent and every offset are the same (the document's
// elements too, but for the groups below); Find in the page and Range geometry still reach
// the skipped text. The blocks chosen hold
// text only in normal flow (paragraphs, headings, lists as a whole, quotations, figures)
// under a plain block container, so containing them changes nothing a reader sees.
//
// Which blocks are shown is recorded from the first frame on (the
// contentvisibilityautostatechange events fire while the page is still being read): the
// page helper (arl-page.js) draws the verdict badges of those blocks only, and follows the
// events as the user scrolls.
//
// Chromium's cost for content-visibility:auto grows with the number of such blocks under
// one parent: each layout that changes which blocks are shown reads every one of them again
// (a flat page of 7,000 paragraphs: a 55-130 ms frame per screen scrolled, against 17-25 ms
// laid out whole). So once the page is read (DOMContentLoaded) a container of many blocks
// has them grouped, in place, about the square root of their number to a group, into
// elements of a random name that also get content-visibility:auto (groupBlocks below):
// a scroll then reads the groups and the blocks of one group, not every block. Grouping
// moves elements, which could change what the document's own CSS says of them, so it is
// undone unless it provably changes nothing a reader sees: every rule that looks at an
// element's parent, siblings or place is matched again by Chromium itself and must match
// the same elements; a group starts and ends only where the one margin it keeps is the one
// the two blocks' margins collapse to; its own style is unset (CSS all: unset).
//
// The room above each line for the badges (#arl-labels) is reserved here too, so the first
// layout already has it.
(function () {
  "use strict";
  var own = Object.prototype.hasOwnProperty;
  if (own.call(window, "__arlEarly")) return;
  var hash = location.hash;
  var HTML_NS = "http://www.w3.org/1999/xhtml";
  // The document's own names can shadow its methods (<img name="querySelectorAll"> is
  // document.querySelectorAll): the grouping, run once the document is read, calls them
  // from the prototype.
  var DP = Document.prototype;
  var find = { all: DP.querySelectorAll, one: DP.querySelector, make: DP.createElementNS,
               sheets: Object.getOwnPropertyDescriptor(DP, "styleSheets").get };
  function findAll(sel) { return find.all.call(document, sel); }
  // The groups' element name, random per page load: no stylesheet of the document names it.
  var GROUP = (function () {
    var a = new Uint32Array(2);
    crypto.getRandomValues(a);
    return "arl-g" + a[0].toString(36) + a[1].toString(36);
  })();
  // The program's dark scheme (#arl-dark): the page's root is marked arl-dark, for a page
  // of this program's own (the scorecard) that has dark rules under that mark. A document
  // under review has none and keeps its author's colours.
  if (hash.indexOf("arl-dark") >= 0) {
    var markDark = function () {
      if (!document.documentElement) return false;
      document.documentElement.classList.add("arl-dark");
      return true;
    };
    if (!markDark()) {
      new MutationObserver(function (_records, observer) {
        if (markDark()) observer.disconnect();
      }).observe(document, { childList: true });
    }
  }
  var KINDS = ":is(p, h1, h2, h3, h4, h5, h6, ul, ol, dl, blockquote, figure, address)";
  var CONTAINERS = ":is(body, div, section, article, main, header, footer, aside, nav)";
  var BLOCKS = ":is(body, div, section, article, main, header, footer, aside, nav, " + GROUP +
    ") > " + KINDS;
  // shown: the blocks laid out now (their own last state shown, and their group's too);
  // fixed: set by the page helper where it drew the first part's marks (the blocks up to
  // it are never moved: moving a node would collapse the Ranges in it).
  var early = { lazy: hash.indexOf("arl-lazy") >= 0, blocks: BLOCKS, shown: new Set(),
                listeners: [], group: GROUP, groups: 0, groupMs: 0, ungrouped: "",
                fixed: null };
  var ownShown = new Set();  // blocks whose own last state is shown
  var hiddenGroups = new Set();  // groups whose last state is skipped
  var css = "";
  if (early.lazy) {
    // auto 3em: a block never shown yet counts 3em high; once shown, its real height.
    css += BLOCKS + "{content-visibility:auto;contain-intrinsic-block-size:auto 3em;}\n";
    // A group keeps one margin at each edge (see planGroups).
    css += GROUP + " > :first-child{margin-block-start:0 !important;}\n";
    css += GROUP + "[data-end] > :last-child{margin-block-end:0 !important;}\n";
  }
  if (hash.indexOf("arl-labels") >= 0) css += "body, body *{line-height:2.3 !important;}\n";
  if (css) {
    try {
      var sheet = new CSSStyleSheet();
      sheet.replaceSync(css);
      document.adoptedStyleSheets = document.adoptedStyleSheets.concat([sheet]);
    } catch (e) {
      early.lazy = false;  // no constructable sheets: the document is laid out whole
    }
  }
  if (early.lazy) {
    EventTarget.prototype.addEventListener.call(document, "contentvisibilityautostatechange",
      function (ev) {
        noteState(ev.target, ev.skipped);
        for (var i = 0; i < early.listeners.length; i++) early.listeners[i](ev.target, ev.skipped);
      }, true);
    EventTarget.prototype.addEventListener.call(document, "DOMContentLoaded", function () {
      try { groupBlocks(); } catch (e) { early.ungrouped = "failed: " + e; }
    }, { once: true });
  }

  // A block skipped inside a group keeps its own state (Chromium tells nothing of the
  // blocks of a group it skips or shows again): a block is shown when it and its group are.
  function noteState(el, skipped) {
    if (el.localName === GROUP) {
      if (skipped) hiddenGroups.add(el); else hiddenGroups.delete(el);
      for (var c = el.firstElementChild; c; c = c.nextElementSibling) {
        if (skipped) early.shown.delete(c); else if (ownShown.has(c)) early.shown.add(c);
      }
      return;
    }
    if (skipped) {
      ownShown.delete(el);
      early.shown.delete(el);
    } else {
      ownShown.add(el);
      if (!hiddenGroups.has(el.parentNode)) early.shown.add(el);
    }
  }

  // ---- grouping -----------------------------------------------------------------------

  var MIN_BLOCKS = 400;  // a container with fewer blocks is left as it is (a 9 ms frame)
  var MIN_GROUP = 16;
  var MAX_RULES = 200;  // rules to match again; a page with more is left as it is
  // The selectors whose matching grouping can change: combinators other than a plain
  // descendant one between named compounds, pseudo-classes that look at siblings, children
  // or what an element is not, and attribute selectors (a group matches :not(.x), *, :is(*)
  // and [style] on the left of a descendant combinator).
  var STRUCTURAL = /[>+~*[]|:(?:nth-|first-child|last-child|only-child|first-of-type|last-of-type|only-of-type|empty|has\(|not\(|is\(|where\(|matches\(|-webkit-any\()/i;
  // Pseudo-elements, for the element they come from (li:before is matched as li).
  var PSEUDO_ELEMENT = /::?(?:before|after|marker|first-line|first-letter|placeholder|selection|backdrop|file-selector-button|target-text|spelling-error|grammar-error|details-content|-webkit-[a-z-]+)(?![\w-])/gi;

  function groupBlocks() {
    var t0 = performance.now();
    var rules = structuralRules();
    if (rules === null) return;
    var counts = new Map();
    var all = findAll(CONTAINERS + " > " + KINDS);
    for (var i = 0; i < all.length; i++) {
      var p = all[i].parentNode;
      counts.set(p, (counts.get(p) || 0) + 1);
    }
    var before = rules.map(matched);
    // First every plan (styles and margins read on one layout), then every move, then the
    // margins checked on one layout again: reading a margin lays the page out, so reading
    // one after each move cost 1.3-1.7 s on a page of 7,000 blocks.
    var runs = [];
    counts.forEach(function (n, parent) {
      if (n >= MIN_BLOCKS && plainFlow(parent)) runs = runs.concat(planGroups(parent, n));
    });
    var wrapped = runs.map(function (run) {
      return run.map(function (plan) { return wrap(plan[0], plan[1], plan[2]); });
    });
    var made = [];
    wrapped.forEach(function (groups) {
      // (the margins dropped by the sheet above, unless the document's own !important rule
      // outranks it there: then the run stays as it was, its groups' edges assumed them)
      if (groups.every(edgesKept)) made = made.concat(groups); else groups.forEach(ungroup);
    });
    if (!made.length) { early.ungrouped = "no run of blocks to group"; return; }
    for (var r = 0; r < rules.length; r++) {
      if (!sameElements(before[r], matched(rules[r]))) {
        made.forEach(ungroup);
        early.ungrouped = "a rule would read differently: " + rules[r];
        return;
      }
    }
    early.groups = made.length;
    early.groupMs = Math.round(performance.now() - t0);
  }

  // The page's rules that grouping could change, each a selector without pseudo-elements;
  // null when grouping is not safe to tell (a sheet not readable or still loading, an
  // @import or @scope, a selector Chromium cannot match, too many rules).
  function structuralRules() {
    var out = [];
    if (find.one.call(document, 'link[rel~="stylesheet" i]')) {
      early.ungrouped = "a linked stylesheet";
      return null;
    }
    function walk(list) {
      for (var i = 0; i < list.length; i++) {
        var rule = list[i];
        if (rule instanceof CSSImportRule || (window.CSSScopeRule && rule instanceof CSSScopeRule)) {
          throw new Error("an @import or @scope rule");
        }
        var sel = rule instanceof CSSStyleRule ? rule.selectorText : "";
        if (sel.indexOf("&") >= 0) throw new Error("a nested rule: " + sel);
        if (STRUCTURAL.test(sel)) {
          var plain = sel.replace(PSEUDO_ELEMENT, ":where(*)");
          if (plain.indexOf("::") >= 0) throw new Error("a pseudo-element: " + sel);
          find.one.call(document, plain);  // throws when Chromium cannot match it
          out.push(plain);
        }
        if (rule.cssRules) walk(rule.cssRules);
      }
    }
    try {
      var sheets = find.sheets.call(document);
      for (var s = 0; s < sheets.length; s++) walk(sheets[s].cssRules);
    } catch (e) {
      early.ungrouped = "the page's CSS cannot be read: " + e.message;
      return null;
    }
    if (out.length > MAX_RULES) { early.ungrouped = "too many rules to match"; return null; }
    return out;
  }

  function matched(sel) {
    var out = [];
    var found = findAll(sel);
    for (var i = 0; i < found.length; i++) {
      if (found[i].localName !== GROUP) out.push(found[i]);  // a group's own style is unset
    }
    return out;
  }

  function sameElements(a, b) {
    if (a.length !== b.length) return false;
    for (var i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    return true;
  }

  // A container whose children are laid out one below the other in normal flow, whose
  // white space between them makes no box: a group there lays out as its blocks did.
  function plainFlow(el) {
    var cs = getComputedStyle(el);
    return (cs.display === "block" || cs.display === "flow-root" || cs.display === "list-item") &&
      cs.columnCount === "auto" && cs.columnWidth === "auto" &&
      (cs.whiteSpace === "normal" || cs.whiteSpace === "nowrap");
  }

  // A block a group may hold: in normal flow, block-level, not put in a named slot of a
  // shadow root, and not the first part's.
  function movable(el) {
    if (!el.matches(KINDS) || el.hasAttribute("slot")) return false;
    var f = early.fixed;
    if (f && (el === f || el.contains(f) ||
              (el.compareDocumentPosition(f) & Node.DOCUMENT_POSITION_FOLLOWING))) return false;
    var cs = getComputedStyle(el);
    return (cs.display === "block" || cs.display === "list-item" || cs.display === "flow-root") &&
      cs.cssFloat === "none" && (cs.position === "static" || cs.position === "relative");
  }

  // [block-start, block-end] margins in CSS px as computed (CSS Typed OM: no layout is
  // needed, unlike getComputedStyle's used values); NaN where not a length in px (a
  // percentage, auto), which makes no cut.
  function margins(el) {
    var map = el.computedStyleMap();
    return [px(map.get("margin-block-start")), px(map.get("margin-block-end"))];
  }
  function px(v) {
    return v && v.unit === "px" ? v.value : NaN;
  }

  // The groups to make of ``parent``'s blocks (``n`` of them), run by run (movable blocks
  // with only white space or comments between): [[[first, last, ends the run], ...], ...].
  function planGroups(parent, n) {
    var size = Math.max(MIN_GROUP, Math.ceil(Math.sqrt(n)));
    var runs = [], run = [], prevM = null, clean = true;
    for (var c = parent.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === Node.COMMENT_NODE) continue;
      if (c.nodeType === Node.TEXT_NODE) {
        if (/[^ \t\n\r\f]/.test(c.data)) clean = false;
        continue;
      }
      if (c.nodeType !== Node.ELEMENT_NODE || !movable(c)) {
        runs.push(groupRun(run, size));
        run = [];
        clean = true;
        continue;
      }
      var m = margins(c);
      // Between two blocks the two margins collapse to the larger (CSS 2, 8.3.1). Where a
      // group starts, its first block loses its start margin (the end margin before it
      // stays: "start"); where the last group of a run ends, its last block loses its end
      // margin (the start margin after it stays: "end"). A cut is one or the other only
      // where the margin kept is the larger, so every block stays where it was.
      var cut = run.length ? {
        start: clean && m[0] >= 0 && prevM[1] >= m[0],
        end: clean && prevM[1] >= 0 && m[0] >= prevM[1]
      } : { start: false, end: false };
      run.push({ el: c, cut: cut });
      prevM = m;
      clean = true;
    }
    runs.push(groupRun(run, size));
    return runs.filter(function (r) { return r.length > 0; });
  }

  // The groups of one run: the last ends at the run's last "end" cut (the blocks after it
  // stay as they are), the first starts at its first "start" cut, and between them each
  // group of about ``size`` blocks ends at a "start" cut, where the next one begins.
  function groupRun(run, size) {
    var last = -1, first = -1, i;
    for (i = run.length - 1; i > 0 && last < 0; i--) if (run[i].cut.end) last = i - 1;
    for (i = 1; i < run.length && first < 0; i++) if (run[i].cut.start) first = i;
    if (first < 0 || last - first + 1 < MIN_GROUP) return [];
    var out = [];
    for (var from = first; from <= last;) {
      var to = last;
      for (var j = from + size; j + MIN_GROUP - 1 <= last; j++) {
        if (run[j].cut.start) { to = j - 1; break; }
      }
      out.push([run[from].el, run[to].el, to === last]);
      from = to + 1;
    }
    return out;
  }

  function wrap(first, last, endsRun) {
    var parent = first.parentNode;
    var g = find.make.call(document, HTML_NS, GROUP);
    var count = 0;
    parent.insertBefore(g, first);
    for (var node = first, next; node; node = next) {
      next = node === last ? null : node.nextSibling;
      if (node.nodeType === Node.ELEMENT_NODE) count++;
      g.appendChild(node);
    }
    var st = { all: "unset", display: "block", "content-visibility": "auto",
               "contain-intrinsic-block-size": "auto " + 3 * count + "em" };
    Object.keys(st).forEach(function (k) { g.style.setProperty(k, st[k], "important"); });
    if (endsRun) g.setAttribute("data-end", "");
    // shown at once when a block of it is (its first state event confirms or says skipped)
    var any = false;
    for (var b = g.firstElementChild; b && !any; b = b.nextElementSibling) any = ownShown.has(b);
    if (!any) hiddenGroups.add(g);
    return g;
  }

  function edgesKept(g) {
    return margins(g.firstElementChild)[0] === 0 &&
      (!g.hasAttribute("data-end") || margins(g.lastElementChild)[1] === 0);
  }

  function ungroup(g) {
    hiddenGroups.delete(g);
    var parent = g.parentNode;
    while (g.firstChild) parent.insertBefore(g.firstChild, g);
    parent.removeChild(g);
  }
  Object.defineProperty(window, "__arlEarly", { value: early, writable: false,
                                                configurable: false, enumerable: false });
})();
