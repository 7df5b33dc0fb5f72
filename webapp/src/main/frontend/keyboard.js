// Keyboard use of the views: a table row that stands for something (an instance, a process's incidents) is focusable
// (tabindex, data-href) and Enter opens it, as Enter opens a link; the focus is drawn visibly (app.css, :focus-visible).
// Links, buttons and inputs inside a row keep their own keys.

/** Installs the one listener for the whole page (rows are drawn again on each refresh; the listener stays). */
export function enableKeyboard(root = document) {
  root.addEventListener('keydown', event => {
    if (event.key !== 'Enter' || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    const row = event.target.closest?.('tr[data-href]');
    if (!row || row !== event.target) return;
    event.preventDefault();
    location.hash = row.dataset.href;
  });
}
