/**
 * Runs the README's examples: the ```ts feed and ```ts search blocks, joined in order,
 * compiled by swc (as the tests are) and run as one async function, with `@hub/client` and
 * `process.env` handed in. Each `console.log(...) // → text` line says what it prints.
 * Used by the services' client tests, which start the services in-process.
 */
import fs from 'node:fs';
import path from 'node:path';
import { format } from 'node:util';
import { transformSync } from '@swc/core';

export const README_PATH = path.join(__dirname, '..', 'README.md');

export type ExampleTag = 'feed' | 'search';

/** Every ```ts block of the README: its tag (the word after `ts`) and its code. */
export function readmeBlocks(markdown = fs.readFileSync(README_PATH, 'utf8')): {
  tag: string;
  code: string;
}[] {
  return [...markdown.matchAll(/^```ts(?: (\S+))?\n([\s\S]*?)^```$/gm)].map((m) => ({
    tag: m[1] ?? '',
    code: m[2]!,
  }));
}

/** The code of every block with this tag, in README order. */
export function readmeExamples(tag: ExampleTag): string {
  return readmeBlocks()
    .filter((b) => b.tag === tag)
    .map((b) => b.code)
    .join('\n');
}

/** What the examples say they print, in order: the `// → …` comments of console.log lines. */
export function expectedOutput(code: string): string[] {
  return [...code.matchAll(/console\.log\(.*\/\/ → (.*)$/gm)].map((m) => m[1]!);
}

export interface ExampleRun {
  /** the module `import ... from '@hub/client'` gives */
  client: unknown;
  /** process.env of the examples */
  env: Record<string, string>;
  /** README address → address of the running service (replaced in the code, and back in the output) */
  addresses: Record<string, string>;
}

/** Runs the code; answers what it printed, with the running services' addresses as in the README. */
export async function runExamples(code: string, run: ExampleRun): Promise<string[]> {
  let source = code;
  for (const [readme, actual] of Object.entries(run.addresses)) {
    source = source.split(readme).join(actual);
  }
  const js = transformSync(source, {
    jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
    module: { type: 'commonjs' },
    isModule: true,
  }).code;
  const printed: string[] = [];
  const log = (...args: unknown[]) => {
    let line = format(...args);
    for (const [readme, actual] of Object.entries(run.addresses)) {
      line = line.split(actual).join(readme);
    }
    printed.push(line);
  };
  const requireShim = (id: string) => {
    if (id === '@hub/client') return run.client;
    throw new Error(`README examples may import only @hub/client, not ${id}`);
  };
  const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (
    ...params: string[]
  ) => (...args: unknown[]) => Promise<void>;
  const main = new AsyncFunction('require', 'exports', 'process', 'console', js);
  await main(requireShim, {}, { env: run.env }, { log });
  return printed;
}
