// The dashboard, as Operate users know it: running instances and open incidents at a glance, the processes with their
// running instances, the open incidents by process and by error message; every figure links into the filtered list.
// Three statistics requests and one search per refresh, however many processes and instances there are; every process
// with running instances has its row (up to 10,000), those without are listed from the first 1,000 definitions (said
// when cut).
import { incidentsByError } from './incidents.js';

/** The list of a process's active instances, optionally only those with an incident. */
export function listLink(processDefinitionId, withIncident) {
  const query = new URLSearchParams({ processDefinitionId, state: 'ACTIVE' });
  if (withIncident) query.set('hasIncident', 'true');
  return '#/instances?' + query.toString();
}

/**
 * Per process id: its latest definition (name, version, key) and its active instances with and without an incident
 * (v2 getProcessDefinitionInstanceStatistics), processes without running instances included. Every process with
 * running instances has its row even when its definitions are past the page of definitions read (thousands of
 * processes): named by the statistics, without a key or version.
 */
export function processRows(definitions, statistics) {
  const latest = new Map();
  for (const d of definitions) if (!latest.has(d.processDefinitionId)) latest.set(d.processDefinitionId, d);
  for (const s of statistics) {
    if (!latest.has(s.processDefinitionId)) {
      latest.set(s.processDefinitionId,
        { processDefinitionId: s.processDefinitionId, name: s.latestProcessDefinitionName, tenantId: s.tenantId });
    }
  }
  const counts = new Map(statistics.map(s => [s.processDefinitionId, s]));
  // in the store's order of ids (code units, as a keyword sorts), those from the statistics among them
  const rows = [...latest.values()].sort((a, b) =>
    a.processDefinitionId < b.processDefinitionId ? -1 : a.processDefinitionId > b.processDefinitionId ? 1 : 0);
  return rows.map(d => {
    const s = counts.get(d.processDefinitionId) || {};
    const withIncident = s.activeInstancesWithIncidentCount || 0;
    return { ...d, running: withIncident + (s.activeInstancesWithoutIncidentCount || 0), withIncident };
  });
}

export function dashboard(ui) {
  const { view, api, search, esc, table, every, current, setHtml, totalOf } = ui;
  view.innerHTML = `<h1>Dashboard</h1>
    <div id="glance" class="glance"></div>
    <div class="dashboard-columns">
      <section><h2>Open incidents by process</h2><div id="incidents-by-process"></div></section>
      <section id="incidents-by-error"></section>
    </div>
    <h2>Processes</h2><div id="dashboard"></div>`;
  every(async (mine, reads) => {
    const [definitions, running, incidents] = await Promise.all([
      search('process-definitions', { sort: [{ field: 'processDefinitionId' }, { field: 'version', order: 'desc' }], page: { limit: 1000 } }, reads),
      api('/v2/process-definitions/statistics/process-instances', { sort: [{ field: 'processDefinitionId' }], page: { limit: 10000 }, consistency: reads }),
      search('incidents', { filter: { state: 'ACTIVE' }, page: { limit: 0 } }, reads),
      incidentsByError(api, reads, table, esc, document.getElementById('incidents-by-error')),
    ]);
    if (!current(mine)) return;
    const rows = processRows(definitions.items, running.items);
    const instances = running.items.reduce((sum, s) => sum + s.activeInstancesWithoutIncidentCount + s.activeInstancesWithIncidentCount, 0);
    const withIncident = running.items.reduce((sum, s) => sum + s.activeInstancesWithIncidentCount, 0);
    setHtml('glance',
      `<a class="glance-figure" id="glance-running" href="#/instances?state=ACTIVE"><b>${esc(instances)}</b> running instances</a>`
      + `<a class="glance-figure${withIncident ? ' incident' : ''}" id="glance-with-incident" href="#/instances?state=ACTIVE&amp;hasIncident=true"><b>${esc(withIncident)}</b> running instances with incidents</a>`
      // incidents are listed by their instances: the list of those with one
      + `<a class="glance-figure${incidents.page.totalItems ? ' incident' : ''}" id="glance-incidents" href="#/instances?state=ACTIVE&amp;hasIncident=true"><b>${esc(incidents.page.totalItems)}</b> open incidents</a>`);
    const byIncidents = rows.filter(r => r.withIncident > 0)
      .sort((a, b) => b.withIncident - a.withIncident || a.processDefinitionId.localeCompare(b.processDefinitionId));
    setHtml('incidents-by-process', table('incidents-by-process-table', [
      { title: 'Process', html: r => `<a class="process-incidents" href="${esc(listLink(r.processDefinitionId, true))}">${esc(r.name || r.processDefinitionId)}</a>` },
      { title: 'Instances with incidents', html: r => `<span class="incident count">${esc(r.withIncident)}</span>` },
      { title: 'Running', html: r => esc(r.running) },
    ], byIncidents, r => `data-process="${esc(r.processDefinitionId)}" data-href="${esc(listLink(r.processDefinitionId, true))}" tabindex="0"`));
    // a row named by the statistics alone has no definition key: it leads to the process's instances
    const processHref = r => r.processDefinitionKey ? '#/processes/' + r.processDefinitionKey : listLink(r.processDefinitionId, false);
    // what the two pages read leave out is said, never dropped silently
    const cuts = [];
    if (running.page.totalItems > running.items.length) {
      cuts.push(`Processes with running instances: the first ${esc(running.items.length)} of ${esc(running.page.totalItems)} by id.`);
    }
    if (definitions.page.totalItems > definitions.items.length || definitions.page.hasMoreTotalItems) {
      cuts.push(`Processes without running instances: those of the first ${esc(definitions.items.length)} of ${esc(totalOf(definitions.page))} definitions.`);
    }
    const cut = cuts.length ? `<p class="hint" id="dashboard-cut">${cuts.join(' ')}</p>` : '';
    setHtml('dashboard', table('dashboard-table', [
      { title: 'Process', html: r => `<a href="${esc(processHref(r))}">${esc(r.name || r.processDefinitionId)}</a>` },
      { title: 'Id', html: r => esc(r.processDefinitionId) },
      { title: 'Latest version', html: r => esc(r.version) },
      { title: 'Running instances', html: r => `<a class="running" href="${esc(listLink(r.processDefinitionId, false))}">${esc(r.running)}</a>` },
      { title: 'Instances with incidents', html: r => `<a class="incidents${r.withIncident ? ' incident' : ''}" href="${esc(listLink(r.processDefinitionId, true))}">${esc(r.withIncident)}</a>` },
    ], rows, r => `data-process="${esc(r.processDefinitionId)}" data-href="${esc(processHref(r))}" tabindex="0"`) + cut);
  });
}
