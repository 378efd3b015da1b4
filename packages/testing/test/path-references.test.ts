// path-references: examples (every path below is made up for the tests)
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expandChoices, missingPathReferences, pathReferences } from '../src/path-references';

/** The paths read from one line of text in a file named `file`. */
const pathsIn = (file: string, text: string) => pathReferences(text, file).map((r) => r.path);

describe('The path references of a text', () => {
  test.each([
    [
      'a top folder starts a path',
      'x.ts',
      '// see docs/postgres-engine.md',
      ['docs/postgres-engine.md'],
    ],
    [
      'sentence punctuation after it is not part of it',
      'x.ts',
      '(src/a.ts), src/b.ts. src/c.ts:',
      ['src/a.ts', 'src/b.ts', 'src/c.ts'],
    ],
    [
      'a folder keeps its slash',
      'x.md',
      'the engine (`src/index/postgres/`)',
      ['src/index/postgres/'],
    ],
    [
      './ and ../ steps are part of it',
      'x.ts',
      "import { a } from '../src/index/x';",
      ['../src/index/x'],
    ],
    [
      'every top folder counts',
      'x.md',
      'test/a bench/b scripts/c packages/d services/e infra/f openapi/g eval/h dist/i migrations/j',
      [
        'test/a',
        'bench/b',
        'scripts/c',
        'packages/d',
        'services/e',
        'infra/f',
        'openapi/g',
        'eval/h',
        'dist/i',
        'migrations/j',
      ],
    ],
    [
      '.github and .ci are top folders',
      'x.yml',
      'run: .ci/run # .github/workflows/ci.yml',
      ['.ci/run', '.github/workflows/ci.yml'],
    ],
    ['a path in a quoted string', 'Dockerfile', 'CMD ["node", "dist/main.js"]', ['dist/main.js']],
    [
      'each path once per line',
      'x.md',
      '`src/a.ts` then `src/b.ts` then `src/a.ts`',
      ['src/a.ts', 'src/b.ts'],
    ],
    ['a URL is not a repository path', 'x.md', 'https://github.com/o/r/blob/main/src/x.ts', []],
    ['a path inside a package name is not', 'x.ts', "import '@hub/contracts/src/x';", []],
    ['an HTTP route is not', 'x.md', 'GET /docs/assets/x.js and /v2/{cid}/docs', []],
    [
      'a longer word ending in a top folder name is not',
      'x.ts',
      'mysrc/a e2e-test/b my.docs/c',
      [],
    ],
    [
      'a path after a template expression is not',
      'x.ts',
      'const css = `${root}docs/assets/x.css`;',
      [],
    ],
    ['a regular expression with escaped slashes is not', 'x.ts', String.raw`/src\/x/.test(s)`, []],
    [
      'placeholders are kept as written',
      'x.md',
      'services/<service>/test/x.ts eval/korean/*.json test/t-{a,b}.test.ts src/… services/${name}/src',
      [
        'services/<service>/test/x.ts',
        'eval/korean/*.json',
        'test/t-{a,b}.test.ts',
        'src/…',
        'services/${name}/src',
      ],
    ],
    [
      'a Markdown link target',
      'x.md',
      'see [the infra](infra/README.md#images) and [kit](../service-kit/README.md)',
      ['infra/README.md', '../service-kit/README.md'],
    ],
    [
      'a Markdown link to a URL or an anchor is not',
      'x.md',
      '[a](https://example.org/src/a) [b](#websub) [c](mailto:x@y.z)',
      [],
    ],
    ['Markdown links are read only in Markdown', 'x.ts', 'handlers[0](req); [a](notes/x.md)', []],
  ])('%s', (_rule, file, text, expected) => {
    expect(pathsIn(file, text)).toEqual(expected);
  });

  test('A file whose first line says its paths are examples gives none', () => {
    expect(pathsIn('x.test.ts', '// path-references: examples\nsrc/made-up.ts')).toEqual([]);
    expect(pathsIn('x.test.ts', 'src/made-up.ts\n// path-references: examples')).toEqual([
      'src/made-up.ts',
    ]);
  });

  test('A reference carries its line and how it resolves (text, link, package entry)', () => {
    expect(pathReferences('one\n[a](docs/a.md) and src/b.ts', 'README.md')).toEqual([
      { line: 2, path: 'docs/a.md', kind: 'link' },
      { line: 2, path: 'src/b.ts', kind: 'text' },
    ]);
  });

  test('package.json gives main, types, bin and every exports path, and paths in its scripts', () => {
    const pkg = JSON.stringify(
      {
        name: 'p',
        main: './dist/index.js',
        types: './dist/index.d.ts',
        bin: { p: 'dist/cli.js' },
        exports: { '.': { types: './dist/index.d.ts', import: './dist/index.mjs' } },
        scripts: { start: 'node dist/main.js', bench: 'node bench/run.mjs' },
      },
      null,
      2,
    );
    expect(pathReferences(pkg, 'services/p/package.json')).toEqual([
      { line: 3, path: './dist/index.js', kind: 'entry' },
      { line: 4, path: './dist/index.d.ts', kind: 'entry' },
      { line: 6, path: 'dist/cli.js', kind: 'entry' },
      { line: 11, path: './dist/index.mjs', kind: 'entry' },
      { line: 15, path: 'dist/main.js', kind: 'text' },
      { line: 16, path: 'bench/run.mjs', kind: 'text' },
    ]);
  });

  test.each([
    ['a/b', ['a/b']],
    ['t-{a,b}.ts', ['t-a.ts', 't-b.ts']],
    ['{x,y}/{1,2}', ['x/1', 'x/2', 'y/1', 'y/2']],
    ['s/${name}/d', ['s/${name}/d']],
  ])('The choices of %s', (written, paths) => {
    expect(expandChoices(written)).toEqual(paths);
  });
});

