import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { expect, it } from 'vitest';

// All product code stays small enough to read (src, spec, mocks, contract-tests; tests, their
// fixtures and generated files excepted): no file over 400 lines, no function over 80, no function
// with more than 4 parameters. A function is anything with a body: declarations, methods, arrows,
// accessors, a suite's closure. docs/decisions/051-size-rules-for-all-product-code.md.
const root = join(import.meta.dirname, '..', '..');
const maxFileLines = 400;
const maxFunctionLines = 80;
const maxParameters = 4;

const productFolders = ['src', 'spec', 'mocks', 'contract-tests'];
/** Code a person writes; tests, their fixtures and generated bundles are not product code. */
const isProductCode = (name: string) =>
  /\.m?[jt]s$/.test(name) && !/\.d\.mts$|\.test\.ts$|\.fixture\.ts$|\.generated\.ts$/.test(name);

function sourceFiles(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return isProductCode(name) ? [path] : [];
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

const files = productFolders.flatMap((folder) => sourceFiles(join(root, folder)));
// Parsing every product file takes 1-2 s on a quiet machine and past vitest's default 5 s on a loaded CI.
const parsingTimeoutMs = 60_000;

it('the product folders have files to measure', () => {
  expect(files.length).toBeGreaterThan(250);
  expect(files.some((path) => path.includes('contract-tests'))).toBe(true);
});

it(`no product file is over ${maxFileLines} lines`, () => {
  const long = files
    .map((path) => ({ path: relative(root, path), lines: readFileSync(path, 'utf8').split('\n').length }))
    .filter(({ lines }) => lines > maxFileLines);
  expect(long).toEqual([]);
});

it(`no product function is over ${maxFunctionLines} lines`, { timeout: parsingTimeoutMs }, () => {
  expect(
    files.flatMap((path) =>
      functionsWhere(path, (_node, lines) => (lines > maxFunctionLines ? `${lines} lines` : undefined)),
    ),
  ).toEqual([]);
});

it(`no product function takes more than ${maxParameters} parameters`, { timeout: parsingTimeoutMs }, () => {
  expect(
    files.flatMap((path) =>
      functionsWhere(path, (node) =>
        node.parameters.length > maxParameters ? `${node.parameters.length} parameters` : undefined,
      ),
    ),
  ).toEqual([]);
});
