// Progressive enhancement only: every page works without it.
// - On a thread with an expanded state item, the first highlighted message
//   is scrolled into view and focused (keyboard users land on it).
// - "/" focuses the page's first search or query field.
(function () {
  "use strict";
  document.addEventListener("DOMContentLoaded", function () {
    var hl = document.querySelector("[data-highlight=true]");
    if (hl) {
      hl.setAttribute("tabindex", "-1");
      hl.scrollIntoView({ block: "center" });
      hl.focus({ preventScroll: true });
    }
  });
  document.addEventListener("keydown", function (e) {
    if (e.key !== "/" || e.ctrlKey || e.metaKey || e.altKey) return;
    var t = e.target.tagName;
    if (t === "INPUT" || t === "TEXTAREA" || t === "SELECT") return;
    var f = document.querySelector("#f-key, #c-query, #s-wf, #t-id");
    if (f) { e.preventDefault(); f.focus(); }
  });
})();
