import { spawnSync } from 'node:child_process';
import { BASE_URL, getFeed, item, makeApp, publish, useDatabase } from './helpers/harness';
import { ACCEPT_XML, TRICKY } from './helpers/requests';

/**
 * Checks that need a tool this machine may not have are chosen when the tests are defined:
 * without the tool they show as skipped, with the reason in their name and a warning,
 * never as a pass.
 */
const W3C_SRC = process.env.W3C_FEEDVALIDATOR_SRC; // a checkout's src/ (github.com/w3c/feedvalidator); python3 with lxml and html5lib
const W3C_SKIP = ' (skipped: W3C_FEEDVALIDATOR_SRC is not set)';
const w3cTest = W3C_SRC ? test : test.skip;
const XMLLINT = spawnSync('xmllint', ['--version']).error === undefined;
const XMLLINT_SKIP = ' (skipped: xmllint is not installed)';
const xmllintTest = XMLLINT ? test : test.skip;
for (const [ran, what] of [
  [W3C_SRC !== undefined, `W3C feed validator test${W3C_SKIP}`],
  [XMLLINT, `xmllint test${XMLLINT_SKIP}`],
] as const)
  if (!ran) console.warn(what);

const db = useDatabase({ emptyEachTest: true });

describe('RSS format', () => {
  w3cTest(
    `When W3C_FEEDVALIDATOR_SRC points at the W3C feed validator, it reports no errors for the RSS${W3C_SRC ? '' : W3C_SKIP}`,
    async () => {
      const src = W3C_SRC!;
      const app = await makeApp(db, {}, { cache: false });
      expect((await publish(app, item(TRICKY))).status).toBe(201);
      expect(
        (await publish(app, item({ enclosure: { url: 'https://img.example.com/1.jpg' } }))).status,
      ).toBe(201);
      const entityLike = 'Tom &amp; Jerry &#38; &lt;b&gt;\r\nnext line\r';
      expect(
        (
          await publish(
            app,
            item({
              link: 'https://hub.example.com/a?x=1&amp;y=2',
              title: entityLike,
              description: entityLike,
              creator: entityLike,
              category: 'food',
            }),
          )
        ).status,
      ).toBe(201);
      for (const path of [
        '/hub/contents',
        '/hub/categories/food/contents',
        '/hub/categories/biz/contents',
      ]) {
        const res = await getFeed(app, path, ACCEPT_XML);
        const script = [
          'import sys; sys.path.insert(0, sys.argv[1])',
          'import feedvalidator',
          'from feedvalidator import compatibility, logging',
          'events = compatibility.AA(feedvalidator.validateString(sys.stdin.buffer.read(), firstOccurrenceOnly=0, base=sys.argv[2])["loggedEvents"])',
          'print("\\n".join(type(e).__name__ for e in events if isinstance(e, logging.Error)))',
        ].join('\n');
        const run = spawnSync(
          process.env.W3C_FEEDVALIDATOR_PYTHON ?? 'python3',
          ['-c', script, src, `${BASE_URL}${path}`],
          { input: res.text },
        );
        expect(run.stderr.toString()).toBe('');
        expect(run.stdout.toString().trim()).toBe('');
      }
    },
  );

  xmllintTest(
    `When xmllint is installed, the RSS document is well-formed XML to it${XMLLINT ? '' : XMLLINT_SKIP}`,
    async () => {
      const app = await makeApp(db, {}, { cache: false });
      expect((await publish(app, item(TRICKY))).status).toBe(201);
      const res = await getFeed(app, '/hub/contents', ACCEPT_XML);
      const run = spawnSync('xmllint', ['--noout', '-'], { input: res.text });
      expect(run.stderr.toString()).toBe('');
      expect(run.status).toBe(0);
    },
  );
});
