import fs from 'node:fs';
import path from 'node:path';

const PACKAGE_DIR = path.join(__dirname, '..');
const SRC = path.join(PACKAGE_DIR, 'src');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const file = path.join(dir, e.name);
    return e.isDirectory() ? sourceFiles(file) : file.endsWith('.ts') ? [file] : [];
  });
}

function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s+'([^']+)'/g)].map(
    (m) => m[1]!,
  );
}

describe('The client has no runtime dependencies', () => {
  it('package.json declares no dependencies', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(PACKAGE_DIR, 'package.json'), 'utf8'));
    expect(pkg.dependencies).toBeUndefined();
    expect(pkg.peerDependencies).toBeUndefined();
    expect(pkg.type).toBe('module');
  });

  it('Sources import only each other (with .js, as ESM needs) and the contract data modules', () => {
    const outside = new Set<string>();
    for (const file of sourceFiles(SRC)) {
      for (const spec of importsOf(file)) {
        expect(`${path.relative(SRC, file)}: ${spec}`).toMatch(/: \.{1,2}\/.*\.js$/);
        const target = path.resolve(path.dirname(file), spec.replace(/\.js$/, '.ts'));
        expect(fs.existsSync(target)).toBe(true);
        if (!target.startsWith(SRC + path.sep)) outside.add(path.relative(PACKAGE_DIR, target));
      }
    }
    expect([...outside].sort()).toEqual([
      '../contracts/src/feed/categories.ts',
      '../contracts/src/feed/errors.ts',
      '../contracts/src/feed/media-types.ts',
      '../contracts/src/search/errors.ts',
      '../contracts/src/search/http-errors.ts',
    ]);
    // ... which import nothing themselves
    for (const file of outside) expect(importsOf(path.join(PACKAGE_DIR, file))).toEqual([]);
  });

  it('Sources use no Node API (they run in browsers too)', () => {
    for (const file of sourceFiles(SRC)) {
      const text = fs.readFileSync(file, 'utf8');
      expect(
        `${path.relative(SRC, file)}: ${/\b(?:require\(|process\.|Buffer\b|node:)/.exec(text)?.[0] ?? ''}`,
      ).toBe(`${path.relative(SRC, file)}: `);
    }
  });
});
