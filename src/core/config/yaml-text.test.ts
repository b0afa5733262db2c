import { describe, expect, it } from 'vitest';
import {
  maxJsonTextLength,
  maxYamlAliases,
  maxYamlDepth,
  maxYamlTextLength,
  readYamlText,
  YamlTextError,
} from './yaml-text.js';

function problemOf(text: string): YamlTextError {
  try {
    readYamlText(text);
  } catch (error) {
    if (error instanceof YamlTextError) return error;
    throw error;
  }
  throw new Error('the text was read');
}

describe('readYamlText', () => {
  it('reads YAML and JSON into plain data, anchors and aliases included', () => {
    expect(readYamlText('plans:\n  pro: &pro { perMinute: 300, perDay: 10000 }\n  team: *pro\n')).toEqual({
      plans: { pro: { perMinute: 300, perDay: 10000 }, team: { perMinute: 300, perDay: 10000 } },
    });
    expect(readYamlText('{"keys": [{"key": "k", "plan": "pro"}]}')).toEqual({ keys: [{ key: 'k', plan: 'pro' }] });
    expect(readYamlText('{ presets: [banned-key] }')).toEqual({ presets: ['banned-key'] });
    expect(readYamlText('')).toBeNull();
  });

  it('refuses a key twice in one mapping, block or flow, at any depth, with its position', () => {
    expect(problemOf('a: 1\nb: 2\na: 3\n')).toMatchObject({
      phrase: 'Map keys must be unique',
      position: { line: 3, column: 1 },
      topLevelKeys: ['a', 'b', 'a'],
    });
    expect(problemOf('x:\n  y: { k: 1, k: 2 }\n')).toMatchObject({
      phrase: 'Map keys must be unique',
      position: { line: 2, column: 14 },
    });
    expect(readYamlText('a: {k: 1}\nb: {k: 1}\n')).toEqual({ a: { k: 1 }, b: { k: 1 } });
  });

  it('gives a syntax error as a fixed phrase and a position, never quoting the text', () => {
    const problem = problemOf('a: 1\nb: [secret, "unclosed\n');
    expect(problem.position).toBeDefined();
    expect(problem.message).not.toContain('secret');
    expect(problemOf('a: 1\n---\nb: 2\n').phrase).toBe('Source contains multiple documents');
  });

  it(`refuses nesting deeper than ${maxYamlDepth} levels before composing it, in flow and block style`, () => {
    expect(readYamlText(`${'['.repeat(maxYamlDepth - 1)}1${']'.repeat(maxYamlDepth - 1)}`)).toBeDefined();
    expect(problemOf(`a: ${'['.repeat(maxYamlDepth + 1)}${']'.repeat(maxYamlDepth + 1)}`).phrase).toBe(
      `nested more than ${maxYamlDepth} levels deep`,
    );
    expect(
      problemOf(Array.from({ length: maxYamlDepth + 2 }, (_, depth) => `${' '.repeat(depth)}k:`).join('\n')).phrase,
    ).toBe(`nested more than ${maxYamlDepth} levels deep`);
    expect(problemOf(`a: ${'['.repeat(20_000)}`).phrase).toBe(`nested more than ${maxYamlDepth} levels deep`);
  });

  it(`refuses more than ${maxYamlAliases} aliases, and aliases that repeat more than ${maxJsonTextLength} characters of data`, () => {
    const aliases = (count: number) => `a: &a 1\nb: [${Array.from({ length: count }, () => '*a').join(', ')}]\n`;
    expect(readYamlText(aliases(maxYamlAliases))).toMatchObject({ a: 1 });
    expect(problemOf(aliases(maxYamlAliases + 1)).phrase).toBe(`more than ${maxYamlAliases} aliases`);
    const big = `a: &a [${Array.from({ length: 20_000 }, (_, index) => index).join(', ')}]\nb: [${Array.from({ length: 99 }, () => '*a').join(', ')}]\n`;
    expect(problemOf(big).phrase).toMatch(/^its aliases repeat more data than/);
  });

  it('refuses YAML longer than its bound, and reads JSON up to the larger one', () => {
    const yaml = `a: "${'x'.repeat(maxYamlTextLength)}"`;
    expect(problemOf(yaml).phrase).toMatch(/^the YAML is \d+ characters, more than the 131072 read/);
    expect(readYamlText(JSON.stringify({ a: 'x'.repeat(maxJsonTextLength - 20) }))).toMatchObject({});
    expect(problemOf(`{"a": "${'x'.repeat(maxJsonTextLength)}"}`).phrase).toMatch(/^the YAML is/);
  });
});
