// The flowpipe UI: a few views over the search API (/v2), routed by the URL hash; pages reload themselves while the
// tab is visible. Where the user may, it also acts: operations and batch operations through the v2 command endpoints.
import Viewer from 'bpmn-js/lib/NavigatedViewer';
import { decisionInstance, decisionInstances } from './decisions.js';
import { connectLive } from './live.js';
import { exportLink } from './csv.js';
import { stuckInstances } from './stuck.js';
import { drawHeatmap, heatControls } from './heatmap.js';
import { dashboard } from './dashboard.js';
import { elementTree, scopeLabel, scopesOf } from './elementtree.js';
import { listDiagram } from './listdiagram.js';
import { enableKeyboard } from './keyboard.js';
import { instanceModification } from './modification.js';
import { instanceMigration } from './migration.js';
import { auditLogPage, instanceAuditTrail } from './audit.js';

const view = document.getElementById('view');
const status = document.getElementById('status');
const config = { refreshIntervalMillis: 1000, canOperate: false, canMigrate: false, canDelete: false };
let route = 0; // bumps on navigation, so answers of a left view are dropped
let refresh = null; // the shown view's reload: {run, timer}

// --- read-your-writes: an operation's answer names the log position its effect is at; the next reads wait for it ---
const POSITION_HEADER = 'Flowpipe-Written-Position';
const writtenPositions = new Map(); // partitionId -> position, until a refresh has read with them

function rememberPosition(response) {
  const header = response.headers.get(POSITION_HEADER);
  if (!header) return;
  const [partitionId, position] = header.split(':').map(Number);
  writtenPositions.set(partitionId, Math.max(position, writtenPositions.get(partitionId) || 0));
}

/** The consistency part for the reads of one refresh, or undefined when no operation is waiting to be seen. */
function consistency(positions) {
  if (!positions.size) return undefined;
  return { positions: [...positions].map(([partitionId, position]) => ({ partitionId, position })), timeout: '2s' };
}

async function api(path, body, method) {
  const init = body === undefined && !method ? {} : {
    method: method || 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body ?? {}),
  };
  const response = await fetch(path, init);
  rememberPosition(response);
  if (!response.ok) {
    let detail = response.statusText;
    try { detail = (await response.json()).detail || detail; } catch (e) { /* not JSON */ }
    throw new Error(response.status + ': ' + detail);
  }
  const type = response.headers.get('Content-Type') || '';
  if (response.status === 204) return null;
  return type.includes('json') ? response.json() : response.text();
}

/** A search; {@code reads} (the refresh's consistency) makes it wait until the read model holds the last operations. */
const search = (entity, request, reads) => api('/v2/' + entity + '/search', { ...request, consistency: reads });

/** A search's total as the UI shows it: "10000+" when the server stopped counting at its cap. */
function totalOf(page) {
  return page.totalItems + (page.hasMoreTotalItems ? '+' : '');
}

