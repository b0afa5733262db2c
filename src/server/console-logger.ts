import { maskCredentialPatterns } from '../../spec/credential-masking.js';
import { sanitiseForTerminal } from '../../spec/terminal-text.js';
import type { Logger } from '../core/types.js';

/**
 * The one logger of the CLI: every line carries a prefix; debug lines only when verbose. A message
 * is one line, whatever it quotes (a spec's title, a path, an error's stack): its control and
 * invisible format characters, line breaks included, are written escaped, and whatever looks like a
 * credential in it (a key in a query, a Bearer token) is masked.
 *
 * @example createConsoleLogger({ verbose: true }).debug('GET /v1/categories 200')
 */
export function createConsoleLogger(options: { prefix?: string; verbose?: boolean; quiet?: boolean } = {}): Logger {
  const prefix = options.prefix ?? '[petstore-mock]';
  const write = (stream: NodeJS.WriteStream, message: string) =>
    stream.write(`${prefix} ${sanitiseForTerminal(maskCredentialPatterns(message))}\n`);
  return {
    verbose: options.verbose === true,
    info: (message) => options.quiet || write(process.stdout, message),
    warn: (message) => write(process.stderr, `warning: ${message}`),
    error: (message) => write(process.stderr, `error: ${message}`),
    debug: (message) => options.verbose && write(process.stdout, message),
  };
}
