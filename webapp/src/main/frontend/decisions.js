// The Decisions views: the decision instances (a business rule task's or a standalone evaluation's decisions), and one
// decision instance with its inputs, matched rules and outputs beside its DRD, rendered by dmn-js with the evaluated
// decision marked. They read the v2 decision endpoints only; the shared helpers come from app.js.
import DmnViewer from 'dmn-js/lib/Viewer';

/** The list: newest evaluations first, filtered by decision id and state (from the URL's query), a page at a time. */
export function decisionInstances(ui, params) {
  const { view, search, esc, date, table, every, refreshNow, totalOf } = ui;
  const decisionId = params.get('decisionDefinitionId') || '';
  const state = params.get('state') || '';
  view.innerHTML = `<h1>Decision instances</h1>
    <form id="decision-filters" class="filters">
      <label>Decision id<input name="decisionDefinitionId" value="${esc(decisionId)}"></label>
      <label>State<select name="state">${['', 'EVALUATED', 'FAILED'].map(s =>
        `<option ${s === state ? 'selected' : ''} value="${s}">${s || 'any'}</option>`).join('')}</select></label>
      <button type="submit">Filter</button>
    </form>
    <div id="decision-count"></div><div id="decision-instances"></div>
    <div class="paging"><button id="decisions-prev">Previous</button><button id="decisions-next">Next</button></div>`;
  document.getElementById('decision-filters').addEventListener('submit', event => {
    event.preventDefault();
    const query = new URLSearchParams();
    for (const [name, value] of new FormData(event.target)) if (value) query.set(name, value);
    location.hash = '#/decisions?' + query.toString();
  });
  const filter = {};
  if (decisionId) filter.decisionDefinitionId = decisionId;
  if (state) filter.state = state;
  // pages by the v2 cursors, as the instance list does: the next page after the last shown, the previous before the first
  const limit = 50;
  let page = { limit };
  let last = null;
  document.getElementById('decisions-next').addEventListener('click', () => {
    if (last?.page.endCursor && last.items.length === limit) { page = { after: last.page.endCursor, limit }; refreshNow(); }
  });
  document.getElementById('decisions-prev').addEventListener('click', () => {
    if (last?.page.startCursor && (page.after || page.before)) { page = { before: last.page.startCursor, limit }; refreshNow(); }
  });
  let reload;
  every(reload = async (mine, reads) => {
    const found = await search('decision-instances',
      { filter, sort: [{ field: 'evaluationDate', order: 'desc' }], page }, reads);
    if (!ui.current(mine)) return;
    // a page emptied meanwhile (e.g. the first page walked back past its start): back to the newest
    if (found.items.length === 0 && (page.after || page.before)) { page = { limit }; return reload(mine, reads); }
    last = found;
    document.getElementById('decision-count').textContent = totalOf(found.page) + ' decision instance(s)';
    document.getElementById('decision-instances').innerHTML = table('decision-instances-table', [
      { title: 'Key', html: r => `<a href="#/decisions/${esc(r.decisionEvaluationInstanceKey)}">${esc(r.decisionEvaluationInstanceKey)}</a>` },
      { title: 'Decision', html: r => esc(r.decisionDefinitionName || r.decisionDefinitionId) },
      { title: 'Version', html: r => esc(r.decisionDefinitionVersion) },
      { title: 'State', html: r => `<span class="state-${esc(r.state)}">${esc(r.state)}</span>` },
      { title: 'Evaluated', html: r => date(r.evaluationDate) },
      { title: 'Process instance', html: r => r.processInstanceKey && r.processInstanceKey !== '-1'
        ? `<a href="#/instances/${esc(r.processInstanceKey)}">${esc(r.processInstanceKey)}</a>` : 'none (standalone)' },
    ], found.items, r => `data-key="${esc(r.decisionEvaluationInstanceKey)}"`);
  });
}