function esc(value) {
  return String(value ?? '').replace(/[&<>"']/g, c => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
}

function date(value) {
  return value ? new Date(value).toLocaleString() : '';
}

function table(id, columns, rows, rowAttrs = () => '') {
  return `<table id="${id}"><thead><tr>${columns.map(c => `<th>${c.head ?? esc(c.title)}</th>`).join('')}</tr></thead><tbody>`
    + (rows.length ? rows.map(r => `<tr ${rowAttrs(r)}>${columns.map(c => `<td>${c.html(r)}</td>`).join('')}</tr>`).join('')
      : `<tr><td colspan="${columns.length}" class="empty">none</td></tr>`)
    + '</tbody></table>';
}

/** Sets an element's markup only when it changed, so a refresh that changed nothing keeps the keyboard focus in it. */
const shownHtml = new WeakMap();
function setHtml(id, html) {
  const element = document.getElementById(id);
  if (element && shownHtml.get(element) !== html) {
    element.innerHTML = html;
    shownHtml.set(element, html);
  }
}

function setStatus(text, error) {
  status.textContent = text;
  status.className = 'status' + (error ? ' error' : '');
}

// --- refreshing: a load when the live stream says the read model moved; one per interval while there is no stream ---
let live = { isLive: () => false };

/**
 * Runs load(mine, reads) now and again when the read model moved (or, without a live stream or with {@code poll}, every
 * refresh interval) while the view is shown and the tab visible. {@code poll}: for what the stream does not follow
 * (batch operations: the web app's own documents, not the exporter's); a number: every that many milliseconds (a view
 * that changes with the clock too).
 */
function every(load, { poll = false } = {}) {
  const mine = route;
  const state = { timer: null, running: false, again: false };
  const run = async () => {
    if (mine !== route) return;
    if (state.running) { state.again = true; return; } // asked during a load: load again as soon as it ends
    clearTimeout(state.timer);
    state.running = true;
    state.again = false;
    // the positions this refresh reads with are forgotten once it read them; later operations add new ones
    const positions = new Map(writtenPositions);
    try {
      await load(mine, consistency(positions));
      for (const [partition, position] of positions) {
        if (writtenPositions.get(partition) === position) writtenPositions.delete(partition);
      }
      if (mine === route) setStatus('updated ' + new Date().toLocaleTimeString());
    } catch (e) {
      if (mine === route) setStatus(e.message, true);
    } finally {
      state.running = false;
    }
    if (mine === route && document.visibilityState === 'visible' && !state.stopped && (state.again || poll || !live.isLive())) {
      state.timer = setTimeout(run, state.again ? 0 : typeof poll === 'number' ? poll : config.refreshIntervalMillis);
    }
  };
  refresh = { run, state };
  run();
  return state;
}

document.addEventListener('visibilitychange', () => {
  if (!refresh) return;
  clearTimeout(refresh.state.timer);
  if (document.visibilityState === 'visible') refresh.run();
});

/** Reloads the shown view at once (after an operation: its reads then wait for the operation's effect). */
function refreshNow() {
  if (refresh) refresh.run();
}

// --- confirmation and operations ---

function confirmAction(text) {
  const dialog = document.getElementById('confirm');
  document.getElementById('confirm-text').textContent = text;
  dialog.returnValue = '';
  dialog.showModal();
  return new Promise(resolve => {
    dialog.addEventListener('close', () => resolve(dialog.returnValue === 'ok'), { once: true });
  });
}

function showMessage(text, error) {
  const message = document.getElementById('message');
  if (!message) return;
  message.textContent = text;
  message.className = 'message' + (error ? ' error' : '');
}

/** Runs an operation (after confirmation, if a text is given), then refreshes the view at once. */
async function operate(confirmation, action, done) {
  if (confirmation && !(await confirmAction(confirmation))) return;
  try {
    const answer = await action();
    showMessage(done);
    refreshNow();
    return answer;
  } catch (e) {
    showMessage(e.message, true);
    return undefined;
  }
}

// --- instance list with filters, paging, selection and batch operations ---
const FILTERS = ['processDefinitionId', 'version', 'state', 'hasIncident', 'startFrom', 'startTo', 'endFrom', 'endTo', 'key',
  'parentKey', 'variableName', 'variableValue', 'errorMessage', 'elementId', 'elementState', 'hasRetriesLeft'];

/** The element filter's states: an element instance of the element that is ... (Operate's diagram click: active). */
const ELEMENT_STATES = {
  ACTIVE: { elementInstanceState: 'ACTIVE' },
  INCIDENT: { elementInstanceState: 'ACTIVE', hasElementInstanceIncident: true },
  COMPLETED: { elementInstanceState: 'COMPLETED' },
  TERMINATED: { elementInstanceState: 'TERMINATED' },
};

/** Keys typed into one field, separated by commas or spaces: one value, or $in of several. */
function keysCondition(text) {
  const keys = text.split(/[\s,;]+/).filter(Boolean);
  return keys.length === 1 ? keys[0] : { $in: keys };
}

/** A text filter: a pattern ($like) where it holds * or ?, else the exact value. */
const textCondition = text => /[*?]/.test(text) ? { $like: text } : text;

function instanceFilter(params) {
  const filter = {};
  const p = name => params.get(name) || '';
  if (p('processDefinitionId')) filter.processDefinitionId = p('processDefinitionId');
  if (p('version')) filter.processDefinitionVersion = Number(p('version'));
  if (p('state')) filter.state = p('state');
  if (p('hasIncident')) filter.hasIncident = p('hasIncident') === 'true';
  if (p('key')) filter.processInstanceKey = keysCondition(p('key'));
  if (p('parentKey')) filter.parentProcessInstanceKey = keysCondition(p('parentKey'));
  // Operate's daily filters: a variable by name and value (the value as JSON text: "gold" in quotes, 42 without)
  if (p('variableName')) {
    filter.variables = [{ name: p('variableName'), value: p('variableValue') ? textCondition(p('variableValue')) : { $exists: true } }];
  }
  if (p('errorMessage')) filter.errorMessage = textCondition(p('errorMessage'));
  if (p('errorHashCode')) filter.incidentErrorHashCode = Number(p('errorHashCode')); // the dashboard's link by error
  if (p('elementId')) {
    filter.elementId = textCondition(p('elementId'));
    Object.assign(filter, ELEMENT_STATES[p('elementState')] || {});
  }
  if (p('hasRetriesLeft')) filter.hasRetriesLeft = p('hasRetriesLeft') === 'true';
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

// what a batch takes of a filter (as the server narrows it): active root instances; for retries, with an incident
const BATCHES = {
  cancel: { path: 'cancellation', narrow: f => ({ ...f, state: 'ACTIVE', parentProcessInstanceKey: { $exists: false } }), verb: 'Cancel', noun: 'active root instances' },
  retry: { path: 'incident-resolution', narrow: f => ({ ...f, state: 'ACTIVE', hasIncident: true }), verb: 'Retry the incidents of', noun: 'active instances with incidents' },
};

/** Starts a batch operation over a filter after confirming how many instances it takes, then shows its page. */
async function startBatch(kind, filter, what) {
  const batch = BATCHES[kind];
  let count;
  try {
    count = (await search('process-instances', { filter: batch.narrow(filter), page: { limit: 0 } })).page.totalItems;
  } catch (e) {
    showMessage(e.message, true);
    return;
  }
  const started = await operate(`${batch.verb} ${count} ${batch.noun} (${what})?`,
    () => api('/v2/process-instances/' + batch.path, { filter }), 'batch started');
  if (started) location.hash = '#/batches/' + started.batchOperationKey;
}

// the list's columns, each sortable (the URL's sort and order; newest first by default)
const LIST_COLUMNS = [
  { field: 'processInstanceKey', title: 'Key', html: r => `<a href="#/instances/${esc(r.processInstanceKey)}">${esc(r.processInstanceKey)}</a>` },
  { field: 'processDefinitionId', title: 'Process', html: r => `<span title="${esc(r.processDefinitionName)}">${esc(r.processDefinitionId)}</span>` },
  { field: 'processDefinitionVersion', title: 'Version', html: r => esc(r.processDefinitionVersion) },
  { field: 'state', title: 'State', html: r => `<span class="state-${esc(r.state)}">${esc(r.state)}</span>` },
  { field: 'hasIncident', title: 'Incident', html: r => r.hasIncident ? '<span class="incident">yes</span>' : '' },
  { field: 'startDate', title: 'Started', html: r => `<span data-field="startDate" data-value="${esc(r.startDate)}">${date(r.startDate)}</span>` },
  { field: 'endDate', title: 'Ended', html: r => `<span data-field="endDate" data-value="${esc(r.endDate)}">${date(r.endDate)}</span>` },
  { field: 'lastUpdateDate', title: 'Last updated', html: r => `<span data-field="lastUpdateDate" data-value="${esc(r.lastUpdateDate)}">${date(r.lastUpdateDate)}</span>` },
  { field: 'parentProcessInstanceKey', title: 'Parent', html: r => r.parentProcessInstanceKey ? `<a href="#/instances/${esc(r.parentProcessInstanceKey)}">${esc(r.parentProcessInstanceKey)}</a>` : '' },
];

/** The list's order from the URL: a known column, asc or desc; newest first by default. */
function listSort(params) {
  const field = LIST_COLUMNS.some(c => c.field === params.get('sort')) ? params.get('sort') : 'startDate';
  const order = params.get('order') === 'asc' || params.get('order') === 'desc' ? params.get('order') : (params.get('sort') ? 'asc' : 'desc');
  return { field, order };
}

/** The list's URL with some parameters changed (a value '' removes one). */
function listLink(params, changes) {
  const query = new URLSearchParams(params);
  for (const [name, value] of Object.entries(changes)) {
    if (value === '' || value === null || value === undefined) query.delete(name); else query.set(name, value);
  }
  return '#/instances?' + query.toString();
}

// --- deletion of finished instances (from the read model: Zeebe 8.6 keeps their records in its log; ADR 0019) ---
const FINISHED = ['COMPLETED', 'TERMINATED', 'CANCELED'];

const finishedOf = (selected, states) => [...selected].filter(key => FINISHED.includes(states.get(key)));

/** The deletion button counts the finished instances of the selection; a running one selected is explained. */
function updateDeletion(button, note, selected, states) {
  const finished = finishedOf(selected, states).length;
  const running = selected.size - finished;
  button.disabled = finished === 0;
  button.textContent = 'Delete selected finished…' + (finished ? ` (${finished})` : '');
  note.textContent = running ? `${running} selected instance${running > 1 ? 's are' : ' is'} still running and cannot be deleted: cancel first.` : '';
}

/**
 * Deletes finished instances after a confirmation: one by its own route (the list then refreshes), several as a batch
 * operation (its page then shows each item's outcome, a refused one with the reason). True when the deletion was sent.
 */
async function deleteInstances(keys) {
  if (!keys.length) return false;
  const text = keys.length === 1 ? `Delete finished process instance ${keys[0]}? Its history leaves the read model for good.`
    : `Delete ${keys.length} finished process instances? Their history leaves the read model for good.`;
  if (keys.length === 1) {
    const done = await operate(text, () => api(`/v2/process-instances/${encodeURIComponent(keys[0])}/deletion`, {}), `process instance ${keys[0]} deleted`);
    return done !== undefined;
  }
  const started = await operate(text, () => api('/v2/process-instances/deletion',
    { filter: { processInstanceKey: { $in: keys } } }), 'deletion started');
  if (started) location.hash = '#/batches/' + started.batchOperationKey;
  return Boolean(started);
}

function instances(params) {
  const v = name => esc(params.get(name) || '');
  const option = (name, value, label) => `<option value="${value}" ${params.get(name) === value ? 'selected' : ''}>${label}</option>`;
  const selectable = config.canOperate || config.canDelete;
  const actions = selectable ? `<div class="actions">
      ${config.canOperate ? `<button id="cancel-selected" disabled>Cancel selected</button> <button id="retry-selected" disabled>Retry selected</button>
      <span class="sep"></span>
      <button id="cancel-matching">Cancel all matching…</button> <button id="retry-matching">Retry all matching…</button>` : ''}
      ${config.canDelete ? `<span class="sep"></span><button id="delete-selected" disabled>Delete selected finished…</button>
      <span id="delete-note" class="hint" role="status"></span>` : ''}
    </div><div id="message" class="message"></div>` : '';
  const sort = listSort(params);
  view.innerHTML = `<h1>Process instances</h1>
    <form id="filter-form" class="filters">
      <label>Process id<input name="processDefinitionId" list="process-ids" autocomplete="off" value="${v('processDefinitionId')}"><datalist id="process-ids"></datalist></label>
      <label>Version<input name="version" type="number" min="1" value="${v('version')}"></label>
      <label>State<select name="state">${option('state', '', 'any')}${option('state', 'ACTIVE', 'active')}${option('state', 'COMPLETED', 'completed')}${option('state', 'TERMINATED', 'terminated (canceled)')}</select></label>
      <label>Incident<select name="hasIncident">${option('hasIncident', '', 'any')}${option('hasIncident', 'true', 'with incident')}${option('hasIncident', 'false', 'without')}</select></label>
      <label>Started from<input name="startFrom" type="datetime-local" value="${v('startFrom')}"></label>
      <label>Started to<input name="startTo" type="datetime-local" value="${v('startTo')}"></label>
      <label>Ended from<input name="endFrom" type="datetime-local" value="${v('endFrom')}"></label>
      <label>Ended to<input name="endTo" type="datetime-local" value="${v('endTo')}"></label>
      <label title="one or more keys, separated by commas">Keys<input name="key" value="${v('key')}"></label>
      <label title="the instances called by these">Parent key<input name="parentKey" value="${v('parentKey')}"></label>
      <label>Variable name<input name="variableName" value="${v('variableName')}"></label>
      <label title='JSON text: "gold" in quotes for a string, 42 for a number; * and ? as wildcards'>Variable value<input name="variableValue" value="${v('variableValue')}" placeholder='"gold"'></label>
      <label>Error message<input name="errorMessage" value="${v('errorMessage')}" placeholder="* as wildcard"></label>
      <label>Element id<input name="elementId" value="${v('elementId')}"></label>
      <label title="an instance of the element that is ...">Element state<select name="elementState">${option('elementState', '', 'any')}${option('elementState', 'ACTIVE', 'active (at the element)')}${option('elementState', 'INCIDENT', 'with incident')}${option('elementState', 'COMPLETED', 'completed')}${option('elementState', 'TERMINATED', 'terminated')}</select></label>
      <label>Retries left<select name="hasRetriesLeft">${option('hasRetriesLeft', '', 'any')}${option('hasRetriesLeft', 'true', 'a failed job has retries left')}${option('hasRetriesLeft', 'false', 'none')}</select></label>
      <button id="apply" type="submit">Apply</button>
    </form>
    ${actions}
    <div id="list-diagram"></div>
    <div class="actions">${exportLink(instanceFilter(params), [sort])}</div>
    <div id="instances" class="wide-table"></div>
    <div class="paging"><button id="prev">Previous</button><span id="page-info"></span><button id="next">Next</button></div>`;
  document.getElementById('filter-form').addEventListener('submit', event => {
    event.preventDefault();
    const form = new FormData(event.target);
    const query = new URLSearchParams();
    for (const name of FILTERS) if (form.get(name)) query.set(name, form.get(name));
    location.hash = '#/instances?' + query.toString();
  });
  const filter = instanceFilter(params);
  // the process's diagram above the list, with its per-element counts; a click on an element filters by it
  const diagramAbove = listDiagram(listUi(), params, document.getElementById('list-diagram'),
    (elementId, version) => listLink(params, { elementId, elementState: elementId ? 'ACTIVE' : '', version }));
  fillProcessIds(document.getElementById('process-ids'));
  const selected = new Set();
  const selectedStates = new Map(); // key -> state of a selected instance, as its row showed it (deletion takes finished ones)
  const updateSelection = () => {
    for (const id of ['cancel-selected', 'retry-selected']) {
      const button = document.getElementById(id);
      if (button) { button.disabled = selected.size === 0; button.textContent = button.textContent.replace(/ \(\d+\)$/, '') + (selected.size ? ` (${selected.size})` : ''); }
    }
    if (config.canDelete) updateDeletion(document.getElementById('delete-selected'), document.getElementById('delete-note'), selected, selectedStates);
  };
  if (config.canDelete) {
    document.getElementById('delete-selected').addEventListener('click', async () => {
      const keys = finishedOf(selected, selectedStates);
      const deleted = await deleteInstances(keys);
      if (deleted) for (const key of keys) { selected.delete(key); selectedStates.delete(key); }
      updateSelection();
    });
  }
  if (selectable) {
    document.getElementById('instances').addEventListener('change', event => {
      const box = event.target;
      const pick = row => {
        if (row.checked) { selected.add(row.value); selectedStates.set(row.value, row.dataset.state); } else { selected.delete(row.value); selectedStates.delete(row.value); }
      };
      if (box.id === 'select-all') {
        for (const row of document.querySelectorAll('#instances-table input.select:not(:disabled)')) {
          row.checked = box.checked;
          pick(row);
        }
      } else if (box.classList.contains('select')) {
        pick(box);
      }
      updateSelection();
    });
  }
  if (config.canOperate) {
    const selection = () => ({ processInstanceKey: { $in: [...selected] } });
    document.getElementById('cancel-selected').addEventListener('click', () => startBatch('cancel', selection(), 'the selected'));
    document.getElementById('retry-selected').addEventListener('click', () => startBatch('retry', selection(), 'the selected'));
    document.getElementById('cancel-matching').addEventListener('click', () => startBatch('cancel', filter, 'all matching the filter'));
    document.getElementById('retry-matching').addEventListener('click', () => startBatch('retry', filter, 'all matching the filter'));
  }
  const limit = 20;
  let page = { limit };
  let last = null;
  let reload;
  document.getElementById('next').addEventListener('click', () => { if (last?.page.endCursor) { page = { after: last.page.endCursor, limit }; refreshNow(); } });
  document.getElementById('prev').addEventListener('click', () => { if (last?.page.startCursor) { page = { before: last.page.startCursor, limit }; refreshNow(); } });
  every(reload = async (mine, reads) => {
    const [answer] = await Promise.all([
      search('process-instances', { filter, sort: [sort], page }, reads),
      diagramAbove.load(mine, reads),
    ]);
    if (mine !== route) return;
    if (answer.items.length === 0 && (page.after || page.before)) { page = { limit }; return reload(mine, reads); }
    last = answer;
    // with the deletion role alone, only finished instances can be picked (nothing else could be done with a running one)
    const pickable = r => config.canOperate || FINISHED.includes(r.state);
    const select = selectable ? [{ head: '<input type="checkbox" id="select-all" title="select all on this page" aria-label="select all on this page">', html: r => `<input type="checkbox" class="select" value="${esc(r.processInstanceKey)}" data-state="${esc(r.state)}" aria-label="select ${esc(r.processInstanceKey)}"`
      + (pickable(r) ? '' : ' disabled title="running: only finished instances can be deleted"') + ` ${selected.has(String(r.processInstanceKey)) ? 'checked' : ''}>` }] : [];
    const head = c => {
      const next = c.field === sort.field && sort.order === 'asc' ? 'desc' : 'asc';
      const arrow = c.field === sort.field ? (sort.order === 'asc' ? ' ▲' : ' ▼') : '';
      return `<a class="sort" data-sort="${c.field}" href="${esc(listLink(params, { sort: c.field, order: next }))}"`
        + (c.field === sort.field ? ` aria-sort="${sort.order === 'asc' ? 'ascending' : 'descending'}"` : '') + `>${esc(c.title)}${arrow}</a>`;
    };
    setHtml('instances', table('instances-table', [
      ...select,
      ...LIST_COLUMNS.map(c => ({ head: head(c), html: c.html })),
    ], answer.items, r => `data-key="${esc(r.processInstanceKey)}" data-state="${esc(r.state)}" data-href="#/instances/${esc(r.processInstanceKey)}" tabindex="0"`));
    document.getElementById('page-info').textContent = totalOf(answer.page) + ' instances';
  });
}

// --- batch operations: the newest first, with their state and counts ---
function batchesList() {
  view.innerHTML = `<h1>Batch operations</h1><div id="batches"></div><div id="page-info" class="page-info"></div>`;
  every(async mine => {
    const answer = await search('batch-operations', { sort: [{ field: 'batchOperationKey', order: 'DESC' }], page: { limit: 100 } });
    if (mine !== route) return;
    document.getElementById('batches').innerHTML = table('batches-table', [
      { title: 'Batch', html: r => `<a href="#/batches/${esc(r.batchOperationKey)}">${esc(r.batchOperationKey)}</a>` },
      { title: 'Type', html: r => esc(r.batchOperationType) },
      { title: 'State', html: r => `<span class="state-${esc(r.state)}">${esc(r.state)}</span>` },
      { title: 'Items', html: r => esc(r.operationsTotalCount) },
      { title: 'Done', html: r => esc(r.operationsCompletedCount) },
      { title: 'Failed', html: r => esc(r.operationsFailedCount) },
      { title: 'Started', html: r => date(r.startDate) },
      { title: 'Ended', html: r => date(r.endDate) },
    ], answer.items, r => `data-key="${esc(r.batchOperationKey)}"`);
    document.getElementById('page-info').textContent = answer.page.totalItems + ' batch operations';
  }, { poll: true });
}

// the changes of a batch's state the UI offers, by the states that allow them (as the server checks them)
const BATCH_CHANGES = [
  { id: 'batch-suspend', path: 'suspension', label: 'Suspend', states: ['ACTIVE'], done: 'batch suspended' },
  { id: 'batch-resume', path: 'resumption', label: 'Resume', states: ['SUSPENDED'], done: 'batch resumed' },
  { id: 'batch-cancel', path: 'cancellation', label: 'Cancel batch', states: ['ACTIVE', 'SUSPENDED'], done: 'batch cancelled',
    confirm: 'Cancel this batch? Items not yet carried out are not carried out.' },
];

// --- one batch operation: progress and per-item outcomes, refreshed until it ends ---
function batchPage(key) {
  view.innerHTML = `<h1>Batch operation <span id="batch-key">${esc(key)}</span></h1>
    <div id="batch-facts" class="facts"></div><div class="progress"><div id="batch-progress"></div></div>
    <div class="actions" id="batch-actions"></div><div id="message" class="message"></div>
    <h2>Items</h2><div id="batch-items"></div>`;
  if (config.canOperate) {
    document.getElementById('batch-actions').innerHTML = BATCH_CHANGES
      .map(c => `<button id="${c.id}" hidden>${esc(c.label)}</button>`).join(' ');
    for (const change of BATCH_CHANGES) {
      document.getElementById(change.id).addEventListener('click', () => operate(change.confirm,
        () => api('/v2/batch-operations/' + encodeURIComponent(key) + '/' + change.path, {}), change.done));
    }
  }
  const state = every(async mine => {
    const [batch, items] = await Promise.all([
      api('/v2/batch-operations/' + encodeURIComponent(key)),
      api('/v2/batch-operation-items/search', { filter: { batchOperationKey: key }, page: { limit: 1000 } }),
    ]);
    if (mine !== route) return;
    const done = (batch.operationsCompletedCount || 0) + (batch.operationsFailedCount || 0);
    const total = batch.operationsTotalCount || 0;
    document.getElementById('batch-facts').innerHTML = `<span>${esc(batch.batchOperationType)}</span>`
      + `<span>State <b id="batch-state" class="state-${esc(batch.state)}">${esc(batch.state)}</b></span>`
      + `<span id="batch-counts">${esc(done)} of ${esc(total)} done, ${esc(batch.operationsFailedCount || 0)} failed</span>`
      + `<span>Started ${date(batch.startDate)}</span>` + (batch.endDate ? `<span>Ended ${date(batch.endDate)}</span>` : '');
    document.getElementById('batch-progress').style.width = (total ? Math.round(100 * done / total) : 100) + '%';
    document.getElementById('batch-items').innerHTML = table('batch-items-table', [
      { title: 'Instance', html: r => `<a href="#/instances/${esc(r.processInstanceKey)}">${esc(r.processInstanceKey)}</a>` },
      { title: 'Item', html: r => esc(r.itemKey) },
      { title: 'State', html: r => `<span class="state-${esc(r.state)}">${esc(r.state)}</span>` },
      { title: 'Processed', html: r => date(r.processedDate) },
      { title: 'Error', html: r => esc(r.errorMessage) },
    ], items.items, r => `data-key="${esc(r.processInstanceKey)}"`);
    for (const change of config.canOperate ? BATCH_CHANGES : []) {
      document.getElementById(change.id).hidden = !change.states.includes(batch.state);
    }
    // an ended batch changes no more once its items are closed (a cancelled one's are closed after the cancellation);
    // a suspended one may be resumed here or elsewhere
    if (!['ACTIVE', 'SUSPENDED'].includes(batch.state) && !items.items.some(i => i.state === 'ACTIVE')) state.stopped = true;
  }, { poll: true });
}

// --- diagrams ---
async function diagram(container, definitionKey) {
  const viewer = new Viewer({ container });
  await viewer.importXML(await api('/v2/process-definitions/' + encodeURIComponent(definitionKey) + '/xml'));
  viewer.get('canvas').zoom('fit-viewport');
  return viewer;
}

function badges(viewer, elementId, counts) {
  const overlays = viewer.get('overlays');
  overlays.remove({ element: elementId });
  const html = Object.entries(counts).filter(([, n]) => n > 0)
    .map(([state, n]) => `<span class="badge badge-${esc(state)}" title="${esc(state)}">${esc(n)}</span>`).join(' ');
  if (html && viewer.get('elementRegistry').get(elementId)) {
    overlays.add(elementId, { position: { bottom: 4, left: 4 }, html: `<div class="badges" data-element="${esc(elementId)}">${html}</div>` });
  }
}

// --- one instance: diagram with states, operations, incidents, variables, jobs, called instances, history ---
function instance(key) {
  view.innerHTML = `<div id="instance-page"><h1>Process instance <span id="instance-key">${esc(key)}</span></h1>
    <div id="instance-facts" class="facts"></div>
    <div class="actions" id="instance-actions"></div><div id="message" class="message"></div>
    <div id="diagram" class="diagram"></div><div id="modification-panel"></div><div id="migration-panel"></div>
    <h2>Incidents</h2><div id="incidents"></div>
    <div class="instance-columns">
      <section><h2>Element instances</h2><div id="tree"></div></section>
      <section><h2>Variables <span id="variables-scope"></span></h2><div id="variables"></div><div id="variable-editor"></div></section>
    </div>
    <h2>Jobs</h2><div id="jobs"></div>
    <h2>Called instances</h2><div id="called"></div>
    <h2>Audit trail</h2><div id="audit"></div></div>`;
  let viewer = null;
  let viewerDefinition = null; // the definition the diagram shows: a migration changes it
  let shownActions = null;
  let editing = null; // the variable editor stays open across refreshes
  let variableScope = null; // the scope whose variables are shown (a tree node's "n variables"), null: all
  document.getElementById('instance-page').addEventListener('click', event => {
    const scope = event.target.closest('button[data-scope]');
    if (!scope || scope.dataset.action) return;
    variableScope = scope.dataset.scope === 'all' ? null : scope.dataset.scope;
    refreshNow();
  });
  const ui = repairUi();
  const modification = instanceModification(ui, key, document.getElementById('modification-panel'));
  const migration = instanceMigration(ui, key, document.getElementById('migration-panel'));
  if (config.canOperate || config.canMigrate || config.canDelete) {
    document.getElementById('instance-page').addEventListener('click', event => {
      const button = event.target.closest('button[data-action]');
      if (!button) return;
      const { action, key: target } = button.dataset;
      if (action === 'cancel') {
        operate(`Cancel process instance ${key}?`, () => api(`/v2/process-instances/${encodeURIComponent(key)}/cancellation`, {}), 'cancel requested');
      } else if (action === 'retry') {
        operate(null, () => api(`/v2/incidents/${encodeURIComponent(target)}/resolution`, {}), 'incident resolution requested');
      } else if (action === 'edit') {
        editVariable(button.dataset);
      } else if (action === 'add-variable') {
        editVariable({ name: '', scope: key, variableKey: '' });
      } else if (action === 'modify') {
        modification.open();
      } else if (action === 'migrate') {
        migration.open();
      } else if (action === 'delete') {
        deleteInstances([key]).then(sent => { if (sent) location.hash = '#/instances'; });
      }
    });
  }
  async function editVariable({ name, scope, variableKey }) {
    let value = '';
    if (variableKey) {
      try { value = (await api('/v2/variables/' + encodeURIComponent(variableKey))).value; } catch (e) { showMessage(e.message, true); return; }
    }
    editing = { name, scope };
    const editor = document.getElementById('variable-editor');
    editor.innerHTML = `<form id="variable-form" class="editor">
        <label>Name<input name="name" value="${esc(name)}" ${name ? 'readonly' : 'required'}></label>
        <label>Scope<input name="scope" value="${esc(scope)}" readonly></label>
        <label class="wide">Value (JSON)<textarea name="value" rows="${Math.min(12, 2 + Math.ceil(value.length / 100))}" required>${esc(value)}</textarea></label>
        <button type="submit" id="variable-save">Save</button> <button type="button" id="variable-close">Close</button>
      </form>`;
    document.getElementById('variable-close').addEventListener('click', () => { editor.innerHTML = ''; editing = null; });
    document.getElementById('variable-form').addEventListener('submit', async event => {
      event.preventDefault();
      const form = new FormData(event.target);
      let parsed;
      try { parsed = JSON.parse(form.get('value')); } catch (e) { showMessage('the value is no JSON: ' + e.message, true); return; }
      const done = await operate(null, () => api(`/v2/element-instances/${encodeURIComponent(form.get('scope'))}/variables`,
        { variables: { [form.get('name')]: parsed }, local: true }, 'PUT'), `variable ${form.get('name')} set`);
      if (done !== undefined) { editor.innerHTML = ''; editing = null; }
    });
  }
  every(async (mine, reads) => {
    const byInstance = { filter: { processInstanceKey: key }, page: { limit: 1000 } };
    // the audit trail alongside, not awaited with the rest: the state and the tables show without waiting for it
    const audit = instanceAuditTrail(ui, key).catch(e => `<p class="message error">${esc(e.message)}</p>`);
    const [found, elements, variables, incidents, jobs, called] = await Promise.all([
      search('process-instances', { filter: { processInstanceKey: key }, page: { limit: 1 } }, reads),
      search('element-instances', { ...byInstance, sort: [{ field: 'startDate' }] }, reads),
      search('variables', { ...byInstance, sort: [{ field: 'name' }] }, reads),
      search('incidents', { ...byInstance, sort: [{ field: 'creationTime' }] }, reads),
      search('jobs', { ...byInstance, sort: [{ field: 'jobKey' }] }, reads),
      search('process-instances', { filter: { parentProcessInstanceKey: key }, sort: [{ field: 'startDate' }], page: { limit: 100 } }, reads),
    ]);
    if (mine !== route) return;
    const pi = found.items[0];
    if (!pi) throw new Error('no process instance ' + key + ' (yet)');
    const scopeOf = await scopesOf(search, elements.items, reads);
    if (mine !== route) return;
    const elementsByKey = new Map(elements.items.map(e => [String(e.elementInstanceKey), e]));
    document.getElementById('instance-facts').innerHTML =
      `<span>Process <a href="#/processes/${esc(pi.processDefinitionKey)}">${esc(pi.processDefinitionId)}</a> v${esc(pi.processDefinitionVersion)}</span>`
      + `<span>State <b id="instance-state" class="state-${esc(pi.state)}">${esc(pi.state)}</b></span>`
      + (pi.hasIncident ? '<span class="incident">has incident</span>' : '')
      + (pi.parentProcessInstanceKey ? `<span>Called by <a id="parent-link" href="#/instances/${esc(pi.parentProcessInstanceKey)}">${esc(pi.parentProcessInstanceKey)}</a></span>` : '')
      + (pi.rootProcessInstanceKey && pi.rootProcessInstanceKey !== pi.parentProcessInstanceKey && pi.rootProcessInstanceKey !== pi.processInstanceKey
        ? `<span>Root <a id="root-link" href="#/instances/${esc(pi.rootProcessInstanceKey)}">${esc(pi.rootProcessInstanceKey)}</a></span>` : '')
      + `<span>Started ${date(pi.startDate)}</span>` + (pi.endDate ? `<span>Ended ${date(pi.endDate)}</span>` : '');
    const active = pi.state === 'ACTIVE' && config.canOperate;
    const running = pi.state === 'ACTIVE';
    const actions = (active
      ? '<button data-action="cancel" id="cancel-instance">Cancel instance…</button> <button data-action="add-variable" id="add-variable">Add variable</button>'
        + ' <button data-action="modify" id="modify-instance">Modify…</button>' : '')
      + (running && config.canMigrate ? ' <button data-action="migrate" id="migrate-instance">Migrate…</button>' : '')
      + (!running && config.canDelete ? '<button data-action="delete" id="delete-instance">Delete instance…</button>' : '');
    // drawn again only when it changes, so a refresh takes no keyboard focus from its buttons
    if (actions !== shownActions) document.getElementById('instance-actions').innerHTML = shownActions = actions;
    const openIncidents = new Set(incidents.items.filter(i => i.state === 'ACTIVE').map(i => i.elementInstanceKey));
    document.getElementById('incidents').innerHTML = table('incidents-table', [
      { title: 'Element', html: r => esc(r.elementId) },
      { title: 'Type', html: r => esc(r.errorType) },
      { title: 'Message', html: r => esc(r.errorMessage) },
      { title: 'State', html: r => `<span class="${r.state === 'ACTIVE' ? 'incident' : ''}">${esc(r.state)}</span>` },
      { title: 'Created', html: r => date(r.creationTime) },
      ...(config.canOperate ? [{ title: '', html: r => r.state === 'ACTIVE' ? `<button data-action="retry" data-key="${esc(r.incidentKey)}" class="retry">Retry</button>` : '' }] : []),
    ], incidents.items, r => `data-key="${esc(r.incidentKey)}"`);
    // per scope: the process's first, then each element instance's, in the order the tree shows them
    const scopeOrder = s => String(s) === String(pi.processInstanceKey) ? -1 : elements.items.findIndex(e => String(e.elementInstanceKey) === String(s));
    const shownVariables = variables.items.filter(r => variableScope === null || String(r.scopeKey) === variableScope)
      .sort((a, b) => scopeOrder(a.scopeKey) - scopeOrder(b.scopeKey));
    document.getElementById('variables-scope').innerHTML = variableScope === null ? ''
      : `of ${esc(scopeLabel(variableScope, pi, elementsByKey))} <button type="button" class="link" data-scope="all" id="all-scopes">all scopes</button>`;
    document.getElementById('variables').innerHTML = table('variables-table', [
      { title: 'Name', html: r => esc(r.name) },
      { title: 'Value', html: r => `<span class="value">${esc(r.value)}</span>` + (r.isTruncated ? ' <span class="truncated" title="truncated: edit shows the full value">…</span>' : '') },
      { title: 'Scope', html: r => `<span title="${esc(r.scopeKey)}">${esc(scopeLabel(r.scopeKey, pi, elementsByKey))}</span>` },
      ...(active ? [{ title: '', html: r => `<button data-action="edit" data-name="${esc(r.name)}" data-scope="${esc(r.scopeKey)}" data-variable-key="${esc(r.variableKey)}" class="edit">${r.isTruncated ? 'View / edit' : 'Edit'}</button>` }] : []),
    ], shownVariables, r => `data-name="${esc(r.name)}" data-scope="${esc(r.scopeKey)}"`);
    if (!active && editing) { document.getElementById('variable-editor').innerHTML = ''; editing = null; }
    document.getElementById('jobs').innerHTML = table('jobs-table', [
      { title: 'Key', html: r => esc(r.jobKey) },
      { title: 'Element', html: r => esc(r.elementId) },
      { title: 'Type', html: r => esc(r.type) },
      { title: 'Worker', html: r => esc(r.worker) },
      { title: 'Retries', html: r => esc(r.retries) },
      { title: 'State', html: r => `<span class="state-${esc(r.state)}">${esc(r.state)}</span>` },
      { title: 'Error', html: r => esc(r.errorMessage) },
      { title: 'Deadline', html: r => date(r.deadline) },
    ], jobs.items, r => `data-key="${esc(r.jobKey)}"`);
    document.getElementById('called').innerHTML = table('called-table', [
      { title: 'Key', html: r => `<a href="#/instances/${esc(r.processInstanceKey)}">${esc(r.processInstanceKey)}</a>` },
      { title: 'Process', html: r => esc(r.processDefinitionId) },
      { title: 'Called by', html: r => esc(elementsByKey.get(String(r.parentElementInstanceKey))?.elementId ?? '') },
      { title: 'State', html: r => `<span class="state-${esc(r.state)}">${esc(r.state)}</span>` },
      { title: 'Started', html: r => date(r.startDate) },
    ], called.items, r => `data-key="${esc(r.processInstanceKey)}" data-href="#/instances/${esc(r.processInstanceKey)}" tabindex="0"`);
    setHtml('tree', elementTree({ instance: pi, elements: elements.items, scopeOf,
      variables: variables.items, called: called.items, openIncidents, now: new Date(), esc }));
    if (viewerDefinition !== pi.processDefinitionKey) {
      // first load, or the instance was migrated: the diagram of the definition it runs in now
      viewer?.destroy();
      viewer = null;
      viewer = await diagram(document.getElementById('diagram'), pi.processDefinitionKey);
      viewerDefinition = pi.processDefinitionKey;
    }
    if (mine !== route) return;
    modification.update(viewer, elements.items, pi.state === 'ACTIVE');
    migration.update(pi, elements.items);
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
    const trail = await audit;
    if (mine === route) document.getElementById('audit').innerHTML = trail;
  });
}

// --- one process: diagram with per-element counts (one statistics request per refresh) ---
function process(key, params) {
  const heat = params.get('heat') || '';
  view.innerHTML = `<h1>Process <span id="process-name"></span></h1><div id="process-facts" class="facts"></div>
    <div class="actions">${heatControls(key, heat, esc)}</div><div id="diagram" class="diagram"></div>`;
  let viewer = null;
  let definition = null;
  every(async (mine, reads) => {
    if (!definition) definition = await api('/v2/process-definitions/' + encodeURIComponent(key));
    if (!viewer) {
      viewer = await diagram(document.getElementById('diagram'), key);
      // an element clicked: the list of this version's instances that have an instance of that element
      viewer.on('element.click', event => {
        if (!definition || event.element.type === 'bpmn:Process' || event.element.type === 'label' || event.element.waypoints) return;
        location.hash = `#/instances?processDefinitionId=${encodeURIComponent(definition.processDefinitionId)}&version=${encodeURIComponent(definition.version)}&elementId=${encodeURIComponent(event.element.id)}`;
      });
    }
    if (mine !== route) return;
    document.getElementById('process-name').textContent = definition.name || definition.processDefinitionId;
    const [running, statistics] = await Promise.all([
      search('process-instances', { filter: { processDefinitionKey: key, state: 'ACTIVE' }, page: { limit: 0 } }, reads),
      api('/v2/process-definitions/' + encodeURIComponent(key) + '/statistics/element-instances', { consistency: reads }),
    ]);
    if (mine !== route) return;
    const incidents = statistics.items.reduce((sum, s) => sum + s.incidents, 0);
    document.getElementById('process-facts').innerHTML = `<span>${esc(definition.processDefinitionId)} version ${esc(definition.version)}</span>`
      + `<span>Running instances <a href="#/instances?processDefinitionId=${encodeURIComponent(definition.processDefinitionId)}&version=${esc(definition.version)}&state=ACTIVE">${esc(running.page.totalItems)}</a></span>`
      + `<span class="${incidents ? 'incident' : ''}">Open incidents <b id="process-incidents">${esc(incidents)}</b></span>`;
    const shown = new Set();
    for (const s of statistics.items) {
      shown.add(s.elementId);
      badges(viewer, s.elementId, { active: s.active, completed: s.completed, canceled: s.canceled, incident: s.incidents });
    }
    for (const e of viewer.get('elementRegistry').getAll()) if (!shown.has(e.id)) viewer.get('overlays').remove({ element: e.id });
    await drawHeatmap(viewer, api, key, heat, esc);
  });
}

function show() {
  route++;
  if (refresh) clearTimeout(refresh.state.timer);
  refresh = null;
  const [path, query] = location.hash.replace(/^#/, '').split('?');
  const params = new URLSearchParams(query || '');
  const parts = (path || '/').split('/').filter(Boolean);
  if (parts[0] === 'stuck') stuckInstances(decisionUi(), params);
  else if (parts[0] === 'instances' && parts[1]) instance(parts[1]);
  else if (parts[0] === 'instances') instances(params);
  else if (parts[0] === 'processes' && parts[1]) process(parts[1], params);
  else if (parts[0] === 'batches' && parts[1]) batchPage(parts[1]);
  else if (parts[0] === 'batches') batchesList();
  else if (parts[0] === 'decisions' && parts[1]) decisionInstance(decisionUi(), parts[1]);
  else if (parts[0] === 'decisions') decisionInstances(decisionUi(), params);
  else if (parts[0] === 'audit') auditLogPage(repairUi(), params);
  else dashboard(decisionUi());
}

/** What the views of other modules (decisions.js, stuck.js) use of this module. */
function decisionUi() {
  return { view, api, search, esc, date, table, every, refreshNow, setStatus, setHtml, totalOf, route: () => route, current: mine => mine === route };
}

/** What the instance list's diagram (listdiagram.js) uses of this module. */
function listUi() {
  return { ...decisionUi(), diagram, badges };
}

/** Fills the process id field's suggestions: the deployed process ids (one search when the list opens). */
async function fillProcessIds(datalist) {
  try {
    const answer = await search('process-definitions', { filter: { isLatestVersion: true }, sort: [{ field: 'processDefinitionId' }], page: { limit: 1000 } });
    datalist.innerHTML = answer.items.map(d => `<option value="${esc(d.processDefinitionId)}">${esc(d.name || '')}</option>`).join('');
  } catch (e) {
    // suggestions only: the field takes any id
  }
}

/** What the repair tools (modification.js, migration.js, audit.js) use of this module. */
function repairUi() {
  return { ...decisionUi(), operate, showMessage };
}

// Where the node runs the importer (the legacy path), whether it has caught up with the raw records, from its health.
async function importerState() {
  const badge = document.getElementById('importer');
  try {
    const importer = (await api('/actuator/health')).components?.importer;
    if (!importer) { badge.hidden = true; return; }
    const caughtUp = importer.details?.caughtUp === true;
    badge.hidden = false;
    badge.textContent = caughtUp ? 'Import: caught up' : 'Import: catching up';
    badge.className = 'importer' + (caughtUp ? '' : ' behind');
  } catch (e) {
    badge.hidden = true; // no health (the web app on its own): nothing to show
  }
}

api('/ui/config').then(answer => Object.assign(config, answer)).catch(() => {}).finally(() => {
  window.addEventListener('hashchange', show);
  enableKeyboard();
  show();
  importerState();
  // a change on the stream reloads the view and the importer's state; without a stream both poll
  live = connectLive({
    onChange: () => {
      if (document.visibilityState !== 'visible') return; // becoming visible reloads the view anyway
      refreshNow();
      importerState();
    },
    onState: state => {
      document.body.dataset.live = state;
      if (!live.isLive()) refreshNow(); // picks up its interval again
    },
  });
  setInterval(() => { if (document.visibilityState === 'visible' && !live.isLive()) importerState(); }, config.refreshIntervalMillis || 1000);
});
