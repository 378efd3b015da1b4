import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { importCycles, importEdges, layerViolations } from '../src/layering';

/** A src folder made of these files (path → text). */
function srcOf(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'layering-'));
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

const LAYERS = [['main'], ['http'], ['domain'], ['store', 'cache'], ['config']];

test('Imports down the layers, within a folder, and of packages are allowed', () => {
  const src = srcOf({
    'main.ts': "import { a } from './http/routes';\nimport x from 'express';",
    'http/routes.ts': "import { b } from '../domain/use-case';\nimport { c } from './errors';",
    'http/errors.ts': "import type { C } from '../config';",
    'domain/use-case.ts': "export { d } from '../store/items';",
    'store/items.ts': "const pg = require('pg');",
    'config.ts': '',
  });
  expect(layerViolations(src, LAYERS)).toEqual([]);
  expect(importEdges(src)).toHaveLength(5);
});

test('An import of a higher layer is reported as up, one of a sibling folder as sideways', () => {
  const src = srcOf({
    'store/items.ts': "import type { UseCase } from '../domain/use-case';",
    'cache/feeds.ts': "import { items } from '../store/items';",
    'domain/use-case.ts': '',
  });
  expect(layerViolations(src, LAYERS).sort()).toEqual([
    `cache/feeds.ts → store/items.ts: sideways`,
    `store/items.ts → domain/use-case.ts: up`,
  ]);
});

test('A folder in no layer is reported', () => {
  const src = srcOf({ 'http/a.ts': "import '../extra/b';", 'extra/b.ts': '' });
  expect(layerViolations(src, LAYERS)).toEqual(['http/a.ts → extra/b.ts: extra is in no layer']);
});

test('Import cycles between modules are listed', () => {
  // each file imports the next: a → b → sub (its index.ts) → a, and d → a outside the cycle
  const imports = { 'a.ts': './b', 'b.ts': './sub', 'sub/index.ts': '../a', 'd.ts': './a' };
  const src = srcOf(
    Object.fromEntries(
      Object.entries(imports).map(([file, to]) => [file, `import { x } from '${to}';`]),
    ),
  );
  expect(importCycles(src)).toEqual([
    ['a.ts', 'b.ts', path.join('sub', 'index.ts'), 'a.ts'].join(' → '),
  ]);
});
