// The launcher's files in .data/ and its messages. launcher.json names the running launcher
// and its services, so that the next run can stop what a run killed with -9 left behind.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { alive, cmdline, stopPid } from './processes.mjs';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const dataDir = path.join(root, '.data');
const stateFile = path.join(dataDir, 'launcher.json');

export const say = (msg) => process.stdout.write(`[launcher] ${msg}\n`);

/**
 * .data/ (kept between runs), set to mode 0700 at every start: only its owner lists or reads
 * it. As root, 0711: the embedded PostgreSQL runs as the user `postgres`, which must reach
 * .data/postgres (it still cannot list .data/, and dev-credentials.json is 0600).
 */
export function makeDataDir(dir = dataDir) {
  fs.mkdirSync(dir, { recursive: true });
  fs.chmodSync(dir, process.getuid?.() === 0 ? 0o711 : 0o700);
}

/** Writes down this launcher and the pids of its services. */
export function writeState(services) {
  fs.writeFileSync(stateFile, JSON.stringify({ launcher: process.pid, services }));
}

export function removeState() {
  fs.rmSync(stateFile, { force: true });
}

/** A run that was killed with -9 leaves its services (and database) running: stop them. */
export async function cleanUpPreviousRun() {
  if (!fs.existsSync(stateFile)) return;
  let state = {};
  try {
    state = JSON.parse(fs.readFileSync(stateFile, 'utf8'));
  } catch {
    /* unreadable state: nothing to clean */
  }
  if (
    state.launcher &&
    state.launcher !== process.pid &&
    alive(state.launcher) &&
    cmdline(state.launcher).includes('start.mjs')
  ) {
    say(`stopping an earlier launcher (pid ${state.launcher})`);
    await stopPid(state.launcher, 'start.mjs');
  }
  for (const pid of state.services ?? []) await stopPid(pid, 'dist/main.js');
  removeState();
}
