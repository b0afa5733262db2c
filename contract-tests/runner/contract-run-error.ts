/**
 * Why a run could not produce a verdict. All of them exit 2: a bad option (`usage`), a server the
 * kit cannot reach (`unreachable`), a key the server refuses (`refused`), a base URL where no
 * operation answers like the API (`not-the-api`), Prism failing to start, a fault of the kit.
 */
export type ContractRunErrorKind = 'usage' | 'unreachable' | 'refused' | 'not-the-api' | 'prism' | 'internal';

/**
 * Misuse of the kit or a server it cannot reach: a clear one-line message for the user, exit code
 * 2, never a stack trace. Distinct from a check failing, which is a verdict (exit 1).
 *
 * @example throw new ContractRunError('usage', 'Failed to read --timeout: "abc" is not a number of seconds')
 */
export class ContractRunError extends Error {
  readonly kind: ContractRunErrorKind;
  readonly exitCode = 2;

  constructor(kind: ContractRunErrorKind, message: string) {
    super(message);
    this.name = 'ContractRunError';
    this.kind = kind;
  }
}
