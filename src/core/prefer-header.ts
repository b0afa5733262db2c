import { HttpError } from './errors.js';

/** What a `Prefer` header asks of the mock (Prism's convention: `Prefer: code=429, example=empty`). */
export interface Preferences {
  code?: number;
  example?: string;
  dynamic?: boolean;
}

const knownPreferences = 'code=<status>, example=<name>, dynamic=true|false';

/**
 * Decodes a Prefer header strictly: an unknown preference or a bad value is a 400 Error, so a typo
 * never silently gives the tester the normal response.
 *
 * @example parsePrefer('code=429') // { code: 429 }
 */
export function parsePrefer(header: string | undefined): Preferences {
  if (header === undefined || header.trim() === '') return {};
  const preferences: Preferences = {};
  for (const token of header.split(/[,;]/)) {
    const trimmed = token.trim();
    if (trimmed === '') continue;
    const equals = trimmed.indexOf('=');
    const rawName = equals === -1 ? '' : trimmed.slice(0, equals).trim();
    let value = equals === -1 ? '' : trimmed.slice(equals + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    if (!/^[A-Za-z-]+$/.test(rawName) || value.includes('"')) throw new HttpError('invalid_prefer', `Prefer: cannot read "${trimmed.slice(0, 60)}"; supported: ${knownPreferences}`);
    const name = rawName.toLowerCase();
    if (name === 'code') {
      if (!/^[1-5]\d\d$/.test(value)) throw new HttpError('invalid_prefer', `Prefer: code must be an HTTP status (100-599), got "${value.slice(0, 20)}"`);
      preferences.code = Number(value);
    } else if (name === 'example') {
      if (value === '') throw new HttpError('invalid_prefer', 'Prefer: example needs a name');
      preferences.example = value;
    } else if (name === 'dynamic') {
      if (value !== 'true' && value !== 'false') throw new HttpError('invalid_prefer', `Prefer: dynamic must be true or false, got "${value.slice(0, 20)}"`);
      preferences.dynamic = value === 'true';
    } else {
      throw new HttpError('invalid_prefer', `Prefer: unknown preference "${name.slice(0, 40)}"; supported: ${knownPreferences}`);
    }
  }
  return preferences;
}
