import { DOMParser } from '@xmldom/xmldom';
import request from 'supertest';
import { ITEM_LIMITS } from '../src/domain/item-input';
import { del, item, makeApp, publish, put, useDatabase, write } from './helpers/harness';
import { READ_TOKEN, WRITE_TOKEN } from './helpers/tokens';

const db = useDatabase({ emptyEachTest: true });

async function count(): Promise<number> {
  const { rows } = await db.pool.query<{ n: string }>('SELECT count(*) AS n FROM feed_items');
  return Number(rows[0]!.n);
}

describe('422: bad items are refused and nothing is stored', () => {
  const long = (n: number) => '가'.repeat(n);
  const cases: [string, Record<string, unknown>, RegExp][] = [
    [
      'unknown category',
      { category: 'movies' },
      /category must be one of life, culture, trip, it, food, biz/,
    ],
    ['missing title', { title: undefined }, /title is required/],
    ['blank title', { title: '   ' }, /title must not be empty/],
    ['missing link', { link: undefined }, /link is required/],
    ['missing description', { description: undefined }, /description is required/],
    ['missing creator', { creator: undefined }, /creator is required/],
    ['missing category', { category: undefined }, /category is required/],
    ['relative link', { link: '/contents/1' }, /link must be an absolute http or https URL/],
    ['ftp link', { link: 'ftp://hub.example.com/x' }, /link must be an absolute http or https URL/],
    [
      'javascript link',
      { link: 'javascript:alert(1)' },
      /link must be an absolute http or https URL/,
    ],
    [
      'link with a space',
      { link: 'https://hub.example.com/a b' },
      /link must contain only URI characters/,
    ],
    [
      'link with <',
      { link: 'https://hub.example.com/a?<b>' },
      /link must contain only URI characters/,
    ],
    [
      'link with raw Korean',
      { link: 'https://hub.example.com/한글' },
      /link must contain only URI characters/,
    ],
    ['unparseable date', { pubDate: 'yesterday' }, /pubDate must be an RFC 822 or ISO 8601/],
    ['date without zone', { pubDate: '2026-11-23T05:26:57' }, /pubDate/],
    ['impossible date', { pubDate: '2026-02-30T00:00:00Z' }, /pubDate/],
    ['wrong weekday', { pubDate: 'Tue, 23 Nov 2026 05:26:57 GMT' }, /pubDate/],
    ['numeric date', { pubDate: 1700000000 }, /pubDate must be a string/],
    ['number title', { title: 42 }, /title must be a string/],
    ['array creator', { creator: ['a'] }, /creator must be a string/],
    [
      'over-long title',
      { title: long(ITEM_LIMITS.title + 1) },
      /title must be at most 300 characters/,
    ],
    [
      'over-long description',
      { description: long(ITEM_LIMITS.description + 1) },
      /description must be at most 20000 characters/,
    ],
    [
      'over-long creator',
      { creator: long(ITEM_LIMITS.creator + 1) },
      /creator must be at most 200 characters/,
    ],
    ['control character', { title: 'a\u0000b' }, /title contains a control character/],
    [
      'lone surrogate',
      { description: 'x\ud800y' },
      /description contains a control character or an unpaired surrogate/,
    ],
    ['author not an e-mail', { author: '홍길동' }, /author must be an e-mail address/],
    [
      'enclosure not an object',
      { enclosure: 'https://img.example.com/a.png' },
      /enclosure must be an object/,
    ],
    ['enclosure without url', { enclosure: { type: 'image/png' } }, /enclosure.url is required/],
    [
      'enclosure bad length',
      { enclosure: { url: 'https://img.example.com/a.png', length: '12kb' } },
      /enclosure.length must be a non-negative integer/,
    ],
    [
      'enclosure negative length',
      { enclosure: { url: 'https://img.example.com/a.png', length: -1 } },
      /enclosure.length/,
    ],
    [
      'enclosure bad type',
      { enclosure: { url: 'https://img.example.com/a.png', type: 'png' } },
      /enclosure.type must be a MIME type/,
    ],
    [
      'enclosure unknown field',
      { enclosure: { url: 'https://img.example.com/a.png', size: 1 } },
      /enclosure."size" is not a known field/,
    ],
    ['unknown field', { guid: 'x' }, /"guid" is not a known field/],
  ];
  test.each(cases)(
    'When the item has %s, POST /hub/contents answers 422 naming the field',
    async (_name, overrides, message) => {
      const app = await makeApp(db);
      const res = await publish(app, item(overrides));
      expect(res.status).toBe(422);
      expect(res.body.error.status).toBe(422);
      expect(res.body.error.message).toMatch(/^invalid parameter or missing required value: /);
      expect(res.body.error.message).toMatch(message);
      expect(await count()).toBe(0);
    },
  );

  test('When the body is not a JSON object, POST answers 422', async () => {
    const app = await makeApp(db);
    for (const body of ['[]', '"text"', '42', 'null']) {
      const res = await write(app, 'post', '/hub/contents', body);
      expect([body, res.status]).toEqual([body, 422]);
    }
    expect(await count()).toBe(0);
  });

  test('When an error message quotes entity-like input, the XML error body gives it back as text', async () => {
    const app = await makeApp(db);
    const res = await publish(app, { ...item(), '&amp;\r': 1 }).set('Accept', 'application/xml');
    expect(res.status).toBe(422);
    expect(res.headers['content-type']).toBe('application/xml;charset=utf-8');
    const message = new DOMParser()
      .parseFromString(res.text, 'text/xml')
      .getElementsByTagName('message')[0]!.textContent;
    expect(message).toBe(
      'invalid parameter or missing required value: "&amp;\\r" is not a known field',
    );
  });

  test('When the body is broken JSON, POST answers 422, not 500', async () => {
    const app = await makeApp(db);
    const res = await write(app, 'post', '/hub/contents', '{"title": ');
    expect(res.status).toBe(422);
    expect(res.body.error.message).toBe(
      'invalid parameter or missing required value: the body is not valid JSON',
    );
  });

  test('When the body is larger than 256 KB, POST answers 413', async () => {
    const app = await makeApp(db);
    const res = await publish(app, item({ description: 'x'.repeat(300 * 1024) }));
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ error: { status: 413, message: 'request body too large' } });
    expect(await count()).toBe(0);
  });

  test('When the body is not JSON (form data, no Content-Type), POST answers 415', async () => {
    const app = await makeApp(db);
    const form = await request(app)
      .post('/hub/contents')
      .set('Authorization', `Bearer ${WRITE_TOKEN}`)
      .type('form')
      .send('title=x');
    expect(form.status).toBe(415);
    const none = await request(app)
      .post('/hub/contents')
      .set('Authorization', `Bearer ${WRITE_TOKEN}`)
      .send(Buffer.from('{}'));
    expect(none.status).toBe(415);
    const latin = await write(app, 'post', '/hub/contents', '{}', {
      contentType: 'application/json; charset=latin1',
    });
    expect(latin.status).toBe(415);
  });
});

