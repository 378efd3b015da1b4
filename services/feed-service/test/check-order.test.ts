import request from 'supertest';
import {
  FEED_CATEGORY_CODES,
  FEED_CHECK_ORDER,
  FEED_ERRORS,
  feedChecksOf,
  type FeedCheckOf,
  type FeedErrorRow,
} from '@hub/contracts';
import type { FeedApp } from '../src/app';
import {
  ACCEPT_JSON,
  item,
  makeApp,
  publish,
  READ_TOKEN,
  useDatabase,
  WRITE_TOKEN,
} from './helpers/harness';

/**
 * The order of the checks is FEED_CHECK_ORDER's: for each step of an operation, a request
 * that breaks that step and every later one gets that step's answer. A step added to the
 * table for reads or publishing does not compile here until the test can break it.
 */

const db = useDatabase();

interface Answer {
  status: number;
  message: string;
}
function answer(row: FeedErrorRow, detail?: string): Answer {
  return { status: row.status, message: detail ? `${row.text}: ${detail}` : row.text };
}
const invalid = (detail: string) => answer(FEED_ERRORS.invalidParameter, detail);

/** The request, the answer when this step (and every later one) is broken. */
interface Broken<R> {
  break(r: R): R;
  answer: Answer;
}

/** Requests breaking each step from `step` on: the later steps first, so `step`'s wins. */
function breakFrom<R, C extends string>(
  checks: readonly C[],
  steps: Record<C, Broken<R>>,
  valid: R,
  step: C,
): R {
  const from = checks.indexOf(step);
  return checks
    .slice(from)
    .reverse()
    .reduce((r, check) => steps[check].break(r), valid);
}

/** The answer must be one of the errors the table lists for the step. */
function expectFromTable(check: string, got: Answer): void {
  const row = FEED_CHECK_ORDER.find((s) => s.check === check)!;
  const rows: readonly FeedErrorRow[] = row.errors;
  expect(rows.some((e) => e.status === got.status && got.message.startsWith(e.text))).toBe(true);
}

interface Read {
  path: string;
  token?: string;
  accept?: string;
}
const READ: Record<FeedCheckOf<'read'>, Broken<Read>> = {
  route: {
    break: (r) => ({ ...r, path: `${r.path}/more` }),
    answer: answer(FEED_ERRORS.notFound),
  },
  token: {
    break: (r) => ({ ...r, token: undefined }),
    answer: answer(FEED_ERRORS.authenticationFailed),
  },
  accept: {
    break: (r) => ({ ...r, accept: undefined }),
    answer: invalid('the Accept header is required'),
  },
  category: {
    break: (r) => ({ ...r, path: r.path.replace('/it/', '/nope/') }),
    answer: invalid(`category_code must be one of ${FEED_CATEGORY_CODES.join(', ')}`),
  },
};
const VALID_READ: Read = {
  path: '/hub/categories/it/contents',
  token: READ_TOKEN,
  accept: ACCEPT_JSON,
};

function send(app: FeedApp, r: Read) {
  let req = request(app).get(r.path);
  if (r.token !== undefined) req = req.set('Authorization', `Bearer ${r.token}`);
  if (r.accept !== undefined) req = req.set('Accept', r.accept);
  return req;
}

describe.each([
  ['the fast path (with the feed cached)', true],
  ['the Express route alone', false],
])('Reads through %s', (_name, fastPath) => {
  let app: FeedApp;
  beforeAll(async () => {
    app = await makeApp(db, {}, { fastPath });
    expect((await send(app, VALID_READ)).status).toBe(200); // cached from now on
  });

  test.each(feedChecksOf('read'))(
    'When a read breaks the %s check and every later one, that check answers',
    async (check) => {
      const res = await send(app, breakFrom(feedChecksOf('read'), READ, VALID_READ, check));
      const got = { status: res.status, message: (res.body as { error: Answer }).error.message };
      expect(got).toEqual(READ[check].answer);
      expectFromTable(check, got);
    },
  );
});

interface Write {
  path: string;
  token?: string;
  contentType: string;
  body: string | Record<string, unknown>;
}
const TAKEN = 'https://hub.example.com/check-order/taken';
const WRITE: Record<FeedCheckOf<'publish' | 'update'>, Broken<Write>> = {
  route: {
    break: (w) => ({ ...w, path: w.path.replace('/hub/contents', '/hub/contentz') }),
    answer: answer(FEED_ERRORS.notFound),
  },
  token: {
    break: (w) => ({ ...w, token: undefined }),
    answer: answer(FEED_ERRORS.authenticationFailed),
  },
  scope: { break: (w) => ({ ...w, token: READ_TOKEN }), answer: answer(FEED_ERRORS.forbidden) },
  contentType: {
    break: (w) => ({ ...w, contentType: 'text/plain' }),
    answer: answer(FEED_ERRORS.unsupportedMediaType),
  },
  body: {
    break: (w) => ({ ...w, body: '{"title": ' }),
    answer: invalid('the body is not valid JSON'),
  },
  item: {
    break: (w) => ({ ...w, body: { ...(w.body as object), title: '   ' } }),
    answer: invalid('title must not be empty'),
  },
  id: {
    break: (w) => ({ ...w, path: w.path.replace(/\/\d+$/, '/999999999') }),
    answer: answer(FEED_ERRORS.notFound),
  },
  link: {
    break: (w) => ({ ...w, body: item({ title: 'another', link: TAKEN }) }),
    answer: answer(FEED_ERRORS.linkConflict),
  },
};
const VALID_WRITE: Write = {
  path: '/hub/contents',
  token: WRITE_TOKEN,
  contentType: 'application/json',
  body: item({ link: 'https://hub.example.com/check-order/new' }),
};

function sendWrite(app: FeedApp, method: 'post' | 'put', w: Write) {
  let req = request(app)[method](w.path).set('Content-Type', w.contentType);
  if (w.token !== undefined) req = req.set('Authorization', `Bearer ${w.token}`);
  return req.send(typeof w.body === 'string' ? w.body : JSON.stringify(w.body));
}

describe.each([
  ['POST', 'publish'],
  ['PUT', 'update'],
] as const)('Writes: %s', (method, operation) => {
  let app: FeedApp;
  let valid: Write;
  beforeAll(async () => {
    app = await makeApp(db);
    const taken = await publish(app, item({ link: TAKEN }));
    expect([200, 201]).toContain(taken.status); // 200: the other describe published it
    if (operation === 'publish') valid = VALID_WRITE;
    else {
      const own = await publish(app, item({ link: 'https://hub.example.com/check-order/own' }));
      valid = { ...VALID_WRITE, path: `/hub/contents/${(own.body as { id: string }).id}` };
    }
  });

  test.each(feedChecksOf(operation))(
    `When a ${method} breaks the %s check and every later one, that check answers`,
    async (check) => {
      const w = breakFrom(feedChecksOf(operation), WRITE, valid, check);
      const res = await sendWrite(app, operation === 'publish' ? 'post' : 'put', w);
      const got = { status: res.status, message: (res.body as { error: Answer }).error.message };
      expect(got).toEqual(WRITE[check].answer);
      expectFromTable(check, got);
    },
  );
});
