/**
 * The reason phrases of RFC 9110 section 15 for the error statuses a mock makes itself, for matching a
 * document's own error texts (an `Unauthorized` alternative of a `oneOf`). Here, not `node:http`'s
 * STATUS_CODES: the core runs in a browser too (MSW), and the RFC's newer names stand beside the
 * older ones a document may still use.
 */
const reasonPhrases: Readonly<Record<number, readonly string[]>> = {
  400: ['Bad Request'],
  401: ['Unauthorized'],
  403: ['Forbidden'],
  404: ['Not Found'],
  405: ['Method Not Allowed'],
  406: ['Not Acceptable'],
  409: ['Conflict'],
  413: ['Content Too Large', 'Payload Too Large'],
  415: ['Unsupported Media Type'],
  422: ['Unprocessable Content', 'Unprocessable Entity'],
  429: ['Too Many Requests'],
  500: ['Internal Server Error'],
  501: ['Not Implemented'],
  502: ['Bad Gateway'],
  503: ['Service Unavailable'],
  504: ['Gateway Timeout'],
};

/** @example reasonPhrasesOf(413) // ['Content Too Large', 'Payload Too Large'] */
export function reasonPhrasesOf(status: number): readonly string[] {
  return Object.hasOwn(reasonPhrases, status) ? reasonPhrases[status]! : [];
}
