// The run's last lines: one SUMMARY line, then a TARGET line per target (met / MISSED).
import { DOCS, EXTRA_ADDS } from './settings.mjs';
import { report } from './worker-link.mjs';

export function reportSummary({ addsA, worstAlone, isolation, writeRatio, longestPause, startup }) {
  const addsOk = addsA.rate >= 1000 && addsA.p99 <= 50;
  report(
    `\nSUMMARY docs=${DOCS} adds/s=${Math.round(addsA.rate)} add_p99_ms=${addsA.p99.toFixed(1)} worst_search_p99_ms=${worstAlone.toFixed(1)} ` +
      `isolation_ratio=${isolation.toFixed(2)} write_ratio=${writeRatio.toFixed(2)} drop_pause_ms=${longestPause.toFixed(0)} ` +
      `startup_ms=${startup.firstSearchMs.toFixed(0)}`,
  );
  const target = (ok, text) => report(`TARGET ${ok ? 'met   ' : 'MISSED'} ${text}`);
  target(
    worstAlone <= 50,
    `every kind p99 <= 50 ms (worst ${worstAlone.toFixed(1)} ms; stretch 20 ms)`,
  );
  target(
    addsOk,
    `adds >= 1,000/s with p99 <= 50 ms (${Math.round(addsA.rate)}/s, p99 ${addsA.p99.toFixed(1)} ms)`,
  );
  target(isolation <= 1.2, `worst p99 with B loaded <= 1.2x A alone (${isolation.toFixed(2)})`);
  target(
    writeRatio >= 0.8,
    `adds to A while B is searched >= 0.8x alone (${writeRatio.toFixed(2)})`,
  );
  target(
    longestPause <= 1000,
    `deleting B pauses A's searches <= 1 s (${longestPause.toFixed(0)} ms)`,
  );
  target(
    startup.firstSearchMs <= 5000,
    `start-up with ${DOCS} documents <= 5 s (${startup.firstSearchMs.toFixed(0)} ms)`,
  );
}

/** the start-up line: a second instance with A indexed */
export function reportStartup(startup) {
  report(
    `\nstart-up of a second instance (A: ${DOCS + 2 * EXTRA_ADDS} documents): listening after ${startup.listenMs.toFixed(0)} ms, ` +
      `first search answered after ${startup.firstSearchMs.toFixed(0)} ms (cold cache)`,
  );
}
