import { lstatSync, realpathSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readBoundedTextSync } from './bounded-file.js';
import { readYamlDocumentText } from './document-yaml.js';
import { SpecError } from './ref-resolver.js';

/** Bounds of one file a reference brings in: as large as a large document. */
const maxReferencedFileBytes = 16 * 1024 * 1024;

/**
 * The folders a document's `$ref`s may read files from: the document's own folder and below, plus
 * the folders given with `--allow-refs-outside`. Compared as real paths, so neither `../` nor a
 * symbolic link inside the folder reaches a file elsewhere (a hostile document would otherwise
 * serve the machine's files as its examples).
 */
export interface RefFolders {
  /** Real paths of the folders, each ending without a separator. */
  roots: string[];
  /** How the refusal names them. */
  described: string;
}

/**
 * The folders a document read from `entry` may refer into.
 *
 * @example await refFolders(pathToFileURL('/home/me/api/openapi.yaml'), ['/home/me/shared'])
 */
export async function refFolders(entry: URL, allowOutside: readonly string[] = []): Promise<RefFolders> {
  const given = [dirname(fileURLToPath(entry)), ...allowOutside.map((folder) => resolve(folder))];
  const roots = await Promise.all(given.map((folder) => realpath(folder).catch(() => folder)));
  return {
    roots,
    described:
      allowOutside.length === 0
        ? `the document's folder ${roots[0]}`
        : `the document's folder ${roots[0]} or ${roots.slice(1).join(', ')}`,
  };
}

/**
 * Reads the files a document's `$ref`s name, for one bundling: each must be JSON or YAML, inside
 * `folders` once links are followed, and a regular file, read with the byte bound counted while reading
 * (a FIFO never blocks, a link to a device is refused unread). Every refusal is one line naming the
 * reference and the file.
 *
 * @example new ReferencedFileReader(await refFolders(entry)).read(new URL('schemas/pet.yaml', entry), where)
 */
export class ReferencedFileReader {
  /**
   * The real path of each folder read from, found once: a multi-file document's thousands of files sit
   * in a few dozen folders, and following every file's path afresh (a link check for each folder on
   * the way) cost DigitalOcean's start 60 ms.
   */
  readonly #realFolders = new Map<string, string>();

  constructor(readonly folders: RefFolders) {}

  /** The text of the file `url` names (see above). */
  read(url: URL, where: string): string {
    const file = fileURLToPath(url);
    if (!/\.(ya?ml|json)$/i.test(file)) throw new SpecError(`${where}: ${basename(file)} is not a JSON or YAML file`);
    // Read synchronously: a multi-file document is thousands of small files read one after the other at
    // start (DigitalOcean's 2,850), and a round trip through the thread pool for each open, stat, read
    // and close was most of its start-up. A FIFO still never blocks (opened without waiting).
    let real: string;
    try {
      real = this.#realPath(file);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new SpecError(`${where}: ${code === 'ENOENT' ? `no such file ${file}` : `cannot read ${file} (${code})`}`);
    }
    if (!this.folders.roots.some((root) => isInside(real, root)))
      throw new SpecError(
        `${where}: ${file}${real === file ? '' : ` (a link to ${real})`} is outside ${this.folders.described}; name the folder with --allow-refs-outside DIR to read it`,
      );
    try {
      return readBoundedTextSync(real, { maxBytes: maxReferencedFileBytes, expected: 'a JSON or YAML file' });
    } catch (error) {
      throw new SpecError(`${where}: ${file}: ${(error as Error).message}`);
    }
  }

  /** `realpathSync(file)` with its folder's part followed once per folder: only a file that is itself a link is followed whole. */
  #realPath(file: string): string {
    const folder = dirname(file);
    let realFolder = this.#realFolders.get(folder);
    if (realFolder === undefined) {
      realFolder = realpathSync(folder);
      this.#realFolders.set(folder, realFolder);
    }
    return lstatSync(file).isSymbolicLink() ? realpathSync(file) : join(realFolder, basename(file));
  }
}

function isInside(path: string, root: string): boolean {
  const between = relative(root, path);
  return between === '' || (!isAbsolute(between) && between !== '..' && !between.startsWith(`..${sep}`));
}

/**
 * The text a `$ref` to a URL names (`allowRemoteRefs` given: `--allow-remote-refs`), fetched with a
 * timeout and the bound of a referenced file, refused naming the reference.
 */
export async function readRemoteText(url: URL, where: string, allowRemoteRefs: boolean): Promise<string> {
  if (!allowRemoteRefs)
    throw new SpecError(`${where}: references to URLs are not followed unless --allow-remote-refs is given`);
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(10_000), redirect: 'follow' });
  } catch (error) {
    throw new SpecError(`${where}: ${(error as Error).message}`);
  }
  if (!response.ok) throw new SpecError(`${where}: ${url.href} answered ${response.status}`);
  return boundedText(response, `${where}: ${url.href}`);
}

/** The body of an answer as text, refused past the bound on a referenced file, without reading further. */
async function boundedText(response: Response, what: string): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (declared > maxReferencedFileBytes) throw new SpecError(`${what} is over ${maxReferencedFileBytes} bytes`);
  const chunks: Uint8Array[] = [];
  let received = 0;
  if (response.body === null) return '';
  const reader = response.body.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    received += read.value.byteLength;
    if (received > maxReferencedFileBytes) {
      await reader.cancel().catch(() => undefined);
      throw new SpecError(`${what} is over ${maxReferencedFileBytes} bytes`);
    }
    chunks.push(read.value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The data a referenced file's text holds (JSON or YAML), refused in one line naming the reference. */
export function parseReferenced(text: string, url: URL, where: string): unknown {
  let root: unknown;
  try {
    root = text.trimStart().startsWith('{') ? JSON.parse(text) : readYamlDocumentText(text);
  } catch (error) {
    throw new SpecError(
      `${where}: ${displayName(url)} is not valid JSON or YAML (${(error as Error).message.split('\n')[0]!.slice(0, 120)})`,
    );
  }
  if (root === null || typeof root !== 'object') throw new SpecError(`${where}: ${displayName(url)} holds no object`);
  return root;
}

/** A file's name as messages give it (`pet.yaml`). */
export function displayName(url: URL): string {
  return url.pathname.split('/').at(-1) ?? url.href;
}
