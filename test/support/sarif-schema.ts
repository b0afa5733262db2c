import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';

/**
 * The SARIF 2.1.0 JSON schema as data, from the npm package that ships it (`@microsoft/jest-sarif`,
 * a devDependency: lib/schemas/sarif-2.1.0-rtm.5.json, the schema of the OASIS standard's final
 * text), compiled with ajv. Undefined, with the reason, when the package is not installed: the tests
 * that need it skip saying so.
 */
export const sarifSchemaFile = fileURLToPath(
  new URL('../../node_modules/@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json', import.meta.url),
);

export type SarifValidator = (log: unknown) => string[];

/**
 * A validator returning the schema's complaints about a log (none: valid), or the reason there is none.
 *
 * @example const validator = sarifValidator(); if (typeof validator !== 'string') expect(validator(log)).toEqual([]);
 */
export function sarifValidator(file = sarifSchemaFile): SarifValidator | string {
  if (!existsSync(file))
    return `the SARIF 2.1.0 schema is not installed (${file}); npm install --save-dev @microsoft/jest-sarif@1.0.0-beta.0`;
  const schema = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  // A draft-04 schema whose keywords draft-07 reads alike (no boolean exclusiveMinimum): ajv 8 reads
  // it once its draft-04 `id` is the later `$id`. Its `language` pattern is not valid with the u flag.
  const { $schema: _draft, id, ...rest } = schema;
  const ajv = new Ajv({ strict: false, allErrors: true, unicodeRegExp: false });
  addFormats.default(ajv);
  const validate = ajv.compile({ ...rest, $id: id as string });
  return (log) =>
    validate(log) ? [] : (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message ?? ''}`);
}
