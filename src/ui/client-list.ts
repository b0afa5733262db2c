import { ClientCard } from './client-card.js';
import { byId, type DashboardPanel } from './dashboard-panel.js';
import type { DashboardSnapshot } from './dashboard-types.js';
import { KeyedViews } from './keyed-views.js';

/**
 * The clients as cards: those that sent requests, in the mock's order, and the configured keys nobody
 * used yet folded away behind one toggle ("Show 4 unused keys"), so a mock with many keys opens on
 * the clients that matter. Cards are built once and updated in place, so focus survives a poll.
 */
export class ClientList implements DashboardPanel {
  private readonly cards = new KeyedViews(() => new ClientCard());
  private readonly el = {
    used: byId('clients'),
    unused: byId('unused-clients'),
    toggle: byId<HTMLButtonElement>('unused-toggle'),
    count: byId('clients-count'),
    empty: byId('clients-empty'),
  };
  private showUnused = false;

  constructor() {
    this.el.toggle.addEventListener('click', () => {
      this.showUnused = !this.showUnused;
      this.showToggle(this.el.unused.children.length);
    });
  }

  update(snapshot: DashboardSnapshot): void {
    const used: HTMLElement[] = [];
    const unused: HTMLElement[] = [];
    for (const client of snapshot.clients) {
      const card = this.cards.view(client.client);
      card.update(client);
      (client.used ? used : unused).push(card.root);
    }
    this.cards.removeUnseen();
    placeChildren(this.el.used, used);
    placeChildren(this.el.unused, unused);
    this.showToggle(unused.length);
    const banned = snapshot.clients.filter((client) => client.ban !== null).length;
    this.el.count.textContent = `(${used.length} active${unused.length > 0 ? `, ${unused.length} unused` : ''}${banned > 0 ? `, ${banned} banned` : ''})`;
    this.el.empty.hidden = used.length > 0;
    this.el.empty.textContent = 'No client has sent a request yet.';
  }

  private showToggle(unusedCount: number): void {
    this.el.toggle.hidden = unusedCount === 0;
    this.el.toggle.setAttribute('aria-expanded', String(this.showUnused));
    this.el.toggle.textContent = `${this.showUnused ? 'Hide' : 'Show'} ${unusedCount} unused key${unusedCount === 1 ? '' : 's'}`;
    this.el.unused.hidden = !this.showUnused || unusedCount === 0;
  }
}

/** Re-appends only when the order changed, so focus inside a card survives a poll. */
function placeChildren(parent: HTMLElement, ordered: HTMLElement[]): void {
  const current = [...parent.children];
  if (current.length !== ordered.length || current.some((node, index) => node !== ordered[index]))
    parent.replaceChildren(...ordered);
}
