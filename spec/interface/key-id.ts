import { sha256 } from '@noble/hashes/sha2.js';

/**
 * How a key is identified without being kept: the SHA-256 of its UTF-8 bytes. The mock finds keys
 * and counts budgets by it, its export and the judging proxy name a key by it (`client-<12 hex>`),
 * so a key seen by both is one client in both. Browser-safe (no node:crypto).
 */
const encoder = new TextEncoder();
const hexDigits = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

/**
 * The digest of a key (32 bytes).
 *
 * @example keyDigest('demo-free').length // 32
 */
export function keyDigest(key: string): Uint8Array {
  return sha256(encoder.encode(key));
}

/**
 * Bytes as lower-case hex.
 *
 * @example toHex(new Uint8Array([0, 255])) // '00ff'
 */
export function toHex(bytes: Uint8Array): string {
  let out = '';
  for (const byte of bytes) out += hexDigits[byte];
  return out;
}

/**
 * The digest of a key in lower-case hex (64 characters).
 *
 * @example keyDigestHex('demo-free').length // 64
 */
export function keyDigestHex(key: string): string {
  return toHex(keyDigest(key));
}
