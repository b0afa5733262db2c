import { ClientList } from './client-list.js';
import {
  callError,
  controlBase,
  type DashboardApiContext,
  DashboardCallError,
  postControl,
  requestHeaders,
} from './dashboard-api.js';
import {
  asSnapshot,
  backoffMs,
  formatDuration,
  formatInstant,
  formatLogTime,
  formatOffset,
  parseAdvanceSeconds,
  statusClass,
} from './dashboard-format.js';
import { byId, type DashboardPanel, type PanelContext } from './dashboard-panel.js';
import type { DashboardSnapshot, RecentRequest, Situation } from './dashboard-types.js';
import { DownloadsPanel } from './downloads-panel.js';
import { TimelinePanel } from './timeline-panel.js';
import { VirtualTable } from './virtual-table.js';

// The dashboard page: polls GET /__mock/dashboard (ETag + If-None-Match keeps an unchanged answer to a
// 304 with no body), renders it with plain DOM calls (text only: nothing from the mock is ever parsed
// as HTML), and calls the existing controls. See docs/decisions/013-dashboard-page.md.

const POLL_MS = 1000;
const RECENT_LIMIT = 10_000;
const ROW_HEIGHT = 24;
const TOKEN_STORAGE = 'petstore-mock.control-token';
const SESSION_STORAGE = 'petstore-mock.session';
const DEFAULT_SESSION_STORAGE = 'petstore-mock.default-session';

function readStorage(key: string): string | null {
  try {
    return sessionStorage.getItem(key);
  } catch {
    return null;
  }
}

function writeStorage(key: string, value: string | null): void {
  try {
    if (value === null) sessionStorage.removeItem(key);
    else sessionStorage.setItem(key, value);
  } catch {
    // Storage disabled: the value lives as long as the page, which is still "the tab only".
  }
}

const situationLabels: Record<Situation, string> = {
  '401': '401 missing or unknown key',
  '400': '400 invalid request',
  '429': '429 rate limited',
  ban: 'a ban',
  'deprecated-call': 'a deprecated call',
  'window-reset': 'a window reset',
};

type LiveState = 'starting' | 'live' | 'paused' | 'hidden' | 'error' | 'needs-token';

class DashboardPage {
  private snapshot: DashboardSnapshot | null = null;
  private etag: string | null = null;
  private failures = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** The poll under way, if any: a second caller shares it rather than starting another. */
  private inFlight: Promise<void> | null = null;
  private userPaused = false;
  private waitingForToken = false;
  /** The session the mock answers without a header; choosing it sends no X-Mock-Session. */
  private defaultSession: string | null = readStorage(DEFAULT_SESSION_STORAGE);
  private session: string | null = readStorage(SESSION_STORAGE);
  private token: string | null = readStorage(TOKEN_STORAGE);
  private resetArmed = false;
  private actionError = false;
  private pendingNote: string | null = null;
  private readonly log: VirtualTable<RecentRequest>;
  private filteredKey = '';
  private coverageKey = '';
  private readonly api: DashboardApiContext = {
    base: controlBase(location.pathname),
    session: () => this.session,
    token: () => this.token,
  };

  private readonly el = {
    picker: byId<HTMLSelectElement>('session-picker'),
    sessionName: byId('session-name'),
    liveState: byId('live-state'),
    pause: byId<HTMLButtonElement>('pause-button'),
    error: byId('error-line'),
    announcer: byId('announcer'),
    tokenForm: byId<HTMLFormElement>('token-form'),
    tokenReason: byId('token-reason'),
    tokenInput: byId<HTMLInputElement>('token-input'),
    tokenControls: byId('token-controls'),
    forgetToken: byId<HTMLButtonElement>('forget-token'),
    clockNow: byId('clock-now'),
    clockOffset: byId('clock-offset'),
    customForm: byId<HTMLFormElement>('custom-advance'),
    customSeconds: byId<HTMLInputElement>('custom-seconds'),
    customError: byId('custom-error'),
    reset: byId<HTMLButtonElement>('reset-button'),
    resetCancel: byId<HTMLButtonElement>('reset-cancel'),
    logCount: byId('log-count'),
    logFilter: byId<HTMLInputElement>('log-filter'),
    logViewport: byId('log-viewport'),
    situations: byId('situations'),
    operations: byId('operations'),
  };

  /** The page's parts that only show the snapshot (and may call the mock); a new panel is one more line here. */
  private readonly panels: DashboardPanel[];

