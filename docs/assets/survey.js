// Material's search dialog has role="dialog" but no accessible name (axe: aria-dialog-name).
document.querySelectorAll(".md-search[role=dialog]:not([aria-label])").forEach(function (dialog) {
  dialog.setAttribute("aria-label", "Search");
});
