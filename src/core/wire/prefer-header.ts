import { type FaultKind, faultKinds, maxLatencyMs } from '../config/fault-config.js';
import { HttpError } from '../errors.js';

/** What a `Prefer` header asks of the mock (Prism's convention: `Prefer: code=429, example=empty`). */
export interface Preferences {
  code?: number;
  example?: string;
  dynamic?: boolean;
  /** `delay=MS`: the answer waits this long (decision 042). */
  delay?: number;
  /** `fault=KIND`: this request meets this fault (decision 042). */
  fault?: FaultKind;
}

const knownPreferences = `code=<status>, example=<name>, dynamic=true|false, delay=<ms>, fault=${faultKinds.join('|')}`;

/**
 * Preferences registered for HTTP (IANA "HTTP Preferences": RFC 7240's return, respond-async, wait
 * and handling; RFC 8144's depth-noroot; RFC 8674's safe) that the mock does not act on. A client
 * library may send them on every request; RFC 7240 section 2 says a server ignores a preference it
 * does not support, so they are skipped, with their parameters, whatever their values.
 */
const registeredForeignPreferences = new Set(['return', 'respond-async', 'wait', 'handling', 'depth-noroot', 'safe']);

/**
 * Decodes a Prefer header. Our own preferences (Prism's convention) are strict: an unknown
 * preference or a bad value is a 400 Error, so a typo never silently gives the tester the normal
 * response. Registered preferences that are not ours (`return=minimal`, `respond-async`, ...) are
 * ignored as RFC 7240 asks.
 *
 * Preferences are separated by commas; `;` separates a preference from its parameters (RFC 7240
 * section 2), and for our own the parameters are read as preferences too, as Prism does
 * (`code=429; example=empty`).
 *
 * @example parsePrefer('code=429') // { code: 429 }
 * @example parsePrefer('return=minimal, code=201') // { code: 201 }
 */
export function parsePrefer(header: string | undefined): Preferences {
  if (header === undefined || header.trim() === '') return {};
  const preferences: Preferences = {};
  for (const preference of header.split(',')) {
    const segments = preference.split(';');
    const first = segments[0]!.trim();
    // RFC 7240: a preference's name is a token, compared case-insensitively.
    const firstName = (first.includes('=') ? first.slice(0, first.indexOf('=')) : first).trim().toLowerCase();
    if (registeredForeignPreferences.has(firstName)) continue;
    for (const token of segments) {
      const trimmed = token.trim();
      if (trimmed === '') continue;
      const equals = trimmed.indexOf('=');
      const rawName = equals === -1 ? '' : trimmed.slice(0, equals).trim();
      let value = equals === -1 ? '' : trimmed.slice(equals + 1).trim();
      if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
      if (!/^[A-Za-z-]+$/.test(rawName) || value.includes('"'))
        throw new HttpError(
          'invalid_prefer',
          `Prefer: cannot read "${trimmed.slice(0, 60)}"; supported: ${knownPreferences}`,
        );
      const name = rawName.toLowerCase();
      if (name === 'code') {
        if (!/^[1-5]\d\d$/.test(value))
          throw new HttpError(
            'invalid_prefer',
            `Prefer: code must be an HTTP status (100-599), got "${value.slice(0, 20)}"`,
          );
        preferences.code = Number(value);
      } else if (name === 'example') {
        if (value === '') throw new HttpError('invalid_prefer', 'Prefer: example needs a name');
        preferences.example = value;
      } else if (name === 'dynamic') {
        if (value !== 'true' && value !== 'false')
          throw new HttpError('invalid_prefer', `Prefer: dynamic must be true or false, got "${value.slice(0, 20)}"`);
        preferences.dynamic = value === 'true';
      } else if (name === 'delay') {
        if (!/^\d{1,6}$/.test(value) || Number(value) > maxLatencyMs)
          throw new HttpError(
            'invalid_prefer',
            `Prefer: delay must be a whole number of milliseconds (0-${maxLatencyMs}), got "${value.slice(0, 20)}"`,
          );
        preferences.delay = Number(value);
      } else if (name === 'fault') {
        if (!(faultKinds as readonly string[]).includes(value))
          throw new HttpError(
            'invalid_prefer',
            `Prefer: fault must be one of ${faultKinds.join(', ')}, got "${value.slice(0, 20)}"`,
          );
        preferences.fault = value as FaultKind;
      } else {
        throw new HttpError(
          'invalid_prefer',
          `Prefer: unknown preference "${name.slice(0, 40)}"; supported: ${knownPreferences} (registered ones we do not act on, such as return=minimal or respond-async, are ignored)`,
        );
      }
    }
  }
  return preferences;
}
