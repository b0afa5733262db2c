import { execFileSync } from 'node:child_process';

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
