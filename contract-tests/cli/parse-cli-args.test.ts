import { describe, expect, it } from 'vitest';
import { ContractRunError } from '../runner/contract-run-error.js';
import { cliOptions, parseCliArgs } from './parse-cli-args.js';

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
      reports: [{ format: 'junit', path: 'out.xml', option: '--output out.xml' }],
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
      reports: [{ format: 'markdown', path: undefined }],
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
      '--reporter: "xml" is not one of human, json, junit, markdown, html, sarif',
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

describe('reports: --report FORMAT=FILE, and --reporter/--output as the short form of one', () => {
  const base = ['--base-url', 'http://h/v1', '--api-key', 'k'];
  const reports = (args: string[]) => {
    const command = parseCliArgs([...base, ...args], {});
    if (command.kind !== 'run') throw new Error('not a run');
    return command.reports.map(({ format, path }) => ({ format, path }));
  };
  const usage = (args: string[]) => {
    try {
      parseCliArgs([...base, ...args], {});
    } catch (error) {
      expect(error).toBeInstanceOf(ContractRunError);
      return (error as Error).message;
    }
    throw new Error('no usage error');
  };

  it('writes the human report to stdout when none is asked for', () => {
    expect(reports([])).toEqual([{ format: 'human', path: undefined }]);
  });

  it('takes every format once each, to files and at most one to stdout', () => {
    expect(
      reports([
        '--report',
        'junit=out/contract.xml',
        '--report=sarif=contract.sarif',
        '--report',
        'html=report=1.html',
        '--report',
        'markdown=-',
        '--reporter',
        'json',
        '--output',
        'contract.json',
        '--report',
        'human=human.txt',
      ]),
    ).toEqual([
      { format: 'junit', path: 'out/contract.xml' },
      { format: 'sarif', path: 'contract.sarif' },
      { format: 'html', path: 'report=1.html' },
      { format: 'markdown', path: undefined },
      { format: 'human', path: 'human.txt' },
      { format: 'json', path: 'contract.json' },
    ]);
    expect(reports(['--output', 'r.txt'])).toEqual([{ format: 'human', path: 'r.txt' }]);
    // `--output -` is stdout, as `FORMAT=-` is: never a file named "-", and never two reports on stdout.
    expect(reports(['--reporter', 'json', '--output', '-'])).toEqual([{ format: 'json', path: undefined }]);
    expect(usage(['--report', 'markdown=-', '--output', '-'])).toBe(
      'Failed to use --report: markdown and human would both go to stdout; write all but one to a file',
    );
  });

  it('refuses what cannot be written as asked, in one line', () => {
    expect(usage(['--report', 'junit'])).toBe(
      'Failed to use --report "junit": write it as FORMAT=FILE (FORMAT one of human, json, junit, markdown, html, sarif; FILE - for stdout), e.g. --report junit=contract.xml',
    );
    expect(usage(['--report', 'xml=a.xml'])).toBe(
      'Failed to use --report "xml=a.xml": "xml" is not one of human, json, junit, markdown, html, sarif',
    );
    expect(usage(['--report', 'sarif='])).toBe(
      'Failed to use --report sarif=: the file name is empty (- writes to stdout)',
    );
    expect(usage(['--report', 'json=-', '--reporter', 'markdown'])).toBe(
      'Failed to use --report: json and markdown would both go to stdout; write all but one to a file',
    );
    expect(usage(['--report', 'json=r.out', '--report', 'sarif=./r.out'])).toBe(
      'Failed to use --report: json and sarif would both be written to ./r.out; give each its own file',
    );
    expect(usage(['--output', ''])).toBe('Failed to use --output: the file name is empty');
  });

  it('refuses every option that holds one value when it is given twice, never keeping the last silently', () => {
    expect(usage(['--reporter', 'json', '--reporter', 'junit'])).toBe(
      'Failed to read the command line: --reporter is given twice: it holds one value, give it once',
    );
    expect(usage(['--output', 'a', '--output', 'b'])).toContain('--output is given twice');
    expect(usage(['--api-key', 'other'])).toContain('--api-key is given twice');
    expect(usage(['--read-only', '--read-only'])).toContain('--read-only is given twice');
    for (const [name, config] of Object.entries(cliOptions) as [string, { type: string; multiple?: boolean }][]) {
      if (config.multiple === true || name === 'base-url' || name === 'api-key') continue;
      const value = config.type === 'string' ? ['1'] : [];
      expect(usage([`--${name}`, ...value, `--${name}`, ...value]), name).toContain(`--${name} is given twice`);
    }
    // Repeatable ones stay repeatable.
    expect(reports(['-H', 'X-A: 1', '--header', 'X-B: 2', '--report', 'json=a', '--report', 'sarif=b'])).toHaveLength(
      2,
    );
  });
});
