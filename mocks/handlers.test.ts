import { getResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { readSpecFile } from '../spec/load-spec.js';
import { createFixedClock } from '../src/core/clock.js';
import { expectError, fromFetchResponse, requestInit } from '../test/support/interface-client.js';
import { compileSpec, createPetstoreHandlers, type PetstoreHandlersOptions, toMockRequest } from './handlers.js';

// The MSW adapter's own concerns (which URLs it takes, the Request <-> MockRequest translation,
// body limits while reading a stream, state per factory); the interface's rules over MSW run from
// test/integration/interface-rules.case.ts. The transport alone, without interception: msw's getResponse(handlers, request) resolves a
// response exactly as setupServer / setupWorker would, or undefined when no handler matches.

const spec = await readSpecFile();
const clock = createFixedClock(Date.parse('2026-03-01T12:00:00Z'));
const auth = { authorization: 'Bearer demo-pro' };

function mock(options: Partial<PetstoreHandlersOptions> = {}) {
  return createPetstoreHandlers({ spec, clock, seed: 3, ...options });
}

describe('which requests the handlers take', () => {
  it('answers /v1 and /v1/* of any origin by default, and /__mock/* of any origin', async () => {
    const { handlers } = mock();
    for (const url of [
      'https://api.petstore.example/v1/categories',
      'http://localhost:5173/v1/categories?x=1',
      'http://127.0.0.1:9/v1/categories/',
    ]) {
      expect((await getResponse(handlers, new Request(url, { headers: auth })))?.status, url).toBe(200);
    }
    expect((await getResponse(handlers, new Request('http://localhost/v1', { headers: auth })))?.status).toBe(404);
    expect((await getResponse(handlers, new Request('http://localhost/__mock/health')))?.status).toBe(200);
  });

  it('leaves everything else to the network (or to other handlers)', async () => {
    const { handlers } = mock();
    for (const url of [
      'http://localhost/',
      'http://localhost/v10/categories',
      'http://localhost/api/v1/categories',
      'http://localhost/__mocks',
      'http://localhost/index.html',
    ]) {
      expect(await getResponse(handlers, new Request(url, { headers: auth })), url).toBeUndefined();
    }
  });

  it('takes only the origin of an absolute baseUrl, and serves the controls on that origin', async () => {
    const { handlers } = mock({ baseUrl: 'https://api.petstore.example/v1/' });
    expect(
      (await getResponse(handlers, new Request('https://api.petstore.example/v1/categories', { headers: auth })))
        ?.status,
    ).toBe(200);
    expect((await getResponse(handlers, new Request('https://api.petstore.example/__mock/health')))?.status).toBe(200);
    expect(
      await getResponse(handlers, new Request('https://staging.api.petstore.example/v1/categories', { headers: auth })),
    ).toBeUndefined();
    expect(
      await getResponse(handlers, new Request('http://api.petstore.example/v1/categories', { headers: auth })),
    ).toBeUndefined();
    expect(await getResponse(handlers, new Request('https://other.example/__mock/health'))).toBeUndefined();
  });

  it('serves the API under another base path when baseUrl asks for one, Location included', async () => {
    for (const specOption of [spec, compileSpec(spec)]) {
      const { handlers, app } = mock({ spec: specOption, baseUrl: 'http://localhost:3000/api/v1' });
      expect(app.basePath).toBe('/api/v1');
      const created = await getResponse(
        handlers,
        new Request(
          'http://localhost:3000/api/v1/categories',
          requestInit('POST', { key: 'demo-pro', json: { name: 'dog' } }),
        ),
      );
      expect(created?.status).toBe(201);
      expect(created?.headers.get('Location')).toBe('/api/v1/categories/4');
      expect(
        await getResponse(handlers, new Request('http://localhost:3000/v1/categories', { headers: auth })),
      ).toBeUndefined();
    }
  });

  it('refuses a baseUrl that is not a URL or a path', async () => {
    expect(() => mock({ baseUrl: 'api.petstore.example/v1' })).toThrow(
      'Failed to create the Petstore handlers: baseUrl "api.petstore.example/v1" is neither an absolute URL nor a path starting with /',
    );
  });
});

describe('the translation', () => {
  it('gives the core lower-case headers, path + query, the body bytes and no client address', async () => {
    const request = new Request('https://x.test/v1/categories?a=1&b=2', {
      method: 'POST',
      headers: { 'X-Custom': 'A', Authorization: 'Bearer k' },
      body: 'héllo',
    });
    const mockRequest = await toMockRequest(request, 1024);
    expect(mockRequest).toEqual({
      method: 'POST',
      url: '/v1/categories?a=1&b=2',
      headers: { 'x-custom': 'A', authorization: 'Bearer k', 'content-type': 'text/plain;charset=UTF-8' },
      body: new TextEncoder().encode('héllo'),
      clientAddress: undefined,
    });
    expect((await toMockRequest(new Request('https://x.test/v1'), 1024)).body).toBeNull();
  });

  it('answers 413 for a declared Content-Length over maxBodyBytes, without reading the body', async () => {
    const { handlers } = mock({ config: { maxBodyBytes: 16 } });
    const response = await getResponse(
      handlers,
      new Request('http://localhost/v1/categories', {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json', 'content-length': '17' },
        body: '{}',
      }),
    );
    expect(response?.status).toBe(413);
    expectError(await fromFetchResponse(response!), 413, 'payload_too_large', 'Request body exceeds 16 bytes');
  });

  it('answers 413 for a streamed body that grows past maxBodyBytes, and stops reading it', async () => {
    const { handlers } = mock({ config: { maxBodyBytes: 16 } });
    let pulls = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulls += 1;
        controller.enqueue(new TextEncoder().encode('{"name":"aaaa"} '));
      },
    });
    const request = new Request('http://localhost/v1/categories', {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: endless,
      duplex: 'half',
    } as RequestInit);
    const response = await getResponse(handlers, request);
    expect(response?.status).toBe(413);
    expect(pulls).toBeLessThan(5);
  });

  it('accepts a body of exactly maxBodyBytes', async () => {
    const body = '{"name":"abcdef"}';
    const { handlers } = mock({ config: { maxBodyBytes: body.length } });
    const response = await getResponse(
      handlers,
      new Request(
        'http://localhost/v1/categories',
        requestInit('POST', { key: 'demo-pro', body, headers: { 'content-type': 'application/json' } }),
      ),
    );
    expect(response?.status).toBe(201);
  });

  it('passes the core headers and body through, and leaves the body out for HEAD', async () => {
    const { handlers } = mock();
    const response = await getResponse(handlers, new Request('http://localhost/v1/categories', { headers: auth }));
    expect(response?.headers.get('content-type')).toBe('application/json');
    expect(response?.headers.get('x-ratelimit-limit')).toBe('300');
    expect(response?.headers.get('x-ratelimit-reset')).toBe(String(Date.parse('2026-03-01T12:01:00Z') / 1000));
    const text = await response!.text();
    expect(JSON.parse(text)).toHaveLength(3);
    const head = await getResponse(
      handlers,
      new Request('http://localhost/v1/categories', { method: 'HEAD', headers: auth }),
    );
    // The GET answer's head (RFC 9110 §9.3.2), with the Content-Length of the body it leaves out.
    expect(head?.status).toBe(200);
    expect(head?.headers.get('content-type')).toBe('application/json');
    expect(head?.headers.get('content-length')).toBe(String(new TextEncoder().encode(text).byteLength));
    expect(head?.body).toBeNull();
  });
});

