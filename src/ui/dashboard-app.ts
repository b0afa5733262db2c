import { ClientList } from './client-list.js';
import { CoveragePanel } from './coverage-panel.js';
import {
  controlBase,
  type DashboardApiContext,
  DashboardCallError,
  getDashboard,
  postControl,
} from './dashboard-api.js';
import {
  asSnapshot,
  backoffMs,
  formatDuration,
  formatInstant,
  formatOffset,
  parseAdvanceSeconds,
  snapshotNews,
} from './dashboard-format.js';
import { byId, type DashboardPanel, type PanelContext } from './dashboard-panel.js';
import type { DashboardSnapshot } from './dashboard-types.js';
import { DownloadsPanel } from './downloads-panel.js';
import { RequestLogPanel } from './request-log-panel.js';
import { SessionPicker } from './session-picker.js';
import { DEFAULT_SESSION_STORAGE, readStorage, SESSION_STORAGE, TOKEN_STORAGE, writeStorage } from './tab-storage.js';
import { TimelinePanel } from './timeline-panel.js';

// The dashboard page: polls GET /__mock/dashboard (ETag + If-None-Match keeps an unchanged answer to a
// 304 with no body), renders it with plain DOM calls (text only: nothing from the mock is ever parsed
// as HTML), and calls the existing controls. See docs/decisions/013-dashboard-page.md.

const POLL_MS = 1000;
const RECENT_LIMIT = 10_000;

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
  private readonly api: DashboardApiContext = {
    base: controlBase(location.pathname),
    session: () => this.session,
    token: () => this.token,
  };

  private readonly sessions = new SessionPicker((chosen) => this.chooseSession(chosen));
  private readonly el = {
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
    this.panels = [
      new ClientList(),
      new TimelinePanel(),
      new DownloadsPanel(context),
      new RequestLogPanel(),
      new CoveragePanel(),
    ];
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
      const response = await getDashboard(this.api, RECENT_LIMIT, this.etag);
      if (response.status === 304) {
        this.succeeded();
        return;
      }
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
    const news = snapshotNews(before, after);
    if (news.length === 0) return;
    if (this.pendingNote !== null) news.unshift(this.pendingNote);
    this.pendingNote = null;
    this.announce(news.join('; '));
  }

  private render(): void {
    const snapshot = this.snapshot;
    this.sessions.render(snapshot, snapshot?.session ?? this.session ?? '…', this.defaultSession);
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
  }

  private chooseSession(chosen: string): void {
    this.session = chosen === this.defaultSession ? null : chosen;
    writeStorage(SESSION_STORAGE, this.session);
    this.etag = null;
    this.announce(`Showing session ${chosen}`);
    void this.poll();
  }
}

new DashboardPage().start();
