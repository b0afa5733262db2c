import { describe, expect, it } from 'vitest';
import { ContractRunError } from '../runner/contract-run-error.js';
import { parseCliArgs } from './parse-cli-args.js';

describe('parseCliArgs', () => {
  it('reads every flag', () => {
    const command = parseCliArgs(
      [
        '--base-url',
        'http://h/v1',
        '--api-key',
        'k1',
        '--rate-limit-key',
        'k2',
        '--read-only',
        '--max-requests',
        '50',
        '--max-wait',
        '1.5',
        '--reporter',
        'junit',
        '--output',
        'out.xml',
        '--timeout',
        '3',
        '--concurrency',
        '2',
        '--strict',
        '--via-prism',
        '--seed=-9',
        '-H',
        'X-Tenant: acme',
        '--header',
        'X-Session: s1',
        '--deadline',
        '90',
        '--max-body-bytes',
        '65536',
        '--create-budget',
        '5',
        '--fail-on-skip',
      ],
      {},
    );
    expect(command).toEqual({
      kind: 'run',
      reporter: 'junit',
      output: 'out.xml',
      options: {
        baseUrl: 'http://h/v1',
        apiKey: 'k1',
        rateLimitKey: 'k2',
        readOnly: true,
        strict: true,
        viaPrism: true,
        maxRequests: 50,
        maxWaitSeconds: 1.5,
        timeoutSeconds: 3,
        concurrency: 2,
        seed: -9,
        headers: ['X-Tenant: acme', 'X-Session: s1'],
        deadlineSeconds: 90,
        maxBodyBytes: 65536,
        createBudget: 5,
        failOnSkip: true,
      },
    });
  });

  it('reads the generic layer flags', () => {
    const command = parseCliArgs(
      [
        '--base-url',
        'http://h/api',
        '--api-key',
        'user:pw',
        '--spec',
        'api.yaml',
        '--allow-destructive',
        '--allow-refs-outside',
        '../shared',
        '--unsafe-patterns',
        '--invalid-cases',
        '2',
        '--operation',
        'listPets',
        '--operation',
        'DELETE /pets/{id}',
      ],
      {},
    );
    expect(command).toMatchObject({
      options: {
        specPath: 'api.yaml',
        allowDestructive: true,
        allowRefsOutside: ['../shared'],
        unsafePatterns: true,
        invalidCases: 2,
        operations: ['listPets', 'DELETE /pets/{id}'],
      },
    });
    expect(() => parseCliArgs(['--base-url', 'http://h/api', '--api-key', 'k', '--spec', ''], {})).toThrow(
      'Failed to use --spec: the file name is empty',
    );
    expect(() => parseCliArgs(['--base-url', 'http://h/api', '--api-key', 'k', '--invalid-cases', 'many'], {})).toThrow(
      'Failed to use --invalid-cases: "many" is not an integer',
    );
  });

  it('falls back to PETSTORE_* variables, flags first', () => {
    const env = {
      PETSTORE_BASE_URL: 'http://env/v1',
      PETSTORE_API_KEY: 'env-key',
      PETSTORE_RATE_LIMIT_KEY: 'env-limited',
    };
    expect(parseCliArgs([], env)).toMatchObject({
      options: { baseUrl: 'http://env/v1', apiKey: 'env-key', rateLimitKey: 'env-limited' },
    });
    expect(parseCliArgs(['--api-key', 'flag-key'], env)).toMatchObject({ options: { apiKey: 'flag-key' } });
  });

  it('answers --help and --version before anything else', () => {
    expect(parseCliArgs(['--help'], {})).toEqual({ kind: 'help' });
    expect(parseCliArgs(['-h', '--base-url', 'x'], {})).toEqual({ kind: 'help' });
    expect(parseCliArgs(['--version'], {})).toEqual({ kind: 'version' });
    expect(parseCliArgs(['-v'], {})).toEqual({ kind: 'version' });
    expect(parseCliArgs(['--base-url', 'http://h/v1', '--api-key', 'k', '--reporter', 'markdown'], {})).toMatchObject({
      reporter: 'markdown',
    });
  });

  it('throws usage errors naming the flag', () => {
    const usage = (args: string[]) => {
      try {
        parseCliArgs(args, {});
      } catch (error) {
        expect(error).toBeInstanceOf(ContractRunError);
        return (error as Error).message;
      }
      throw new Error('no usage error');
    };
    expect(usage([])).toBe('Failed to start: --base-url is required (or set PETSTORE_BASE_URL)');
    expect(usage(['--base-url', 'http://h'])).toBe('Failed to start: --api-key is required (or set PETSTORE_API_KEY)');
    expect(usage(['--base-url', 'http://h', '--api-key', 'k', '--reporter', 'xml'])).toContain(
      '--reporter: "xml" is not one of human, junit, json',
    );
    expect(usage(['--base-url', 'http://h', '--api-key', 'k', '--concurrency', '2.5'])).toContain(
      '--concurrency: "2.5" is not an integer',
    );
    expect(usage(['--base-url', 'http://h', '--api-key', 'k', 'extra'])).toBe(
      'Failed to read the command line: unexpected argument "extra": every value follows its option (--base-url URL), and a value with spaces needs quotes',
    );
    expect(usage(['--nope'])).toBe('Failed to read the command line: unknown option --nope');
    expect(usage(['--reporter=xml', '--rate-limit'])).toBe(
      'Failed to read the command line: unknown option --rate-limit (did you mean --rate-limit-key?)',
    );
    expect(usage(['--conccurency', '2'])).toBe(
      'Failed to read the command line: unknown option --conccurency (did you mean --concurrency?)',
    );
    expect(usage(['-x'])).toBe('Failed to read the command line: unknown option -x');
    expect(usage(['--timeout'])).toBe('Failed to read the command line: --timeout needs a value');
    expect(usage(['--read-only=yes'])).toBe('Failed to read the command line: --read-only takes no value');
    expect(usage(['--seed', '-5'])).toBe(
      'Failed to read the command line: --seed needs a value; a value starting with "-" is written --seed=-VALUE',
    );
  });
});
