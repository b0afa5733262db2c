import type { Category } from '../reference/reference-petstore.js';
import type { BugServer } from './bug-server.js';
import { mapCategories, requestObject, withErrorBody, withRequestBody } from './wire.js';
import { post } from './witness.js';

/** docs/bug-taxonomy.md section 1: what happens to a value between the wire and the store. */

/** The category with `change` applied to its name and (when present) its description: a column or serializer. */
function eachText(category: Category, change: (text: string) => string): Category {
  const changed: Category = { id: category.id, name: change(category.name) };
  if (category.description !== undefined) changed.description = change(category.description);
  return changed;
}

const htmlEntities: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#x27;' };
const snowflakeBase = 2n ** 53n - 2n;

export const valueBugs: readonly BugServer[] = [
  {
    id: 'values-name-lower-cased',
    taxonomyClass: 'values',
    models: 'the name column is citext / a slug: names are stored lower-cased',
    adds: 'category.name = category.name.toLowerCase()',
    witness: [post({ name: 'Dog' }), {}],
    hooks: () => ({ create: (draft) => ({ ...draft, name: draft.name.toLowerCase() }) }),
  },
  {
    id: 'values-description-dropped-with-quote',
    taxonomyClass: 'values',
    models: 'a description built into a string by hand is lost when it holds a double quote',
    adds: 'if (description.includes(\'"\')) description = undefined // "would break the query"',
    witness: [post({ name: 'a', description: 'say "hi"' })],
    hooks: () => ({
      create: (draft) => (draft.description?.includes('"') === true ? { id: draft.id, name: draft.name } : draft),
    }),
  },
  {
    id: 'values-html-escaped',
    taxonomyClass: 'values',
    models: 'xss-clean-style middleware HTML-escapes every string of the body on the way in',
    adds: 'app.use(sanitize()) // s.replace(/[&<>"\']/g, (c) => entities[c])',
    witness: [post({ name: '<b>Cats & dogs</b>' })],
    hooks: () => ({ create: (draft) => eachText(draft, (text) => text.replace(/[&<>"']/g, (c) => htmlEntities[c]!)) }),
  },
  {
    id: 'values-astral-cut',
    taxonomyClass: 'values',
    models: 'MySQL utf8 (utf8mb3) columns: a string is cut at its first character outside the BMP',
    adds: 'CREATE TABLE categories (name VARCHAR(255) CHARACTER SET utf8, ...)',
    witness: [post({ name: 'cat \u{1F431} family' })],
    hooks: () => ({ create: (draft) => eachText(draft, (text) => text.split(/[\u{10000}-\u{10FFFF}]/u)[0]!) }),
  },
  {
    id: 'values-truncated-to-255',
    taxonomyClass: 'values',
    models: 'MySQL without STRICT_TRANS_TABLES silently truncates to VARCHAR(255)',
    adds: "SET sql_mode = '' -- and name VARCHAR(255)",
    witness: [post({ name: 'x'.repeat(300) })],
    hooks: () => ({ create: (draft) => eachText(draft, (text) => text.slice(0, 255)) }),
  },
  {
    id: 'values-empty-description-dropped',
    taxonomyClass: 'values',
    models: 'a truthiness check drops an empty-string description',
    adds: 'if (body.description) category.description = body.description',
    witness: [post({ name: 'a', description: '' })],
    hooks: () => ({ create: (draft) => (draft.description === '' ? { id: draft.id, name: draft.name } : draft) }),
  },
  {
    id: 'values-null-description-accepted',
    taxonomyClass: 'values',
    models: '`description == null` lets a JSON null through as "no description" instead of refusing it',
    adds: 'if (description == null) return { name }',
    witness: [post({ name: 'a', description: null })],
    hooks: () => ({
      request: (request) => {
        const body = requestObject(request);
        if (body?.description !== null) return request;
        const { description: _null, ...rest } = body;
        return withRequestBody(request, rest);
      },
    }),
  },
  {
    id: 'values-number-name-coerced',
    taxonomyClass: 'values',
    models: "DRF's CharField accepts a number and stores str(value)",
    adds: 'name = serializers.CharField()  # 123 -> "123"',
    witness: [post({ name: 123 })],
    hooks: () => ({
      request: (request) => {
        const body = requestObject(request);
        return typeof body?.name === 'number'
          ? withRequestBody(request, { ...body, name: String(body.name) })
          : request;
      },
    }),
  },
  {
    id: 'values-digit-strings-as-numbers',
    taxonomyClass: 'values',
    models: "PHP's json_encode(..., JSON_NUMERIC_CHECK) writes digit-only strings as numbers",
    adds: 'echo json_encode($category, JSON_NUMERIC_CHECK);',
    witness: [post({ name: '123' })],
    hooks: () => ({
      response: (response, request) =>
        mapCategories(response, request, (category) =>
          Object.fromEntries(
            Object.entries(category).map(([field, value]) => [
              field,
              typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value,
            ]),
          ),
        ),
    }),
  },
  {
    id: 'values-client-id-wins',
    taxonomyClass: 'values',
    models: 'mass assignment: an `id` in the body overrides the assigned one',
    adds: 'const category = { id: nextId, ...req.body }',
    witness: [post({ name: 'a', id: 99 })],
    hooks: () => ({
      create: (draft, { request }) => {
        const sent = requestObject(request)?.id;
        return Number.isSafeInteger(sent) ? { ...draft, id: sent as number } : draft;
      },
    }),
  },
  {
    id: 'values-find-or-create-case-insensitive',
    taxonomyClass: 'values',
    models: 'findOrCreate by name on a case-insensitive collation answers an existing category for "Dog" after "dog"',
    adds: 'const [category] = await Category.findOrCreate({ where: { name } }) // utf8mb4_general_ci',
    witness: [post({ name: 'dog' }), post({ name: 'Dog' })],
    hooks: () => ({
      create: (draft, { stored }) =>
        stored.find((category) => category.name.toLowerCase() === draft.name.toLowerCase()) ?? draft,
    }),
  },
  {
    id: 'values-inner-whitespace-collapsed',
    taxonomyClass: 'values',
    models: 'a form-normalising helper reused for JSON collapses runs of whitespace inside a name',
    adds: "name = name.replace(/\\s+/g, ' ')",
    witness: [post({ name: 'a  b' })],
    hooks: () => ({ create: (draft) => ({ ...draft, name: draft.name.replace(/\s+/g, ' ') }) }),
  },
  {
    id: 'values-int64-ids-as-strings',
    taxonomyClass: 'values',
    models: 'snowflake ids: the serializer writes ids beyond 2^53 as JSON strings so JavaScript keeps them exact',
    adds: 'id > Number.MAX_SAFE_INTEGER ? String(id) : Number(id) // ids start near 2^53',
    witness: [post({ name: 'a' }), post({ name: 'b' })],
    hooks: () => ({
      response: (response, request) =>
        mapCategories(response, request, (category) => {
          const id = snowflakeBase + BigInt(category.id as number);
          return { ...category, id: id > BigInt(Number.MAX_SAFE_INTEGER) ? String(id) : Number(id) };
        }),
    }),
  },
  {
    id: 'values-backslash-escapes-consumed',
    taxonomyClass: 'values',
    models: 'a hand-built SQL literal quotes only the quote: MySQL then reads each backslash as an escape and drops it',
    adds: 'db.query("INSERT INTO categories (name) VALUES (\'" + name.replaceAll("\'", "\'\'") + "\')")',
    witness: [post({ name: 'C:\\pets\\dogs' })],
    hooks: () => ({ create: (draft) => eachText(draft, (text) => text.replace(/\\(.)/gs, '$1')) }),
  },
  {
    id: 'values-non-printables-stripped',
    taxonomyClass: 'values',
    models: 'a "clean string" helper strips control and zero-width characters from every field',
    adds: "const clean = (s) => s.replace(/[\\u0000-\\u001f\\u007f\\u200b-\\u200f\\u2060\\ufeff]/g, '')",
    witness: [post({ name: 'tab\there\u200Bzero' })],
    hooks: () => ({
      create: (draft) => eachText(draft, (text) => text.replace(/[\u0000-\u001f\u007f\u200b-\u200f\u2060\ufeff]/g, '')),
    }),
  },
  {
    id: 'values-prototype-names-refused',
    taxonomyClass: 'values',
    models: "a plain object used as a set of reserved names: 'constructor', 'toString' and '__proto__' are refused",
    adds: 'if (reservedNames[name]) return res.status(400).json(error) // const reservedNames = { admin: true }',
    witness: [post({ name: 'constructor' })],
    hooks: () => ({
      response: (response, request) => {
        const name = requestObject(request)?.name;
        const reserved: Record<string, unknown> = { admin: true };
        const refused = response.status === 201 && typeof name === 'string' && Boolean(reserved[name]);
        return refused
          ? withErrorBody(response, 400, () => ({ code: 'reserved_name', message: `${name} is reserved`, status: 400 }))
          : response;
      },
    }),
  },
];
