import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readmeExamples } from './readme-examples';

const PACKAGE_DIR = path.join(__dirname, '..');

describe('README examples', () => {
  it('The feed and search examples typecheck against the client (strict)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-client-readme-'));
    try {
      fs.writeFileSync(path.join(dir, 'feed.ts'), readmeExamples('feed'));
      fs.writeFileSync(path.join(dir, 'search.ts'), readmeExamples('search'));
      const tsconfig = {
        extends: path.join(PACKAGE_DIR, 'tsconfig.json'),
        compilerOptions: {
          noEmit: true,
          composite: false,
          declaration: false,
          rootDir: '/',
          types: ['node'],
          typeRoots: [path.join(PACKAGE_DIR, '..', '..', 'node_modules', '@types')],
          paths: { '@hub/client': [path.join(PACKAGE_DIR, 'src', 'index.ts')] },
        },
        include: [path.join(dir, '*.ts')],
      };
      fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify(tsconfig));
      const tsc = require.resolve('typescript/bin/tsc');
      let output = '';
      try {
        execFileSync(process.execPath, [tsc, '-p', dir], { encoding: 'utf8' });
      } catch (e) {
        output = String((e as { stdout?: string }).stdout ?? e);
      }
      expect(output).toBe('');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
