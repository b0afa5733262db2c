/**
 * Masks an API key for reports and logs: a short prefix stays readable, the rest is hidden, so a
 * report pasted into a ticket never leaks a working key.
 *
 * @example maskSecret('demo-enterprise') // 'demo…(15)'
 */
export function maskSecret(secret: string): string {
  const visible = secret.length > 8 ? 4 : Math.min(2, Math.floor(secret.length / 3));
  return `${secret.slice(0, visible)}…(${secret.length})`;
}

/**
 * Masks the credentials in an Authorization header value, keeping the scheme visible because the
 * scheme is often what a check is about.
 *
 * @example maskAuthorization('Bearer demo-enterprise') // 'Bearer demo…(15)'
 */
export function maskAuthorization(value: string): string {
  const space = value.indexOf(' ');
  if (space === -1) return maskSecret(value);
  return `${value.slice(0, space)} ${maskSecret(value.slice(space + 1))}`;
}

/**
 * Does a header name carry credentials? Authorization, Cookie, X-Api-Key, tokens, sessions:
 * their values are secrets the kit masks in every output.
 *
 * @example looksLikeCredentialHeader('X-Api-Key') // true
 */
export function looksLikeCredentialHeader(name: string): boolean {
  return /auth|cookie|key|token|secret|session|password|credential|signature/i.test(name);
}

/**
 * Replaces every secret the kit was given wherever it appears in a text, also in the forms a
 * server may echo it in (case changed, URL-encoded, base64, cut short by one character).
 *
 * @example createRedactor(['demo-enterprise'])('echo: DEMO-ENTERPRISE') // 'echo: demo…(15)'
 */
export function createRedactor(secrets: readonly string[]): (text: string) => string {
  const forms = new Map<string, string>();
  for (const secret of secrets) {
    if (secret.length < 4) continue;
    const mask = maskSecret(secret);
    for (const form of [
      secret,
      encodeURIComponent(secret),
      Buffer.from(secret).toString('base64').replace(/=+$/, ''),
      secret.slice(0, -1),
    ]) {
      if (form.length >= 4 && !forms.has(form)) forms.set(form, mask);
    }
  }
  if (forms.size === 0) return (text) => text;
  // Longest first, so a secret is replaced whole before any shorter form of it.
  const ordered = [...forms.keys()].sort((a, b) => b.length - a.length);
  const pattern = new RegExp(ordered.map((form) => form.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'gi');
  return (text) =>
    text.replace(
      pattern,
      (match) =>
        forms.get(match) ?? forms.get(ordered.find((form) => form.toLowerCase() === match.toLowerCase()) ?? '') ?? '…',
    );
}

/**
 * Applies a redactor to every string in a plain-data value (a report), keys included.
 *
 * @example redactDeep({ a: ['key-1234'] }, createRedactor(['key-1234'])) // { a: ['key-…(8)'] }
 */
export function redactDeep<T>(value: T, redact: (text: string) => string): T {
  if (typeof value === 'string') return redact(value) as T;
  if (Array.isArray(value)) return value.map((item) => redactDeep(item, redact)) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [redact(key), redactDeep(item, redact)])) as T;
  }
  return value;
}
