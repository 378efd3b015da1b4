/**
 * What the static checks of the deployment files (deploy-files-*.test.ts) share: the repository's
 * files, the secrets rule, env-file reading and the compose stack. Beside it: dockerfile.ts (a
 * small Dockerfile reader) and node-versions.ts (the supported Node versions).
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

export const root = path.resolve(__dirname, '../../..');
export const read = (rel: string) => fs.readFileSync(path.join(root, rel), 'utf8');
export const exists = (rel: string) => fs.existsSync(path.join(root, rel));

export const SERVICES = [
  { name: 'feed-service', port: 8080 },
  { name: 'search-service', port: 8081 },
] as const;

export const SECRET_NAME = /(SECRET|TOKEN|PASSWORD|_KEY$|^KEY$|API_KEY|MASTER_KEY)/i;

/** KEY=value lines of an env file (comments and blank lines left out) */
export const envFile = (text: string): Record<string, string> =>
  Object.fromEntries(
    text
      .split(/\r?\n/)
      .map((l) => /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(l.trim()))
      .filter((m): m is RegExpExecArray => !!m)
      .map((m) => [m[1]!, m[2]!]),
  );

// ---------------------------------------------------------------------------------------------
// the compose stack

export interface ComposeService {
  image?: string;
  build?: { context: string; dockerfile: string };
  environment?: Record<string, string>;
  healthcheck?: { test: string | string[] };
  depends_on?: Record<string, { condition: string }>;
  volumes?: string[];
  profiles?: string[];
  ports?: string[];
}
export const composeText = read('docker-compose.yml');
export const compose = parse(composeText) as { services: Record<string, ComposeService> };
