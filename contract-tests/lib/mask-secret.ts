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
