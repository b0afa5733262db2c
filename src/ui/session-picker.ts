import { formatInstant } from './dashboard-format.js';
import { byId } from './dashboard-panel.js';
import type { DashboardSnapshot } from './dashboard-types.js';

/** The session the page shows: its name, or a picker once the mock has several sessions. */
export class SessionPicker {
  private readonly el = {
    picker: byId<HTMLSelectElement>('session-picker'),
    name: byId('session-name'),
  };

  /** `choose` is told the name the user picked. */
  constructor(choose: (name: string) => void) {
    this.el.picker.addEventListener('change', () => choose(this.el.picker.value));
  }

  /** Shows `current` among `snapshot`'s sessions (none known before the first answer), `defaultSession` marked. */
  render(snapshot: DashboardSnapshot | null, current: string, defaultSession: string | null): void {
    this.el.name.textContent = current;
    const names = snapshot?.sessions.map((session) => session.name) ?? [];
    if (snapshot !== null && !names.includes(snapshot.session)) names.unshift(snapshot.session);
    const several = names.length > 1;
    this.el.picker.hidden = !several;
    this.el.name.hidden = several;
    if (!several) return;
    const key = JSON.stringify(snapshot?.sessions);
    if (this.el.picker.dataset.key !== key) {
      this.el.picker.dataset.key = key;
      const lastSeen = new Map(snapshot?.sessions.map((session) => [session.name, session.lastSeen]));
      this.el.picker.replaceChildren(
        ...names.map((name) => {
          const option = document.createElement('option');
          option.value = name;
          const seen = lastSeen.get(name);
          option.textContent = `${name}${name === defaultSession ? ' (default)' : ''}${seen ? ` · last seen ${formatInstant(seen)}` : ''}`;
          return option;
        }),
      );
    }
    this.el.picker.value = current;
  }
}
