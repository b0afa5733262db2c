import { randomBytes } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import { access, chmod, lstat, open, readlink, realpath, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';

/**
 * The files a run writes its reports to (`--report FORMAT=FILE` of petstore-contract, the mock, its
 * proxy and its replay), checked before the run and written so nothing on disk is lost:
 * - before the run, each file is one the run may write: not a directory, a block device or a
 *   socket, not a FIFO nobody reads (the write would wait for ever), in a folder that exists and is
 *   writable, not the same file as another report by another spelling (`./a.json` and `a.json`, a
 *   symlink, a hard link), and not a file the run reads (its `--spec` document, the kit itself);
 * - a regular file is written whole or not at all: to a temporary file beside it, then renamed over
 *   it (a full disk or a killed process leaves the old file, never half a report).
 */

/** A report file as the command line names it. */
export interface ReportFile {
  path: string;
  /** The option as written (`--report json=a.json`), for messages. */
  option: string;
}

/**
 * What a file is, to tell two spellings of one file apart: its device and inode, or, for a file
 * not made yet, where it would be made (a dangling link followed to the file it would create).
 */
async function identityOf(path: string): Promise<string> {
  const existing = await stat(path).catch(() => undefined);
  if (existing !== undefined) return `inode:${existing.dev}:${existing.ino}`;
  let target = resolve(path);
  for (let hops = 0; hops < 40; hops += 1) {
    const link = await readlink(target).catch(() => undefined);
    if (link === undefined) break;
    target = resolve(dirname(target), link);
  }
  const folder = await realpath(dirname(target)).catch(() => dirname(target));
  return `path:${join(folder, basename(target))}`;
}

/** Why `path` cannot take a report, or undefined when it can. */
async function fileProblem(path: string): Promise<string | undefined> {
  const target = resolve(path);
  const existing = await stat(target).catch(() => undefined);
  if (existing?.isDirectory()) return 'it is a directory';
  if (existing !== undefined && (existing.isBlockDevice() || existing.isSocket()))
    return `it is ${existing.isSocket() ? 'a socket' : 'a block device'}, not a file (FORMAT=- writes to stdout)`;
  if (existing?.isFIFO() === true && !(await fifoHasReader(target)))
    return 'it is a named pipe nobody reads: the write would wait for ever (FORMAT=- writes to stdout)';
  try {
    await access(existing === undefined ? dirname(target) : target, constants.W_OK);
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? `the directory ${dirname(target)} does not exist` : `not writable (${code ?? 'EACCES'})`;
  }
}

/** Does a named pipe have a reader now? Opening it for writing without blocking says (ENXIO: none). */
async function fifoHasReader(path: string): Promise<boolean> {
  try {
    const handle = await open(path, constants.O_WRONLY | constants.O_NONBLOCK);
    await handle.close();
    return true;
  } catch {
    return false;
  }
}

/**
 * Why the reports cannot be written as asked, in one line (`Failed to use --report json=a.json: ...`),
 * or undefined. `readFiles` are the files the run reads (the `--spec` document, the kit's own): a
 * report written over one would destroy it.
 *
 * @example await reportFilesProblem([{ path: 'api.yaml', option: '--report json=api.yaml' }], ['api.yaml']) // 'Failed to use --report json=api.yaml: it is the document the run reads (api.yaml); ...'
 */
export async function reportFilesProblem(
  files: readonly ReportFile[],
  readFiles: readonly string[],
): Promise<string | undefined> {
  const read = new Map<string, string>();
  for (const file of readFiles)
    if ((await stat(file).catch(() => undefined)) !== undefined) read.set(await identityOf(file), file);
  const seen = new Map<string, ReportFile>();
  for (const file of files) {
    const problem = await fileProblem(file.path);
    if (problem !== undefined) return `Failed to use ${file.option}: ${problem}`;
    const identity = await identityOf(file.path);
    const input = read.get(identity);
    if (input !== undefined)
      return `Failed to use ${file.option}: it is a file the run reads (${input}); the report would overwrite it`;
    const other = seen.get(identity);
    if (other !== undefined)
      return `Failed to use ${file.option}: it is the same file as ${other.option}; give each report its own file`;
    seen.set(identity, file);
  }
  return undefined;
}

/**
 * Writes a report: a regular file (or a new one) whole or not at all, through a temporary file in
 * its folder renamed over it (a link is followed: the file it names is replaced, the link stays);
 * a character device or a read pipe (`/dev/stdout`, `/dev/null`) directly.
 *
 * @example await writeReportFile('contract.json', text)
 */
export async function writeReportFile(path: string, text: string): Promise<void> {
  const existing: Stats | undefined = await stat(path).catch(() => undefined);
  if (existing !== undefined && !existing.isFile()) {
    await writeFile(path, text);
    return;
  }
  const target = (await lstat(path).catch(() => undefined))?.isSymbolicLink() === true ? await realpath(path) : path;
  const temporary = join(dirname(resolve(target)), `.${basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await writeFile(temporary, text, { flag: 'wx', mode: existing === undefined ? 0o666 : existing.mode & 0o777 });
  } catch (error) {
    await rm(temporary, { force: true });
    // A file that may be written in a folder that takes no new file (a report prepared by an admin): written in place.
    const code = (error as NodeJS.ErrnoException).code;
    if (existing !== undefined && (code === 'EACCES' || code === 'EPERM' || code === 'EROFS')) {
      await writeFile(target, text);
      return;
    }
    throw error;
  }
  try {
    if (existing !== undefined) await chmod(temporary, existing.mode & 0o777);
    await rename(temporary, target);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
