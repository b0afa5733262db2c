// The running mock's spec file watched (--watch) and its store named (the banner): the mock CLI's own helpers.
import { type FSWatcher, watch } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { type LoadSpecOptions, readSpecFile } from '../../spec/load-spec.js';
import type { MockApp } from '../core/mock-app.js';
import type { Logger } from '../core/types.js';

/** A store URL without its password, for the banner. */
export function describeStoreUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'redis';
  }
}

/**
 * --watch: reloads the spec into the running app when its file changes. The folder is watched,
 * not the file, because editors save by writing a new file and renaming it over the old one (a
 * watch on the old file would go quiet). Changes are debounced: one save is often several events.
 * A spec that fails to load or compile leaves the previous one serving, with one line saying why.
 */
export function watchSpec(path: string, app: MockApp, logger: Logger, reading: LoadSpecOptions): FSWatcher {
  const file = resolve(path);
  const name = basename(file);
  let timer: NodeJS.Timeout | undefined;
  let reloading = Promise.resolve();
  const reload = async () => {
    try {
      app.replaceSpec(await readSpecFile(file, reading));
      logger.info(
        `Reloaded ${path}: ${app.spec.title} ${app.spec.version}, ${app.spec.operations.length} operations under ${app.basePath}; state kept`,
      );
    } catch (error) {
      logger.error(`${(error as Error).message.split('\n')[0]}; still serving the previous spec`);
    }
  };
  const watcher = watch(dirname(file), (_event, changed) => {
    if (changed !== null && changed !== name) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      reloading = reloading.then(reload);
    }, 100);
  });
  watcher.on('error', (error) => logger.error(`Failed to watch ${path}: ${error.message}; --watch is off`));
  logger.info(`Watching ${path} for changes`);
  return watcher;
}
