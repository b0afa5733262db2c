/**
 * A table that keeps only the rows in view in the DOM, so 10,000 log entries cost as much as 20:
 * a spacer as tall as every row gives the scroll bar its true size, and the visible slice is redrawn
 * on scroll. Rows have one fixed height (set in dashboard.css as --row-height, read here once).
 */
export interface VirtualTableOptions<Row> {
  /** The scrolling element (fixed height, overflow auto). */
  viewport: HTMLElement;
  /** Cells of one row, as text with an optional class each. */
  cells(row: Row): { text: string; className?: string; title?: string }[];
  rowHeight: number;
  /** Rows drawn above and below the visible ones, so fast scrolling shows no gaps. */
  overscan?: number;
}

export class VirtualTable<Row> {
  private rows: readonly Row[] = [];
  private readonly spacer: HTMLElement;
  private readonly body: HTMLElement;
  private readonly overscan: number;
  private drawnFrom = -1;
  private drawnTo = -1;
  private followTail = true;

  constructor(private readonly options: VirtualTableOptions<Row>) {
    this.overscan = options.overscan ?? 8;
    this.spacer = document.createElement('div');
    this.spacer.className = 'vt-spacer';
    this.body = document.createElement('div');
    this.body.className = 'vt-body';
    this.body.setAttribute('role', 'rowgroup');
    this.spacer.append(this.body);
    options.viewport.append(this.spacer);
    options.viewport.addEventListener(
      'scroll',
      () => {
        const { scrollTop, clientHeight, scrollHeight } = options.viewport;
        // Newest entries come last: keep showing them while the reader sits at the bottom.
        this.followTail = scrollTop + clientHeight >= scrollHeight - options.rowHeight;
        this.draw(false);
      },
      { passive: true },
    );
  }

  /** Replaces every row; redraws only the visible slice. */
  setRows(rows: readonly Row[]): void {
    this.rows = rows;
    this.spacer.style.height = `${rows.length * this.options.rowHeight}px`;
    // On the table itself (the viewport sits inside it), counting the header row.
    (this.options.viewport.closest('[role="table"]') ?? this.options.viewport).setAttribute(
      'aria-rowcount',
      String(rows.length + 1),
    );
    if (this.followTail) this.options.viewport.scrollTop = this.options.viewport.scrollHeight;
    this.draw(true);
  }

  /** How many row elements are in the DOM (tests bound it to prove the table is virtual). */
  get renderedRowCount(): number {
    return this.body.childElementCount;
  }

  private draw(force: boolean): void {
    const { viewport, rowHeight } = this.options;
    const first = Math.max(0, Math.floor(viewport.scrollTop / rowHeight) - this.overscan);
    const visible = Math.ceil((viewport.clientHeight || rowHeight * 12) / rowHeight);
    const last = Math.min(this.rows.length, first + visible + 2 * this.overscan);
    if (!force && first === this.drawnFrom && last === this.drawnTo) return;
    this.drawnFrom = first;
    this.drawnTo = last;
    const fragment = document.createDocumentFragment();
    for (let index = first; index < last; index++) {
      const row = document.createElement('div');
      row.className = 'vt-row';
      row.setAttribute('role', 'row');
      // +2: aria-rowindex is 1-based and row 1 is the header row.
      row.setAttribute('aria-rowindex', String(index + 2));
      row.style.transform = `translateY(${index * rowHeight}px)`;
      for (const cell of this.options.cells(this.rows[index]!)) {
        const element = document.createElement('span');
        element.setAttribute('role', 'cell');
        element.textContent = cell.text;
        if (cell.className !== undefined) element.className = cell.className;
        if (cell.title !== undefined) element.title = cell.title;
        row.append(element);
      }
      fragment.append(row);
    }
    this.body.replaceChildren(fragment);
  }
}