  constructor() {
    const context: PanelContext = {
      api: this.api,
      announce: (message) => {
        // A panel's success replaces the line of an earlier failed click.
        if (this.actionError) this.showError(null);
        this.announce(message);
      },
      fail: (error) => this.fail(error),
    };
    this.panels = [new ClientList(), new TimelinePanel(), new DownloadsPanel(context)];
    this.log = new VirtualTable<RecentRequest>({
      viewport: this.el.logViewport,
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
    this.wire();
  }

  start(): void {
    this.render();
    void this.poll();
  }

  private wire(): void {
    this.el.pause.addEventListener('click', () => {
      this.userPaused = !this.userPaused;
      this.el.pause.setAttribute('aria-pressed', String(this.userPaused));
      this.el.pause.textContent = this.userPaused ? 'Resume updates' : 'Pause updates';
      if (this.userPaused) this.stopTimer();
      else void this.poll();
      this.showLiveState();
    });
    document.addEventListener('visibilitychange', () => {
      // A hidden tab asks nothing: polling resumes, with one immediate poll, when it is shown again.
      if (document.hidden) this.stopTimer();
      else if (!this.userPaused) void this.poll();
      this.showLiveState();
    });
    this.el.picker.addEventListener('change', () => {
      const chosen = this.el.picker.value;
      this.session = chosen === this.defaultSession ? null : chosen;
      writeStorage(SESSION_STORAGE, this.session);
      this.etag = null;
      this.announce(`Showing session ${chosen}`);
      void this.poll();
    });
    this.el.tokenForm.addEventListener('submit', (event) => {
      event.preventDefault();
      const value = this.el.tokenInput.value.trim();
      if (value === '') return;
      this.token = value;
      writeStorage(TOKEN_STORAGE, value);
      this.el.tokenInput.value = '';
      this.waitingForToken = false;
      this.el.tokenForm.hidden = true;
      this.etag = null;
      this.announce('Control token set for this tab');
      void this.poll();
    });
    this.el.forgetToken.addEventListener('click', () => {
      this.token = null;
      writeStorage(TOKEN_STORAGE, null);
      this.announce('Control token forgotten');
      this.etag = null;
      void this.poll();
    });
    for (const button of document.querySelectorAll<HTMLButtonElement>('button.advance')) {
      button.addEventListener('click', () => void this.advance(Number(button.dataset.seconds), button));
    }
    this.el.customForm.addEventListener('submit', (event) => {
      event.preventDefault();
      const parsed = parseAdvanceSeconds(this.el.customSeconds.value);
      if (!parsed.ok) {
        this.el.customError.textContent = parsed.message;
        this.el.customSeconds.setAttribute('aria-invalid', 'true');
        return;
      }
      this.el.customError.textContent = '';
      this.el.customSeconds.removeAttribute('aria-invalid');
      void this.advance(parsed.seconds, this.el.customForm.querySelector('button'));
    });
    this.el.reset.addEventListener('click', () => {
      if (!this.resetArmed) {
        this.armReset(true);
        return;
      }
      this.armReset(false);
      void this.control(
        'reset',
        undefined,
        this.el.reset,
        () => `Session ${this.snapshot?.session ?? ''} reset: counters, bans, clock and data are back to the start`,
      );
    });
    this.el.resetCancel.addEventListener('click', () => this.armReset(false));
    this.el.logFilter.addEventListener('input', () => this.renderLog(true));
  }

  private armReset(armed: boolean): void {
    this.resetArmed = armed;
    this.el.reset.textContent = armed ? `Confirm: reset session ${this.snapshot?.session ?? ''}` : 'Reset session…';
    this.el.resetCancel.hidden = !armed;
    if (armed) this.el.reset.focus();
  }

  private async advance(seconds: number, button: HTMLButtonElement | null): Promise<void> {
    await this.control('clock', { advanceSeconds: seconds }, button, (answer) => {
      const now =
        typeof answer === 'object' && answer !== null && typeof (answer as { now?: unknown }).now === 'string'
          ? (answer as { now: string }).now
          : null;
      return `Clock advanced by ${formatDuration(seconds)}${now === null ? '' : `; virtual time is now ${formatInstant(now)}`}`;
    });
  }

  private async control(
    name: string,
    body: unknown,
    button: HTMLElement | null,
    done: (answer: unknown) => string,
  ): Promise<void> {
    button?.setAttribute('aria-busy', 'true');
    try {
      const answer = await postControl(this.api, name, body);
      // Announced together with what the control changed (a ban lifted...), read on the next poll.
      this.pendingNote = done(answer);
      this.showError(null);
      this.etag = null;
      // A poll already under way may have been answered before the control: wait for it, then ask again.
      await this.inFlight;
      await this.poll();
      if (this.pendingNote !== null) this.announce(this.pendingNote);
      this.pendingNote = null;
    } catch (error) {
      this.fail(error);
    } finally {
      button?.removeAttribute('aria-busy');
    }
  }

  /** A failed call: the token form when the token was the reason, else one line in the error line. */
  private fail(error: unknown): void {
    if (error instanceof DashboardCallError && error.code === 'control_forbidden' && this.askForToken(error.message))
      return;
    this.showError(error instanceof Error ? error.message : String(error), true);
  }

  /** Shows the token form when the refusal is about the token; false when it is about something else. */
  private askForToken(message: string): boolean {
    if (!/token/i.test(message)) return false;
    this.token = null;
    writeStorage(TOKEN_STORAGE, null);
    this.waitingForToken = true;
    this.el.tokenReason.textContent = `${message}. Enter the token the mock was started with.`;
    this.el.tokenForm.hidden = false;
    this.el.tokenInput.focus();
    this.stopTimer();
    this.showLiveState();
    return true;
  }

  private stopTimer(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(delay: number): void {
    this.stopTimer();
    if (this.userPaused || document.hidden || this.waitingForToken) return;
    this.timer = setTimeout(() => void this.poll(), delay);
  }

  private poll(): Promise<void> {
    this.inFlight ??= this.pollOnce().finally(() => {
      this.inFlight = null;
    });
    return this.inFlight;
  }

  private async pollOnce(): Promise<void> {
    this.stopTimer();
    try {
      const headers = requestHeaders(this.api);
      if (this.etag !== null) headers.set('If-None-Match', this.etag);
      let response: Response;
      try {
        response = await fetch(`${this.api.base}dashboard?limit=${RECENT_LIMIT}`, {
          headers,
          cache: 'no-store',
          credentials: 'same-origin',
        });
      } catch (error) {
        throw new DashboardCallError(
          `Cannot reach the mock (${error instanceof Error ? error.message : String(error)})`,
          0,
          null,
        );
      }
      if (response.status === 304) {
        this.succeeded();
        return;
      }
      if (!response.ok) throw await callError(response);
      const started = performance.now();
      let decoded: unknown;
      try {
        decoded = JSON.parse(await response.text());
      } catch {
        throw new DashboardCallError('The mock sent a dashboard that is not valid JSON', response.status, null);
      }
      const snapshot = asSnapshot(decoded);
      this.etag = response.headers.get('ETag');
      this.apply(snapshot);
      // Reading a layout property makes the browser lay the page out now, so the figure includes it.
      void document.body.offsetHeight;
      document.body.dataset.renderMs = (performance.now() - started).toFixed(1);
      this.succeeded();
    } catch (error) {
      if (error instanceof DashboardCallError && error.code === 'control_forbidden' && this.askForToken(error.message))
        return;
      this.failures++;
      const delay = backoffMs(this.failures);
      const reason = error instanceof Error ? error.message : String(error);
      this.showError(
        `${reason}. Retrying in ${formatDuration(delay / 1000)}${this.snapshot === null ? '' : '; the figures below are from the last answer'}.`,
      );
      this.showLiveState('error');
      this.schedule(delay);
    }
  }

  private succeeded(): void {
    this.failures = 0;
    if (!this.actionError) this.showError(null);
    this.showLiveState();
    this.schedule(POLL_MS);
  }

  private showLiveState(forced?: LiveState): void {
    const state: LiveState =
      forced ??
      (this.waitingForToken
        ? 'needs-token'
        : this.userPaused
          ? 'paused'
          : document.hidden
            ? 'hidden'
            : this.failures > 0
              ? 'error'
              : this.snapshot === null
                ? 'starting'
                : 'live');
    const text: Record<LiveState, string> = {
      starting: 'Starting…',
      live: '● Live',
      paused: '❚❚ Paused',
      hidden: '❚❚ Paused (tab hidden)',
      error: '⚠ Reconnecting',
      'needs-token': '⚠ Needs the control token',
    };
    this.el.liveState.dataset.state = state;
    this.el.liveState.textContent = text[state];
  }

  /**
   * One line for what failed. A failed click (a control, a download) stays until the next click
   * succeeds; a failed poll is cleared by the next good one.
   */
  private showError(message: string | null, fromAction = false): void {
    this.actionError = message !== null && fromAction;
    this.el.error.hidden = message === null;
    this.el.error.textContent = message ?? '';
  }

  private announce(message: string): void {
    this.el.announcer.textContent = message;
  }

  private apply(snapshot: DashboardSnapshot): void {
    const previous = this.snapshot;
    if (this.defaultSession === null && this.session === null) {
      this.defaultSession = snapshot.session;
      writeStorage(DEFAULT_SESSION_STORAGE, snapshot.session);
    }
    this.snapshot = snapshot;
    if (previous !== null && previous.session === snapshot.session) this.announceChanges(previous, snapshot);
    this.render();
  }

  /** Puts the changes that matter (a ban, a first 429, a reset) into the aria-live line. */
  private announceChanges(before: DashboardSnapshot, after: DashboardSnapshot): void {
    const was = new Map(before.clients.map((client) => [client.client, client]));
    const news: string[] = [];
    for (const client of after.clients) {
      const old = was.get(client.client);
      if (client.ban !== null && (old === undefined || old.ban === null))
        news.push(`${client.client} is banned for ${formatDuration(client.ban.secondsLeft)}`);
      else if (client.ban === null && old !== undefined && old.ban !== null)
        news.push(`${client.client} is no longer banned`);
      else if (client.requests.refused429 > 0 && (old === undefined || old.requests.refused429 === 0))
        news.push(`${client.client} was refused with 429`);
    }
    if (news.length === 0) return;
    if (this.pendingNote !== null) news.unshift(this.pendingNote);
    this.pendingNote = null;
    this.announce(news.join('; '));
  }

  private render(): void {
    const snapshot = this.snapshot;
    this.renderSessions(snapshot);
    if (snapshot === null) return;
    this.el.clockNow.textContent = formatInstant(snapshot.clock.now);
    this.el.clockOffset.textContent = formatOffset(snapshot.clock.offsetSeconds);
    this.el.tokenControls.hidden = this.token === null;
    if (snapshot.tokenRequired && this.token === null && !this.waitingForToken) {
      this.el.tokenReason.textContent =
        'This mock guards its controls with a control token: enter it to use the clock and reset buttons.';
      this.el.tokenForm.hidden = false;
    } else if (!this.waitingForToken) {
      this.el.tokenForm.hidden = true;
    }
    for (const panel of this.panels) panel.update(snapshot);
    this.renderLog(false);
    this.renderCoverage(snapshot);
  }

  private renderSessions(snapshot: DashboardSnapshot | null): void {
    const current = snapshot?.session ?? this.session ?? '…';
    this.el.sessionName.textContent = current;
    const names = snapshot?.sessions.map((session) => session.name) ?? [];
    if (snapshot !== null && !names.includes(snapshot.session)) names.unshift(snapshot.session);
    const several = names.length > 1;
    this.el.picker.hidden = !several;
    this.el.sessionName.hidden = several;
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
          option.textContent = `${name}${name === this.defaultSession ? ' (default)' : ''}${seen ? ` · last seen ${formatInstant(seen)}` : ''}`;
          return option;
        }),
      );
    }
    this.el.picker.value = current;
  }

  private renderLog(filterChanged: boolean): void {
    const recent = this.snapshot?.recent ?? [];
    const filter = this.el.logFilter.value.trim().toLowerCase();
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
    this.el.logCount.textContent = filter === '' ? `(${recent.length})` : `(${rows.length} of ${recent.length})`;
    this.log.setRows(rows);
    this.el.logViewport.dataset.rendered = String(this.log.renderedRowCount);
    this.el.logViewport.dataset.total = String(rows.length);
  }

  private renderCoverage(snapshot: DashboardSnapshot): void {
    const key = JSON.stringify(snapshot.coverage);
    if (key === this.coverageKey) return;
    this.coverageKey = key;
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
    this.el.operations.replaceChildren(
      ...operations.map((operation) => {
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
      }),
    );
  }
}

new DashboardPage().start();

/** The log's last column: the Error code, the fault the request met and its latency (decision 042). */
function codeAndFault(entry: RecentRequest): string {
  const parts = entry.code === null ? [] : [entry.code];
  if (entry.fault !== undefined) parts.push(`fault ${entry.fault}`);
  if (entry.delayMs !== undefined) parts.push(`+${entry.delayMs} ms`);
  return parts.join(' · ');
}
