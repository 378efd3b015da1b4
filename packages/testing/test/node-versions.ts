/** The supported Node versions: package.json "engines" is the one statement, the rest follow it. */
import { read } from './deploy-files';

export const rootManifest = JSON.parse(read('package.json')) as {
  engines: { node: string };
  scripts: Record<string, string>;
  pnpm?: unknown;
  devDependencies: Record<string, string>;
};
/** "^20.19.0 || ^22.12.0 || ^24.0.0" → [{ major: 20, minor: 19 }, ...] */
export const supportedNode = rootManifest.engines.node.split('||').map((part) => {
  const m = /^\^(\d+)\.(\d+)\.\d+$/.exec(part.trim());
  if (!m) throw new Error(`engines.node: expected ^X.Y.Z alternatives, got "${part.trim()}"`);
  return { major: Number(m[1]), minor: Number(m[2]) };
});
export const supportedMajors = supportedNode.map((v) => v.major);
/** how the READMEs say it: "20.19+, 22.12+ or 24" */
export const supportedText = supportedNode
  .map((v) => (v.minor > 0 ? `${v.major}.${v.minor}+` : String(v.major)))
  .join(', ')
  .replace(/, ([^,]+)$/, ' or $1');
