import path from 'node:path';

/** What an example run is given (packages/client/test/readme-examples.ts). */
export interface ReadmeExampleRun {
  /** the @hub/client module the examples import */
  client: unknown;
  env: Record<string, string>;
  /** addresses in the examples → the addresses of the services under test */
  addresses: Record<string, string>;
}

/** The README runner of the client (packages/client/test/readme-examples.ts), loaded by path. */
interface ReadmeRunner {
  readmeExamples(tag: 'feed' | 'search'): string;
  expectedOutput(code: string): string[];
  runExamples(code: string, run: ReadmeExampleRun): Promise<string[]>;
}
const README_RUNNER = path.join(__dirname, '../../client/test/readme-examples');

/**
 * Runs the client README's examples of one service against it: what they printed, and what
 * their comments say they print.
 */
export async function runClientReadme(
  tag: 'feed' | 'search',
  run: ReadmeExampleRun,
): Promise<{ printed: string[]; expected: string[] }> {
  const readme = (await import(README_RUNNER)) as ReadmeRunner;
  const code = readme.readmeExamples(tag);
  const printed = await readme.runExamples(code, run);
  return { printed, expected: readme.expectedOutput(code) };
}
