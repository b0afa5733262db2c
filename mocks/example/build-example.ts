// Builds the example page into one static folder (index.html, main.js, mockServiceWorker.js) and
// serves it. Used by test/browser/msw-example.test.ts, and by hand:
//   npx tsx mocks/example/build-example.ts          # build into mocks/example/dist (gitignored)
//   npx tsx mocks/example/build-example.ts --serve  # build, then serve on http://127.0.0.1:5173
import { execFile } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { copyFile, mkdir, rm, stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { petstoreSpecPlugin } from '../scripts/bundle-spec.mjs';

const exampleDir = fileURLToPath(new URL('.', import.meta.url));
const projectRoot = resolve(exampleDir, '../..');

/** Where the page is built by default; gitignored. */
export const defaultOutDir = join(exampleDir, 'dist');

/**
 * Bundles `main.ts` for the browser with esbuild (the spec inlined by the bundle-spec plugin), copies
 * `index.html`, and writes MSW's `mockServiceWorker.js` with `npx msw init <dir> --no-save`, so the
 * worker script always matches the installed msw.
 *
 * @example const { outDir } = await buildExample(); // mocks/example/dist
 */
export async function buildExample(options: { outDir?: string } = {}): Promise<{ outDir: string }> {
  const outDir = options.outDir ?? defaultOutDir;
  await rm(outDir, { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });
  const result = await build({
    entryPoints: [join(exampleDir, 'main.ts')],
    outfile: join(outDir, 'main.js'),
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    sourcemap: true,
    logLevel: 'silent',
    metafile: true,
    plugins: [petstoreSpecPlugin()],
  });
  // The proof that the browser path has no Node-only code: nothing from node:* or load-spec.ts.
  const nodeOnly = Object.keys(result.metafile.inputs).filter(
    (input) => input.startsWith('node:') || input.endsWith('spec/load-spec.ts'),
  );
  if (nodeOnly.length > 0)
    throw new Error(`Failed to build the example: Node-only modules in the browser bundle: ${nodeOnly.join(', ')}`);
  await copyFile(join(exampleDir, 'index.html'), join(outDir, 'index.html'));
  try {
    await promisify(execFile)('npx', ['--no', 'msw', 'init', outDir, '--no-save'], {
      cwd: projectRoot,
      timeout: 60_000,
    });
  } catch (error) {
    throw new Error(`Failed to build the example: npx msw init failed: ${(error as Error).message}`);
  }
  return { outDir };
}

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.png': 'image/png',
};

/**
 * A tiny static file server for the built page (a service worker needs a real http:// origin;
 * 127.0.0.1 counts as secure). GET and HEAD only; paths cannot leave `root`.
 *
 * @example const site = await serveDirectory('mocks/example/dist'); // site.origin, then await site.close()
 */
export async function serveDirectory(
  root: string,
  options: { port?: number; host?: string } = {},
): Promise<{ origin: string; server: Server; close(): Promise<void> }> {
  const base = resolve(root);
  const server = createServer((request, response) => {
    void (async () => {
      const pathname = decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname);
      const file = normalize(join(base, pathname === '/' ? 'index.html' : pathname));
      const info =
        file === base || file.startsWith(`${base}${sep}`) ? await stat(file).catch(() => undefined) : undefined;
      if ((request.method !== 'GET' && request.method !== 'HEAD') || !info?.isFile()) {
        response
          .writeHead(info?.isFile() ? 405 : 404, { 'Content-Type': 'text/plain' })
          .end(info?.isFile() ? 'Method not allowed' : 'Not found');
        return;
      }
      response.writeHead(200, {
        'Content-Type': contentTypes[extname(file)] ?? 'application/octet-stream',
        'Content-Length': String(info.size),
        'Cache-Control': 'no-store',
      });
      if (request.method === 'HEAD') response.end();
      else createReadStream(file).pipe(response);
    })().catch(() => response.destroy());
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', (error) =>
      reject(new Error(`Failed to serve ${root} on ${host}:${options.port ?? 0}: ${error.message}`)),
    );
    server.listen(options.port ?? 0, host, () => resolveListen());
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://${host}:${port}`,
    server,
    close: () =>
      new Promise<void>((resolveClose) => {
        server.close(() => resolveClose());
        server.closeAllConnections();
      }),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const { outDir } = await buildExample();
  console.log(`Built the example into ${outDir}`);
  if (process.argv.includes('--serve')) {
    const site = await serveDirectory(outDir, { port: 5173 });
    console.log(`Serving it on ${site.origin}/ (Ctrl+C to stop)`);
  }
}
