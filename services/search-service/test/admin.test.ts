import request from 'supertest';
import { SEARCH_ERRORS } from '@hub/contracts';
import { listen, type Listening } from '@hub/testing';
import type { SearchApp } from '../src/app';
import { runAdminCli } from '../src/cli/admin';
import { ADMIN_TOKEN, adminApi, adminCli } from './helpers/admin';
import { useSearchApp } from './helpers/harness';
import { client, docJson } from './helpers/requests';

let app: SearchApp;
const db = useSearchApp((t) => ({ app } = t), {
  env: { SEARCH_DEFAULT_MAX_DOCUMENTS: '500', SEARCH_DEFAULT_MAX_API_CALLS: '7000' },
});

const admin = () => adminApi(app);

describe('admin API', () => {
  test('When the Bearer token is missing or wrong, every admin call answers 401', async () => {
    for (const auth of [
      undefined,
      'Bearer nope',
      `Basic ${ADMIN_TOKEN}`,
      `Bearer ${ADMIN_TOKEN}x`,
    ]) {
      const r = request(app).post('/admin/collections');
      const res = await (auth ? r.set('Authorization', auth) : r).send({});
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: 'missing or invalid admin token' });
      expect(res.headers['www-authenticate']).toBe('Bearer');
    }
    expect((await request(app).get('/admin/collections')).status).toBe(401);
  });

  test('When a collection is created with JSON, it answers 201 with an 8-character id and a 32-hex key', async () => {
    const res = await admin().post('/collections').send({ max_documents: 100000 });
    expect(res.status).toBe(201);
    expect(res.body.collection_id).toMatch(/^[A-Za-z0-9]{8}$/);
    expect(res.body.apikey).toMatch(/^[0-9a-f]{32}$/);
    expect(res.body).toMatchObject({
      max_documents: 100000,
      max_api_calls: 7000,
      thumbnail_size: '130X130',
      document_count: 0,
    });
    // the key is never stored: only its SHA-256
    const { rows } = await db.pool.query('SELECT apikey_hash FROM collections WHERE id = $1', [
      res.body.collection_id,
    ]);
    expect(rows[0].apikey_hash).toHaveLength(32);
    expect(rows[0].apikey_hash.toString('hex')).not.toContain(res.body.apikey);
  });

  test('When a collection is created with a form or no body, configured defaults fill the gaps', async () => {
    let res = await admin()
      .post('/collections')
      .type('form')
      .send('max_api_calls=5&thumbnail_size=200x100');
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      max_documents: 500,
      max_api_calls: 5,
      thumbnail_size: '200X100',
    });
    res = await admin().post('/collections');
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ max_documents: 500, max_api_calls: 7000 });
  });

  test('When a limit is not a whole number in range or a field is unknown, create answers 400', async () => {
    for (const body of [
      { max_documents: -1 },
      { max_documents: 1.5 },
      { max_documents: 'many' },
      { max_api_calls: 2 ** 60 },
      { thumbnail_size: '10X10' },
      { thumbnail_size: 130 },
      { colour: 'blue' },
    ]) {
      const res = await admin().post('/collections').send(body);
      expect([body, res.status]).toEqual([body, 400]);
      expect(typeof res.body.error).toBe('string');
    }
    const res = await admin()
      .post('/collections')
      .set('Content-Type', 'application/json')
      .send('{oops');
    expect(res.status).toBe(400);
    const xml = await admin()
      .post('/collections')
      .set('Content-Type', 'application/xml')
      .send('<a/>');
    expect(xml.status).toBe(415);
  });

  test('When a collection exists, get answers 200 with it; otherwise 404', async () => {
    const created = (await admin().post('/collections').send({})).body;
    const res = await admin().get(`/collections/${created.collection_id}`);
    expect(res.status).toBe(200);
    expect(res.body.collection_id).toBe(created.collection_id);
    expect(res.body.apikey).toBeUndefined();
    expect((await admin().get('/collections/Zz9Zz9Zz')).status).toBe(404);
    expect((await admin().get('/collections/not-an-id')).status).toBe(404);
  });

  test('When collections are listed, they come in id order, paged by limit and after', async () => {
    const all = (await admin().get('/collections?limit=1000')).body.collections as Array<{
      collection_id: string;
    }>;
    const ids = all.map((c) => c.collection_id);
    expect(ids).toEqual([...ids].sort());
    const first = await admin().get('/collections?limit=2');
    expect(first.body.collections.map((c: { collection_id: string }) => c.collection_id)).toEqual(
      ids.slice(0, 2),
    );
    expect(first.body.next_after).toBe(ids[1]);
    const next = await admin().get(`/collections?limit=2&after=${first.body.next_after}`);
    expect(next.body.collections[0].collection_id).toBe(ids[2]);
  });

  test('When the key is rotated, the old key stops working and the new one works', async () => {
    const created = (await admin().post('/collections').send({})).body;
    const c = { cid: created.collection_id, apikey: created.apikey };
    expect((await client(app, c).status()).status).toBe(200);
    const rotated = await admin().post(`/collections/${c.cid}/rotate-key`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.apikey).toMatch(/^[0-9a-f]{32}$/);
    expect(rotated.body.apikey).not.toBe(c.apikey);
    expect((await client(app, c).status()).text).toBe(SEARCH_ERRORS.common.apikeyInvalid.text);
    expect((await client(app, { ...c, apikey: rotated.body.apikey }).status()).status).toBe(200);
    expect((await admin().post('/collections/Zz9Zz9Zz/rotate-key')).status).toBe(404);
  });

  test('When limits are changed, the new maximum applies to the next add at once', async () => {
    const created = (await admin().post('/collections').send({ max_documents: 1 })).body;
    const api = client(app, { cid: created.collection_id, apikey: created.apikey });
    expect((await api.add('a', docJson())).status).toBe(200);
    expect((await api.add('b', docJson())).text).toBe(SEARCH_ERRORS.add.indexMaxReached.text);
    const patched = await admin()
      .patch(`/collections/${created.collection_id}`)
      .send({ max_documents: 2 });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ max_documents: 2, document_count: 1 });
    expect((await api.add('b', docJson())).status).toBe(200);
    expect((await admin().patch('/collections/Zz9Zz9Zz').send({ max_documents: 2 })).status).toBe(
      404,
    );
    expect(
      (await admin().patch(`/collections/${created.collection_id}`).send({ max_documents: -2 }))
        .status,
    ).toBe(400);
  });

  test('When a collection is deleted, its documents go with it and its id answers cid is invalid', async () => {
    const created = (await admin().post('/collections').send({})).body;
    const c = { cid: created.collection_id, apikey: created.apikey };
    expect((await client(app, c).add('a', docJson())).status).toBe(200);
    const res = await admin().delete(`/collections/${c.cid}`);
    expect(res.status).toBe(204);
    const { rows } = await db.pool.query(
      'SELECT count(*)::int AS n FROM documents WHERE collection_id = $1',
      [c.cid],
    );
    expect(rows[0].n).toBe(0);
    const { rows: search } = await db.pool.query(
      `SELECT (SELECT count(*) FROM search_pending WHERE collection_id = $1)
            + (SELECT count(*) FROM search_segments WHERE collection_id = $1)
            + (SELECT count(*) FROM search_docnos WHERE collection_id = $1) AS n`,
      [c.cid],
    );
    expect(Number(search[0].n)).toBe(0);
    expect((await client(app, c).status()).text).toBe(SEARCH_ERRORS.common.cidInvalid.text);
    expect((await admin().get(`/collections/${c.cid}`)).status).toBe(404);
    expect((await admin().delete(`/collections/${c.cid}`)).status).toBe(404);
  });

  test('When an admin path does not exist, it answers 404 JSON', async () => {
    const res = await admin().get('/nothing');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'not found' });
  });
});

