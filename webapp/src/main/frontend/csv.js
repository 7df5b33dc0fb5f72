// The CSV export of the instance list: a link the browser follows (so the file streams to disk), carrying the list's
// filter and order; the server caps the rows (flowpipe.webapp.export.max-rows) and says how many matched.

/** The export's URL for a v2 filter and sort. */
export function exportUrl(filter, sort) {
  const query = new URLSearchParams({ filter: JSON.stringify(filter), sort: JSON.stringify(sort) });
  return '/ui/export/process-instances.csv?' + query.toString();
}

/** The link's markup: a download of the list the filter matches. */
export function exportLink(filter, sort) {
  return `<a id="export-csv" class="button" download="process-instances.csv" href="${exportUrl(filter, sort).replace(/&/g, '&amp;').replace(/"/g, '&quot;')}">Export CSV</a>`;
}
