/**
 * A request the kit sent, as a curl command a user can paste to see the server's answer again.
 * Secrets never appear: each is a shell variable (`"$PETSTORE_API_KEY"`), also in the forms the
 * auth probes derive from it (one character more or less, letter case swapped, URL-encoded).
 * Quoting is safe for any bytes: printable ASCII in single quotes, anything else as `$'\xNN'`
 * (bash, zsh, ksh), so a body with newlines, control characters or emoji reaches the server as
 * the kit sent it and never reaches the terminal raw.
 */

/** A request as sent, unmasked (the builder masks it). */
export interface SentRequest {
  method: string;
  url: string;
  /** Lower-case names, as sent. */
  headers: Record<string, string>;
  /** Text (sent as UTF-8) or raw bytes. */
  body: string | Uint8Array | undefined;
}

/** A secret and the shell variable that stands for it. */
export interface SecretVariable {
  value: string;
  variable: string;
}

/** Headers curl's own defaults would otherwise change, and those not worth repeating. */
const leftOut = new Set(['user-agent', 'content-length', 'host', 'connection', 'transfer-encoding']);

/**
 * Builds the curl command of one request: `-i` shows the status and headers, `-sS` keeps errors,
 * `-g` and `--path-as-is` keep the URL exactly as sent. A body without a Content-Type is sent
 * without one (`-H 'Content-Type:'` stops curl adding its form type).
 *
 * @example curlCommand({ method: 'GET', url: 'https://h/v1/categories', headers: { authorization: 'Bearer k-123' }, body: undefined }, [{ value: 'k-123', variable: 'PETSTORE_API_KEY' }])
 * // `curl -sS -i -g --path-as-is https://h/v1/categories -H 'authorization: Bearer '"$PETSTORE_API_KEY"`
 */
export function curlCommand(request: SentRequest, secrets: readonly SecretVariable[]): string {
  const words = ['curl', '-sS', '-i', '-g', '--path-as-is'];
  // HEAD through -X would wait for a body that never comes: curl's own --head sends it properly.
  if (request.method === 'HEAD' && request.body === undefined) words.push('--head');
  else if (request.method !== 'GET' || request.body !== undefined) words.push('-X', shellWord(request.method, secrets));
  words.push(shellWord(request.url, secrets));
  for (const [name, value] of Object.entries(request.headers)) {
    if (leftOut.has(name)) continue;
    words.push('-H', shellWord(`${name}: ${value}`, secrets));
  }
  if (request.body === undefined) return words.join(' ');
  if (!Object.keys(request.headers).includes('content-type')) words.push('-H', "'Content-Type:'");
  // Printable ASCII goes on the command line; any other body (newlines, NUL, emoji, a leading "@"
  // that curl would take for a file name) is written byte for byte by printf and read from stdin.
  if (typeof request.body === 'string' && /^[\x20-\x7e]*$/.test(request.body) && !request.body.startsWith('@'))
    return [...words, '--data-binary', shellWord(request.body, secrets)].join(' ');
  return `${printfCommand(request.body, secrets)} | ${[...words, '--data-binary', '@-'].join(' ')}`;
}

/**
 * A POSIX printf that writes a body byte for byte (a text as UTF-8, or raw bytes): every byte
 * outside printable ASCII as an octal escape, `%` and `\` escaped, secrets passed as `%s` arguments.
 *
 * @example printfCommand('a\nb', []) // "printf 'a\\012b'"
 */
export function printfCommand(body: string | Uint8Array, secrets: readonly SecretVariable[]): string {
  // Raw bytes are read one character a byte (latin1), so secrets (printable ASCII) are found in them alike.
  const encoding = typeof body === 'string' ? 'utf8' : 'latin1';
  const text = typeof body === 'string' ? body : Buffer.from(body).toString('latin1');
  const parts = splitSecrets(text, secrets);
  let format = '';
  const args: string[] = [];
  for (const part of parts) {
    if (part.kind === 'secret') {
      format += '%s';
      args.push(`"${part.expansion}"`);
      continue;
    }
    for (const byte of Buffer.from(part.text, encoding)) {
      if (byte === 0x25) format += '%%';
      else if (byte === 0x5c) format += '\\\\';
      else if (byte >= 0x20 && byte <= 0x7e) format += String.fromCharCode(byte);
      else format += `\\${byte.toString(8).padStart(3, '0')}`;
    }
  }
  // A format starting with "-" would read as an option.
  if (format.startsWith('-')) format = `\\055${format.slice(1)}`;
  return ['printf', quoteLiteral(format), ...args].join(' ');
}

/**
 * One shell word for a text: literal parts quoted, secrets (in any of their derived forms) as
 * variable expansions.
 *
 * @example shellWord("it's", []) // `'it'\''s'`
 */
export function shellWord(text: string, secrets: readonly SecretVariable[]): string {
  const parts = splitSecrets(text, secrets);
  const quoted = parts.map((part) => (part.kind === 'literal' ? quoteLiteral(part.text) : `"${part.expansion}"`));
  return quoted.length === 0 ? "''" : quoted.join('');
}

type Part = { kind: 'literal'; text: string } | { kind: 'secret'; expansion: string };

/** The forms a secret takes in the kit's requests, longest first, with the expansion that rebuilds each. */
function secretForms(secrets: readonly SecretVariable[]): { form: string; expansion: string }[] {
  const forms: { form: string; expansion: string }[] = [];
  for (const { value, variable } of secrets) {
    if (value.length < 4) continue;
    const swapped = [...value]
      .map((char) => (char === char.toUpperCase() ? char.toLowerCase() : char.toUpperCase()))
      .join('');
    forms.push({ form: value, expansion: `$${variable}` });
    if (encodeURIComponent(value) !== value) forms.push({ form: encodeURIComponent(value), expansion: `$${variable}` });
    if (swapped !== value) forms.push({ form: swapped, expansion: `\${${variable}~~}` });
    forms.push({ form: value.slice(0, -1), expansion: `\${${variable}%?}` });
  }
  return forms.sort((a, b) => b.form.length - a.form.length);
}

function splitSecrets(text: string, secrets: readonly SecretVariable[]): Part[] {
  const forms = secretForms(secrets);
  const parts: Part[] = [];
  let literal = '';
  let index = 0;
  outer: while (index < text.length) {
    for (const { form, expansion } of forms) {
      if (text.startsWith(form, index)) {
        if (literal !== '') parts.push({ kind: 'literal', text: literal });
        literal = '';
        parts.push({ kind: 'secret', expansion });
        index += form.length;
        continue outer;
      }
    }
    literal += text[index];
    index += 1;
  }
  if (literal !== '') parts.push({ kind: 'literal', text: literal });
  return parts;
}

/** Words of only safe characters bare, printable ASCII in single quotes, anything else as an ANSI-C string of escaped UTF-8 bytes. */
function quoteLiteral(text: string): string {
  if (/^[\w@%+=:,./][\w@%+=:,./-]*$/.test(text)) return text;
  if (/^[\x20-\x7e]*$/.test(text)) return `'${text.replace(/'/g, `'\\''`)}'`;
  let out = "$'";
  for (const byte of Buffer.from(text, 'utf8')) {
    if (byte === 0x27) out += "\\'";
    else if (byte === 0x5c) out += '\\\\';
    else if (byte >= 0x20 && byte <= 0x7e) out += String.fromCharCode(byte);
    else out += `\\x${byte.toString(16).padStart(2, '0')}`;
  }
  return `${out}'`;
}
