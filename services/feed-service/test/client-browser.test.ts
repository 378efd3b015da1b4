import { FEED_CATEGORY_CODES, FEED_ERRORS } from '@hub/contracts';
import { chromiumMissing, launchChromium } from '@hub/testing';
import {
  FEED_BASE,
  JSON_TYPE,
  ORIGIN,
  PAGE,
  sourceOf,
  toBrowserModule,
  type BrowserRun,
  type ClientModule,
} from './helpers/browser-page';
import { serveApp, useDatabase } from './helpers/harness';
import { READ_TOKEN, WRITE_TOKEN } from './helpers/tokens';

const CHROMIUM_SKIP = chromiumMissing();
const browserTest = CHROMIUM_SKIP ? test.skip : test;
if (CHROMIUM_SKIP) console.warn(`@hub/client browser test${CHROMIUM_SKIP}`);

const db = useDatabase();

browserTest(
  `When the client runs in a browser, it publishes, reads, revalidates with If-None-Match and throws the contract's typed error${CHROMIUM_SKIP ?? ''}`,
  async () => {
    // FEED_BASE_URL = the address the page calls the service by
    const service = await serveApp(db, { FEED_BASE_URL: FEED_BASE });
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      const pageErrors: string[] = [];
      const consoleErrors: string[] = [];
      const unanswered: string[] = [];
      /** what reached the service: method, path and the If-None-Match the page sent */
      const forwarded: string[] = [];
      page.on('pageerror', (e) => pageErrors.push(e.message));
      page.on('console', (m) => {
        if (m.type() === 'error') consoleErrors.push(m.text());
      });
      await page.route('**/*', async (route) => {
        const request = route.request();
        const url = new URL(request.url());
        if (url.origin !== ORIGIN) {
          unanswered.push(request.url());
          return route.abort();
        }
        if (url.pathname === '/index.html') {
          return route.fulfill({
            status: 200,
            contentType: 'text/html; charset=utf-8',
            body: PAGE,
          });
        }
        if (url.pathname.startsWith('/feed/')) {
          const target = `${service.url}${url.pathname.slice('/feed'.length)}${url.search}`;
          const inm = (await request.allHeaders())['if-none-match'];
          forwarded.push(`${request.method()} ${url.pathname}${inm ? ' If-None-Match' : ''}`);
          const response = await route.fetch({ url: target, maxRedirects: 0 });
          return route.fulfill({ response });
        }
        const file = sourceOf(url.pathname);
        if (file !== undefined) {
          return route.fulfill({
            status: 200,
            contentType: 'text/javascript; charset=utf-8',
            body: toBrowserModule(file),
          });
        }
        unanswered.push(request.url());
        return route.fulfill({ status: 404, contentType: 'text/plain', body: 'not found' });
      });
      const loaded = await page.goto(`${ORIGIN}/index.html`);
      expect(loaded?.status()).toBe(200);

      // A string, so jest's swc (CommonJS) does not turn this import() into a require().
      await page.evaluate(
        "import('/client/index.js').then((m) => { globalThis.hubClient = m; return true; })",
      );
      const run = await page.evaluate(
        async ({ base, writeToken, readToken }): Promise<Omit<BrowserRun, 'fetches'>> => {
          // Runs in Chromium, with the module loaded above from /client/... as plain ESM.
          const lib = (globalThis as unknown as { hubClient: ClientModule }).hubClient;
          const writer = new lib.FeedClient({ baseUrl: base, token: writeToken });
          const reader = new lib.FeedClient({ baseUrl: base, token: () => readToken });
          const link = 'https://hub.example.com/browser/1';
          const published = await writer.publish({
            title: '브라우저에서 발행한 글',
            link,
            description: 'published from Chromium',
            category: 'trip',
            creator: '김하늘',
            pubDate: new Date(Date.UTC(2026, 10, 23, 5, 26, 57)),
          });
          const first = await reader.read({ category: 'trip' });
          const hit = first.feed.channel.item.find((i) => i.link === link);
          const second = await reader.read({ category: 'trip' });
          const errors: Omit<BrowserRun, 'fetches'>['errors'] = [];
          const failing = [
            () => new lib.FeedClient({ baseUrl: base, token: 'not-a-jwt' }).read(),
            () => reader.read({ category: 'no-such-category' as 'trip' }),
          ];
          for (const call of failing) {
            try {
              await call();
              errors.push({
                name: 'none',
                isFeedError: false,
                status: 0,
                code: '',
                text: '',
                detail: undefined,
              });
            } catch (e) {
              const err = e as InstanceType<typeof lib.FeedError>;
              errors.push({
                name: err.constructor.name,
                isFeedError: e instanceof lib.FeedError,
                status: err.status,
                code: err.code,
                text: err.text,
                detail: err.detail,
              });
            }
          }
          return {
            published: {
              status: published.status,
              created: published.created,
              location: published.location,
              title: published.item.title,
              id: published.item.id,
            },
            firstRead: {
              status: first.status,
              notModified: first.notModified,
              contentType: first.contentType,
              etagIsWeak: /^W\/".+"$/.test(first.etag ?? ''),
              found: hit && { title: hit.title, link: hit.link, creator: hit.creator ?? '' },
            },
            secondRead: {
              status: second.status,
              notModified: second.notModified,
              sameEtag: second.etag === first.etag,
              sameFeed: second.feed === first.feed,
              found: second.feed.channel.item.some((i) => i.link === link),
            },
            errors,
          };
        },
        { base: FEED_BASE, writeToken: WRITE_TOKEN, readToken: READ_TOKEN },
      );

      expect(run.published.id).toMatch(/^[0-9]+$/);
      expect({ ...run, fetches: forwarded }).toEqual({
        published: {
          status: 201,
          created: true,
          location: `${FEED_BASE}/hub/contents/${run.published.id}`,
          title: '브라우저에서 발행한 글',
          id: run.published.id,
        },
        firstRead: {
          status: 200,
          notModified: false,
          contentType: JSON_TYPE,
          etagIsWeak: true,
          found: {
            title: '브라우저에서 발행한 글',
            link: 'https://hub.example.com/browser/1',
            creator: '김하늘',
          },
        },
        secondRead: { status: 304, notModified: true, sameEtag: true, sameFeed: true, found: true },
        errors: [
          {
            name: 'FeedError',
            isFeedError: true,
            status: FEED_ERRORS.authenticationFailed.status,
            code: 'authenticationFailed',
            text: FEED_ERRORS.authenticationFailed.text,
            detail: 'malformed token', // the service's reason (see auth.test.ts), not a contract row
          },
          {
            name: 'FeedError',
            isFeedError: true,
            status: FEED_ERRORS.invalidParameter.status,
            code: 'invalidParameter',
            text: FEED_ERRORS.invalidParameter.text,
            detail: `category_code must be one of ${FEED_CATEGORY_CODES.join(', ')}`,
          },
        ],
        fetches: [
          'POST /feed/hub/contents',
          'GET /feed/hub/categories/trip/contents',
          'GET /feed/hub/categories/trip/contents If-None-Match',
          'GET /feed/hub/contents',
          'GET /feed/hub/categories/no-such-category/contents',
        ],
      } satisfies BrowserRun);
      expect([pageErrors, unanswered]).toEqual([[], []]);
      // Chromium logs each error answer of a fetch; nothing else may be logged as an error.
      const failedLoad = /^Failed to load resource: the server responded with a status of (\d+) /;
      expect(consoleErrors.map((text) => Number(failedLoad.exec(text)?.[1] ?? NaN))).toEqual([
        FEED_ERRORS.authenticationFailed.status,
        FEED_ERRORS.invalidParameter.status,
      ]);
    } finally {
      await browser.close();
      await service.close();
    }
  },
);
