// The instance page's element-instance tree, as Operate shows it: the process instance at the root, each element
// instance under the scope it ran in (a sub-process's, an event sub-process's or a multi-instance body's instance),
// with its state and duration (running ones up to now), the variables of each scope and the instances a call activity
// called. The v2 element-instance answer does not carry the flow scope, so the children of each container are read by
// the v2 filter elementInstanceScopeKey: one search per container element instance, in parallel.
import { duration } from './heatmap.js';

const CONTAINERS = ['SUB_PROCESS', 'EVENT_SUB_PROCESS', 'MULTI_INSTANCE_BODY', 'AD_HOC_SUB_PROCESS'];
/** Containers read per refresh; an instance with more (a large multi-instance) shows the rest under the process. */
export const MAX_CONTAINERS = 100;

/** Milliseconds from start to end, or to {@code now} while it runs; null without a start. */
export function elapsed(start, end, now) {
  if (!start) return null;
  return Math.max(0, (end ? new Date(end) : now).getTime() - new Date(start).getTime());
}

/** Reads which element instance runs in which container: a Map of child key -> container key. */
export async function scopesOf(search, elements, reads) {
  const containers = elements.filter(e => CONTAINERS.includes(e.type)).slice(0, MAX_CONTAINERS);
  const answers = await Promise.all(containers.map(c => search('element-instances',
    { filter: { elementInstanceScopeKey: c.elementInstanceKey }, page: { limit: 1000 } }, reads)));
  const scopeOf = new Map();
  containers.forEach((c, i) => { for (const child of answers[i].items) scopeOf.set(child.elementInstanceKey, c.elementInstanceKey); });
  return scopeOf;
}

/**
 * The tree's markup. {@code elements} in start order; {@code scopeOf} from {@link scopesOf}; {@code variables} of the
 * instance (scopeKey: the process instance or an element instance); {@code called} the instances it called.
 */
export function elementTree({ instance, elements, scopeOf, variables, called, openIncidents, now, esc }) {
  const children = new Map();
  for (const e of elements) {
    const scope = scopeOf.get(e.elementInstanceKey) || instance.processInstanceKey;
    if (!children.has(scope)) children.set(scope, []);
    children.get(scope).push(e);
  }
  const variableCount = new Map();
  for (const v of variables) variableCount.set(v.scopeKey, (variableCount.get(v.scopeKey) || 0) + 1);
  const calledBy = new Map();
  for (const c of called) {
    if (!calledBy.has(c.parentElementInstanceKey)) calledBy.set(c.parentElementInstanceKey, []);
    calledBy.get(c.parentElementInstanceKey).push(c);
  }
  const time = (start, end) => {
    const millis = elapsed(start, end, now);
    return millis === null ? '' : `<span class="duration" data-millis="${millis}">${end ? '' : 'running '}${esc(duration(millis))}</span>`;
  };
  // a button, not a link: the hash is the route; it shows the variables table for that scope alone
  const vars = key => variableCount.get(key)
    ? ` <button type="button" class="link scope-variables" data-scope="${esc(key)}">${esc(variableCount.get(key))} variable${variableCount.get(key) > 1 ? 's' : ''}</button>` : '';
  const node = (e, depth) => {
    const incident = openIncidents.has(e.elementInstanceKey);
    const kids = children.get(e.elementInstanceKey) || [];
    const calls = (calledBy.get(e.elementInstanceKey) || []).map(c =>
      ` <a class="called-instance" href="#/instances/${esc(c.processInstanceKey)}">called ${esc(c.processDefinitionId)} ${esc(c.processInstanceKey)}</a>`).join('');
    return `<li role="treeitem" aria-level="${depth}" data-key="${esc(e.elementInstanceKey)}" data-element="${esc(e.elementId)}" data-state="${esc(e.state)}">`
      + `<span class="tree-row"><span class="tree-name">${esc(e.elementName || e.elementId)}</span>`
      + ` <span class="tree-type">${esc(e.type)}</span> <span class="state-${esc(e.state)}">${esc(e.state)}</span>`
      + (incident ? ' <span class="incident">incident</span>' : '') + ' ' + time(e.startDate, e.endDate) + vars(e.elementInstanceKey) + calls + '</span>'
      + (kids.length ? `<ul role="group">${kids.map(k => node(k, depth + 1)).join('')}</ul>` : '') + '</li>';
  };
  const top = children.get(instance.processInstanceKey) || [];
  // element instances whose container was not read (beyond MAX_CONTAINERS) are under the process, as written above
  return `<ul id="element-tree" class="tree" role="tree" aria-label="element instances">`
    + `<li role="treeitem" aria-level="1" aria-expanded="true" data-key="${esc(instance.processInstanceKey)}" data-element="${esc(instance.processDefinitionId)}" data-state="${esc(instance.state)}">`
    + `<span class="tree-row"><span class="tree-name">${esc(instance.processDefinitionName || instance.processDefinitionId)}</span>`
    + ` <span class="tree-type">PROCESS</span> <span class="state-${esc(instance.state)}">${esc(instance.state)}</span> ${time(instance.startDate, instance.endDate)}${vars(instance.processInstanceKey)}</span>`
    + (top.length ? `<ul role="group">${top.map(e => node(e, 2)).join('')}</ul>` : '') + '</li></ul>';
}

/** The scope's label in the variables table: the process, or the element instance the variable is local to. */
export function scopeLabel(scopeKey, instance, elementsByKey) {
  if (String(scopeKey) === String(instance.processInstanceKey)) return 'process';
  const e = elementsByKey.get(String(scopeKey));
  return e ? (e.elementName || e.elementId) : String(scopeKey);
}
