import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { expect, it } from 'vitest';

// The core stays small enough to read: no file over 400 lines, no function over 80 (tests beside
// the code excepted), and on the request path (the core, the transports, the Redis store) no
// function takes more than 4 parameters. A function is anything with a body: declarations,
// methods, arrows, accessors.
const root = join(import.meta.dirname, '..', '..');
const maxFileLines = 400;
const maxFunctionLines = 80;
const maxParameters = 4;

function sourceFiles(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [path] : [];
  });
}

/** Each function of a file that `isTooBig`, as `file:line name (what)`. */
function functionsWhere(
  path: string,
  isTooBig: (node: ts.FunctionLikeDeclaration, lines: number) => string | undefined,
): string[] {
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const lineOf = (position: number) => source.getLineAndCharacterOfPosition(position).line + 1;
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const lines = lineOf(node.getEnd()) - lineOf(node.getStart(source)) + 1;
      const name = node.name !== undefined ? node.name.getText(source) : '(anonymous)';
      const why = isTooBig(node, lines);
      if (why !== undefined) found.push(`${relative(root, path)}:${lineOf(node.getStart(source))} ${name} (${why})`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const files = sourceFiles(join(root, 'src', 'core'));

it('src/core has files to measure', () => {
  expect(files.length).toBeGreaterThan(30);
});

it(`no file in src/core is over ${maxFileLines} lines`, () => {
  const long = files
    .map((path) => ({ path: relative(root, path), lines: readFileSync(path, 'utf8').split('\n').length }))
    .filter(({ lines }) => lines > maxFileLines);
  expect(long).toEqual([]);
});

it(`no function in src/core is over ${maxFunctionLines} lines`, () => {
  expect(
    files.flatMap((path) =>
      functionsWhere(path, (_node, lines) => (lines > maxFunctionLines ? `${lines} lines` : undefined)),
    ),
  ).toEqual([]);
});

it(`no function on the request path takes more than ${maxParameters} parameters`, () => {
  const requestPath = [
    ...files,
    ...[
      'src/server/node-adapter.ts',
      'src/server/protocol-guards.ts',
      'src/server/redis-store.ts',
      'mocks/handlers.ts',
    ].map((file) => join(root, file)),
  ];
  expect(
    requestPath.flatMap((path) =>
      functionsWhere(path, (node) =>
        node.parameters.length > maxParameters ? `${node.parameters.length} parameters` : undefined,
      ),
    ),
  ).toEqual([]);
});
