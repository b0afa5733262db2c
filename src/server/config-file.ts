import { readBoundedText } from '../../spec/bounded-file.js';
import { type MockConfig, mockConfigSchema, parseMockConfig } from '../core/config/mock-config.js';
import { readYamlText, YamlTextError } from '../core/config/yaml-text.js';

/**
 * The largest config (or scenario) file read. A real one is a few hundred bytes; 1 MiB is the most
 * read as JSON (YAML: 128 Ki characters, see yaml-text.ts). Past it the file is refused unread, in
 * one line, before any parsing (a 50 MB file used to take 40 s and 3.4 GB, then print every key).
 */
export const maxConfigFileBytes = 1024 * 1024;

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
    const looksLikeConfig = error.topLevelKeys.some((key) => Object.hasOwn(mockConfigSchema().shape, key));
    const excerpt =
      looksLikeConfig && error.position ? `: ${quoteExcerpt(text, error.position.line, error.position.column)}` : '';
    return fail(`invalid YAML${where} (${error.phrase})${excerpt}`);
  }
  if (value === null || value === undefined) return parseMockConfig({}, `config ${path}`);
  if (typeof value !== 'object' || Array.isArray(value)) {
    fail(
      `expected a YAML mapping of settings (plans:, keys:, ...), got ${Array.isArray(value) ? 'a list' : `a ${typeof value}`}; is it the right file?`,
    );
  }
  const topKeys = Object.keys(value as object);
  if (topKeys.length > 0 && !topKeys.some((key) => Object.hasOwn(mockConfigSchema().shape, key))) {
    fail(
      `none of its ${topKeys.length} top-level keys is a setting of the mock (${Object.keys(mockConfigSchema().shape).slice(0, 6).join(', ')}, ...); is it the right file?`,
    );
  }
  return parseMockConfig(value, `config ${path}`);
}

/**
 * The text of a YAML file the mock is given (a config, a scenario): read bounded (a device, a FIFO or
 * a huge file is refused unread), UTF-8 without NUL bytes. Throws an Error whose message is the reason
 * alone, for the caller to prefix with the file's name.
 */
export function readYamlFileText(path: string, kind: 'config' | 'scenario'): Promise<string> {
  return readBoundedText(path, { maxBytes: maxConfigFileBytes, expected: `a YAML ${kind} (a few hundred bytes)` });
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
