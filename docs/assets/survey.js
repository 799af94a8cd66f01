// Material's search dialog has role="dialog" but no accessible name (axe: aria-dialog-name).
document.querySelectorAll(".md-search[role=dialog]:not([aria-label])").forEach(function (dialog) {
  dialog.setAttribute("aria-label", "Search");
});

// "Cite" on a paper page copies the paper's BibTeX entry (its Cite section at the foot of the page
// keeps it, with Material's copy button) and says so; where the page cannot write the clipboard,
// the link goes to that section. Material's instant navigation swaps pages without running this
// file again: document$ says when a page is in place.
(function () {
  "use strict";

  function bind() {
    document.querySelectorAll("a.survey-cite:not([data-survey-bound])").forEach(function (link) {
      link.setAttribute("data-survey-bound", "");
      var label = link.textContent;
      link.addEventListener("click", function (event) {
        var code = document.querySelector(".survey-bibtex code");
        if (!code || !navigator.clipboard || !window.isSecureContext) return;
        event.preventDefault();
        navigator.clipboard.writeText(code.textContent).then(function () {
          link.textContent = "BibTeX copied";
          setTimeout(function () { link.textContent = label; }, 2500);
        }, function () { location.hash = "cite"; });
      });
    });
  }

  if (window.document$) window.document$.subscribe(bind);
  else bind();
})();
