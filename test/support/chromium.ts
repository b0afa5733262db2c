import { execFileSync } from 'node:child_process';

/** Debian's chromium on PATH, for playwright-core (which never downloads a browser here); undefined without it. */
export function findChromium(): string | undefined {
  try {
    const path = execFileSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' }).trim();
    return path === '' ? undefined : path;
  } catch {
    return undefined;
  }
}
