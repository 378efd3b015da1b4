/// <reference types="jest" />
import type http from 'node:http';
import request from 'supertest';

export interface OpenApiServersTestsOptions {
  /** the service's OpenAPI file as shipped */
  openapi: Record<string, unknown>;
  /** the app with its base URL setting set to `baseUrl`, or left unset (undefined) */
  app: (baseUrl: string | undefined) => http.RequestListener | Promise<http.RequestListener>;
  /** a base URL with a path prefix, as a proxy would publish the service */
  baseUrl: string;
  /** the base URL's default (the service's local address), named when the Host cannot be */
  fallback: string;
}

/**
 * The tests of the rule /openapi.json's `servers` follows (service-kit's serviceAddress), at the
 * top level of the calling test file: the base URL setting when given, else the request's own
 * origin; a Host that is not host[:port] is never repeated. Everything but `servers` is the file.
 */
export function openApiServersTests({
  openapi,
  app,
  baseUrl,
  fallback,
}: OpenApiServersTestsOptions): void {
  const served = async (handler: http.RequestListener, headers: Record<string, string> = {}) => {
    const res = await request(handler).get('/openapi.json').set(headers);
    expect([res.status, res.headers['content-type']]).toEqual([
      200,
      'application/json;charset=utf-8',
    ]);
    return { res, body: res.body as Record<string, unknown> };
  };

  test('When the base URL setting is given, /openapi.json names it as servers, path prefix and all, whatever the Host', async () => {
    const handler = await app(baseUrl);
    for (const headers of [{}, { Host: '127.0.0.1:9999' }] as Array<Record<string, string>>) {
      const { body } = await served(handler, headers);
      expect(body).toEqual({ ...openapi, servers: [{ url: baseUrl }] });
    }
  });

  test("When no base URL is set, /openapi.json names the request's own origin, http://<Host>", async () => {
    const handler = await app(undefined);
    const { res, body } = await served(handler);
    const host = new URL((res as unknown as { request: { url: string } }).request.url).host;
    expect(body).toEqual({ ...openapi, servers: [{ url: `http://${host}` }] });
    expect((await served(handler, { Host: '127.0.0.1:9999' })).body.servers).toEqual([
      { url: 'http://127.0.0.1:9999' },
    ]);
  });

  test('When the Host is not a valid host[:port], /openapi.json names the configured default instead', async () => {
    const handler = await app(undefined);
    for (const host of [
      'evil"}],"x":{"url":"https://evil.example',
      'a b',
      'x.example/path',
      'x.example:99999',
    ]) {
      expect([host, (await served(handler, { Host: host })).body.servers]).toEqual([
        host,
        [{ url: fallback }],
      ]);
    }
  });

  test('When a request carries X-Forwarded-Proto and X-Forwarded-Host, /openapi.json ignores them (the app trusts no proxy)', async () => {
    const handler = await app(undefined);
    const { body } = await served(handler, {
      Host: '127.0.0.1:9999',
      'X-Forwarded-Proto': 'https',
      'X-Forwarded-Host': 'api.example.com',
    });
    expect(body.servers).toEqual([{ url: 'http://127.0.0.1:9999' }]);
  });
}
