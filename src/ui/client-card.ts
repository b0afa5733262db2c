import { formatDuration, formatInstant } from './dashboard-format.js';
import type { DashboardClient, DashboardWindow, Verdict } from './dashboard-types.js';

const verdictText: Record<Verdict['outcome'], string> = {
  pass: '✓ pass',
  fail: '✗ fail',
  'not-exercised': '– not exercised',
  info: 'i info',
};
const windowTitle: Record<DashboardWindow['name'], string> = { minute: 'Minute', day: 'Day' };

function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className?: string,
  text?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className !== undefined) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

let nextId = 0;

/** One window as a gauge: a bar (a meter for assistive tech) and the same facts in text. */
class WindowGauge {
  readonly root = element('div', 'gauge');
  private readonly label = element('span', 'gauge-label');
  private readonly bar = element('div', 'gauge-bar');
  private readonly fill = element('div', 'gauge-fill');
  private readonly numbers = element('span', 'gauge-numbers');
  private readonly reset = element('span', 'gauge-reset');

  constructor() {
    this.bar.setAttribute('role', 'meter');
    this.bar.setAttribute('aria-valuemin', '0');
    this.bar.append(this.fill);
    const line = element('div', 'gauge-line');
    line.append(this.label, this.numbers);
    this.root.append(line, this.bar, this.reset);
  }

  update(window: DashboardWindow): void {
    const ratio = window.limit > 0 ? Math.min(1, window.used / window.limit) : 0;
    const full = window.used >= window.limit;
    this.root.dataset.window = window.name;
    this.root.dataset.level = full ? 'full' : ratio >= 0.75 ? 'high' : 'normal';
    this.label.textContent = `${windowTitle[window.name]} window`;
    this.numbers.textContent = `${window.used} / ${window.limit}${full ? ' · full' : ''}`;
    this.bar.setAttribute('aria-label', `${windowTitle[window.name]} window used`);
    this.bar.setAttribute('aria-valuemax', String(window.limit));
    this.bar.setAttribute('aria-valuenow', String(Math.min(window.used, window.limit)));
    this.bar.setAttribute('aria-valuetext', `${window.used} of ${window.limit} used`);
    // CSSOM, not a style attribute: the page's CSP allows no inline style attributes.
    this.fill.style.width = `${(ratio * 100).toFixed(1)}%`;
    this.reset.textContent =
      window.resetsInSeconds === null ? 'not started' : `resets in ${formatDuration(window.resetsInSeconds)}`;
    if (window.resetsAt !== null) this.reset.title = `at ${formatInstant(window.resetsAt)} (virtual time)`;
    else this.reset.removeAttribute('title');
  }
}

/**
 * One client (a key or an anonymous address) as a card. Built once and updated in place on every
 * poll, so a focused verdict keeps its focus while the numbers change around it.
 */
export class ClientCard {
  readonly root = element('article', 'client-card');
  private readonly title = element('h3', 'client-name');
  private readonly badges = element('p', 'client-badges');
  private readonly gauges = element('div', 'gauges');
  private readonly gaugeByName = new Map<string, WindowGauge>();
  private readonly ban = element('p', 'ban');
  private readonly counts = element('p', 'counts');
  private readonly verdicts = element('ul', 'verdicts');
  private verdictsKey = '';

  constructor() {
    this.root.append(this.title, this.badges, this.gauges, this.ban, this.counts, this.verdicts);
  }

  update(client: DashboardClient): void {
    this.root.dataset.client = client.client;
    this.root.dataset.used = String(client.used);
    this.root.dataset.banned = String(client.ban !== null);
    this.title.textContent = client.client;
    const badges = [client.kind === 'key' ? (client.demo ? 'demo key' : 'key') : 'anonymous', `plan ${client.plan}`];
    if (!client.used) badges.push('not used yet');
    this.badges.textContent = badges.join(' · ');

    const seen = new Set<string>();
    for (const window of client.windows) {
      seen.add(window.name);
      let gauge = this.gaugeByName.get(window.name);
      if (gauge === undefined) {
        gauge = new WindowGauge();
        this.gaugeByName.set(window.name, gauge);
        this.gauges.append(gauge.root);
      }
      gauge.update(window);
    }
    for (const [name, gauge] of this.gaugeByName) {
      if (!seen.has(name)) {
        gauge.root.remove();
        this.gaugeByName.delete(name);
      }
    }

    if (client.ban === null) {
      this.ban.textContent = 'Not banned';
      this.ban.dataset.state = 'none';
      this.ban.removeAttribute('title');
    } else {
      this.ban.textContent = `BANNED · ${formatDuration(client.ban.secondsLeft)} left`;
      this.ban.dataset.state = 'banned';
      this.ban.title = `until ${formatInstant(client.ban.until)} (virtual time)`;
    }

    const { total, byStatus, refused429 } = client.requests;
    const statuses = Object.entries(byStatus)
      .sort(([a], [b]) => Number(a) - Number(b))
      .map(([status, count]) => `${status} × ${count}`);
    this.counts.textContent = `${total} request${total === 1 ? '' : 's'}${statuses.length > 0 ? ` · ${statuses.join(' · ')}` : ''}${refused429 > 0 ? ` · ${refused429} refused with 429` : ''}`;

    // A configured key with no request yet has nothing to judge: one line instead of its verdicts.
    this.verdicts.hidden = !client.used;
    if (!client.used) this.counts.textContent = 'No requests yet: verdicts come with the first one';

    // Rebuilt only when a verdict changed, which keeps keyboard focus on a verdict across polls.
    const verdictsKey = JSON.stringify(
      client.verdicts.map((verdict) => [verdict.rule, verdict.outcome, verdict.evidence.summary]),
    );
    if (verdictsKey !== this.verdictsKey) {
      this.verdictsKey = verdictsKey;
      const hadFocus = this.verdicts.contains(document.activeElement)
        ? (document.activeElement as HTMLElement).dataset.rule
        : undefined;
      this.verdicts.replaceChildren(...client.verdicts.map((verdict) => this.verdictItem(verdict)));
      if (hadFocus !== undefined)
        this.verdicts.querySelector<HTMLElement>(`[data-rule="${CSS.escape(hadFocus)}"]`)?.focus();
    }
  }

  private verdictItem(verdict: Verdict): HTMLLIElement {
    const item = element('li', 'verdict-item');
    const tipId = `verdict-tip-${++nextId}`;
    // A focusable badge, so the evidence shows on keyboard focus as well as on hover.
    const badge = element('span', `verdict verdict-${verdict.outcome}`, verdictText[verdict.outcome]);
    badge.tabIndex = 0;
    badge.dataset.rule = verdict.rule;
    badge.dataset.outcome = verdict.outcome;
    badge.setAttribute('aria-describedby', tipId);
    const rule = element('span', 'verdict-rule', verdict.rule);
    const tip = element('span', 'verdict-tip', verdict.evidence.summary);
    tip.id = tipId;
    tip.setAttribute('role', 'tooltip');
    item.append(badge, rule, tip);
    return item;
  }
}
