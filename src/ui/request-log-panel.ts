import { formatLogTime, statusClass } from './dashboard-format.js';
import { byId, type DashboardPanel } from './dashboard-panel.js';
import type { DashboardSnapshot, RecentRequest } from './dashboard-types.js';
import { VirtualTable } from './virtual-table.js';

const ROW_HEIGHT = 24;

/** The request log: the recent requests in a virtual table (only the rows in view are built), filtered as the user types. */
export class RequestLogPanel implements DashboardPanel {
  private recent: RecentRequest[] = [];
  /** What the table shows (the requests and the filter): unchanged, it is not rebuilt. */
  private filteredKey = '';
  private readonly el = {
    count: byId('log-count'),
    filter: byId<HTMLInputElement>('log-filter'),
    viewport: byId('log-viewport'),
  };
  private readonly table: VirtualTable<RecentRequest>;

  constructor() {
    this.table = new VirtualTable<RecentRequest>({
      viewport: this.el.viewport,
      rowHeight: ROW_HEIGHT,
      cells: (entry) => [
        { text: formatLogTime(entry.timeMs) },
        { text: entry.client, className: 'cell-client' },
        { text: entry.method },
        { text: entry.path, className: 'cell-path' },
        { text: String(entry.status), className: `status status-${statusClass(entry.status)}` },
        { text: codeAndFault(entry) },
      ],
    });
    this.el.filter.addEventListener('input', () => this.render(true));
  }

  update(snapshot: DashboardSnapshot): void {
    this.recent = snapshot.recent;
    this.render(false);
  }

  private render(filterChanged: boolean): void {
    const recent = this.recent;
    const filter = this.el.filter.value.trim().toLowerCase();
    const first = recent[0];
    const last = recent[recent.length - 1];
    const recentKey = `${recent.length}:${first?.timeMs}:${last?.timeMs}:${last?.client}`;
    const filteredKey = `${recentKey}|${filter}`;
    if (!filterChanged && filteredKey === this.filteredKey) return;
    this.filteredKey = filteredKey;
    const rows =
      filter === ''
        ? recent
        : recent.filter((entry) =>
            `${entry.client} ${entry.method} ${entry.path} ${entry.status} ${codeAndFault(entry)}`
              .toLowerCase()
              .includes(filter),
          );
    this.el.count.textContent = filter === '' ? `(${recent.length})` : `(${rows.length} of ${recent.length})`;
    this.table.setRows(rows);
    this.el.viewport.dataset.rendered = String(this.table.renderedRowCount);
    this.el.viewport.dataset.total = String(rows.length);
  }
}

/** The log's last column: the Error code, the fault the request met and its latency (decision 042). */
function codeAndFault(entry: RecentRequest): string {
  const parts = entry.code === null ? [] : [entry.code];
  if (entry.fault !== undefined) parts.push(`fault ${entry.fault}`);
  if (entry.delayMs !== undefined) parts.push(`+${entry.delayMs} ms`);
  return parts.join(' · ');
}
