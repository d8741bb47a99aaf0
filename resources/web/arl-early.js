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
// undone unless it provably changes nothing a reader sees: every rule that may look at an
// element's parent, siblings or place is matched again by Chromium itself and must match
// the same elements; a group starts and ends only where the margins it keeps make the gap
// the two blocks' margins collapse to; only blocks laid out and painted alike inside a
// group are moved; its own style is unset (docs/gui.md, "Long documents").
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
               sheets: Object.getOwnPropertyDescriptor(DP, "styleSheets").get,
               inside: Element.prototype.querySelector,
               body: Object.getOwnPropertyDescriptor(DP, "body").get };
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
  var PARENTS = "body, div, section, article, main, header, footer, aside, nav";
  var CONTAINERS = ":is(" + PARENTS + ")";  // the document's own
  var BLOCKS = ":is(" + PARENTS + ", " + GROUP + ") > " + KINDS;
  // shown: the blocks laid out now (their own last state shown, and their group's too);
  // fixed: set by the page helper where it drew the first part's marks (the blocks up to
  // it are never moved: moving a node would collapse the Ranges in it).
  var early = { lazy: hash.indexOf("arl-lazy") >= 0, blocks: BLOCKS, shown: new Set(),
                listeners: [], group: GROUP, groups: 0, groupMs: 0, ungrouped: "",
                fixed: null, ownStyle: null, reveal: function () {} };
  var ownShown = new Set();  // blocks whose own last state is shown
  var hiddenGroups = new Set();  // groups whose last state is skipped
  var css = "";
  if (early.lazy) {
    // auto 3em: a block never shown yet counts 3em high; once shown, its real height.
    css += BLOCKS + "{content-visibility:auto;contain-intrinsic-block-size:auto 3em;}\n";
    // A group's edges drop a margin where it would have collapsed (see cutBetween).
    css += GROUP + "[data-s] > :first-child{margin-block-start:0 !important;}\n";
    css += GROUP + "[data-e] > :last-child{margin-block-end:0 !important;}\n";
  }
  if (hash.indexOf("arl-labels") >= 0) css += "body, body *{line-height:2.3 !important;}\n";
  // A held page (#arl-first) stays unseen until its first screen's marks are made
  // (arl-page.js firstScreen or highlight call early.reveal): its text and its marks come
  // in one frame, never the text alone (the pane's cover does not always stay on top of
  // the page). Opacity on the root, which no descendant can undo: an adopted sheet until
  // the root exists, then the root's own style, !important (an element's own style beats
  // every rule of the document, in a cascade layer or not), with no transition, so the
  // document's transitions neither delay nor fade the reveal; its own style attribute is
  // put back as it was. Shown at the latest five seconds after the page is loaded,
  // should no mark ever come (the whole page's marks follow its load through the UI
  // thread, which a worker can hold up for a second).
  if (hash.indexOf("arl-first") >= 0) veilPage();
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

  function veilPage() {
    var veil = null, root = null, attr = null;
    try {
      veil = new CSSStyleSheet();
      veil.replaceSync(":root{opacity:0 !important;}");
      document.adoptedStyleSheets = document.adoptedStyleSheets.concat([veil]);
    } catch (e) {
      veil = null;  // no constructable sheets: the root's own style alone
    }
    var hide = function () {
      var r = document.documentElement;
      if (root || !r) return !!root;
      root = r;
      attr = r.getAttribute("style");
      r.style.setProperty("opacity", "0", "important");
      r.style.setProperty("transition", "none", "important");
      return true;
    };
    if (!hide()) {
      new MutationObserver(function (_records, observer) {
        if (hide()) observer.disconnect();
      }).observe(document, { childList: true });
    }
    early.reveal = function () {
      early.reveal = function () {};
      if (veil) {
        document.adoptedStyleSheets = document.adoptedStyleSheets.filter(function (x) {
          return x !== veil;
        });
      }
      if (!root) return;
      root.style.removeProperty("opacity");
      getComputedStyle(root).opacity;  // seen now, with no transition to run
      if (attr === null) root.removeAttribute("style"); else root.setAttribute("style", attr);
    };
    EventTarget.prototype.addEventListener.call(window, "load", function () {
      setTimeout(function () { early.reveal(); }, 5000);
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
  var MAX_MATCH_MS = 250;  // matching them once took longer: left as it is
  // The selectors whose matching grouping may change: all but a plain compound of type,
  // class and id (p.MsoNormal, #intro), which matches an element by itself alone. Any
  // combinator, pseudo-class, attribute selector or * may read an element's parent,
  // siblings or place, or match a group on the left of a combinator (a group is :not(.x),
  // :lang(en), :dir(ltr), :read-only, [style], *).
  var STRUCTURAL = /[\s>+~*[:]/;
  // Pseudo-elements, for the element they come from (li:before is matched as li); the
  // name is kept (group 1).
  var PSEUDO_ELEMENT = /::?(before|after|marker|first-line|first-letter|placeholder|selection|backdrop|file-selector-button|target-text|spelling-error|grammar-error|details-content|-webkit-[a-z-]+)(?![\w-])/gi;
  // A pseudo-element a group may have styled: none of these boxes shows without content
  // (a group is no list item, so it has no marker).
  var QUIET_PSEUDO = { before: true, after: true, marker: true };
  // The user's actions, which may match a group later (a hovered block's group is hovered).
  var STATES = /:(?:hover|active|focus-within|focus-visible|focus|target-within|target)(?![\w-])/gi;
  var COUNTERS = { "counter-increment": true, "counter-set": true, "counter-reset": true };

  function groupBlocks() {
    var t0 = performance.now();
    if (hash.indexOf("arl-nogroup") >= 0) {  // the view saw a declared shadow root
      early.ungrouped = "the document declares a shadow root";
      return;
    }
    var css = pageRules();
    if (css === null) return;
    if (css.counters.length) keepCounting(css.counters.join(", "));
    var counts = new Map();
    var all = findAll(CONTAINERS + " > " + KINDS);
    for (var i = 0; i < all.length; i++) {
      var p = all[i].parentNode;
      counts.set(p, (counts.get(p) || 0) + 1);
    }
    var t1 = performance.now();
    var before = css.rules.map(function (r) { return matched(r.sel).others; });
    if (performance.now() - t1 > MAX_MATCH_MS) {
      early.ungrouped = "the page's rules take too long to match";
      return;
    }
    // First every plan (styles and margins read on one style update), then every move,
    // then the margins checked on one style update again (reading one after each move
    // cost 1.3-1.7 s on a page of 7,000 blocks).
    var runs = [];
    counts.forEach(function (n, parent) {
      if (n >= MIN_BLOCKS && plainFlow(parent) && !floatsBeside(parent)) {
        runs = runs.concat(planGroups(parent, n, css));
      }
    });
    // One group first: a rule that reads structure mostly reads differently with one
    // group already, and moving every block in and out again makes Chromium style every
    // following sibling again for each (a page of 20,000 blocks under "h2 ~ p": 11.6 s)
    if (runs.length) {
      var trial = wrap(runs[0][0], css.customs);
      var first = readsDifferently(css, before, [trial]);
      ungroup(trial);
      if (first) { early.ungrouped = first; return; }
    }
    var wrapped = runs.map(function (run) {
      return run.map(function (plan) { return wrap(plan, css.customs); });
    });
    var made = [];
    wrapped.forEach(function (groups) {
      // (the margins dropped by the sheet above, unless the document's own !important rule
      // outranks it there: then the run stays as it was, its groups' edges assumed them)
      if (groups.every(edgesKept)) made = made.concat(groups); else groups.forEach(ungroup);
    });
    if (!made.length) { early.ungrouped = "no run of blocks to group"; return; }
    var why = readsDifferently(css, before, made);
    if (why) {
      made.forEach(ungroup);
      early.ungrouped = why;
      return;
    }
    early.groups = made.length;
    early.groupMs = Math.round(performance.now() - t0);
  }

  // Why the page would read differently grouped (null: it would not): a rule matching
  // other elements than before, or styling a group's pseudo-element that shows, or a
  // property a rule says "inherit" of that a group holds otherwise than its container.
  function readsDifferently(css, before, made) {
    for (var r = 0; r < css.rules.length; r++) {
      var rule = css.rules[r];
      var now = matched(rule.sel);
      if (!sameElements(before[r], now.others)) return "a rule would read differently: " + rule.text;
      var loud = rule.pseudo.some(function (name) {
        return !QUIET_PSEUDO[name.toLowerCase()] || rule.content;
      });
      if (loud && now.groups) {
        return "a rule would style a group's " + rule.pseudo.join(", ") + ": " + rule.text;
      }
    }
    var inherits = Array.from(css.inherits);
    for (var g = 0; g < made.length; g++) {
      var mine = made[g].computedStyleMap(), theirs = made[g].parentNode.computedStyleMap();
      for (var k = 0; k < inherits.length; k++) {
        var same;
        try {
          same = String(mine.get(inherits[k])) === String(theirs.get(inherits[k]));
        } catch (e) {
          same = false;  // a property the Typed OM does not know: not to be told apart
        }
        if (!same) return "a rule inherits " + inherits[k] + ", which a group would hold otherwise";
      }
    }
    return null;
  }

  // A block holding an element that increments, sets or resets a counter is laid out
  // whole: content-visibility's style containment would keep the count inside it (a
  // numbered list cut in one <ol> per item, as Google Docs exports it, would count from 1
  // in each). Its own count is not kept inside (only its contents').
  function keepCounting(counters) {
    // (an attribute of a random name: no rule of the document can name it, and a block is
    // marked only where it holds such an element, which :has() cannot say of "li whose
    // parent is the block")
    var mark = "data-" + GROUP;
    var found = findAll(counters), b = find.body.call(document);
    for (var i = 0; i < found.length; i++) {
      for (var a = found[i].parentElement; a && a !== b; a = a.parentElement) {
        if (a.matches(BLOCKS)) a.setAttribute(mark, "");
      }
    }
    try {
      sheet.insertRule("[" + mark + "]{content-visibility:visible !important;}",
                       sheet.cssRules.length);
    } catch (e) {
      early.ungrouped = "counters cannot be kept: " + e.message;
    }
  }

  // What grouping must know of the page's CSS (null when it cannot tell, the reason in
  // early.ungrouped: a sheet not readable or still loading, @import, @scope, @container,
  // a nested rule, :has(), a selector Chromium cannot match, too many rules):
  // rules: the rules grouping could change ({sel: without pseudo-elements, pseudo: their
  // names, content: whether the rule sets content, text}); customs: every custom property
  // set; inherits: every property set to inherit; counters: the selectors of the rules
  // that increment, set or reset a counter (style containment would scope them). Inline
  // styles count too.
  function pageRules() {
    var out = { rules: [], customs: new Set(), inherits: new Set(), counters: [] };
    if (find.one.call(document, 'link[rel~="stylesheet" i]')) {
      early.ungrouped = "a linked stylesheet";
      return null;
    }
    function declarations(style, counted) {
      var content = false;
      for (var i = 0; i < style.length; i++) {
        var name = style[i], value = style.getPropertyValue(name).trim().toLowerCase();
        if (name.slice(0, 2) === "--") out.customs.add(name);
        if (value === "inherit") out.inherits.add(name);
        if (COUNTERS[name] && value !== "none") counted();
        if (name === "content") content = true;
      }
      return content;
    }
    function walk(list) {
      for (var i = 0; i < list.length; i++) {
        var rule = list[i];
        if (rule instanceof CSSImportRule || (window.CSSScopeRule && rule instanceof CSSScopeRule) ||
            (window.CSSContainerRule && rule instanceof CSSContainerRule)) {
          throw new Error("an @import, @scope or @container rule");
        }
        if (rule instanceof CSSStyleRule) styleRule(rule);
        if (rule.cssRules) walk(rule.cssRules);
      }
    }
    function styleRule(rule) {
      var sel = rule.selectorText;
      if (sel.indexOf("&") >= 0) throw new Error("a nested rule: " + sel);
      if (/:has\(/i.test(sel)) throw new Error("a :has() rule: " + sel);
      var pseudo = [];
      var plain = sel.replace(PSEUDO_ELEMENT, function (_m, name) {
        pseudo.push(name);
        return ":where(*)";
      });
      if (plain.indexOf("::") >= 0) throw new Error("a pseudo-element: " + sel);
      find.one.call(document, plain);  // throws when Chromium cannot match it
      var counts = false;
      var content = declarations(rule.style, function () { counts = true; });
      if (counts) out.counters.push(plain);
      // (a list's commas are no combinators; the user's actions, :hover and the like,
      // are taken as on: a group may be hovered later)
      if (pseudo.length || STRUCTURAL.test(sel.replace(/\s*,\s*/g, ","))) {
        out.rules.push({ sel: plain.replace(STATES, ":where(*)"), pseudo: pseudo,
                         content: content, text: sel });
      }
    }
    try {
      var sheets = find.sheets.call(document);
      for (var s = 0; s < sheets.length; s++) {
        if (sheets[s].ownerNode !== early.ownStyle) walk(sheets[s].cssRules);
      }
      var styled = findAll("[style]"), inline = false;
      for (var e = 0; e < styled.length; e++) {
        declarations(styled[e].style, function () { inline = true; });
      }
      if (inline) out.counters.push('[style*="counter-" i]');
    } catch (e) {
      early.ungrouped = "the page's CSS cannot be read: " + e.message;
      return null;
    }
    if (out.rules.length > MAX_RULES) { early.ungrouped = "too many rules to match"; return null; }
    return out;
  }

  // What ``sel`` matches: {others: the elements that are no group, groups: whether it
  // matches a group}.
  function matched(sel) {
    var others = [], groups = false;
    var found = findAll(sel);
    for (var i = 0; i < found.length; i++) {
      if (found[i].localName === GROUP) groups = true; else others.push(found[i]);
    }
    return { others: others, groups: groups };
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
    if (!((cs.display === "block" || cs.display === "flow-root" || cs.display === "list-item") &&
          (cs.whiteSpace === "normal" || cs.whiteSpace === "nowrap"))) return false;
    // and in no multi-column layout: a group would not break across columns as its
    // blocks did, nor span them
    for (var a = el; a; a = a.parentElement) {
      var st = a === el ? cs : getComputedStyle(a);
      if (st.columnCount !== "auto" || st.columnWidth !== "auto") return false;
    }
    return true;
  }

  // Whether a float may stand beside ``container``'s blocks: any float in the block
  // formatting context they are laid out in. Beside a float a block narrows only where it
  // meets it; a group would narrow as a whole.
  function floatsBeside(container) {
    var root = container;
    while (root.parentElement && !formattingRoot(root)) root = root.parentElement;
    var todo = [root];
    while (todo.length) {
      var el = todo.pop();
      for (var c = el.firstElementChild; c; c = c.nextElementSibling) {
        var cs = getComputedStyle(c);
        if (cs.display === "none") continue;
        if (cs.cssFloat !== "none") return true;
        if (!c.matches(BLOCKS) && !formattingRoot(c, cs)) todo.push(c);
      }
    }
    return false;
  }

  // Whether ``el`` lays out its contents in a block formatting context of its own (CSS 2,
  // 9.4.1, and CSS Display 3): floats inside stay inside.
  function formattingRoot(el, cs) {
    cs = cs || getComputedStyle(el);
    return !el.parentElement || cs.display !== "block" && cs.display !== "list-item" ||
      cs.overflowX !== "visible" || cs.overflowY !== "visible" ||
      cs.position === "absolute" || cs.position === "fixed" ||
      /layout|paint|strict|content/.test(cs.contain) || cs.contentVisibility === "auto";
  }

  // A block a group may hold: static, no float, display block or flow-root (not a list
  // item: it counts), in its container's writing mode, unzoomed, untransformed, spanning no
  // columns, of auto width with no negative inline margin, outline or box shadow (a group
  // paints only inside its box), with no height a percentage of its container's, counting
  // with no counter (a group's style containment would keep the count inside it), in no
  // named slot of a shadow root, and not the first part's. Returns its computed style map
  // (CSS Typed OM), or false.
  function movable(el, parentMode, counters) {  // counters: a selector list, or ""
    if (!el.matches(KINDS) || el.hasAttribute("slot") || el.assignedSlot) return false;
    var f = early.fixed;
    if (f && (el === f || el.contains(f) ||
              (el.compareDocumentPosition(f) & Node.DOCUMENT_POSITION_FOLLOWING))) return false;
    var cs = getComputedStyle(el);
    if (!((cs.display === "block" || cs.display === "flow-root") &&
          cs.cssFloat === "none" && cs.position === "static" && cs.writingMode === parentMode &&
          cs.zoom === "1" && cs.outlineStyle === "none" && cs.boxShadow === "none" &&
          cs.transform === "none" && cs.columnSpan !== "all")) return false;
    var map = el.computedStyleMap();
    var sizes = ["height", "min-height", "max-height"];
    for (var i = 0; i < sizes.length; i++) {
      var v = map.get(sizes[i]);
      if (!(v instanceof CSSKeywordValue) && !(v instanceof CSSUnitValue && v.unit === "px")) {
        return false;
      }
    }
    // its box within the container's width (a group paints only inside its box)
    var w = String(map.get("width")), mw = map.get("min-width");
    if (w !== "auto" || !(String(mw) === "auto" || px(mw) === 0) ||
        !(px(map.get("margin-inline-start")) >= 0) || !(px(map.get("margin-inline-end")) >= 0)) {
      return false;
    }
    if (counters && (el.matches(counters) || find.inside.call(el, counters))) return false;
    return map;
  }

  // [block-start, block-end] margins in CSS px as computed (CSS Typed OM: no layout is
  // needed, unlike getComputedStyle's used values); NaN where not a length in px (a
  // percentage, auto), which makes no cut.
  function margins(el, map) {
    map = map || el.computedStyleMap();
    return [px(map.get("margin-block-start")), px(map.get("margin-block-end"))];
  }
  function px(v) {
    return v && v.unit === "px" ? v.value : NaN;
  }

  // The groups to make of ``parent``'s blocks (``n`` of them), run by run (movable blocks
  // with only white space or comments between): per run, [{first, last, dropStart,
  // dropEnd, height}, ...].
  function planGroups(parent, n, css) {
    var size = Math.max(MIN_GROUP, Math.ceil(Math.sqrt(n)));
    var mode = getComputedStyle(parent).writingMode;
    var runs = [], run = [], prevM = null, clean = true, counters = css.counters.join(", ");
    for (var c = parent.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === Node.COMMENT_NODE) continue;
      if (c.nodeType === Node.TEXT_NODE) {
        if (/[^ \t\n\r\f]/.test(c.data)) clean = false;
        continue;
      }
      var map = c.nodeType === Node.ELEMENT_NODE && movable(c, mode, counters);
      if (!map) {
        runs.push(groupRun(run, size));
        run = [];
        clean = true;
        continue;
      }
      var m = margins(c, map);
      // (3em: a skipped block's height, see the sheet above)
      run.push({ el: c, m: m, h: 3 * px(map.get("font-size")),
                 cut: run.length && clean ? cutBetween(prevM[1], m[0]) : null });
      prevM = m;
      clean = true;
    }
    runs.push(groupRun(run, size));
    return runs.filter(function (r) { return r.length > 0; });
  }

  // How a group's edge may fall between a block whose end margin is ``a`` and the next,
  // whose start margin is ``b`` (CSS px): a group's contents are cut off from the margins
  // around it (layout containment) and painted only inside its box (paint containment).
  // Collapsed, two margins make the larger of two positive ones, the more negative of two
  // negative ones, or the sum of one of each (CSS 2, 8.3.1). So an edge drops the smaller
  // of two positive margins: the next block's start margin where a group starts at it
  // ("dropStart"), the block's end margin where a group ends there ("dropEnd"); or keeps
  // both where their sum is the answer (one is zero, or they have opposite signs), the one
  // inside the group not negative (a block pulled out of its group's box would be cut
  // off): "startKeep" where a group starts at the next block, "endKeep" where one ends at
  // this block. Null: no edge here.
  function cutBetween(a, b) {
    if (!(isFinite(a) && isFinite(b))) return null;
    var cut = { dropStart: a >= b && b > 0, dropEnd: b >= a && a > 0,
                startKeep: b >= 0 && (a <= 0 || b === 0),
                endKeep: a >= 0 && (b <= 0 || a === 0) };
    return cut.dropStart || cut.dropEnd || cut.startKeep || cut.endKeep ? cut : null;
  }

  // The groups of one run: the first starts where a group may start (dropStart or
  // startKeep), the last ends where one may end (dropEnd or endKeep), and between them a
  // group of about ``size`` blocks (at least MIN_GROUP) ends where the next may start
  // with the end margin kept inside the first (dropStart, or both margins kept and both
  // not negative: one of them is zero).
  function groupRun(run, size) {
    var i, last = -1, first = -1;
    for (i = run.length - 1; i > 0 && last < 0; i--) {
      if (run[i].cut && (run[i].cut.endKeep || run[i].cut.dropEnd)) last = i - 1;
    }
    for (i = 1; i < run.length && first < 0; i++) {
      if (run[i].cut && (run[i].cut.startKeep || run[i].cut.dropStart)) first = i;
    }
    if (first < 0 || last - first + 1 < MIN_GROUP) return [];
    var out = [];
    for (var from = first; from <= last;) {
      var to = last;
      for (var j = from + size; j + MIN_GROUP - 1 <= last; j++) {
        var cut = run[j].cut;
        if (cut && (cut.dropStart || (cut.startKeep && cut.endKeep))) { to = j - 1; break; }
      }
      var edge = run[from].cut, end = run[to + 1].cut;
      var plan = { first: run[from].el, last: run[to].el, dropStart: !edge.startKeep,
                   dropEnd: to === last && !end.endKeep };
      // (its height until shown: its blocks' 3em each and their margins as they stand
      // among them, so that the page's height does not change when it is grouped)
      var inner = (plan.dropStart ? 0 : run[from].m[0]) + (plan.dropEnd ? 0 : run[to].m[1]);
      for (var k = from + 1; k <= to; k++) inner += collapsed(run[k - 1].m[1], run[k].m[0]);
      for (k = from; k <= to; k++) inner += run[k].h;
      plan.height = inner;
      out.push(plan);
      from = to + 1;
    }
    return out;
  }

  // Two adjacent margins as one (CSS 2, 8.3.1), CSS px.
  function collapsed(a, b) {
    return a >= 0 && b >= 0 ? Math.max(a, b) : a < 0 && b < 0 ? Math.min(a, b) : a + b;
  }

  function wrap(plan, customs) {
    var first = plan.first, last = plan.last, parent = first.parentNode;
    var g = find.make.call(document, HTML_NS, GROUP);
    parent.insertBefore(g, first);
    for (var node = first, next; node; node = next) {
      next = node === last ? null : node.nextSibling;
      g.appendChild(node);
    }
    // Its own style is none (all does not reach direction, unicode-bidi and custom
    // properties: their values are its container's; its blocks align by its container's
    // justify-items).
    var st = { all: "unset", direction: "inherit", "unicode-bidi": "normal", display: "block",
               "justify-items": "inherit",
               "content-visibility": "auto",
               "contain-intrinsic-block-size": "auto " + Math.max(0, plan.height) + "px" };
    Object.keys(st).forEach(function (k) { g.style.setProperty(k, st[k], "important"); });
    customs.forEach(function (name) { g.style.setProperty(name, "inherit", "important"); });
    if (plan.dropStart) g.setAttribute("data-s", "");
    if (plan.dropEnd) g.setAttribute("data-e", "");
    // shown at once when a block of it is (its first state event confirms or says skipped)
    var any = false;
    for (var b = g.firstElementChild; b && !any; b = b.nextElementSibling) any = ownShown.has(b);
    if (!any) hiddenGroups.add(g);
    return g;
  }

  function edgesKept(g) {
    return (!g.hasAttribute("data-s") || margins(g.firstElementChild)[0] === 0) &&
      (!g.hasAttribute("data-e") || margins(g.lastElementChild)[1] === 0);
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
