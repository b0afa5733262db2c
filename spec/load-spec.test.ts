import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileSpecDefinition } from './compile-spec.js';
import { parseSpecText, readSpecFile } from './load-spec.js';

let directory: string;
const write = async (name: string, text: string) => {
  await mkdir(join(directory, name, '..'), { recursive: true });
  await writeFile(join(directory, name), text);
};

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'petstore-kit-specs-'));
});
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

const entry = (body: string) => `openapi: 3.1.0\ninfo: {title: t, version: '1'}\n${body}`;

describe('readSpecFile: documents in several files', () => {
  it('brings relative files in: schemas get a home in components, other objects take their place', async () => {
    await write(
      'multi/schemas/pet.yaml',
      'type: object\nrequired: [name]\nproperties:\n  name: {type: string}\n  owner: {$ref: "./owner.yaml"}\n  friends: {type: array, items: {$ref: "#"}}\n',
    );
    await write('multi/schemas/owner.yaml', 'type: object\nproperties:\n  name: {type: string}\n');
    await write('multi/security.yaml', 'key: {type: apiKey, in: header, name: X-Key}\n');
    await write('multi/notes.md', '# Not YAML at all: {[\n');
    await write(
      'multi/api.yaml',
      entry(`x-notes: {$ref: notes.md}
paths:
  /pets:
    get:
      responses:
        '200':
          description: ok
          content: {application/json: {schema: {type: array, items: {$ref: 'schemas/pet.yaml'}}}}
    post:
      requestBody: {content: {application/json: {schema: {$ref: 'schemas/pet.yaml'}}}}
      responses: {'201': {description: created}}
components:
  securitySchemes:
    key: {$ref: 'security.yaml#/key'}
`),
    );
    const document = await readSpecFile(join(directory, 'multi/api.yaml'));
    const spec = compileSpecDefinition(document);
    expect(Object.keys(spec.componentSchemas).sort()).toEqual(['owner', 'pet']);
    expect((document.components!.securitySchemes as Record<string, unknown>).key).toEqual({
      type: 'apiKey',
      in: 'header',
      name: 'X-Key',
    });
    // The Markdown named by an extension is data: never read.
    expect(document['x-notes']).toEqual({ $ref: 'notes.md' });
    const body = spec.operations.find((operation) => operation.method === 'POST')!.requestBody!.validator!;
    expect(body.safeParse({ name: 'Rex', owner: { name: 'Ann' }, friends: [{ name: 'Tom' }] }).success).toBe(true);
    expect(body.safeParse({ name: 'Rex', friends: [{}] }).success).toBe(false);
  });

  it('reads maps given by a $ref (components.schemas, properties): entries keep their names, refs resolve where written', async () => {
    // Lichess's layout (components.schemas: {$ref: ./schemas/_index.yaml}) and DigitalOcean's (properties: {$ref: attributes.yml#/ids}).
    await write('maps/schemas/_index.yaml', 'Pet: {$ref: "./Pet.yaml"}\nOwner:\n  $ref: "./Owner.yaml"\n');
    await write(
      'maps/schemas/Pet.yaml',
      'type: object\nrequired: [name]\nproperties:\n  name: {type: string}\n  owner: {$ref: "./Owner.yaml"}\n  parent: {$ref: "./Pet.yaml"}\n',
    );
    await write('maps/schemas/Owner.yaml', 'type: object\nproperties:\n  $ref: "attributes.yaml#/owner"\n');
    await write('maps/schemas/attributes.yaml', 'owner:\n  name: {type: string, maxLength: 3}\n');
    await write(
      'maps/api.yaml',
      entry(`paths:
  /pets:
    post:
      requestBody: {content: {application/json: {schema: {$ref: 'schemas/Pet.yaml'}}}}
      responses: {'201': {description: created}}
components:
  schemas:
    $ref: ./schemas/_index.yaml
`),
    );
    const document = await readSpecFile(join(directory, 'maps/api.yaml'));
    const spec = compileSpecDefinition(document);
    expect(Object.keys(spec.componentSchemas).sort()).toEqual(['Owner', 'Pet']);
    const schemas = document.components!.schemas as Record<string, { properties: Record<string, unknown> }>;
    expect(schemas.Pet!.properties.parent).toEqual({
      $ref: '#/components/schemas/Pet',
    });
    const body = spec.operations[0]!.requestBody!.validator!;
    expect(body.safeParse({ name: 'Rex', owner: { name: 'Ann' }, parent: { name: 'Max' } }).success).toBe(true);
    expect(body.safeParse({ name: 'Rex', owner: { name: 'Annabel' } }).success).toBe(false);
    expect(body.safeParse({ parent: { name: 'Max' } }).success).toBe(false);
  });

  it('refuses a missing file, a non-JSON/YAML file where a schema is, and a URL, each naming the reference', async () => {
    await write(
      'bad/missing.yaml',
      entry(
        `paths: {/a: {get: {responses: {'200': {description: ok, content: {application/json: {schema: {$ref: 'nowhere.yaml'}}}}}}}}`,
      ),
    );
    await expect(readSpecFile(join(directory, 'bad/missing.yaml'))).rejects.toThrow(
      /^Failed to resolve \$ref nowhere.yaml at #\/paths\/~1a\/get\/responses\/200\/content\/application~1json\/schema: no such file /,
    );
    await write(
      'bad/markdown.yaml',
      entry(
        `paths: {/a: {get: {responses: {'200': {description: ok, content: {application/json: {schema: {$ref: 'notes.md'}}}}}}}}`,
      ),
    );
    await expect(readSpecFile(join(directory, 'bad/markdown.yaml'))).rejects.toThrow(
      /\$ref notes.md at #\/paths.*: notes.md is not a JSON or YAML file$/,
    );
    await write(
      'bad/url.yaml',
      entry(
        `paths: {/a: {get: {responses: {'200': {description: ok, content: {application/json: {schema: {$ref: 'https://example.com/pet.yaml'}}}}}}}}`,
      ),
    );
    await expect(readSpecFile(join(directory, 'bad/url.yaml'))).rejects.toThrow(
      /\$ref https:\/\/example.com\/pet.yaml at .*: references to URLs are not followed unless --allow-remote-refs is given$/,
    );
  });

  it('refuses a key twice in one mapping, in one pass over the document (not comparing each key with every other)', () => {
    expect(() =>
      parseSpecText("openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths:\n  /a: {}\n  /b: {}\n  /a: {}\n"),
    ).toThrow(/^Failed to load spec spec: duplicated mapping key at line 6, column 3$/);
    let paths = '';
    for (let index = 0; index < 5_000; index += 1) paths += `  /p${index}: {}\n`;
    expect(
      Object.keys(parseSpecText(`openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths:\n${paths}`).paths!),
    ).toHaveLength(5_000);
  });

  it('refuses a referenced file nested deeper than it can walk, naming the file', async () => {
    let deep = '{"type":"string"}';
    for (let level = 0; level < 3_000; level += 1) deep = `{"type":"object","properties":{"x":${deep}}}`;
    await write('deep/deep.json', deep);
    await write(
      'deep/api.yaml',
      entry(
        `paths: {/a: {get: {responses: {'200': {description: ok, content: {application/json: {schema: {$ref: './deep.json'}}}}}}}}`,
      ),
    );
    await expect(readSpecFile(join(directory, 'deep/api.yaml'))).rejects.toThrow(
      /deep\.json is nested (more than 1000 levels|too) deep/,
    );
  });

  describe('with --allow-remote-refs', () => {
    let server: Server;
    let origin: string;
    beforeAll(async () => {
      server = createServer((request, response) => {
        if (request.url === '/pet.yaml') response.end('type: object\nproperties: {name: {type: string}}\n');
        else if (request.url === '/sneaky.yaml')
          response.end(`type: object\nproperties: {a: {$ref: '${localFile}'}}\n`);
        else if (request.url === '/huge.yaml') {
          // Far over the bound, and never ending: the reader must stop on its own.
          response.writeHead(200, { 'content-type': 'application/yaml' });
          const chunk = `# ${'x'.repeat(1024 * 1024)}\n`;
          const pump = () => {
            while (response.write(chunk));
          };
          response.on('drain', pump);
          pump();
        } else response.writeHead(404).end();
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(
      () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    );
    const localFile = `file://${join(tmpdir(), 'petstore-kit-secret.yaml')}`;

    it('reads no local file for a document fetched from a URL, and no body over 16 MiB', async () => {
      for (const [name, message] of [
        ['sneaky', /may not reference a local file/],
        ['huge', /is over 16777216 bytes$/],
      ] as const) {
        await write(
          `remote/${name}-api.yaml`,
          entry(
            `paths: {/a: {get: {responses: {'200': {description: ok, content: {application/json: {schema: {$ref: '${origin}/${name}.yaml'}}}}}}}}`,
          ),
        );
        await expect(
          readSpecFile(join(directory, `remote/${name}-api.yaml`), { allowRemoteRefs: true }),
        ).rejects.toThrow(message);
      }
    });

    it('follows a URL (here on loopback) and says which one failed', async () => {
      await write(
        'remote/api.yaml',
        entry(
          `paths: {/a: {get: {responses: {'200': {description: ok, content: {application/json: {schema: {$ref: '${origin}/pet.yaml'}}}}}}}}`,
        ),
      );
      const document = await readSpecFile(join(directory, 'remote/api.yaml'), { allowRemoteRefs: true });
      expect(compileSpecDefinition(document).componentSchemas.pet).toEqual({
        type: 'object',
        properties: { name: { type: 'string' } },
      });
      await write(
        'remote/gone.yaml',
        entry(
          `paths: {/a: {get: {responses: {'200': {description: ok, content: {application/json: {schema: {$ref: '${origin}/gone.yaml'}}}}}}}}`,
        ),
      );
      await expect(readSpecFile(join(directory, 'remote/gone.yaml'), { allowRemoteRefs: true })).rejects.toThrow(
        /gone.yaml answered 404$/,
      );
    });
  });
});

describe('readSpecFile: versions', () => {
  it('reads Swagger 2.0 and OpenAPI 3.0 as 3.1, and refuses anything else naming what it found', async () => {
    await write(
      'v2.yaml',
      "swagger: '2.0'\ninfo: {title: t, version: '1'}\nbasePath: /api\npaths:\n  /pets/{id}:\n    get:\n      parameters: [{name: id, in: path, required: true, type: integer}]\n      responses: {'200': {description: ok, schema: {$ref: '#/definitions/Pet'}}}\ndefinitions:\n  Pet: {type: object, properties: {tag: {type: string, x-nullable: true}}}\n",
    );
    const v2 = compileSpecDefinition(await readSpecFile(join(directory, 'v2.yaml')));
    expect(v2.basePath).toBe('/api');
    expect(v2.operations[0]!.responses[0]!.validator!.safeParse({ tag: null }).success).toBe(true);
    await write(
      'v30.yaml',
      "openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths: {}\ncomponents: {schemas: {N: {type: number, minimum: 1, exclusiveMinimum: true}}}\n",
    );
    expect((await readSpecFile(join(directory, 'v30.yaml'))).components!.schemas!.N).toEqual({
      type: 'number',
      exclusiveMinimum: 1,
    });
    await write('v32.yaml', "openapi: 4.0.0\ninfo: {title: t, version: '1'}\npaths: {}\n");
    await expect(readSpecFile(join(directory, 'v32.yaml'))).rejects.toThrow(
      /expected "openapi: 3.1.x" or "3.0.x" \(or "swagger: 2.0"\), found "4.0.0"$/,
    );
  });

  it('serves a document with webhooks and no paths', async () => {
    await write(
      'hooks.yaml',
      "openapi: 3.1.0\ninfo: {title: t, version: '1'}\nwebhooks: {ping: {post: {responses: {'200': {description: ok}}}}}\n",
    );
    expect(compileSpecDefinition(await readSpecFile(join(directory, 'hooks.yaml'))).operations).toEqual([]);
  });
});
