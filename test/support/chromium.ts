import { execFileSync } from 'node:child_process';
import { type Browser, chromium } from 'playwright-core';

/**
 * The Chromium playwright-core drives (it never downloads a browser here): `CHROMIUM_PATH` when set, as the
 * README says, else `chromium` on the PATH (Debian's package); undefined without either.
 */
export function findChromium(): string | undefined {
  const configured = process.env.CHROMIUM_PATH?.trim();
  if (configured) return configured;
  try {
    const path = execFileSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' }).trim();
    return path === '' ? undefined : path;
  } catch {
    return undefined;
  }
}

/** Chromium headless, quiet (no updates, sync or first-run work in the background of a test). */
export function launchChromium(executablePath: string): Promise<Browser> {
  return chromium.launch({
    executablePath,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}
