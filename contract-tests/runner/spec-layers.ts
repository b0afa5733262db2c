import { compileSpecDefinition } from '../../spec/compile-spec.js';
import { type CredentialPlaces, credentialPlacesOf } from '../../spec/credential-masking.js';
import { type SpecModel, specModelOf } from '../../spec/interface/spec-model.js';
import { type LoadSpecOptions, readSpecFile } from '../../spec/load-spec.js';
import type { CheckArea } from '../lib/check.js';
import { genericAreas } from '../suite/generic-layer.js';
import { allOperations } from '../suite/operations.js';

/** What a run checks, decided by the document it is given. */
export interface SpecLayers {
  spec: SpecModel;
  /** The document declares the Petstore interface's operations: its rule checks run. */
  petstoreRules: boolean;
  /** Operations the generic layer checks. */
  genericOperations: number;
  /** Every area, in the order it runs. */
  areas: CheckArea[];
  /** The first operation a plain GET can reach (no path parameter, no required input): the reachability probe. */
  probePath: string;
  /** Where the document's requests carry keys: a -H header it names `apiKey in: header` is a secret. */
  credentialPlaces: CredentialPlaces;
}

/**
 * Reads the document once with the shared `spec/` module and decides what runs: on a document
 * that declares the Petstore interface's four operations (ours, or a later version of it), the
 * Petstore rule checks, plus the generic layer for every operation they do not cover, before the
 * checks over every response; on any other document, the generic layer for every operation, and
 * none of the Petstore rule checks (they test promises that document does not make).
 *
 * @example const { petstoreRules, areas } = await specLayers('test/fixtures/specs/oai-petstore/petstore.yaml'); // false, 2 areas
 */
export async function specLayers(
  specPath: string,
  only?: readonly string[],
  reading: LoadSpecOptions = {},
): Promise<SpecLayers> {
  const document = await readSpecFile(specPath, reading);
  const definition = compileSpecDefinition(document);
  const credentialPlaces = credentialPlacesOf(document);
  const chosen = only === undefined ? undefined : new Set(only);
  const unknown = [...(chosen ?? [])].filter(
    (name) =>
      !definition.operations.some(
        (operation) => operation.operationId === name || `${operation.method} ${operation.pathTemplate}` === name,
      ),
  );
  if (unknown.length > 0)
    throw new Error(
      `Failed to use --operation ${unknown
        .slice(0, 3)
        .map((name) => JSON.stringify(name))
        .join(', ')}: the document declares no such operation (operationId, or METHOD /path as written)`,
    );
  const petstoreRules = allOperations.every((rule) =>
    definition.operations.some(
      (operation) =>
        operation.operationId === rule.operationId && `${operation.method} ${operation.pathTemplate}` === rule.label,
    ),
  );
  const covered = new Set(allOperations.map((operation) => operation.operationId));
  const byLabel = new Map(
    definition.operations.map((operation) => [operation.operationId, `${operation.method} ${operation.pathTemplate}`]),
  );
  const picked = (operationId: string) =>
    chosen === undefined || chosen.has(operationId) || chosen.has(byLabel.get(operationId) ?? '');
  const include = petstoreRules ? (operationId: string) => !covered.has(operationId) && picked(operationId) : picked;
  const generic = genericAreas(definition, include);
  const genericOperations = definition.operations.filter((operation) => include(operation.operationId)).length;
  const spec = specModelOf(definition);
  const probe = definition.operations.find(
    (operation) =>
      operation.method === 'GET' &&
      !operation.pathTemplate.includes('{') &&
      !operation.parameters.some((parameter) => parameter.required),
  );
  if (!petstoreRules)
    return {
      spec,
      petstoreRules,
      genericOperations,
      areas: generic,
      probePath: probe?.pathTemplate ?? '/',
      credentialPlaces,
    };
  const { suiteAreas } = await import('../suite/index.js');
  // The checks over every response judge the generic layer's answers too: they run last.
  const last = suiteAreas[suiteAreas.length - 1]!;
  return {
    spec,
    petstoreRules,
    genericOperations,
    areas: [...suiteAreas.slice(0, -1), ...generic, last],
    probePath: '/categories',
    credentialPlaces,
  };
}

/**
 * The line a run on another document prints before its first request: what the generic layer
 * checks, and that the Petstore rule checks do not run.
 */
export function genericLayerLine(operations: number, settings: { specPath: string }): string {
  return `petstore-contract: ${settings.specPath} is not the Petstore interface: the Petstore rule checks do not run; the generic layer checks its ${operations} operation(s) as the document declares them`;
}

/**
 * The promise a run on another document makes before its first request that could create data.
 *
 * @example genericCreationLine(12, { baseUrl: 'https://staging.example.com/api', readOnly: false, allowDestructive: false })
 */
export function genericCreationLine(
  bound: number,
  settings: { baseUrl: string; readOnly: boolean; allowDestructive: boolean },
): string {
  if (settings.readOnly)
    return 'petstore-contract: read-only run: no request that could create data is sent (POST, or any request with a body)';
  const changing = settings.allowDestructive
    ? 'PUT, PATCH, DELETE and POST to a resource path go to any resource (--allow-destructive)'
    : 'PUT, PATCH, DELETE and POST to a resource path go only to what this run created, or are skipped';
  return `petstore-contract: this run may send up to ${bound} requests that could create data on ${settings.baseUrl} (POST, or a body: the document's examples or data generated from its schemas); ${changing}; --read-only sends none`;
}
