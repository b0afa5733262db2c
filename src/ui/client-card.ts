import { evidenceLines, formatDuration, formatInstant } from './dashboard-format.js';
import type { DashboardClient, DashboardWindow, Verdict } from './dashboard-types.js';
import { KeyedViews } from './keyed-views.js';

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
  private readonly gaugeByName = new KeyedViews(() => {
    const gauge = new WindowGauge();
    this.gauges.append(gauge.root);
    return gauge;
  });
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

    for (const window of client.windows) this.gaugeByName.view(window.name).update(window);
    this.gaugeByName.removeUnseen();

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

    // Rebuilt only when a verdict changed, which keeps keyboard focus and open evidence across polls.
    const verdictsKey = JSON.stringify(client.verdicts);
    if (verdictsKey !== this.verdictsKey) {
      this.verdictsKey = verdictsKey;
      const focused = this.verdicts.contains(document.activeElement)
        ? (document.activeElement as HTMLElement).dataset.rule
        : undefined;
      const open = new Set(
        [...this.verdicts.querySelectorAll<HTMLDetailsElement>('details[open]')].map((details) => details.dataset.rule),
      );
      this.verdicts.replaceChildren(...client.verdicts.map((verdict) => verdictItem(verdict, open.has(verdict.rule))));
      if (focused !== undefined)
        this.verdicts.querySelector<HTMLElement>(`summary[data-rule="${CSS.escape(focused)}"]`)?.focus();
    }
  }
}

/**
 * One verdict, readable without hover: the outcome and rule, the evidence's summary as a line under
 * them, and the rest of the evidence (counts, samples) in a <details> that opens by click or keyboard.
 */
function verdictItem(verdict: Verdict, open: boolean): HTMLLIElement {
  const item = element('li', 'verdict-item');
  item.dataset.rule = verdict.rule;
  const head = element('div', 'verdict-head');
  const badge = element('span', `verdict verdict-${verdict.outcome}`, verdictText[verdict.outcome]);
  badge.dataset.rule = verdict.rule;
  badge.dataset.outcome = verdict.outcome;
  head.append(badge, element('span', 'verdict-rule', verdict.rule));
  const summary = element('p', 'verdict-summary', verdict.evidence.summary);
  item.append(head, summary);
  const lines = evidenceLines(verdict.evidence);
  if (lines.length > 0) {
    const details = element('details', 'verdict-evidence');
    details.dataset.rule = verdict.rule;
    details.open = open;
    const toggle = element('summary', undefined, 'Evidence');
    toggle.dataset.rule = verdict.rule;
    const list = element('dl');
    for (const [name, text] of lines) list.append(element('dt', undefined, name), element('dd', undefined, text));
    details.append(toggle, list);
    item.append(details);
  }
  return item;
}
