import { realpathSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readBoundedTextSync } from './bounded-file.js';
import { SpecError } from './ref-resolver.js';

/** Bounds of one file a reference brings in: as large as a large document. */
export const maxReferencedFileBytes = 16 * 1024 * 1024;

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
 * The text of a file a `$ref` names: it must be JSON or YAML, inside `folders` once links are
 * followed, and a regular file, read with the byte bound counted while reading (a FIFO never blocks,
 * a link to a device is refused unread). Every refusal is one line naming the reference and the file.
 */
export async function readReferencedFile(url: URL, folders: RefFolders, where: string): Promise<string> {
  const file = fileURLToPath(url);
  if (!/\.(ya?ml|json)$/i.test(file)) throw new SpecError(`${where}: ${basename(file)} is not a JSON or YAML file`);
  // Read synchronously: a multi-file document is thousands of small files read one after the other at
  // start (DigitalOcean's 2,850), and a round trip through the thread pool for each open, stat, read
  // and close was most of its start-up. A FIFO still never blocks (opened without waiting).
  let real: string;
  try {
    real = realpathSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new SpecError(`${where}: ${code === 'ENOENT' ? `no such file ${file}` : `cannot read ${file} (${code})`}`);
  }
  if (!folders.roots.some((root) => isInside(real, root)))
    throw new SpecError(
      `${where}: ${file}${real === file ? '' : ` (a link to ${real})`} is outside ${folders.described}; name the folder with --allow-refs-outside DIR to read it`,
    );
  try {
    return readBoundedTextSync(real, { maxBytes: maxReferencedFileBytes, expected: 'a JSON or YAML file' });
  } catch (error) {
    throw new SpecError(`${where}: ${file}: ${(error as Error).message}`);
  }
}

function isInside(path: string, root: string): boolean {
  const between = relative(root, path);
  return between === '' || (!isAbsolute(between) && between !== '..' && !between.startsWith(`..${sep}`));
}
