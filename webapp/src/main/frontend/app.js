// The flowpipe UI: a few views over the search API (/v2), routed by the URL hash; lists reload themselves.
import Viewer from 'bpmn-js/lib/NavigatedViewer';

const view = document.getElementById('view');
const status = document.getElementById('status');
let refreshMillis = 3000;
let timer = null;
let route = 0; // bumps on navigation, so answers of a left view are dropped

async function api(path, body) {
  const response = await fetch(path, body === undefined ? {} : {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body),
  });
  if (!response.ok) {
    let detail = response.statusText;
    try { detail = (await response.json()).detail || detail; } catch (e) { /* not JSON */ }
    throw new Error(response.status + ': ' + detail);
  }
  const type = response.headers.get('Content-Type') || '';
  return type.includes('json') ? response.json() : response.text();
}

const search = (entity, request) => api('/v2/' + entity + '/search', request);

function esc(value) {
  return String(value ?? '').replace(/[&<>"']/g, c => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
}

function date(value) {
  return value ? new Date(value).toLocaleString() : '';
}

function table(id, columns, rows, rowAttrs = () => '') {
  return `<table id="${id}"><thead><tr>${columns.map(c => `<th>${esc(c.title)}</th>`).join('')}</tr></thead><tbody>`
    + (rows.length ? rows.map(r => `<tr ${rowAttrs(r)}>${columns.map(c => `<td>${c.html(r)}</td>`).join('')}</tr>`).join('')
      : `<tr><td colspan="${columns.length}" class="empty">none</td></tr>`)
    + '</tbody></table>';
}

function setStatus(text, error) {
  status.textContent = text;
  status.className = 'status' + (error ? ' error' : '');
}

/** Runs load() now and again every refresh interval while the view is shown. */
function every(load) {
  const mine = route;
  const run = async () => {
    if (mine !== route) return;
    try {
      await load(mine);
      setStatus('updated ' + new Date().toLocaleTimeString());
    } catch (e) {
      setStatus(e.message, true);
    }
  };
  run();
  timer = setInterval(run, refreshMillis);
}

// --- dashboard: running instances and open incidents per process ---
function dashboard() {
  view.innerHTML = '<h1>Processes</h1><div id="dashboard"></div>';
  every(async mine => {
    const definitions = await search('process-definitions', { sort: [{ field: 'processDefinitionId' }, { field: 'version', order: 'desc' }], page: { limit: 1000 } });
    const latest = new Map();
    for (const d of definitions.items) if (!latest.has(d.processDefinitionId)) latest.set(d.processDefinitionId, d);
    const rows = await Promise.all([...latest.values()].map(async d => {
      const [running, incidents] = await Promise.all([
        search('process-instances', { filter: { processDefinitionId: d.processDefinitionId, state: 'ACTIVE' }, page: { limit: 0 } }),
        search('incidents', { filter: { processDefinitionId: d.processDefinitionId, state: 'ACTIVE' }, page: { limit: 0 } }),
      ]);
      return { ...d, running: running.page.totalItems, incidents: incidents.page.totalItems };
    }));
    if (mine !== route) return;
    document.getElementById('dashboard').innerHTML = table('dashboard-table', [
      { title: 'Process', html: r => `<a href="#/processes/${r.processDefinitionKey}">${esc(r.name || r.processDefinitionId)}</a>` },
      { title: 'Id', html: r => esc(r.processDefinitionId) },
      { title: 'Latest version', html: r => esc(r.version) },
      { title: 'Running instances', html: r => `<a class="running" href="#/instances?processDefinitionId=${encodeURIComponent(r.processDefinitionId)}&state=ACTIVE">${r.running}</a>` },
      { title: 'Open incidents', html: r => `<a class="incidents${r.incidents ? ' incident' : ''}" href="#/instances?processDefinitionId=${encodeURIComponent(r.processDefinitionId)}&hasIncident=true">${r.incidents}</a>` },
    ], rows, r => `data-process="${esc(r.processDefinitionId)}"`);
  });
}

// --- instance list with filters and paging ---
const FILTERS = ['processDefinitionId', 'version', 'state', 'hasIncident', 'startFrom', 'startTo', 'endFrom', 'endTo', 'key'];

function instanceFilter(params) {
  const filter = {};
  const p = name => params.get(name) || '';
  if (p('processDefinitionId')) filter.processDefinitionId = p('processDefinitionId');
  if (p('version')) filter.processDefinitionVersion = Number(p('version'));
  if (p('state')) filter.state = p('state');
  if (p('hasIncident')) filter.hasIncident = p('hasIncident') === 'true';
  if (p('key')) filter.processInstanceKey = p('key');
  const range = (from, to) => {
    const r = {};
    if (p(from)) r.$gte = new Date(p(from)).toISOString();
    if (p(to)) r.$lte = new Date(p(to)).toISOString();
    return Object.keys(r).length ? r : null;
  };
  const start = range('startFrom', 'startTo');
  if (start) filter.startDate = start;
  const end = range('endFrom', 'endTo');
  if (end) filter.endDate = end;
  return filter;
}

function instances(params) {
  const v = name => esc(params.get(name) || '');
  const option = (name, value, label) => `<option value="${value}" ${params.get(name) === value ? 'selected' : ''}>${label}</option>`;
  view.innerHTML = `<h1>Process instances</h1>
    <form id="filter-form" class="filters">
      <label>Process id<input name="processDefinitionId" value="${v('processDefinitionId')}"></label>
      <label>Version<input name="version" type="number" min="1" value="${v('version')}"></label>
      <label>State<select name="state">${option('state', '', 'any')}${option('state', 'ACTIVE', 'active')}${option('state', 'COMPLETED', 'completed')}${option('state', 'TERMINATED', 'terminated (canceled)')}</select></label>
      <label>Incident<select name="hasIncident">${option('hasIncident', '', 'any')}${option('hasIncident', 'true', 'with incident')}${option('hasIncident', 'false', 'without')}</select></label>
      <label>Started from<input name="startFrom" type="datetime-local" value="${v('startFrom')}"></label>
      <label>Started to<input name="startTo" type="datetime-local" value="${v('startTo')}"></label>
      <label>Ended from<input name="endFrom" type="datetime-local" value="${v('endFrom')}"></label>
      <label>Ended to<input name="endTo" type="datetime-local" value="${v('endTo')}"></label>
      <label>Key<input name="key" value="${v('key')}"></label>
      <button id="apply" type="submit">Apply</button>
    </form>
    <div id="instances"></div>
    <div class="paging"><button id="prev">Previous</button><span id="page-info"></span><button id="next">Next</button></div>`;
  document.getElementById('filter-form').addEventListener('submit', event => {
    event.preventDefault();
    const form = new FormData(event.target);
    const query = new URLSearchParams();
    for (const name of FILTERS) if (form.get(name)) query.set(name, form.get(name));
    location.hash = '#/instances?' + query.toString();
  });
  const limit = 20;
  let page = { limit };
  let last = null;
  document.getElementById('next').addEventListener('click', () => { if (last?.page.endCursor) { page = { after: last.page.endCursor, limit }; reload(); } });
  document.getElementById('prev').addEventListener('click', () => { if (last?.page.startCursor) { page = { before: last.page.startCursor, limit }; reload(); } });
  let reload;
  every(reload = async mine => {
    const answer = await search('process-instances', { filter: instanceFilter(params), sort: [{ field: 'startDate', order: 'desc' }], page });
    if (mine !== route) return;
    if (answer.items.length === 0 && (page.after || page.before)) { page = { limit }; return reload(mine); }
    last = answer;
    document.getElementById('instances').innerHTML = table('instances-table', [
      { title: 'Key', html: r => `<a href="#/instances/${r.processInstanceKey}">${r.processInstanceKey}</a>` },
      { title: 'Process', html: r => esc(r.processDefinitionId) },
      { title: 'Version', html: r => esc(r.processDefinitionVersion) },
      { title: 'State', html: r => `<span class="state-${r.state}">${r.state}</span>` },
      { title: 'Incident', html: r => r.hasIncident ? '<span class="incident">yes</span>' : '' },
      { title: 'Started', html: r => date(r.startDate) },
      { title: 'Ended', html: r => date(r.endDate) },
    ], answer.items, r => `data-key="${r.processInstanceKey}"`);
    document.getElementById('page-info').textContent = answer.page.totalItems + ' instances';
  });
}

// --- diagrams ---
async function diagram(container, definitionKey) {
  const viewer = new Viewer({ container });
  await viewer.importXML(await api('/v2/process-definitions/' + definitionKey + '/xml'));
  viewer.get('canvas').zoom('fit-viewport');
  return viewer;
}

function badges(viewer, elementId, counts) {
  const overlays = viewer.get('overlays');
  overlays.remove({ element: elementId });
  const html = Object.entries(counts).filter(([, n]) => n > 0)
    .map(([state, n]) => `<span class="badge badge-${state}" title="${state}">${n}</span>`).join(' ');
  if (html && viewer.get('elementRegistry').get(elementId)) {
    overlays.add(elementId, { position: { bottom: 4, left: 4 }, html: `<div class="badges" data-element="${esc(elementId)}">${html}</div>` });
  }
}

// --- one instance: diagram with states, element history, variables, incidents ---
function instance(key) {
  view.innerHTML = `<h1>Process instance <span id="instance-key">${esc(key)}</span></h1>
    <div id="instance-facts" class="facts"></div><div id="diagram" class="diagram"></div>
    <h2>Incidents</h2><div id="incidents"></div>
    <h2>Variables</h2><div id="variables"></div>
    <h2>Element history</h2><div id="history"></div>`;
  let viewer = null;
  every(async mine => {
    const pi = await api('/v2/process-instances/' + key);
    const byInstance = { filter: { processInstanceKey: key }, page: { limit: 1000 } };
    const [elements, variables, incidents] = await Promise.all([
      search('element-instances', { ...byInstance, sort: [{ field: 'startDate' }] }),
      search('variables', { ...byInstance, sort: [{ field: 'name' }] }),
      search('incidents', { ...byInstance, sort: [{ field: 'creationTime' }] }),
    ]);
    if (mine !== route) return;
    document.getElementById('instance-facts').innerHTML =
      `<span>Process <a href="#/processes/${pi.processDefinitionKey}">${esc(pi.processDefinitionId)}</a> v${esc(pi.processDefinitionVersion)}</span>`
      + `<span>State <b id="instance-state" class="state-${pi.state}">${pi.state}</b></span>`
      + (pi.hasIncident ? '<span class="incident">has incident</span>' : '')
      + `<span>Started ${date(pi.startDate)}</span>` + (pi.endDate ? `<span>Ended ${date(pi.endDate)}</span>` : '');
    const openIncidents = new Set(incidents.items.filter(i => i.state === 'ACTIVE').map(i => i.elementInstanceKey));
    document.getElementById('incidents').innerHTML = table('incidents-table', [
      { title: 'Element', html: r => esc(r.elementId) },
      { title: 'Type', html: r => esc(r.errorType) },
      { title: 'Message', html: r => esc(r.errorMessage) },
      { title: 'State', html: r => `<span class="${r.state === 'ACTIVE' ? 'incident' : ''}">${r.state}</span>` },
      { title: 'Created', html: r => date(r.creationTime) },
    ], incidents.items);
    document.getElementById('variables').innerHTML = table('variables-table', [
      { title: 'Name', html: r => esc(r.name) },
      { title: 'Value', html: r => esc(r.value) + (r.isTruncated ? ' …' : '') },
      { title: 'Scope', html: r => esc(r.scopeKey) },
    ], variables.items, r => `data-name="${esc(r.name)}"`);
    document.getElementById('history').innerHTML = table('history-table', [
      { title: 'Element', html: r => esc(r.elementId) },
      { title: 'Type', html: r => esc(r.type) },
      { title: 'State', html: r => `<span class="state-${r.state}">${r.state}</span>` + (openIncidents.has(r.elementInstanceKey) ? ' <span class="incident">incident</span>' : '') },
      { title: 'Started', html: r => date(r.startDate) },
      { title: 'Ended', html: r => date(r.endDate) },
    ], elements.items);
    if (!viewer) viewer = await diagram(document.getElementById('diagram'), pi.processDefinitionKey);
    if (mine !== route) return;
    const canvas = viewer.get('canvas');
    const states = new Map();
    for (const e of elements.items) {
      const s = states.get(e.elementId) || { active: 0, completed: 0, incident: 0 };
      if (openIncidents.has(e.elementInstanceKey)) s.incident++;
      else if (e.state === 'ACTIVE') s.active++;
      else if (e.state === 'COMPLETED') s.completed++;
      states.set(e.elementId, s);
    }
    for (const [elementId, s] of states) {
      if (!viewer.get('elementRegistry').get(elementId)) continue;
      for (const marker of ['element-active', 'element-completed', 'element-incident']) canvas.removeMarker(elementId, marker);
      canvas.addMarker(elementId, s.incident ? 'element-incident' : s.active ? 'element-active' : 'element-completed');
      badges(viewer, elementId, s);
    }
  });
}

// --- one process: diagram with per-element counts ---
function process(key) {
  view.innerHTML = `<h1>Process <span id="process-name"></span></h1><div id="process-facts" class="facts"></div><div id="diagram" class="diagram"></div>`;
  let viewer = null;
  every(async mine => {
    const definition = await api('/v2/process-definitions/' + key);
    if (!viewer) viewer = await diagram(document.getElementById('diagram'), key);
    if (mine !== route) return;
    document.getElementById('process-name').textContent = definition.name || definition.processDefinitionId;
    const [running, incidents] = await Promise.all([
      search('process-instances', { filter: { processDefinitionKey: key, state: 'ACTIVE' }, page: { limit: 0 } }),
      search('incidents', { filter: { processDefinitionKey: key, state: 'ACTIVE' }, page: { limit: 0 } }),
    ]);
    document.getElementById('process-facts').innerHTML = `<span>${esc(definition.processDefinitionId)} version ${esc(definition.version)}</span>`
      + `<span>Running instances <a href="#/instances?processDefinitionId=${encodeURIComponent(definition.processDefinitionId)}&version=${definition.version}&state=ACTIVE">${running.page.totalItems}</a></span>`
      + `<span class="${incidents.page.totalItems ? 'incident' : ''}">Open incidents ${incidents.page.totalItems}</span>`;
    const elements = viewer.get('elementRegistry').filter(e => e.type !== 'label' && e.type !== 'bpmn:Process' && e.type !== 'bpmn:SequenceFlow');
    const counts = await Promise.all(elements.map(async e => {
      const count = filter => search('element-instances', { filter: { processDefinitionKey: key, elementId: e.id, ...filter }, page: { limit: 0 } }).then(a => a.page.totalItems);
      const [active, completed, incident] = await Promise.all([
        count({ state: 'ACTIVE', incidentKey: { $exists: false } }), count({ state: 'COMPLETED' }), count({ state: 'ACTIVE', incidentKey: { $exists: true } }),
      ]);
      return [e.id, { active, completed, incident }];
    }));
    if (mine !== route) return;
    for (const [id, c] of counts) badges(viewer, id, c);
  });
}

function show() {
  route++;
  clearInterval(timer);
  const [path, query] = location.hash.replace(/^#/, '').split('?');
  const params = new URLSearchParams(query || '');
  const parts = (path || '/').split('/').filter(Boolean);
  if (parts[0] === 'instances' && parts[1]) instance(parts[1]);
  else if (parts[0] === 'instances') instances(params);
  else if (parts[0] === 'processes' && parts[1]) process(parts[1]);
  else dashboard();
}

api('/ui/config').then(config => { refreshMillis = config.refreshIntervalMillis; }).catch(() => {}).finally(() => {
  window.addEventListener('hashchange', show);
  show();
});
