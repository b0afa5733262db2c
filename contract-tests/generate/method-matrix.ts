/**
 * Every method on every path the interface names (section 4: /categories, /pets/{petId},
 * /store/orders) and on a path it does not name, as data: which requests exist, which of them are
 * operations of the interface, and which could change data the run did not create (sent only
 * with --allow-destructive: a shared staging server keeps its data).
 */
const methods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
type Method = (typeof methods)[number];

/** Ids for `/pets/{petId}`: ordinary, zero, negative, past int64, not a number (the type is not shown). */
export const petIds = ['1', '0', '-1', '9223372036854775808', 'abc'] as const;

interface MatrixPath {
  /** As the report shows it: `/pets/{petId}`. */
  template: string;
  /** The concrete path sent. */
  path: string;
  /**
   * The interface's operation per method on this path. HEAD is none: the interface lists GET only,
   * and a server may refuse HEAD for its method before looking at the key (RFC 9110 §9.3.2 says
   * SHOULD support it, http.head judges that).
   */
  operations: Partial<Record<Method, string>>;
  /** The path holds data other clients may own: PUT, PATCH and DELETE need --allow-destructive. */
  holdsData: boolean;
}

const matrixPaths: readonly MatrixPath[] = [
  {
    template: '/categories',
    path: '/categories',
    operations: { GET: 'listCategories', POST: 'createCategory' },
    holdsData: true,
  },
  {
    template: '/pets/{petId}',
    path: '/pets/1',
    operations: { GET: 'getPetById' },
    holdsData: true,
  },
  {
    template: '/store/orders',
    path: '/store/orders',
    operations: { GET: 'listStoreOrders' },
    holdsData: true,
  },
  // The collection with a trailing slash: routers redirect it (Django's APPEND_SLASH), route it like the collection
  // (Express without strict routing) or answer 404; whichever, it is a response of the API (section 8: the rate
  // headers on every response) and may hold the collection's data.
  {
    template: '/categories/ (trailing slash)',
    path: '/categories/',
    operations: {},
    holdsData: true,
  },
  { template: '(unknown path)', path: '/contract-test-unknown-path', operations: {}, holdsData: false },
];

/** One request of the matrix: a method on a path. */
export interface MatrixRequest {
  method: Method;
  at: MatrixPath;
  /** The operation it is, or undefined when the interface does not define it. */
  operationId: string | undefined;
  /** It carries a body (POST, PUT, PATCH): framed by Content-Length or chunked in turn. */
  withBody: boolean;
}

/**
 * The requests of the matrix the run may send: all, but PUT, PATCH and DELETE on a path that holds
 * data only with `allowDestructive`. Returns the ones it leaves out too, for the report.
 *
 * @example matrixRequests(false).sent.length // 28 of 35
 */
export function matrixRequests(allowDestructive: boolean): { sent: MatrixRequest[]; withheld: MatrixRequest[] } {
  const all = matrixPaths.flatMap((at) =>
    methods.map(
      (method): MatrixRequest => ({
        method,
        at,
        operationId: at.operations[method],
        withBody: method === 'POST' || method === 'PUT' || method === 'PATCH',
      }),
    ),
  );
  const destructive = (request: MatrixRequest) =>
    request.at.holdsData && (request.method === 'PUT' || request.method === 'PATCH' || request.method === 'DELETE');
  return {
    sent: all.filter((request) => allowDestructive || !destructive(request)),
    withheld: all.filter((request) => !allowDestructive && destructive(request)),
  };
}

/**
 * What the interface says of an answer without credentials (section 5.2: the requirement applies
 * to every operation; 5.3: 401 with an Error): an operation must be 401; a request that is no
 * operation may also be refused for its path or method first (404, 405), which the interface does
 * not order.
 */
export function allowedWithoutKey(request: MatrixRequest): readonly number[] {
  return request.operationId === undefined ? [401, 404, 405] : [401];
}
