import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { open } from 'node:fs/promises';

interface BoundedTextOptions {
  maxBytes: number;
  expected: string;
}

/**
 * Reads a text file the kit is given (a config, a scenario, a recording to replay) with a bound on
 * its size: a device, a FIFO or a file over the bound is refused unread, so neither memory nor the
 * time to parse it can run away. The text is UTF-8 without NUL bytes. Throws an Error whose message
 * is the reason alone (`no such file`, `the file is larger than ...`), for the caller to prefix with
 * the file's name.
 *
 * @example await readBoundedText('incident.har', { maxBytes: 64 * 1024 * 1024, expected: 'a HAR file or a JSON-lines export' })
 */
export async function readBoundedText(path: string, options: BoundedTextOptions): Promise<string> {
  let bytes: Buffer;
  try {
    bytes = await readBounded(path, options.maxBytes);
  } catch (error) {
    throw new Error(describeFileError(error as NodeJS.ErrnoException, options));
  }
  return textOf(bytes, options);
}

/**
 * `readBoundedText` for a caller that cannot wait (`setupPetstoreServer()` at a module's top level):
 * the same checks and bound, read synchronously.
 *
 * @example readBoundedTextSync('api/openapi.yaml', { maxBytes: maxSpecFileBytes, expected: 'an OpenAPI document' })
 */
export function readBoundedTextSync(path: string, options: BoundedTextOptions): string {
  let bytes: Buffer;
  try {
    bytes = readBoundedSync(path, options.maxBytes);
  } catch (error) {
    throw new Error(describeFileError(error as NodeJS.ErrnoException, options));
  }
  return textOf(bytes, options);
}

function textOf(bytes: Buffer, options: BoundedTextOptions): string {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new Error(`it is not a text file (not UTF-8); expected ${options.expected}`);
  }
  // A NUL never appears in YAML or JSON text (JSON escapes it): a binary file.
  if (text.includes('\0')) throw new Error(`it is not a text file (it holds NUL bytes); expected ${options.expected}`);
  return text;
}

/** Reads at most `maxBytes + 1` bytes of a regular file: a device or a growing file never fills memory. */
async function readBounded(path: string, maxBytes: number): Promise<Buffer> {
  // O_NONBLOCK: opening a FIFO must not wait for a writer (it is then refused as not a regular file).
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const stats = await handle.stat();
    refuseUnread(stats, maxBytes);
    const reads = boundedReads(stats.size, maxBytes);
    let step = reads.next();
    for (; !step.done; step = reads.next((await handle.read(step.value)).bytesRead));
    return step.value;
  } finally {
    await handle.close();
  }
}

function readBoundedSync(path: string, maxBytes: number): Buffer {
  const descriptor = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const stats = fstatSync(descriptor);
    refuseUnread(stats, maxBytes);
    const reads = boundedReads(stats.size, maxBytes);
    let step = reads.next();
    for (; !step.done; step = reads.next(readSync(descriptor, step.value.buffer, step.value)));
    return step.value;
  } finally {
    closeSync(descriptor);
  }
}

/** One read the file's bytes are asked for: into `buffer` from `offset`, `length` bytes at `position` of the file. */
interface BoundedRead {
  buffer: Buffer;
  offset: number;
  length: number;
  position: number;
}

/**
 * The reads of a bounded file, written once for the asynchronous and the synchronous reader: each
 * step asks for one read and is given the bytes it read; the file's bytes are returned, or refused
 * past the bound. The size read counts, not the size stat() said: a file may grow while it is read.
 */
function* boundedReads(statSize: number, maxBytes: number): Generator<BoundedRead, Buffer, number> {
  const chunks: Buffer[] = [];
  let length = 0;
  for (;;) {
    const buffer = Buffer.allocUnsafe(chunkSize(length, statSize, maxBytes));
    let filled = 0;
    for (let read = -1; read !== 0 && filled < buffer.length; filled += read)
      read = yield { buffer, offset: filled, length: buffer.length - filled, position: length + filled };
    if (filled > 0) chunks.push(buffer.subarray(0, filled));
    length += filled;
    if (length > maxBytes) throw Object.assign(new Error('too large'), { code: 'ETOOBIG' });
    if (filled < buffer.length) break;
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, length);
}

/**
 * How much to read next: first the size stat() said plus one byte (a file read whole in one buffer,
 * its end seen without a second one), then up to 4 MiB a read for a file that grew; never past the
 * bound plus one byte. A 4 MiB buffer for each small file (a document's 2,850 references) was most
 * of the garbage of a start.
 */
function chunkSize(length: number, statSize: number, maxBytes: number): number {
  const wanted = length === 0 ? statSize + 1 : 4 * 1024 * 1024;
  return Math.max(1, Math.min(maxBytes + 1 - length, wanted));
}

/** What the handle read from says: only a regular file within the bound is read at all. */
function refuseUnread(stats: Stats, maxBytes: number): void {
  if (stats.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
  if (!stats.isFile()) throw Object.assign(new Error('not a regular file'), { code: 'ENOTREG' });
  if (stats.size > maxBytes) throw Object.assign(new Error('too large'), { code: 'ETOOBIG' });
}

function describeFileError(error: NodeJS.ErrnoException, options: BoundedTextOptions): string {
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
      return `the file is larger than ${options.maxBytes} bytes (${describeBytes(options.maxBytes)}): refused unread; expected ${options.expected}`;
    default:
      return `cannot read it (${error.code ?? 'unknown error'})`;
  }
}

function describeBytes(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${Math.round(bytes / 1024)} KiB`;
}
