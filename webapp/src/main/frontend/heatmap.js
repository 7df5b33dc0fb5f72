// The duration heat map on a process diagram: p50/p95 of each element's completed instances over a chosen window
// (POST /v2/process-definitions/{key}/statistics/element-durations), drawn as an overlay per element, coloured by its
// p95 against the slowest element's; the slowest is marked hot. Chosen in the URL (#/processes/<key>?heat=24h).

export const WINDOWS = ['1h', '24h', '7d', '30d'];
const UNIT_MILLIS = { h: 3_600_000, d: 86_400_000 };

/** "850 ms", "3.2 s", "4.0 min", "2.5 h". */
export function duration(millis) {
  if (millis < 1000) return `${millis} ms`;
  if (millis < 60_000) return `${(millis / 1000).toFixed(1)} s`;
  if (millis < 3_600_000) return `${(millis / 60_000).toFixed(1)} min`;
  return `${(millis / 3_600_000).toFixed(1)} h`;
}

/** The controls: off, or one of the windows; links, so the choice is in the URL. */
export function heatControls(key, chosen, esc) {
  const link = (label, heat) => `<a class="heat-window${heat === chosen ? ' chosen' : ''}" data-heat="${heat}" href="#/processes/${esc(key)}${heat ? '?heat=' + heat : ''}">${label}</a>`;
  return `<span class="heat-controls">Durations: ${link('off', '')} ${WINDOWS.map(w => link(w, w)).join(' ')}</span>`;
}

/** Reads the durations over the window ending now and draws them on the viewer's diagram. */
export async function drawHeatmap(viewer, api, key, window, esc) {
  const overlays = viewer.get('overlays');
  const canvas = viewer.get('canvas');
  const registry = viewer.get('elementRegistry');
  overlays.remove({ type: 'heat' });
  for (const element of registry.getAll()) canvas.removeMarker(element.id, 'heat-hot');
  if (!WINDOWS.includes(window)) return null;
  const millis = Number(window.slice(0, -1)) * UNIT_MILLIS[window.slice(-1)];
  const to = new Date();
  const answer = await api('/v2/process-definitions/' + encodeURIComponent(key) + '/statistics/element-durations',
    { from: new Date(to.getTime() - millis).toISOString(), to: to.toISOString() });
  const slowest = Math.max(1, ...answer.items.map(i => i.p95Millis));
  for (const item of answer.items) {
    if (!registry.get(item.elementId)) continue;
    const share = item.p95Millis / slowest;
    const level = Math.min(4, Math.floor(share * 5));
    const hot = item.p95Millis === slowest && item.p95Millis > 0;
    if (hot) canvas.addMarker(item.elementId, 'heat-hot');
    overlays.add(item.elementId, 'heat', {
      position: { top: -24, left: 0 },
      html: `<div class="heat heat-${level}${hot ? ' hot' : ''}" data-element="${esc(item.elementId)}" data-p50="${item.p50Millis}" data-p95="${item.p95Millis}" title="${esc(item.count)} completed in the last ${esc(window)}">p50 ${duration(item.p50Millis)} · p95 ${duration(item.p95Millis)}</div>`,
    });
  }
  return answer;
}