describe('state and controls', () => {
  it('exposes the core and its controls; two factories never share state', async () => {
    const first = mock();
    const second = mock();
    expect(first.controls).toBe(first.app.controls);
    await getResponse(
      first.handlers,
      new Request(
        'http://localhost/v1/categories',
        requestInit('POST', { key: 'demo-pro', json: { name: 'only-in-first' } }),
      ),
    );
    expect((await first.controls.categories()).map((category) => category.name)).toContain('only-in-first');
    expect((await second.controls.categories()).map((category) => category.name)).not.toContain('only-in-first');
    await first.controls.reset();
    expect(await first.controls.categories()).toEqual(await second.controls.categories());
  });

  it('starts from initialCategories when given, and reset restores them', async () => {
    const { handlers, controls } = mock({
      initialCategories: [{ name: 'dog' }, { name: 'cat', description: 'Cats.' }],
    });
    const list = async () =>
      (await getResponse(handlers, new Request('http://localhost/v1/categories', { headers: auth })))!.json();
    expect(await list()).toEqual([
      { id: 1, name: 'dog' },
      { id: 2, name: 'cat', description: 'Cats.' },
    ]);
    await controls.addKey({ key: 'extra', plan: 'free' });
    await controls.reset();
    expect((await controls.keys()).map((key) => key.plan)).toEqual(['free', 'pro', 'business', 'enterprise']);
  });
});
