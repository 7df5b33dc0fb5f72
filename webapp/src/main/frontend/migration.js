// The instance page's migration (issue 35): choose another version of the instance's process, see both diagrams, map
// each element the instance is active in to an element of the target (pre-filled where the ids match), review, and
// apply as one v2 migration (POST /v2/process-instances/{key}/migration). The shared helpers come from app.js.
import Viewer from 'bpmn-js/lib/NavigatedViewer';
import { flowNodes } from './modification.js';

export function instanceMigration(ui, instanceKey, container) {
  const { api, search, esc, operate, showMessage } = ui;
  let shown = false;
  let instance = null; // the process instance, as the page read it last
  let activeElements = []; // ids of the elements with active element instances
  let target = null; // {definition, nodes}
  const mapping = new Map(); // source element id -> target element id ('' = not chosen)

  async function show(xml, element) {
    const viewer = new Viewer({ container: element });
    await viewer.importXML(xml);
    viewer.get('canvas').zoom('fit-viewport');
    return viewer;
  }

  function renderMapping() {
    const table = document.getElementById('migration-mapping');
    if (!table) return;
    if (!target) {
      table.innerHTML = '<p class="hint">Choose a target version to map the active elements.</p>';
      document.getElementById('migrate-apply').disabled = true;
      return;
    }
    const options = source => '<option value="">— choose —</option>' + target.nodes.map(n =>
      `<option value="${esc(n.id)}" ${mapping.get(source) === n.id ? 'selected' : ''}>${esc(n.name && n.name !== n.id ? n.name + ' (' + n.id + ')' : n.id)}</option>`).join('');
    table.innerHTML = `<table id="migration-table"><thead><tr><th>Active element (source)</th><th>Target element</th></tr></thead><tbody>`
      + (activeElements.length ? activeElements.map(id => `<tr data-source="${esc(id)}"><td><code>${esc(id)}</code></td>`
        + `<td><select data-source="${esc(id)}" aria-label="Target element of ${esc(id)}">${options(id)}</select></td></tr>`).join('')
        : '<tr><td colspan="2" class="empty">no active element</td></tr>') + '</tbody></table>';
    renderReview();
  }

  function renderReview() {
    const missing = activeElements.filter(id => !mapping.get(id));
    const review = document.getElementById('migration-review');
    review.textContent = !target ? '' : missing.length
      ? `Map every active element first: ${missing.join(', ')} has no target.`
      : `Migrate to ${target.definition.processDefinitionId} version ${target.definition.version}: `
        + activeElements.map(id => `${id} → ${mapping.get(id)}`).join(', ') + '.';
    review.className = 'hint' + (target && missing.length ? ' error' : '');
    document.getElementById('migrate-apply').disabled = !target || missing.length > 0 || activeElements.length === 0;
  }

  async function chooseTarget(definitionKey) {
    target = null;
    mapping.clear();
    const diagram = document.getElementById('migration-target-diagram');
    diagram.innerHTML = '';
    if (!definitionKey) { renderMapping(); return; }
    try {
      const [definition, xml] = await Promise.all([
        api('/v2/process-definitions/' + encodeURIComponent(definitionKey)),
        api('/v2/process-definitions/' + encodeURIComponent(definitionKey) + '/xml'),
      ]);
      const viewer = await show(xml, diagram);
      target = { definition, nodes: flowNodes(viewer) };
      const ids = new Set(target.nodes.map(n => n.id));
      for (const id of activeElements) mapping.set(id, ids.has(id) ? id : '');
      document.getElementById('migration-target-title').textContent = `Target: ${definition.processDefinitionId} version ${definition.version}`;
    } catch (e) {
      showMessage(e.message, true);
    }
    renderMapping();
  }

  async function render() {
    container.innerHTML = `<section id="migration" class="repair-panel" aria-labelledby="migration-title">
      <h2 id="migration-title">Migrate this instance</h2>
      <label>Target version<select id="migration-target"><option value="">loading…</option></select></label>
      <div class="migration-diagrams">
        <div><h3>Source: ${esc(instance.processDefinitionId)} version ${esc(instance.processDefinitionVersion)}</h3><div id="migration-source-diagram" class="diagram small"></div></div>
        <div><h3 id="migration-target-title">Target</h3><div id="migration-target-diagram" class="diagram small"></div></div>
      </div>
      <h3>Mapping</h3><div id="migration-mapping"></div>
      <p id="migration-review" class="hint"></p>
      <div class="actions"><button type="button" id="migrate-apply" disabled>Migrate…</button>
        <button type="button" id="migrate-close">Close</button></div>
    </section>`;
    document.getElementById('migrate-close').addEventListener('click', close);
    document.getElementById('migrate-apply').addEventListener('click', apply);
    document.getElementById('migration-target').addEventListener('change', event => chooseTarget(event.target.value));
    document.getElementById('migration-mapping').addEventListener('change', event => {
      const select = event.target.closest('select[data-source]');
      if (!select) return;
      mapping.set(select.dataset.source, select.value);
      renderReview();
    });
    renderMapping();
    const sourceKey = instance.processDefinitionKey;
    const [versions, xml] = await Promise.all([
      search('process-definitions', { filter: { processDefinitionId: instance.processDefinitionId },
        sort: [{ field: 'version', order: 'desc' }], page: { limit: 100 } }),
      api('/v2/process-definitions/' + encodeURIComponent(sourceKey) + '/xml'),
    ]);
    if (!shown) return;
    // another version of the same process and tenant: the engine migrates within a tenant only
    const choices = versions.items.filter(d => String(d.processDefinitionKey) !== String(sourceKey) && d.tenantId === instance.tenantId);
    document.getElementById('migration-target').innerHTML = (choices.length ? '<option value="">choose…</option>' : '<option value="">no other version</option>')
      + choices.map(d => `<option value="${esc(d.processDefinitionKey)}">version ${esc(d.version)}${d.versionTag ? ' (' + esc(d.versionTag) + ')' : ''} · key ${esc(d.processDefinitionKey)}</option>`).join('');
    await show(xml, document.getElementById('migration-source-diagram'));
  }

  async function apply() {
    const request = {
      targetProcessDefinitionKey: String(target.definition.processDefinitionKey),
      mappingInstructions: activeElements.map(id => ({ sourceElementId: id, targetElementId: mapping.get(id) })),
    };
    const what = `${target.definition.processDefinitionId} version ${target.definition.version}`;
    const done = await operate(`Migrate process instance ${instanceKey} to ${what} (${request.mappingInstructions
      .map(m => m.sourceElementId + ' → ' + m.targetElementId).join(', ')})?`,
    () => api(`/v2/process-instances/${encodeURIComponent(instanceKey)}/migration`, request), 'migrated to ' + what);
    if (done !== undefined) close();
  }

  function close() {
    shown = false;
    target = null;
    mapping.clear();
    container.innerHTML = '';
  }

  return {
    async open() {
      if (shown || !instance) return;
      shown = true;
      try { await render(); } catch (e) { showMessage(e.message, true); }
    },
    get shown() { return shown; },
    /** The page's refresh: the instance and its element instances (the elements to map). */
    update(processInstance, elements) {
      instance = processInstance;
      const active = [...new Set(elements.filter(e => e.state === 'ACTIVE' && e.type !== 'PROCESS').map(e => e.elementId))];
      if (shown && instance.state !== 'ACTIVE') { close(); return; }
      if (shown && active.join() !== activeElements.join()) {
        activeElements = active;
        if (target) for (const id of active) if (!mapping.has(id)) mapping.set(id, target.nodes.some(n => n.id === id) ? id : '');
        renderMapping();
      }
      activeElements = active;
    },
  };
}
