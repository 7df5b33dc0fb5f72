// Stuck instances: active instances with no progress for a chosen time (no record of theirs - element, variable,
// incident, job failure - since), oldest "last updated" first, every column sortable. The search is the v2 one, on the
// read model's lastUpdateDate; the cut-off moves with the clock, so the list also reloads each minute, not only when
// the read model moves.

const DURATIONS = ['5m', '15m', '1h', '4h', '1d', '7d'];
const UNIT_SECONDS = { s: 1, m: 60, h: 3600, d: 86400 };
const COLUMNS = [
  { field: 'processInstanceKey', title: 'Key' },
  { field: 'processDefinitionId', title: 'Process' },
  { field: 'processDefinitionVersion', title: 'Version' },
  { field: 'hasIncident', title: 'Incident' },
  { field: 'startDate', title: 'Started' },
  { field: 'lastUpdateDate', title: 'Last updated' },
];

/** Seconds of a duration such as 90s, 15m, 4h, 1d; null for anything else. */
export function durationSeconds(text) {
  const match = /^(\d{1,6})([smhd])$/.exec(text || '');
  return match ? Number(match[1]) * UNIT_SECONDS[match[2]] : null;
}

/** The cut-off for "no progress for {@code seconds}": instances last updated before it are stuck. */
export function stuckBefore(now, seconds) {
  return new Date(now.getTime() - seconds * 1000).toISOString();
}

export function stuckInstances(ui, params) {
  const { view, search, esc, date, every, refreshNow, totalOf } = ui;
  // a chosen duration, or any other the URL names (e.g. 90s)
  const forParam = durationSeconds(params.get('for')) ? params.get('for') : '1h';
  const seconds = durationSeconds(forParam);
  const choices = DURATIONS.includes(forParam) ? DURATIONS : [...DURATIONS, forParam];
  const process = params.get('processDefinitionId') || '';
  const sortField = COLUMNS.some(c => c.field === params.get('sort')) ? params.get('sort') : 'lastUpdateDate';
  const order = params.get('order') === 'desc' ? 'desc' : 'asc';
  const link = changes => {
    const query = new URLSearchParams({ for: forParam, sort: sortField, order });
    if (process) query.set('processDefinitionId', process);
    for (const [name, value] of Object.entries(changes)) query.set(name, value);
    return '#/stuck?' + query.toString();
  };
  view.innerHTML = `<h1>Stuck instances</h1>
    <form id="stuck-form" class="filters">
      <label>No progress for<select name="for">${choices.map(name => `<option ${name === forParam ? 'selected' : ''}>${name}</option>`).join('')}</select></label>
      <label>Process id<input name="processDefinitionId" value="${esc(process)}"></label>
      <button id="stuck-apply" type="submit">Apply</button>
    </form>
    <div id="stuck-count" class="page-info"></div><div id="stuck"></div>`;
  document.getElementById('stuck-form').addEventListener('submit', event => {
    event.preventDefault();
    const form = new FormData(event.target);
    const query = new URLSearchParams({ for: form.get('for'), sort: sortField, order });
    if (form.get('processDefinitionId')) query.set('processDefinitionId', form.get('processDefinitionId'));
    location.hash = '#/stuck?' + query.toString();
  });
  every(async (mine, reads) => {
    const filter = { state: 'ACTIVE', lastUpdateDate: { $lt: stuckBefore(new Date(), seconds) } };
    if (process) filter.processDefinitionId = process;
    const found = await search('process-instances', { filter, sort: [{ field: sortField, order }], page: { limit: 100 } }, reads);
    if (!ui.current(mine)) return;
    document.getElementById('stuck-count').textContent = `${totalOf(found.page)} instance(s) without progress for ${forParam}`;
    const head = c => {
      const next = c.field === sortField && order === 'asc' ? 'desc' : 'asc';
      const arrow = c.field === sortField ? (order === 'asc' ? ' ▲' : ' ▼') : '';
      return `<a class="sort" data-sort="${c.field}" href="${esc(link({ sort: c.field, order: next }))}">${esc(c.title)}${arrow}</a>`;
    };
    const cell = (r, field) => field === 'processInstanceKey' ? `<a href="#/instances/${esc(r.processInstanceKey)}">${esc(r.processInstanceKey)}</a>`
      : field === 'hasIncident' ? (r.hasIncident ? '<span class="incident">yes</span>' : '')
      : field.endsWith('Date') ? `<span data-field="${field}" data-value="${esc(r[field])}">${date(r[field])}</span>` : esc(r[field]);
    document.getElementById('stuck').innerHTML = `<table id="stuck-table"><thead><tr>${COLUMNS.map(c => `<th>${head(c)}</th>`).join('')}</tr></thead><tbody>`
      + (found.items.length ? found.items.map(r => `<tr data-key="${esc(r.processInstanceKey)}" data-href="#/instances/${esc(r.processInstanceKey)}" tabindex="0">${COLUMNS.map(c => `<td>${cell(r, c.field)}</td>`).join('')}</tr>`).join('')
        : `<tr><td colspan="${COLUMNS.length}" class="empty">none</td></tr>`)
      + '</tbody></table>';
  }, { poll: 60_000 });
  return refreshNow;
}
