// The instance page's modification mode (issue 35): pick elements on the diagram (or in a list, for the keyboard) to
// activate, with variables, or to terminate; review the instructions; apply them as one v2 modification
// (POST /v2/process-instances/{key}/modification). Nothing is sent before "Apply". The shared helpers come from app.js.

/** The flow nodes of a diagram a token can be put on or taken from, in the diagram's order. */
export function flowNodes(viewer) {
  return viewer.get('elementRegistry')
    .filter(e => e.type !== 'label' && e.businessObject?.$instanceOf?.('bpmn:FlowNode'))
    .map(e => ({ id: e.id, name: e.businessObject.name || '' }));
}

/** How an element is shown in a list: its name and id, or its id alone. */
export function elementLabel(esc, node) {
  return node.name && node.name !== node.id ? `${esc(node.name)} <code>${esc(node.id)}</code>` : `<code>${esc(node.id)}</code>`;
}

/**
 * The mode for one instance; {@code container} is the page's element the panel is drawn into. The page calls
 * {@code update(viewer, elements)} on each refresh (the active element instances feed the terminations), and
 * {@code open()} from its Modify button.
 */
export function instanceModification(ui, instanceKey, container) {
  const { api, esc, operate, showMessage } = ui;
  let viewer = null;
  let shown = false;
  let activeByElement = new Map(); // elementId -> keys of its active element instances
  let activations = []; // {elementId, variables}
  let terminations = []; // {elementId, elementInstanceKeys}

  const marker = { activate: 'modify-activate', terminate: 'modify-terminate' };

  function mark() {
    if (!viewer) return;
    const canvas = viewer.get('canvas');
    for (const node of flowNodes(viewer)) {
      canvas.removeMarker(node.id, marker.activate);
      canvas.removeMarker(node.id, marker.terminate);
    }
    if (!shown) return;
    for (const a of activations) canvas.addMarker(a.elementId, marker.activate);
    for (const t of terminations) canvas.addMarker(t.elementId, marker.terminate);
  }

  function selectedElement() {
    return document.getElementById('modify-element')?.value || '';
  }

  function renderChoice() {
    const terminate = document.getElementById('modify-terminate');
    if (!terminate) return;
    const keys = activeByElement.get(selectedElement()) || [];
    terminate.disabled = keys.length === 0 || terminations.some(t => t.elementId === selectedElement());
    terminate.textContent = keys.length ? `Terminate its ${keys.length} active instance${keys.length > 1 ? 's' : ''}` : 'Terminate (none active)';
  }

  function renderReview() {
    const review = document.getElementById('modification-review');
    if (!review) return;
    const rows = [
      ...activations.map((a, i) => `<tr data-kind="activate" data-element="${esc(a.elementId)}"><td>Activate</td><td><code>${esc(a.elementId)}</code></td>`
        + `<td>${a.variables ? `<code class="value">${esc(JSON.stringify(a.variables))}</code>` : ''}</td>`
        + `<td><button type="button" data-remove="activate" data-index="${i}" aria-label="Remove the activation of ${esc(a.elementId)}">Remove</button></td></tr>`),
      ...terminations.map((t, i) => `<tr data-kind="terminate" data-element="${esc(t.elementId)}"><td>Terminate</td><td><code>${esc(t.elementId)}</code></td>`
        + `<td>${esc(t.elementInstanceKeys.length)} element instance${t.elementInstanceKeys.length > 1 ? 's' : ''}: ${t.elementInstanceKeys.map(esc).join(', ')}</td>`
        + `<td><button type="button" data-remove="terminate" data-index="${i}" aria-label="Remove the termination of ${esc(t.elementId)}">Remove</button></td></tr>`),
    ];
    review.innerHTML = `<table id="modification-table"><thead><tr><th>Instruction</th><th>Element</th><th>Details</th><th></th></tr></thead><tbody>`
      + (rows.length ? rows.join('') : '<tr><td colspan="4" class="empty">no instructions yet</td></tr>') + '</tbody></table>';
    document.getElementById('modify-apply').disabled = rows.length === 0;
    mark();
    renderChoice();
  }

  function render() {
    const nodes = viewer ? flowNodes(viewer) : [];
    container.innerHTML = `<section id="modification" class="repair-panel" aria-labelledby="modification-title">
      <h2 id="modification-title">Modify this instance</h2>
      <p class="hint">Pick an element on the diagram (or in the list), then add an activation or a termination. Nothing is
        sent before you apply; the instance runs on meanwhile.</p>
      <div class="repair-row">
        <label>Element<select id="modify-element">${nodes.map(n =>
          `<option value="${esc(n.id)}">${esc(n.name && n.name !== n.id ? n.name + ' (' + n.id + ')' : n.id)}</option>`).join('')}</select></label>
        <label class="wide">Variables of an activation (a JSON object, optional)<textarea id="modify-variables" rows="2" placeholder='{"approved": true}'></textarea></label>
        <button type="button" id="modify-activate">Add activation</button>
        <button type="button" id="modify-terminate">Terminate</button>
      </div>
      <h3>Review</h3>
      <div id="modification-review"></div>
      <div class="actions"><button type="button" id="modify-apply" disabled>Apply modification…</button>
        <button type="button" id="modify-close">Leave modification mode</button></div>
    </section>`;
    document.getElementById('modify-element').addEventListener('change', renderChoice);
    document.getElementById('modify-activate').addEventListener('click', () => {
      const elementId = selectedElement();
      const text = document.getElementById('modify-variables').value.trim();
      let variables = null;
      if (text) {
        try { variables = JSON.parse(text); } catch (e) { showMessage('the variables are no JSON: ' + e.message, true); return; }
        if (!variables || typeof variables !== 'object' || Array.isArray(variables)) {
          showMessage('the variables must be a JSON object, as {"name": value}', true);
          return;
        }
      }
      if (!elementId) return;
      activations.push({ elementId, variables });
      document.getElementById('modify-variables').value = '';
      showMessage('');
      renderReview();
    });
    document.getElementById('modify-terminate').addEventListener('click', () => {
      const elementId = selectedElement();
      const keys = activeByElement.get(elementId) || [];
      if (!keys.length) return;
      terminations.push({ elementId, elementInstanceKeys: [...keys] });
      renderReview();
    });
    document.getElementById('modification-review').addEventListener('click', event => {
      const button = event.target.closest('button[data-remove]');
      if (!button) return;
      (button.dataset.remove === 'activate' ? activations : terminations).splice(Number(button.dataset.index), 1);
      renderReview();
    });
    document.getElementById('modify-close').addEventListener('click', close);
    document.getElementById('modify-apply').addEventListener('click', apply);
    renderReview();
  }

  async function apply() {
    const request = {
      activateInstructions: activations.map(a => ({
        elementId: a.elementId, ancestorElementInstanceKey: '-1',
        ...(a.variables ? { variableInstructions: [{ variables: a.variables }] } : {}),
      })),
      terminateInstructions: terminations.flatMap(t => t.elementInstanceKeys.map(key => ({ elementInstanceKey: String(key) }))),
    };
    const what = [
      ...activations.map(a => 'activate ' + a.elementId),
      ...terminations.map(t => `terminate ${t.elementId} (${t.elementInstanceKeys.length})`),
    ].join(', ');
    const done = await operate(`Modify process instance ${instanceKey}: ${what}?`,
      () => api(`/v2/process-instances/${encodeURIComponent(instanceKey)}/modification`, request), 'modification applied: ' + what);
    if (done !== undefined) close();
  }

  function close() {
    shown = false;
    activations = [];
    terminations = [];
    container.innerHTML = '';
    mark();
  }

  function onDiagramClick(event) {
    if (!shown) return;
    const select = document.getElementById('modify-element');
    if (select && [...select.options].some(o => o.value === event.element.id)) {
      select.value = event.element.id;
      renderChoice();
      select.focus();
    }
  }

  return {
    /** Opens the mode (from the page's button). */
    open() {
      if (shown || !viewer) return;
      shown = true;
      render();
      document.getElementById('modify-element').focus();
    },
    get shown() { return shown; },
    /** The page's refresh: its diagram (a new one after a migration) and the instance's element instances. */
    update(currentViewer, elements, active) {
      if (currentViewer !== viewer) {
        viewer = currentViewer;
        viewer.get('eventBus').on('element.click', onDiagramClick);
        if (shown) render();
      }
      activeByElement = new Map();
      for (const e of elements) {
        if (e.state === 'ACTIVE' && e.type !== 'PROCESS') {
          activeByElement.set(e.elementId, [...(activeByElement.get(e.elementId) || []), e.elementInstanceKey]);
        }
      }
      if (shown && !active) close(); // the instance ended meanwhile: nothing left to modify
      if (shown) renderChoice();
    },
  };
}
