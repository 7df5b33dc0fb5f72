// The instance list's diagram, as Operate shows it above the list: the filtered process's diagram (the version the
// filter names, else the latest) with per-element counts of that version's instances (active, with incident,
// completed, canceled: one v2 element-statistics request per refresh). Clicking an element filters the list to the
// instances at it (an active instance of the element, with or without incident); clicking the chosen one again
// drops that filter. The elements with instances at them are also listed as links, so the keyboard can do the same.

const COUNTS = [['active', 'active'], ['incidents', 'incident'], ['completed', 'completed'], ['canceled', 'canceled']];

/**
 * {@code link(elementId, version)}: the list's URL filtered to the instances at that element of that version ('' drops
 * the element filter). Returns {load(mine, reads)}, to be run with each refresh of the list.
 */
export function listDiagram(ui, params, container, link) {
  const { api, search, esc, current, diagram, badges } = ui;
  const processId = params.get('processDefinitionId') || '';
  const chosen = params.get('elementId') || '';
  if (!processId || /[*?]/.test(processId)) {
    container.innerHTML = '<p class="hint">Choose a process (its id) to see its diagram with the instances per element.</p>';
    return { load: async () => {} };
  }
  container.innerHTML = `<div class="list-diagram-head" id="list-diagram-head"></div>
    <div id="list-diagram-canvas" class="diagram list-diagram"></div><div id="element-filters" class="element-filters"></div>`;
  let definition = null;
  let viewer = null;
  let shownFilters = null; // drawn again only when they change, so a refresh keeps the keyboard focus on one
  // a diagram that cannot be shown (its XML, its counts) is said in its place; the list below still loads
  const load = (mine, reads) => draw(mine, reads).catch(e => {
    const head = document.getElementById('list-diagram-head');
    if (head && current(mine)) head.innerHTML = `<span class="message error">diagram: ${esc(e.message)}</span>`;
  });
  const draw = async (mine, reads) => {
    if (!definition) {
      const filter = { processDefinitionId: processId };
      if (params.get('version')) filter.version = Number(params.get('version'));
      const found = await search('process-definitions', { filter, sort: [{ field: 'version', order: 'desc' }], page: { limit: 1 } });
      if (!current(mine)) return;
      if (!found.items.length) {
        document.getElementById('list-diagram-head').innerHTML = `<p class="hint">No deployed process ${esc(processId)}${params.get('version') ? ' version ' + esc(params.get('version')) : ''}.</p>`;
        return;
      }
      definition = found.items[0];
    }
    if (!viewer) {
      viewer = await diagram(document.getElementById('list-diagram-canvas'), definition.processDefinitionKey);
      viewer.on('element.click', event => {
        const element = event.element;
        if (element.type === 'bpmn:Process' || element.type === 'label' || element.waypoints) return;
        location.hash = link(element.id === chosen ? '' : element.id, definition.version);
      });
      if (chosen && viewer.get('elementRegistry').get(chosen)) viewer.get('canvas').addMarker(chosen, 'element-selected');
    }
    const statistics = await api('/v2/process-definitions/' + encodeURIComponent(definition.processDefinitionKey)
      + '/statistics/element-instances', { consistency: reads });
    if (!current(mine)) return;
    const latest = params.get('version') ? '' : ' (latest)';
    document.getElementById('list-diagram-head').innerHTML = `<b>${esc(definition.name || definition.processDefinitionId)}</b>`
      + ` version ${esc(definition.version)}${latest}: instances per element, of all this version's instances`
      + ` <span class="legend">${COUNTS.map(([, name]) => `<span class="badge badge-${name}">${name}</span>`).join(' ')}</span>`
      + (chosen ? ` · at <b id="chosen-element">${esc(chosen)}</b> <a id="clear-element" href="${esc(link('', definition.version))}">show all</a>` : ' · click an element to list the instances at it');
    const registry = viewer.get('elementRegistry');
    const shown = new Set();
    for (const s of statistics.items) {
      shown.add(s.elementId);
      badges(viewer, s.elementId, Object.fromEntries(COUNTS.map(([field, name]) => [name, s[field]])));
    }
    for (const e of registry.getAll()) if (!shown.has(e.id)) viewer.get('overlays').remove({ element: e.id });
    const at = statistics.items.filter(s => s.active + s.incidents > 0 && registry.get(s.elementId));
    const filters = at.length ? 'Instances at: ' + at.map(s => {
      const name = registry.get(s.elementId).businessObject?.name || s.elementId;
      return `<a class="element-filter${s.elementId === chosen ? ' chosen' : ''}" data-element="${esc(s.elementId)}" href="${esc(link(s.elementId === chosen ? '' : s.elementId, definition.version))}">`
        + `${esc(name)} <span class="count">${esc(s.active + s.incidents)}</span></a>`;
    }).join(' ') : '';
    if (filters !== shownFilters) document.getElementById('element-filters').innerHTML = shownFilters = filters;
  };
  return { load };
}