/** A git repository of these files (path → text), every file added. */
function repositoryOf(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'path-references-'));
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  execFileSync('git', ['init', '-q'], { cwd: dir });
  execFileSync('git', ['add', '-A'], { cwd: dir });
  return dir;
}

/** A package `services/a` built by tsc from src/ into dist/. */
const SERVICE = {
  '.gitignore': 'node_modules/\ndist/\n.data/\ninfra/*.env\n',
  'services/a/package.json': '{ "name": "a" }',
  'services/a/tsconfig.json': '{ "compilerOptions": { "rootDir": "src", "outDir": "dist" } }',
  'services/a/src/main.ts': '',
  'services/a/src/index/store.ts': '',
  'services/a/docs/engine.md': '',
  'services/a/test/t-a.test.ts': '',
  'services/a/test/t-b.test.ts': '',
};

/** What the check reports in that package with these files added (or replaced). */
const missingWith = (files: Record<string, string>) =>
  missingPathReferences(repositoryOf({ ...SERVICE, ...files }));

describe('References that lead nowhere', () => {
  test.each<[string, Record<string, string>, string[]]>([
    [
      'A path that names no file is reported as file:line: path',
      {
        'services/a/migrations/1_init.sql':
          '-- tables\n-- the engine (src/index/bitmap; docs/bitmap.md)',
      },
      [
        'services/a/migrations/1_init.sql:2: src/index/bitmap',
        'services/a/migrations/1_init.sql:2: docs/bitmap.md',
      ],
    ],
    [
      "A path resolves from the file's folder, its package or the repository root",
      {
        'services/a/src/index/x.ts': '// store.ts beside: ./store.ts; the package: docs/engine.md',
        'services/a/src/y.ts': '// the root: services/a/src/main.ts; one up: ../docs/engine.md',
      },
      [],
    ],
    [
      'A module path may leave out its extension or say .js for its .ts source',
      {
        'services/a/test/x.test.ts': "import '../src/index/store';\nimport '../src/main.js';",
      },
      [],
    ],
    [
      'A placeholder must match a file, and every choice of {a,b} must be there',
      {
        'README.md': [
          'services/<service>/src/main.ts services/*/test/t-*.test.ts src/…',
          'services/a/test/t-{a,b}.test.ts',
          'services/a/test/t-{a,c}.test.ts',
          'services/*/bench/run.mjs',
        ].join('\n'),
      },
      ['README.md:3: services/a/test/t-{a,c}.test.ts', 'README.md:4: services/*/bench/run.mjs'],
    ],
    [
      'What git ignores is made by a build, a run or a person: not checked',
      {
        'README.md':
          'state in services/a/.data/pg; dist/x.js at the root; infra/prod.env; src/x/node_modules/y',
      },
      [],
    ],
    [
      'A build output stands for its source: dist/main.js is there, dist/index.js is not',
      {
        'services/a/package.json':
          '{\n  "name": "a",\n  "main": "dist/index.js",\n  "scripts": { "start": "node dist/main.js" }\n}',
        'services/a/Dockerfile': 'CMD ["node", "dist/main.js"]\nCOPY dist/index/store.d.ts x',
      },
      ['services/a/package.json:3: dist/index.js'],
    ],
    [
      'The repository docs speak of every package; a package speaks only of its own',
      {
        'README.md': 'each service: src/main.ts, docs/engine.md',
        'packages/kit/package.json': '{ "name": "kit" }',
        'packages/kit/README.md': 'a service has src/main.ts',
      },
      ['packages/kit/README.md:1: src/main.ts'],
    ],
    [
      'A script without an extension is read when it starts with #!',
      {
        '.ci/run': '#!/usr/bin/env bash\nbash scripts/smoke.sh',
        LICENSE: 'see scripts/none.sh',
      },
      ['.ci/run:2: scripts/smoke.sh'],
    ],
    [
      "A Markdown link resolves only from its file's folder, as a reader's browser does",
      {
        'services/a/README.md': '[engine](docs/engine.md) [main](services/a/src/main.ts)',
      },
      ['services/a/README.md:1: services/a/src/main.ts'],
    ],
  ])('%s', (_name, files, missing) => {
    expect(missingWith(files)).toEqual(missing);
  });
});
