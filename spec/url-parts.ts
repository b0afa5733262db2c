// A request target (`/v1/pets?limit=2`) read in two parts, the one way every reader splits it: at its
// first `?`. On the request path: one indexOf and one slice, no URL object.

/**
 * The path of a request target: all before its first `?` (the whole target when it has none).
 *
 * @example targetPath('/v1/pets?limit=2') // '/v1/pets'
 */
export function targetPath(target: string): string {
  const questionMark = target.indexOf('?');
  return questionMark === -1 ? target : target.slice(0, questionMark);
}

/**
 * The query of a request target: all after its first `?`, without it ('' when it has none).
 *
 * @example targetQuery('/v1/pets?limit=2') // 'limit=2'
 */
export function targetQuery(target: string): string {
  const questionMark = target.indexOf('?');
  return questionMark === -1 ? '' : target.slice(questionMark + 1);
}
