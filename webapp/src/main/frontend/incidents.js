// The dashboard's incidents at a glance: open incidents by error message, each linking to the list of active
// instances with that error (the list's errorMessage filter, exact). One statistics request (by error) per refresh.

/**
 * The list of the error's active instances: by its message, exactly; a message holding * or ? (which the list reads as
 * wildcards) by its hash code instead.
 */
export function errorLink(item) {
  const exact = !/[*?]/.test(item.errorMessage || '');
  const query = new URLSearchParams({ state: 'ACTIVE' });
  if (exact) query.set('errorMessage', item.errorMessage);
  else query.set('errorHashCode', String(item.errorHashCode));
  return '#/instances?' + query.toString();
}

/** Loads the incidents by error and renders them into {@code container}. */
export async function incidentsByError(api, reads, table, esc, container) {
  const answer = await api('/v2/incidents/statistics/process-instances-by-error', { page: { limit: 50 } });
  container.innerHTML = '<h2>Open incidents by error</h2>' + table('incidents-by-error', [
    { title: 'Error message', html: r => `<a class="error-link" href="${esc(errorLink(r))}">${esc(r.errorMessage)}</a>` },
    { title: 'Instances', html: r => `<span class="incident">${esc(r.activeInstancesWithErrorCount)}</span>` },
  ], answer.items, r => `data-error="${esc(r.errorHashCode)}" data-href="${esc(errorLink(r))}" tabindex="0"`);
}
