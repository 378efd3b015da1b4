import { SEARCH_ERRORS } from '@hub/contracts';
import { createPostgresIndex } from '../src/index/postgres/postgres-index';
import type { SearchIndex } from '../src/index/search-index';
import type { ThumbnailService } from '../src/thumbnails/thumbnail-service';
import { appWithCollection, makeApp, useSearchDatabase } from './helpers/harness';
import { client, docJson } from './helpers/requests';

/** What the routes answer when the engine (or the thumbnail service) fails or is not ready. */

const db = useSearchDatabase();

function engine(overrides: Partial<SearchIndex>): SearchIndex {
  const real = createPostgresIndex(db.pool);
  return Object.assign(Object.create(real) as SearchIndex, overrides);
}

test('When the engine is stopped, search answers 503 make search result fail and status 503 make status result fail', async () => {
  const down = engine({
    search: async () => {
      throw new Error('engine stopped');
    },
    status: async () => {
      throw new Error('engine stopped');
    },
  });
  const { app, api } = await appWithCollection(db, {}, { index: down });
  let res = await api.search({ q: 'x' });
  expect([res.status, res.text]).toEqual([503, SEARCH_ERRORS.search.makeResultFail.text]);
  res = await api.status();
  expect([res.status, res.text]).toEqual([503, SEARCH_ERRORS.status.makeStatusResultFail.text]);
  await app.services.close();
});

test('When the engine says a collection is not searchable, status answers search_status "false"', async () => {
  const { app, api } = await appWithCollection(
    db,
    {},
    {
      index: engine({ status: async () => ({ searchable: false, reason: 'index being rebuilt' }) }),
    },
  );
  await api.add('a', docJson());
  let res = await api.status('json');
  expect(JSON.parse(res.text)).toEqual({ search_status: 'false', document_count: 1 });
  res = await api.status('xml');
  expect(res.text).toContain(
    '<search_status>false</search_status><document_count>1</document_count>',
  );
  await app.services.close();
});

test('When the engine cannot record a change, the write is rolled back and answers its process-fail row', async () => {
  const failing = engine({
    recordChange: async () => {
      throw new Error('engine refused');
    },
    addedDocumentSql: () => {
      throw new Error('engine refused');
    },
  });
  const { app: healthy, c, api: kept } = await appWithCollection(db);
  await kept.add('kept', docJson());
  const app = makeApp(db, { index: failing });
  const api = client(app, c);
  expect((await api.add('new', docJson())).text).toBe(SEARCH_ERRORS.add.addProcessFail.text);
  expect((await api.update('kept', docJson({ icontents_title: 'changed' }))).text).toBe(
    SEARCH_ERRORS.update.updateProcessFail.text,
  );
  expect((await api.updateField('kept', 'score_x', '1')).text).toBe(
    SEARCH_ERRORS.fieldUpdate.updateFieldProcessFail.text,
  );
  expect((await api.delete('kept')).text).toBe(SEARCH_ERRORS.delete.deleteProcessFail.text);
  const { rows } = await db.pool.query(
    'SELECT dockey, doc, collection_document_count($1) AS n FROM documents WHERE collection_id = $1',
    [c.cid],
  );
  expect(rows.map((r) => r.dockey)).toEqual(['kept']);
  expect(JSON.parse(rows[0].doc).icontents_title).toBe('a title');
  expect(rows[0].n).toBe(1);
  await app.services.close();
  await healthy.services.close();
});

test('When the thumbnail service refuses a document image, add answers its 406 and stores nothing', async () => {
  const thumbnails: ThumbnailService = {
    async recordChange(_tx, change) {
      if (change.doc?.image) {
        const { ServiceError } = await import('@hub/service-kit');
        throw new ServiceError(SEARCH_ERRORS.add.thumbnailKeyFail);
      }
    },
    async resultFields() {
      return new Map();
    },
  };
  const { app, api } = await appWithCollection(db, {}, { thumbnails });
  const res = await api.add('img', docJson({ contents_image: 'https://example.com/a.jpg' }));
  expect([res.status, res.text]).toEqual([406, SEARCH_ERRORS.add.thumbnailKeyFail.text]);
  expect(JSON.parse((await api.status()).text).document_count).toBe(0);
  await app.services.close();
});

test('When the thumbnail service gives archive fields, search results carry them after the stored fields', async () => {
  const thumbnails: ThumbnailService = {
    async recordChange() {},
    async resultFields(_cid, ids) {
      return new Map(ids.map((id) => [id, { archive_thumbnail_130X130: `http://thumbs/${id}` }]));
    },
  };
  const { app, api } = await appWithCollection(db, {}, { thumbnails });
  await api.add('a', docJson({ icontents_title: 'pictured' }));
  const res = await api.search({ q: 'pictured' });
  const doc = JSON.parse(res.text).docs[0];
  expect(Object.keys(doc)).toEqual([
    'dockey',
    'icontents_title',
    'icontents_body',
    'score_regdate',
    'categories',
    'archive_thumbnail_130X130',
  ]);
  expect(doc.archive_thumbnail_130X130).toMatch(/^http:\/\/thumbs\/\d+$/);
  await app.services.close();
});
