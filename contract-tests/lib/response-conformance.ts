import type { MediaDefinition, OperationDefinition, ResponseDefinition } from '../../spec/compile-spec.js';
import { responseByStatus } from '../../spec/interface/response-lookup.js';
import { describeIssues } from '../../spec/interface/spec-model.js';
import type { ExchangeResponse } from './exchange.js';
import { isJsonMedia } from './generic-requests.js';

/**
 * What one response shows against what the document declares for its operation: `problems`
 * break the document (FAIL), `open` are what the document leaves open (INFO), `notes` are
 * worth saying on a PASS.
 */
export interface Conformance {
  problems: string[];
  open: string[];
  notes: string[];
  /** The declared response the status matched, when one did. */
  declared: ResponseDefinition | undefined;
}

/**
 * The declared response of a status: exact, then its range (`4XX`), then `default`.
 *
 * @example declaredResponse(operation, 404)?.statusKey // '4XX'
 */
export function declaredResponse(operation: OperationDefinition, status: number): ResponseDefinition | undefined {
  return responseByStatus(status, (key) =>
    operation.responses.find((response) => response.statusKey.toUpperCase() === key),
  );
}

/**
 * Judges a response by the document alone: the status is declared; the Content-Type is one the
 * status declares (wildcards such as `image/*` match); a JSON body is valid against that media
 * type's schema; every header the response marks `required` is present. A body the kit does not
 * read as JSON (XML, text, images) is judged by its media type only, and says so.
 *
 * @example judgeResponse(operation, exchange.response!, 'HEAD' !== method).problems // []
 */
export function judgeResponse(
  operation: OperationDefinition,
  response: ExchangeResponse,
  hasBody: boolean,
): Conformance {
  const out: Conformance = { problems: [], open: [], notes: [], declared: undefined };
  const status = response.status;
  if (operation.responses.length === 0) {
    out.open.push(
      `the document declares no responses for ${operation.operationId}: ${status} is neither right nor wrong`,
    );
    return out;
  }
  const declared = declaredResponse(operation, status);
  out.declared = declared;
  if (
    declared === undefined &&
    status < 400 &&
    !operation.responses.some((response) => /^(2|default)/i.test(response.statusKey))
  ) {
    out.open.push(
      `the document declares no success response for ${operation.operationId} (only ${operation.responses.map((response) => response.statusKey).join(', ')}): ${status} is what it leaves open`,
    );
    return out;
  }
  if (declared === undefined) {
    out.problems.push(
      `status ${status} is not declared (declared: ${operation.responses.map((response) => response.statusKey).join(', ')})`,
    );
    return out;
  }
  for (const header of declared.headers) {
    if (header.required && response.headers[header.name.toLowerCase()] === undefined)
      out.problems.push(`the ${status} response lacks the header ${header.name}, which the document marks required`);
  }
  if (!hasBody) return out;
  const contentType = response.headers['content-type'];
  const essence = contentType === undefined ? undefined : contentType.split(';')[0]!.trim().toLowerCase();
  if (declared.media.length === 0) {
    if (response.bodyText !== '')
      out.open.push(
        `the ${status} response declares no content, and a body came (Content-Type ${contentType ?? 'missing'})`,
      );
    return out;
  }
  if (response.bodyText === '' && essence === undefined) {
    out.open.push(`the ${status} response declares ${declared.mediaTypes.join(', ')}, and came without a body`);
    return out;
  }
  const media = essence === undefined ? undefined : matchingMedia(declared.media, essence);
  if (media === undefined) {
    out.problems.push(
      `Content-Type ${contentType ?? 'missing'} is not declared for ${declared.statusKey} (declared: ${declared.mediaTypes.join(', ')})`,
    );
    return out;
  }
  if (!isJsonMedia(essence!)) {
    out.notes.push(`${essence} body: media type checked, content not (the kit validates JSON bodies)`);
    return out;
  }
  if (!response.hasJson) {
    out.problems.push(`the ${status} body is declared ${media.type} but is not JSON`);
    return out;
  }
  const validator = media.validator;
  if (validator === undefined) return out;
  const result = validator.safeParse(response.json);
  if (!result.success) {
    const issues = describeIssues(result.error.issues).join('; ');
    if (declared.notShown)
      out.open.push(
        `the ${status} body differs from an illustrative schema (shape not shown by the interface): ${issues}`,
      );
    else
      out.problems.push(
        `the ${status} body does not match the ${media.type} schema of ${declared.statusKey}: ${issues}`,
      );
  }
  return out;
}

/** The declared media type a response's media type falls under: exact, `type/*`, `*\/*`. */
function matchingMedia(media: readonly MediaDefinition[], essence: string): MediaDefinition | undefined {
  const family = `${essence.split('/')[0]}/*`;
  return (
    media.find((entry) => entry.essence === essence) ??
    media.find((entry) => entry.essence === family) ??
    media.find((entry) => entry.essence === '*/*')
  );
}