/** One decision instance: what went in, which rules matched with what came out, and where it sits in its DRD. */
export function decisionInstance(ui, key) {
  const { view, api, esc, date, table } = ui;
  const mine = ui.route();
  view.innerHTML = `<div id="decision-page"><h1>Decision instance <span id="decision-key">${esc(key)}</span></h1>
    <div id="decision-facts" class="facts"></div>
    <h2>Decision requirements <span id="drd-name"></span></h2>
    <div id="drd" class="diagram"></div>
    <h2>Inputs</h2><div id="decision-inputs"></div>
    <h2>Matched rules and outputs</h2><div id="decision-rules"></div>
    <h2>Result</h2><pre id="decision-result" class="value"></pre></div>`;
  // a decision instance never changes once written: read it once (until it is there)
  (async () => {
    let instance;
    try {
      instance = await api('/v2/decision-instances/' + encodeURIComponent(key));
    } catch (e) {
      ui.setStatus(e.message, true);
      return;
    }
    if (!ui.current(mine)) return;
    const standalone = !instance.processInstanceKey || instance.processInstanceKey === '-1';
    document.getElementById('decision-facts').innerHTML =
      `<span>Decision <b id="decision-name">${esc(instance.decisionDefinitionName || instance.decisionDefinitionId)}</b>`
      + ` (${esc(instance.decisionDefinitionId)}) v${esc(instance.decisionDefinitionVersion)}</span>`
      + `<span>Type ${esc(instance.decisionDefinitionType)}</span>`
      + `<span>State <b id="decision-state" class="state-${esc(instance.state)}">${esc(instance.state)}</b></span>`
      + `<span>Evaluated ${date(instance.evaluationDate)}</span>`
      + (standalone ? '<span>Standalone evaluation</span>'
        : `<span>Process instance <a id="decision-process-instance" href="#/instances/${esc(instance.processInstanceKey)}">${esc(instance.processInstanceKey)}</a></span>`)
      + (instance.evaluationFailure ? `<span class="incident" id="decision-failure">${esc(instance.evaluationFailure)}</span>` : '');
    document.getElementById('decision-inputs').innerHTML = table('decision-inputs-table', [
      { title: 'Input', html: r => esc(r.inputName || r.inputId) },
      { title: 'Value', html: r => `<span class="value">${esc(r.inputValue)}</span>` },
    ], instance.evaluatedInputs || [], r => `data-input="${esc(r.inputId)}"`);
    document.getElementById('decision-rules').innerHTML = table('decision-rules-table', [
      { title: 'Rule', html: r => esc(r.ruleIndex) },
      { title: 'Rule id', html: r => esc(r.ruleId) },
      { title: 'Outputs', html: r => (r.evaluatedOutputs || [])
        .map(o => `${esc(o.outputName || o.outputId)} = <span class="value">${esc(o.outputValue)}</span>`).join('<br>') },
    ], instance.matchedRules || [], r => `data-rule="${esc(r.ruleId)}"`);
    document.getElementById('decision-result').textContent = instance.result ?? '';
    ui.setStatus('updated ' + new Date().toLocaleTimeString());
    await drd(document.getElementById('drd'), instance, api, mine, ui);
  })();
}

/** The DRD of the instance's decision, with that decision marked as evaluated (or failed). */
async function drd(container, instance, api, mine, ui) {
  try {
    const xml = await api('/v2/decision-definitions/' + encodeURIComponent(instance.decisionDefinitionKey) + '/xml');
    if (!ui.current(mine)) return;
    const viewer = new DmnViewer({ container });
    await viewer.importXML(xml);
    const drdView = viewer.getViews().find(v => v.type === 'drd');
    if (drdView) await viewer.open(drdView);
    const definitions = viewer.getDefinitions();
    // named above the diagram: dmn-js's own name box would sit on the top decisions of a fitted diagram
    document.getElementById('drd-name').textContent = (definitions.name || definitions.id) + ' (' + definitions.id + ')';
    const active = viewer.getActiveViewer();
    const canvas = active.get('canvas');
    canvas.zoom('fit-viewport', 'auto');
    if (active.get('elementRegistry').get(instance.decisionDefinitionId)) {
      canvas.addMarker(instance.decisionDefinitionId,
        instance.state === 'FAILED' ? 'element-incident' : 'element-completed');
    }
    container.dataset.rendered = 'true';
  } catch (e) {
    container.textContent = 'The DRD cannot be shown: ' + e.message;
  }
}
