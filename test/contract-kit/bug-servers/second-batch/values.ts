import type { BugServer } from '../bug-server.js';
import { type JsonObject, mapCategories } from '../wire.js';
import { post } from '../witness.js';
import { insertFailsWhen } from './helpers.js';

/** Second batch, docs/bug-taxonomy.md section 1: what happens to a value between the wire and the store. */

/** A letter-case and accent fold, as a `utf8mb4_0900_ai_ci` collation compares. */
function accentAndCaseFold(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

/** A literal of an auto-typing decoder: the JSON value a string that spells one is turned into. */
const typedLiterals: Record<string, unknown> = { true: true, false: false, null: null };

function typedFields(category: JsonObject): JsonObject {
  const typed = (value: unknown) =>
    typeof value === 'string' && value in typedLiterals ? typedLiterals[value] : value;
  return Object.fromEntries(Object.entries(category).map(([name, value]) => [name, typed(value)]));
}

export const secondBatchValueBugs: readonly BugServer[] = [
  {
    id: 'values-name-capitalized',
    taxonomyClass: 'values',
    models: "a Rails before_save callback capitalizes the first letter of every name ('dog' is stored 'Dog')",
    adds: 'before_save { self.name = name.sub(/\\A./) { |c| c.upcase } }',
    witness: [post({ name: 'dog' })],
    hooks: () => ({
      create: (draft) => ({ ...draft, name: draft.name.charAt(0).toUpperCase() + draft.name.slice(1) }),
    }),
  },
  {
    id: 'values-keyword-strings-typed',
    taxonomyClass: 'values',
    models: "an auto-typing decoder turns the strings 'true', 'false' and 'null' into JSON literals",
    adds: 'for (const k in body) if (body[k] in { true: 1, false: 1, null: 1 }) body[k] = JSON.parse(body[k])',
    witness: [post({ name: 'true', description: 'null' })],
    hooks: () => ({ response: (response, request) => mapCategories(response, request, typedFields) }),
  },
  {
    id: 'values-absent-description-as-null',
    taxonomyClass: 'values',
    models: 'the serializer writes every column: a category created without a description has "description": null',
    adds: '// Jackson default inclusion ALWAYS; an ORM row with description NULL',
    witness: [post({ name: 'a' })],
    hooks: () => ({
      response: (response, request) =>
        mapCategories(response, request, (category) => ({ description: null, ...category })),
    }),
  },
  {
    id: 'values-int8-id-as-string',
    taxonomyClass: 'values',
    models: 'node-postgres returns BIGINT (int8) columns as strings: every id is written as a JSON string',
    adds: "const { rows } = await pool.query('INSERT ... RETURNING id, name, description') // id: '1'",
    witness: [post({ name: 'a' })],
    hooks: () => ({
      response: (response, request) =>
        mapCategories(response, request, (category) => ({ ...category, id: String(category.id) })),
    }),
  },
  {
    id: 'values-apostrophe-500',
    taxonomyClass: 'values',
    models: 'SQL built by concatenation: an apostrophe in a name or description is a syntax error, answered 500',
    adds: 'db.query("INSERT INTO categories (name, description) VALUES (\'" + name + "\', \'" + description + "\')")',
    witness: [post({ name: "dog's" })],
    hooks: () =>
      insertFailsWhen(
        (draft) => `${draft.name}${draft.description ?? ''}`.includes("'"),
        'syntax error at or near "s"',
      ),
  },
  {
    id: 'values-astral-500-strict-mysql',
    taxonomyClass: 'values',
    models: "a utf8mb3 column in strict mode refuses 4-byte characters: 'Incorrect string value', answered 500",
    adds: 'CREATE TABLE categories (name VARCHAR(255) CHARACTER SET utf8) -- sql_mode STRICT_TRANS_TABLES',
    witness: [post({ name: 'dog 🐶' })],
    hooks: () =>
      insertFailsWhen(
        (draft) => /[\u{10000}-\u{10FFFF}]/u.test(`${draft.name}${draft.description ?? ''}`),
        "Incorrect string value: '\\xF0\\x9F\\x90\\xB6' for column 'name'",
      ),
  },
  {
    id: 'values-tags-stripped',
    taxonomyClass: 'values',
    models: 'a sanitizer strips HTML tags from every string field on the way in',
    adds: 'name = sanitizeHtml(name, { allowedTags: [] })',
    witness: [post({ name: '<b>dog</b>' })],
    hooks: () => {
      const strip = (text: string) => text.replace(/<\/?[A-Za-z][^>]*>/g, '');
      return {
        create: (draft) => ({
          ...draft,
          name: strip(draft.name),
          ...(draft.description === undefined ? {} : { description: strip(draft.description) }),
        }),
      };
    },
  },
  {
    id: 'values-find-or-create-by-name',
    taxonomyClass: 'values',
    models: 'Sequelize findOrCreate by name: a second POST of a name answers 201 with the first category and its id',
    adds: 'const [category] = await Category.findOrCreate({ where: { name }, defaults: { description } })',
    witness: [post({ name: 'dog' }), post({ name: 'dog', description: 'second' })],
    hooks: () => ({ create: (draft, { stored }) => stored.find((category) => category.name === draft.name) ?? draft }),
  },
  {
    id: 'values-accent-insensitive-unique-500',
    taxonomyClass: 'values',
    models:
      "a UNIQUE index on name under MySQL 8's default utf8mb4_0900_ai_ci: 'Cafe' after 'café' is a duplicate entry, answered 500",
    adds: 'ALTER TABLE categories ADD UNIQUE (name) -- collation utf8mb4_0900_ai_ci',
    witness: [post({ name: 'café' }), post({ name: 'Cafe' })],
    hooks: () =>
      insertFailsWhen(
        (draft, stored) =>
          stored.some((category) => accentAndCaseFold(category.name) === accentAndCaseFold(draft.name)),
        "Duplicate entry for key 'categories.name'",
      ),
  },
  {
    id: 'values-list-drops-lookahead-row',
    taxonomyClass: 'values',
    models: 'the list fetches one row more than a page to know whether another follows, then pops it unconditionally',
    adds: "const rows = await query('... LIMIT ' + (pageSize + 1)); rows.pop(); // even when there is no next page",
    witness: [post({ name: 'a' }), {}],
    hooks: () => ({
      list: (stored) => {
        const rows = stored.slice(0, 101);
        rows.pop();
        return rows;
      },
    }),
  },
];
