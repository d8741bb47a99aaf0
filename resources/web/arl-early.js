// Agent Review Loop: the first of our page scripts, run in the isolated ApplicationWorld
// when the document is created, before the parser has read a byte of it.
//
// A long document (the view asks with #arl-lazy) is laid out as it is seen: its text blocks
// get CSS content-visibility:auto, so Chromium styles, lays out and paints only the blocks
// on screen (and near it), and skips the rest until they are scrolled to. Only the layout
// changes: the DOM, body.textContent and every offset are the same; Find in the page
// (Chromium's find) and Range geometry still reach the skipped text. The blocks chosen hold
// text only in normal flow (paragraphs, headings, lists as a whole, quotations, figures)
// under a plain block container, so containing them changes nothing a reader sees.
//
// Which blocks are shown is recorded from the first frame on (the
// contentvisibilityautostatechange events fire while the page is still being read): the
// page helper (arl-page.js) draws the verdict badges of those blocks only, and follows the
// events as the user scrolls.
//
// The room above each line for the badges (#arl-labels) is reserved here too, so the first
// layout already has it.
(function () {
  "use strict";
  var own = Object.prototype.hasOwnProperty;
  if (own.call(window, "__arlEarly")) return;
  var hash = location.hash;
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
  var BLOCKS = ":is(body, div, section, article, main, header, footer, aside, nav) > " +
    ":is(p, h1, h2, h3, h4, h5, h6, ul, ol, dl, blockquote, figure, address)";
  var early = { lazy: hash.indexOf("arl-lazy") >= 0, blocks: BLOCKS, shown: new Set(),
                listeners: [] };
  var css = "";
  if (early.lazy) {
    // auto 3em: a block never shown yet counts 3em high; once shown, its real height.
    css += BLOCKS + "{content-visibility:auto;contain-intrinsic-block-size:auto 3em;}\n";
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
        if (ev.skipped) early.shown.delete(ev.target); else early.shown.add(ev.target);
        for (var i = 0; i < early.listeners.length; i++) early.listeners[i](ev.target, ev.skipped);
      }, true);
  }
  Object.defineProperty(window, "__arlEarly", { value: early, writable: false,
                                                configurable: false, enumerable: false });
})();
