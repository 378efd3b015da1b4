// Other processes by pid: is one alive, what command runs it, stop it.
import fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

export function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The command line of a process ('' when it is gone or unreadable). */
export function cmdline(pid) {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}

/** SIGTERM, then SIGKILL after 15 s; only a process whose command line holds `marker`. */
export async function stopPid(pid, marker) {
  if (!pid || !alive(pid) || (marker && !cmdline(pid).includes(marker))) return;
  process.kill(pid, 'SIGTERM');
  for (let i = 0; i < 150 && alive(pid); i++) await sleep(100);
  if (alive(pid)) process.kill(pid, 'SIGKILL');
}
