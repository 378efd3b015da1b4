import type { SearchClient } from '@hub/client' with { 'resolution-mode': 'import' };
import { listen } from '@hub/testing';
import type { SearchApp } from '../../src/app';
import { closeAfterAll, newCollection, useSearchApp } from './harness';
import type { TestCollection } from './requests';

// The client is ESM: loaded with import() (jest maps it to its TypeScript sources).
export type ClientModule = typeof import('@hub/client', { with: { 'resolution-mode': 'import' } });
export const loadClient = (): Promise<ClientModule> => import('@hub/client');

export interface ClientTest {
  /** the address the test file's app listens on */
  url: string;
  /** @hub/client */
  lib: ClientModule;
}

/**
 * A test file's app listening on a port of this machine, and the client module, handed to
 * `opened` before its tests. Returns `collection`: a new collection and its SearchClient.
 */
export function useClientTest(opened: (t: ClientTest) => void) {
  let app: SearchApp;
  let url: string;
  let lib: ClientModule;
  useSearchApp((t) => ({ app } = t));
  beforeAll(async () => {
    const server = await listen(app);
    closeAfterAll(server.close);
    url = server.url;
    lib = await loadClient();
    opened({ url, lib });
  });
  return {
    collection: async (
      limits: { max_documents?: number } = {},
    ): Promise<{ c: TestCollection; search: SearchClient }> => {
      const c = await newCollection(app, limits);
      return { c, search: new lib.SearchClient({ baseUrl: url, cid: c.cid, apikey: c.apikey }) };
    },
  };
}

/** A valid doc to give the client, `extra` added or replaced. */
export function clientDoc(extra: Record<string, unknown> = {}) {
  return {
    icontents_title: '서울의 가을 산책길',
    icontents_body: '단풍이 아름다운 산책 코스',
    score_regdate: 1700000000,
    ...extra,
  };
}
