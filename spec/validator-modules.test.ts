import { describe, expect, it } from 'vitest';
import { linearPatternEngine } from './linear-patterns.js';
import { standaloneValidator } from './schema-validator.js';
import { loadValidatorModules, validatorModules, validatorModulesAvailable } from './validator-modules.js';

describe('the validator modules, loaded on first use', () => {
  it('are available synchronously in Node, and the asynchronous load gives the same modules', async () => {
    expect(validatorModulesAvailable()).toBe(true);
    const now = validatorModules();
    const later = await loadValidatorModules();
    expect(later.Ajv2020).toBe(now.Ajv2020);
    expect(later.addFormats).toBe(now.addFormats);
    expect(typeof now.addFormats).toBe('function');
  });

  it('compile validators with ajv-formats applied', () => {
    const email = standaloneValidator({ type: 'string', format: 'email' }, 'email');
    expect(email.isValid('a@example.com')).toBe(true);
    expect(email.isValid('not an address')).toBe(false);
    expect(email.safeParse('not an address').error?.issues[0]?.message).toBe('expected a string in format email');
  });
});

describe('the linear pattern engine, re2js loaded at the first pattern', () => {
  it('compiles a pattern with RE2, linear in the value', () => {
    const compiled = linearPatternEngine('^(\\w+\\s?)*$', '');
    expect(String(compiled)).toBe('re2:/^(\\w+\\s?)*$/');
    // A backtracking engine would not return here (the test's timeout); RE2 answers at once.
    expect(compiled.test(`${'a '.repeat(5_000)}!`)).toBe(false);
    expect(compiled.test('a b c')).toBe(true);
  });

  it('refuses what RE2 cannot express, and runs it only under a budget', () => {
    expect(linearPatternEngine.refuses?.('^a(?=a)a+$')).toMatch(/^RE2 cannot run it: .*\(\?=/);
    expect(linearPatternEngine.refuses?.('^[a-z]+$')).toBeUndefined();
    const compiled = linearPatternEngine('^a(?=a)a+$', 'i');
    expect(compiled).not.toBeInstanceOf(RegExp);
    expect(String(compiled)).toBe('budgeted:/^a(?=a)a+$/i');
    expect(compiled.test('AAA')).toBe(true);
  });

  it('applies case-insensitivity', () => {
    expect(linearPatternEngine('^[a-z]+$', 'i').test('ABC')).toBe(true);
    expect(linearPatternEngine('^[a-z]+$', '').test('ABC')).toBe(false);
  });
});
