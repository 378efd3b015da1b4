import { expectedOutput, readmeBlocks } from './readme-examples';

describe('README examples', () => {
  it('Every ts block of the README is run by a service test: its tag is feed or search', () => {
    const blocks = readmeBlocks();
    expect(blocks.length).toBeGreaterThan(0);
    expect(blocks.filter((b) => b.tag !== 'feed' && b.tag !== 'search')).toEqual([]);
    expect(new Set(blocks.map((b) => b.tag))).toEqual(new Set(['feed', 'search']));
  });

  it('Every console.log line of the examples says what it prints', () => {
    for (const { code } of readmeBlocks()) {
      const logs = code.split('\n').filter((line) => line.includes('console.log('));
      expect(expectedOutput(code)).toHaveLength(logs.length);
    }
  });

  it('Blocks are read with their tag and code; other fences are not examples', () => {
    const md = 'a\n```ts feed\nconst a = 1;\n```\n```sh\nls\n```\n```ts\nx\n```\n';
    expect(readmeBlocks(md)).toEqual([
      { tag: 'feed', code: 'const a = 1;\n' },
      { tag: '', code: 'x\n' },
    ]);
    expect(expectedOutput('console.log(a, b); // → 1 2\nconsole.log(c);')).toEqual(['1 2']);
  });
});
