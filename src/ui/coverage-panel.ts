import { formatInstant, statusClass } from './dashboard-format.js';
import { byId, type DashboardPanel } from './dashboard-panel.js';
import type { DashboardSnapshot, Situation } from './dashboard-types.js';

const situationLabels: Record<Situation, string> = {
  '401': '401 missing or unknown key',
  '400': '400 invalid request',
  '429': '429 rate limited',
  ban: 'a ban',
  'deprecated-call': 'a deprecated call',
  'window-reset': 'a window reset',
};

/** The session's coverage: each situation met or not, and each operation's statuses, redrawn only when it changed. */
export class CoveragePanel implements DashboardPanel {
  private shown = '';
  private readonly el = {
    situations: byId('situations'),
    operations: byId('operations'),
  };

  update(snapshot: DashboardSnapshot): void {
    const key = JSON.stringify(snapshot.coverage);
    if (key === this.shown) return;
    this.shown = key;
    const { situations, operations } = snapshot.coverage;
    this.el.situations.replaceChildren(
      ...(Object.keys(situationLabels) as Situation[]).map((name) => {
        const entry = situations[name] ?? { met: false, count: 0, firstAt: null };
        const item = document.createElement('li');
        item.dataset.situation = name;
        item.dataset.met = String(entry.met);
        item.textContent = `${entry.met ? '✓ met' : '✗ not met'} · ${situationLabels[name]}${entry.met ? ` · ${entry.count}×${entry.firstAt === null ? '' : `, first at ${formatInstant(entry.firstAt)}`}` : ''}`;
        return item;
      }),
    );
    this.el.operations.replaceChildren(...operations.map(operationRow));
  }
}

/** One operation: its id, its route, and a chip a status (organic / forced by Prefer). */
function operationRow(operation: DashboardSnapshot['coverage']['operations'][number]): HTMLTableRowElement {
  const row = document.createElement('tr');
  const id = document.createElement('th');
  id.scope = 'row';
  id.textContent = operation.operationId;
  const route = document.createElement('td');
  route.textContent = `${operation.method.toUpperCase()} ${operation.path}`;
  const statuses = document.createElement('td');
  if (operation.statuses.length === 0) {
    statuses.textContent = 'not called';
    statuses.className = 'muted';
  }
  for (const status of operation.statuses) {
    const chip = document.createElement('span');
    chip.className = `chip status-${statusClass(status.status)}`;
    chip.textContent = `${status.status}: ${status.organic} / ${status.forced}`;
    chip.title = `${status.organic} organic, ${status.forced} forced by Prefer`;
    statuses.append(chip);
  }
  row.append(id, route, statuses);
  return row;
}
