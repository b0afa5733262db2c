import type { DashboardApiContext } from './dashboard-api.js';
import type { DashboardSnapshot } from './dashboard-types.js';

/**
 * One part of the page, in its own file: it owns the elements of its <section> and is handed every
 * snapshot the page polls. A new panel is a section in dashboard.html, a file like this one's
 * implementers (client-list.ts, timeline-panel.ts, downloads-panel.ts) and one line in dashboard-app.ts.
 */
export interface DashboardPanel {
  update(snapshot: DashboardSnapshot): void;
}

/** What the page lends its panels: the way to the mock and its two lines (announcements, errors). */
export interface PanelContext {
  api: DashboardApiContext;
  /** Says something in the aria-live line (after a success: it also clears the line of an earlier failed click). */
  announce(message: string): void;
  /** Shows a failed call in the page's error line (asking for the token when that was the reason). */
  fail(error: unknown): void;
}

/** The element with `id`, or a clear failure naming it. */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (found === null) throw new Error(`Failed to start the dashboard: #${id} is missing from the page`);
  return found as T;
}