describe('admin CLI', () => {
  let server: Listening;
  beforeAll(async () => (server = await listen(app)));
  afterAll(() => server.close());
  const cli = (...argv: string[]) => adminCli(server.url, ...argv);

  test('When an operator runs create, get, set-limits, rotate-key, list and delete, each does its admin call', async () => {
    const created = await cli(
      'create',
      '--max-documents',
      '10',
      '--max-api-calls=20',
      '--thumbnail-size',
      '64X64',
    );
    expect(created.code).toBe(0);
    const c = JSON.parse(created.out);
    expect(c).toMatchObject({ max_documents: 10, max_api_calls: 20, thumbnail_size: '64X64' });
    expect(c.apikey).toMatch(/^[0-9a-f]{32}$/);

    const got = await cli('get', c.collection_id);
    expect(JSON.parse(got.out).collection_id).toBe(c.collection_id);

    const set = await cli('set-limits', c.collection_id, '--max-documents', '11');
    expect(JSON.parse(set.out).max_documents).toBe(11);

    const rotated = await cli('rotate-key', c.collection_id);
    expect(JSON.parse(rotated.out).apikey).not.toBe(c.apikey);

    const list = await cli('list', '--limit', '1000');
    expect(
      JSON.parse(list.out).collections.map((x: { collection_id: string }) => x.collection_id),
    ).toContain(c.collection_id);

    const deleted = await cli('delete', c.collection_id);
    expect(deleted.code).toBe(0);
    expect(JSON.parse(deleted.out)).toEqual({ deleted: c.collection_id });
    const gone = await cli('get', c.collection_id);
    expect(gone.code).toBe(1);
    expect(gone.err).toContain('404');
  });

  test('When the command or its arguments are wrong, the CLI prints usage and exits 2', async () => {
    expect((await cli('explode')).code).toBe(2);
    expect((await cli('get')).code).toBe(2);
    expect((await cli('create', '--colour', 'blue')).code).toBe(2);
    expect((await cli('set-limits', 'abcdefgh')).code).toBe(2);
    const noToken = await runAdminCli(['list'], {}, { out: () => {}, err: () => {}, fetch });
    expect(noToken).toBe(2);
  });

  test('When the admin API refuses a value, the CLI shows the answer and exits 1', async () => {
    const res = await cli('create', '--max-documents', 'lots');
    expect(res.code).toBe(1);
    expect(JSON.parse(res.out).error).toMatch(/max_documents/);
  });
});
