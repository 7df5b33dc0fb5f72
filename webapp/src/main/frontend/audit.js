// The audit log in the UI (issue 35): who did what, when, on which entity, with what outcome and details (a
// modification's activated elements and terminated element instances, a migration's target and mappings, the names
// of variables set, never their values). Shown per instance on its page, and as a list page (#/audit) with filters.
// It reads POST /v2/audit-logs/search only; the shared helpers come from app.js.

/** The details of an entry, each as a name and its value (lists joined, objects as JSON), escaped. */
function details(esc, entry) {
  return Object.entries(entry.details || {}).map(([name, value]) => {
    const shown = Array.isArray(value) ? (value.length ? value.map(v => typeof v === 'object' ? JSON.stringify(v) : v).join(', ') : 'none')
      : value !== null && typeof value === 'object' ? JSON.stringify(value) : value;
    return `<span class="detail" data-detail="${esc(name)}"><b>${esc(name)}</b> ${esc(shown)}</span>`;
  }).join(' ');
}

const outcome = (esc, entry) => `<span class="result-${esc(entry.result)}">${esc(entry.result)}</span>`
  + (entry.errorMessage ? ` <span class="error-message">${esc(entry.errorMessage)}</span>` : '');

/** The table of entries; with the instance column on the list page. */
export function auditTable(ui, id, entries, withInstance) {
  const { esc, date, table } = ui;
  return table(id, [
    { title: 'When', html: r => date(r.timestamp) },
    { title: 'Who', html: r => esc(r.actorId) + (r.actorType && r.actorType !== 'USER' ? ` <span class="hint">${esc(r.actorType)}</span>` : '') },
    { title: 'What', html: r => `<b>${esc(r.operationType)}</b> ${esc(r.entityType)} ${esc(r.entityKey)}`
      + (r.batchOperationKey && r.entityType !== 'BATCH' ? ` (batch <a href="#/batches/${esc(r.batchOperationKey)}">${esc(r.batchOperationKey)}</a>)` : '')
      + (r.entityType === 'BATCH' ? ` <a href="#/batches/${esc(r.entityKey)}">${esc(r.batchOperationType)}</a>` : '') },
    ...(withInstance ? [{ title: 'Instance', html: r => r.processInstanceKey ? `<a href="#/instances/${esc(r.processInstanceKey)}">${esc(r.processInstanceKey)}</a>` : '' }] : []),
    { title: 'Outcome', html: r => outcome(esc, r) },
    { title: 'Details', html: r => details(esc, r) },
  ], entries, r => `data-key="${esc(r.auditLogKey)}" data-operation="${esc(r.operationType)}"`);
}

/** One instance's trail, newest first (one search per refresh of the instance page). */
export async function instanceAuditTrail(ui, instanceKey) {
  const answer = await ui.api('/v2/audit-logs/search', {
    filter: { processInstanceKey: String(instanceKey) }, sort: [{ field: 'timestamp', order: 'DESC' }], page: { limit: 100 },
  });
  return auditTable(ui, 'audit-table', answer.items, false);
}

const OPERATIONS = ['', 'CANCEL', 'CREATE', 'DELETE', 'MIGRATE', 'MODIFY', 'RESOLVE', 'UPDATE'];
const RESULTS = ['', 'SUCCESS', 'FAIL'];
const FILTERS = ['operationType', 'actorId', 'processInstanceKey', 'result'];

/** The list page: newest first, filtered by operation, user, instance and outcome (kept in the URL), 50 a page. */
export function auditLogPage(ui, params) {
  const { view, api, esc, every, refreshNow } = ui;
  const v = name => params.get(name) || '';
  const select = (name, values) => `<select name="${name}">${values.map(value =>
    `<option value="${esc(value)}" ${v(name) === value ? 'selected' : ''}>${esc(value || 'any')}</option>`).join('')}</select>`;
  view.innerHTML = `<h1>Audit log</h1>
    <form id="audit-filters" class="filters">
      <label>Operation${select('operationType', OPERATIONS)}</label>
      <label>User<input name="actorId" value="${esc(v('actorId'))}"></label>
      <label>Process instance<input name="processInstanceKey" value="${esc(v('processInstanceKey'))}"></label>
      <label>Outcome${select('result', RESULTS)}</label>
      <button type="submit" id="audit-apply">Apply</button>
    </form>
    <div id="audit-log"></div>
    <div class="paging"><button id="audit-prev">Previous</button><span id="audit-page-info"></span><button id="audit-next">Next</button></div>`;
  document.getElementById('audit-filters').addEventListener('submit', event => {
    event.preventDefault();
    const query = new URLSearchParams();
    for (const name of FILTERS) {
      const value = new FormData(event.target).get(name);
      if (value) query.set(name, value.trim());
    }
    location.hash = '#/audit?' + query.toString();
  });
  const filter = {};
  for (const name of FILTERS) if (v(name)) filter[name] = v(name);
  const limit = 50;
  let from = 0;
  let total = 0;
  document.getElementById('audit-next').addEventListener('click', () => { if (from + limit < total) { from += limit; refreshNow(); } });
  document.getElementById('audit-prev').addEventListener('click', () => { if (from > 0) { from = Math.max(0, from - limit); refreshNow(); } });
  every(async mine => {
    const answer = await api('/v2/audit-logs/search', { filter, sort: [{ field: 'timestamp', order: 'DESC' }], page: { from, limit } });
    if (!ui.current(mine)) return;
    total = answer.page.totalItems;
    document.getElementById('audit-log').innerHTML = auditTable(ui, 'audit-log-table', answer.items, true);
    document.getElementById('audit-page-info').textContent = total
      ? `${from + 1}–${from + answer.items.length} of ${total} entries` : '0 entries';
  });
}
