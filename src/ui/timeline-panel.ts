import { byId, type DashboardPanel } from './dashboard-panel.js';
import type { DashboardSnapshot } from './dashboard-types.js';

/** The mock's timeline SVG, across the page's full width, redrawn only when it changed. */
export class TimelinePanel implements DashboardPanel {
  private shown = '';
  private readonly image = byId<HTMLImageElement>('timeline-image');
  private readonly empty = byId('timeline-empty');

  update(snapshot: DashboardSnapshot): void {
    if (snapshot.timelineSvg === this.shown) return;
    this.shown = snapshot.timelineSvg;
    const empty = snapshot.recent.length === 0 || snapshot.timelineSvg.trim() === '';
    this.empty.hidden = !empty;
    this.image.hidden = empty;
    // An <img> of a data: URL: the SVG is drawn as a picture, so no script or link inside it can run.
    if (!empty) this.image.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(snapshot.timelineSvg)}`;
  }
}