describe('authorisation of writes', () => {
  test('When the token lacks the hub:write scope, POST, PUT and DELETE answer 403 and change nothing', async () => {
    const app = await makeApp(db);
    const created = await publish(app, item());
    const id = created.body.id as string;
    const post = await publish(app, item(), READ_TOKEN);
    expect(post.status).toBe(403);
    expect(post.body).toEqual({
      error: { status: 403, message: 'the token lacks the hub:write scope' },
    });
    expect(post.headers['www-authenticate']).toBe(
      'Bearer realm="hub", error="insufficient_scope", scope="hub:write"',
    );
    expect((await put(app, id, item({ title: 'x' }), READ_TOKEN)).status).toBe(403);
    expect((await del(app, id, READ_TOKEN)).status).toBe(403);
    expect(await count()).toBe(1);
  });

  test('When there is no token, POST answers 401 before looking at the body', async () => {
    const app = await makeApp(db);
    const res = await request(app)
      .post('/hub/contents')
      .set('Content-Type', 'application/json')
      .send('{broken');
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="hub"');
  });

  test('When a write token comes only as access_token in the query, POST answers 401 (query tokens are for GET)', async () => {
    const app = await makeApp(db);
    const res = await request(app)
      .post(`/hub/contents?access_token=${WRITE_TOKEN}`)
      .set('Content-Type', 'application/json')
      .send(JSON.stringify(item()));
    expect(res.status).toBe(401);
  });
});
