import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { readYamlText, YamlTextError } from '../core/config/yaml-text.js';
import { MockConfigSchema, parseMockConfig, type MockConfig } from '../core/config/mock-config.js';

/**
 * The largest config (or scenario) file read. A real one is a few hundred bytes; 1 MiB is the most
 * read as JSON (YAML: 256 Ki characters, see yaml-text.ts). Past it the file is refused unread, in
 * one line, before any parsing (a 50 MB file used to take 40 s and 3.4 GB, then print every key).
 */
export const maxConfigFileBytes = 1024 * 1024;

const knownSettings = new Set(Object.keys(MockConfigSchema.shape));

/**
 * Reads a YAML config file. Every error is one line naming the file and, for a syntax error, the
 * line and column; it quotes the file only as a short, escaped excerpt, and only when the file is a
 * config with a mistake in it, never when it is not YAML at all (`--config /etc/shadow` must not
 * print the file).
 *
 * @example await readConfigFile('petstore.yaml') // MockConfig, or throws "Failed to load config petstore.yaml: ..."
 */
export async function readConfigFile(path: string): Promise<MockConfig> {
  const fail = (reason: string): never => {
    throw new Error(`Failed to load config ${path}: ${reason}`);
  };
  const text = await readYamlFileText(path, 'config').catch((error: Error) => fail(error.message));
  let value: unknown;
  try {
    value = readYamlText(text);
  } catch (error) {
    if (!(error instanceof YamlTextError)) throw error;
    const where = error.position ? ` at line ${error.position.line}, column ${error.position.column}` : '';
    // An excerpt only of a config with a mistake in it: `--config /etc/shadow` must not print the file.
    const looksLikeConfig = error.topLevelKeys.some((key) => knownSettings.has(key));
    const excerpt = looksLikeConfig && error.position ? `: ${quoteExcerpt(text, error.position.line, error.position.column)}` : '';
    return fail(`invalid YAML${where} (${error.phrase})${excerpt}`);
  }
  if (value === null || value === undefined) return parseMockConfig({}, `config ${path}`);
  if (typeof value !== 'object' || Array.isArray(value)) {
    fail(`expected a YAML mapping of settings (plans:, keys:, ...), got ${Array.isArray(value) ? 'a list' : `a ${typeof value}`}; is it the right file?`);
  }
  const topKeys = Object.keys(value as object);
  if (topKeys.length > 0 && !topKeys.some((key) => knownSettings.has(key))) {
    fail(`none of its ${topKeys.length} top-level keys is a setting of the mock (${[...knownSettings].slice(0, 6).join(', ')}, ...); is it the right file?`);
  }
  return parseMockConfig(value, `config ${path}`);
}

/**
 * The text of a YAML file the mock is given (a config, a scenario): read bounded (a device, a FIFO or
 * a huge file is refused unread), UTF-8 without NUL bytes. Throws an Error whose message is the reason
 * alone, for the caller to prefix with the file's name.
 */
export async function readYamlFileText(path: string, kind: 'config' | 'scenario'): Promise<string> {
  let bytes: Buffer;
  try {
    bytes = await readBounded(path);
  } catch (error) {
    throw new Error(describeFileError(error as NodeJS.ErrnoException, kind));
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new Error(`it is not a text file (not UTF-8); expected a YAML ${kind}`);
  }
  // A NUL never appears in YAML (it is not even allowed escaped-free): a binary file.
  if (text.includes('\0')) throw new Error(`it is not a text file (it holds NUL bytes); expected a YAML ${kind}`);
  return text;
}

/** Reads at most `maxConfigFileBytes + 1` bytes of a regular file: a device or a growing file never fills memory. */
async function readBounded(path: string): Promise<Buffer> {
  // O_NONBLOCK: opening a FIFO must not wait for a writer (it is then refused as not a regular file).
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const stats = await handle.stat();
    if (stats.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
    if (!stats.isFile()) throw Object.assign(new Error('not a regular file'), { code: 'ENOTREG' });
    if (stats.size > maxConfigFileBytes) throw Object.assign(new Error('too large'), { code: 'ETOOBIG' });
    const buffer = Buffer.alloc(maxConfigFileBytes + 1);
    let length = 0;
    while (length < buffer.length) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > maxConfigFileBytes) throw Object.assign(new Error('too large'), { code: 'ETOOBIG' });
    return buffer.subarray(0, length);
  } finally {
    await handle.close();
  }
}

function describeFileError(error: NodeJS.ErrnoException, kind: 'config' | 'scenario'): string {
  switch (error.code) {
    case 'ENOENT':
      return 'no such file';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'it is a directory';
    case 'ENOTREG':
      return 'it is not a regular file';
    case 'ETOOBIG':
      return `the file is larger than ${maxConfigFileBytes} bytes (1 MiB): refused unread; a ${kind} is a few hundred bytes of YAML`;
    default:
      return `cannot read it (${error.code ?? 'unknown error'})`;
  }
}

/** At most 40 characters of line `line` around `column`, JSON-escaped (control characters, quotes). */
function quoteExcerpt(text: string, line: number, column: number): string {
  let start = 0;
  for (let current = 1; current < line; current += 1) {
    const next = text.indexOf('\n', start);
    if (next === -1) break;
    start = next + 1;
  }
  const end = text.indexOf('\n', start);
  const whole = text.slice(start, end === -1 ? text.length : end).replace(/\r$/, '');
  const from = Math.max(0, Math.min(column - 1 - 20, whole.length - 40));
  const piece = whole.slice(from, from + 40);
  return `${from > 0 ? '…' : ''}${JSON.stringify(piece)}${from + 40 < whole.length ? '…' : ''}`;
}
