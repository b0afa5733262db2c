import type { Ajv2020, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
// The format names alone: one file with no imports, so the audit needs no validator loaded.
import { formatNames } from 'ajv-formats/dist/formats.js';
import type { JsonSchema, OpenApiDocument } from './openapi-types.js';
import { installedPatternEngine, PatternBudgetSpent } from './pattern-engine.js';
import { SpecError } from './ref-resolver.js';
import { stripAnnotations } from './schema-keywords.js';
import { validatorModules } from './validator-modules.js';

/** The `format`s the validator checks (ajv-formats' full set, OpenAPI's int32/int64/float/double/byte among them). */
export const knownFormats: ReadonlySet<string> = new Set(formatNames);

/** One problem a validator found: where in the value (`['tags', 0]`) and what, in one short phrase. */
interface SchemaIssue {
  path: (string | number)[];
  message: string;
  /** The JSON Schema keyword that failed (`type`, `required`, `pattern`, ...). */
  keyword: string;
}

/** One problem `safeParse` reports, in zod's issue shape (the keyword that failed in `params`). */
interface SchemaValidationIssue {
  code: 'custom';
  path: (string | number)[];
  message: string;
  params: { keyword: string };
  input: unknown;
}

/**
 * A validator with zod's way of answering: `safeParse(value)` gives `{ success: true, data }` or
 * `{ success: false, error: { issues } }`, so callers read it as they read a zod schema, while the
 * checking is ajv's (JSON Schema 2020-12, every keyword). Not a zod schema itself, so no validator
 * loads zod. The ajv function is compiled on first use: start-up pays nothing for operations never called.
 */
export interface SchemaValidator {
  /**
   * ajv's verdict alone: no issues built, nothing allocated. For the mock's hot path, where nearly
   * every value is valid; `safeParse` says why one is not.
   */
  isValid(value: unknown): boolean;
  safeParse(
    value: unknown,
  ):
    | { success: true; data: unknown; error?: undefined }
    | { success: false; data?: undefined; error: { issues: SchemaValidationIssue[] } };
}

const rootId = 'urn:petstore-kit:spec';

function createAjv(): Ajv2020 {
  // Loaded here, at the first compile (spec/validator-modules.ts): a mock that only answers from examples never needs it.
  const modules = validatorModules();
  const patternEngine = installedPatternEngine();
  // strict: false because the audit (schema-keywords.ts) already refused what ajv would skip, and
  // OpenAPI's annotations (example, xml, x-*) are legal there. validateSchema: false because
  // compiling the 2020-12 meta-schema costs ~200 ms of start-up; the audit checks the values.
  // code.optimize: false halves compile time (it matters for specs with hundreds of schemas) and
  // costs nothing measurable on validation.
  const ajv = new modules.Ajv2020({
    strict: false,
    validateSchema: false,
    allErrors: false,
    verbose: true,
    addUsedSchema: false,
    logger: false,
    code: patternEngine === undefined ? { optimize: false } : { optimize: false, regExp: patternEngine },
  });
  modules.addFormats(ajv);
  return ajv;
}

/**
 * Validators for the schemas of one document, by JSON pointer: the document is given to ajv as it
 * is (references untouched), so ajv resolves each `$ref` once and recursive schemas validate as
 * recursion. Nothing is compiled until a validator is first used.
 *
 * @example
 * const validators = createDocumentValidators(parsed);
 * validators.at('/components/schemas/Category').safeParse({ id: 1, name: 'dog' }).success; // true
 */
export function createDocumentValidators(source: OpenApiDocument): {
  at(pointer: string, what: string): SchemaValidator;
} {
  let ajv: Ajv2020 | undefined;
  const cache = new Map<string, SchemaValidator>();
  return {
    at(pointer, what) {
      let validator = cache.get(pointer);
      if (validator === undefined) {
        validator = lazyValidator(() => {
          if (ajv === undefined) {
            ajv = createAjv();
            ajv.addSchema(source as object, rootId);
          }
          const validate = ajv.getSchema(
            `${rootId}#${pointer
              .split('/')
              .map((segment) => encodeURIComponent(segment).replace(/%7E/gi, '~'))
              .join('/')}`,
          );
          if (validate === undefined)
            throw new SpecError(`Failed to compile spec: the schema of ${what} (#${pointer}) cannot be found`);
          return validate;
        }, what);
        cache.set(pointer, validator);
      }
      return validator;
    },
  };
}

/**
 * A validator for a schema that stands alone (no `$ref`s into a document). Annotations and
 * extensions are stripped first.
 *
 * @example standaloneValidator({ type: 'integer', minimum: 1 }, 'limit').safeParse(0).success; // false
 */
export function standaloneValidator(schema: JsonSchema, what: string): SchemaValidator {
  return lazyValidator(() => createAjv().compile(stripAnnotations(schema) as object | boolean), what);
}

function lazyValidator(compile: () => ValidateFunction, what: string): SchemaValidator {
  let validate: ValidateFunction | undefined;
  let failure: SpecError | undefined;
  const compiled = (): ValidateFunction => {
    if (failure !== undefined) throw failure;
    if (validate === undefined) {
      try {
        validate = compile();
      } catch (error) {
        const refusal = compileFailure(error, what);
        // A stack overflow is kept: it would recur, at a second's cost, on every request (not so a validator not loaded yet).
        if (error instanceof RangeError) failure = refusal;
        throw refusal;
      }
    }
    return validate;
  };
  return {
    isValid(value) {
      try {
        return compiled()(value) as boolean;
      } catch (error) {
        if (error instanceof RangeError || error instanceof PatternBudgetSpent) return false;
        throw error;
      }
    },
    safeParse(value) {
      const validateValue = compiled();
      let issues: SchemaIssue[];
      try {
        if (validateValue(value)) return { success: true, data: value };
        issues = describeAjvErrors(validateValue.errors ?? []);
      } catch (error) {
        // A recursive schema follows the value down: a value nested deeper than the stack allows is
        // refused, not a crash; so is a value an unsafe pattern spent its budget on (--unsafe-patterns).
        if (error instanceof PatternBudgetSpent) issues = [{ path: [], message: error.message, keyword: 'pattern' }];
        else if (error instanceof RangeError)
          issues = [{ path: [], message: 'nested too deeply to validate', keyword: 'depth' }];
        else throw error;
      }
      return {
        success: false,
        error: {
          issues: issues.map(({ path, message, keyword }) => ({
            code: 'custom',
            path,
            message,
            params: { keyword },
            input: value,
          })),
        },
      };
    },
  };
}

/** Why a schema could not be compiled, as one line (a stack overflow said as such: refuseDeepSchemas should have caught it). */
function compileFailure(error: unknown, what: string): SpecError {
  if (error instanceof SpecError) return error;
  const why =
    error instanceof RangeError
      ? 'it nests too deeply to compile: the stack ran out'
      : (error as Error).message.split('\n')[0]!.slice(0, 200);
  return new SpecError(`Failed to compile spec: the schema of ${what} cannot be compiled (${why})`);
}

/**
 * ajv's errors as short issues, worded as users read them ("expected string, received number",
 * "name: required property is missing"), at most five, duplicates dropped. Values from the request
 * are never quoted (only their JSON type), so a hostile body cannot fill the message.
 *
 * @example describeAjvErrors(validate.errors) // [{ path: ['name'], message: 'expected string, received number', keyword: 'type' }]
 */
function describeAjvErrors(errors: readonly ErrorObject[]): SchemaIssue[] {
  const issues: SchemaIssue[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    const path = instancePath(error.instancePath);
    let message: string;
    const params = error.params as Record<string, unknown>;
    switch (error.keyword) {
      case 'type':
        message = `expected ${String(params.type).replaceAll(',', ' or ')}, received ${jsonTypeOf(error.data)}`;
        break;
      case 'required':
        path.push(String(params.missingProperty));
        message = 'required property is missing';
        break;
      case 'dependentRequired':
        path.push(String(params.missingProperty));
        message = `required property is missing (required when ${String(params.property)} is present)`;
        break;
      case 'additionalProperties':
        path.push(String(params.additionalProperty));
        message = 'unexpected property (the schema allows no other properties)';
        break;
      case 'unevaluatedProperties':
        path.push(String(params.unevaluatedProperty));
        message = 'unexpected property (the schema allows no other properties)';
        break;
      case 'enum':
        message = `expected one of ${listValues(params.allowedValues)}`;
        break;
      case 'const':
        message = `expected ${listValues([params.allowedValue])}`;
        break;
      case 'format':
        message = `expected a string in format ${String(params.format)}`;
        break;
      case 'false schema':
        message = 'no value is allowed here';
        break;
      default:
        message = error.message ?? `fails ${error.keyword}`;
    }
    const key = `${path.join('\u0000')}\u0001${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push({
      path: path
        .map((segment) => (typeof segment === 'string' && segment.length > 60 ? `${segment.slice(0, 60)}...` : segment))
        .slice(0, 12),
      message,
      keyword: error.keyword,
    });
    if (issues.length === 5) break;
  }
  return issues;
}

function instancePath(pointer: string): (string | number)[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => {
      const name = segment.replaceAll('~1', '/').replaceAll('~0', '~');
      return /^(0|[1-9]\d{0,8})$/.test(name) ? Number(name) : name;
    });
}

function jsonTypeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function listValues(values: unknown): string {
  const list = Array.isArray(values) ? values : [];
  const shown = list.slice(0, 10).map((value) => {
    const text = JSON.stringify(value) ?? String(value);
    return text.length > 40 ? `${text.slice(0, 40)}...` : text;
  });
  return `${shown.join(', ')}${list.length > 10 ? `, ... (${list.length} values)` : ''}`;
}
