import { getControlBlob } from './dashboard-api.js';
import { downloadFileName } from './dashboard-format.js';
import { byId, type DashboardPanel, type PanelContext } from './dashboard-panel.js';
import type { DashboardSnapshot } from './dashboard-types.js';

/** What the buttons download: the controls' own answers, as a `curl` would get them. */
const downloads = [
  { id: 'download-export', path: 'requests?format=jsonl', suffix: 'requests.jsonl', what: 'the request export' },
  { id: 'download-report-json', path: 'report', suffix: 'report.json', what: 'the report (JSON)' },
  { id: 'download-report-junit', path: 'report?format=junit', suffix: 'report.junit.xml', what: 'the report (JUnit)' },
] as const;

/**
 * Download buttons for the session's JSONL export (what `petstore-mock replay` reads) and its report
 * as JSON and JUnit XML. Each fetches the control with the session and token headers (a plain link
 * would send neither) and saves the bytes under a file name that says the session.
 */
export class DownloadsPanel implements DashboardPanel {
  private session = 'default';

  constructor(private readonly context: PanelContext) {
    for (const download of downloads) {
      const button = byId<HTMLButtonElement>(download.id);
      button.addEventListener('click', () => void this.download(download, button));
    }
  }

  update(snapshot: DashboardSnapshot): void {
    this.session = snapshot.session;
  }

  private async download(download: (typeof downloads)[number], button: HTMLButtonElement): Promise<void> {
    button.setAttribute('aria-busy', 'true');
    try {
      const blob = await getControlBlob(this.context.api, download.path);
      const name = downloadFileName(this.session, download.suffix);
      const link = document.createElement('a');
      link.href = URL.createObjectURL(blob);
      link.download = name;
      link.hidden = true;
      document.body.append(link);
      link.click();
      link.remove();
      // The browser has taken the bytes once the click is handled; the URL is freed soon after.
      setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
      this.context.announce(`Downloaded ${download.what} of session ${this.session} as ${name} (${blob.size} bytes)`);
    } catch (error) {
      this.context.fail(error);
    } finally {
      button.removeAttribute('aria-busy');
    }
  }
}
