// The run's last lines: one SUMMARY line (key=value), then a row per target of issue 23 and
// the speed rows of issues 25 and 26 (each option beyond the spec, the spacing kind): the
// target, the figure of this run and "met" / "MISSED" computed from the figure (or "printed"
// for a figure with no bound).
import { AT_MILLION, DOCS, SEARCH_P99_TARGET, WRITE_RATE } from './settings.mjs';
import { report } from './worker-link.mjs';

const n = (x) => Math.round(x).toLocaleString('en-US');
const ms = (x) => `${x.toFixed(1)} ms`;
const worstKind = (m) =>
  [...m.per.entries()].reduce(
    (w, [kind, l]) =>
      l[Math.floor(0.99 * l.length)] > w.p99 ? { kind, p99: l[Math.floor(0.99 * l.length)] } : w,
    { kind: '', p99: -1 },
  );

/**
 * The query kinds of each option beyond the spec (issue 25) and of the spacing (issue 26),
 * told by their parameters: each group's worst p99 is a row of its own.
 */
const OPTION_GROUPS = [
  ['issue 25: hl=1', (k) => k.params.hl !== undefined],
  ['issue 25: facet=categories, ~70 % word', (k) => k.params.facet !== undefined],
  ['issue 25: prefix=1, 1–3 characters', (k) => k.params.prefix !== undefined],
  ['issue 26: two words joined', (k) => k.spacing === true],
];

/** the worst p99 of the kinds that match, in one measurement: { kind, p99 } */
const worstOf = (m, kinds, matches) =>
  worstKind({ per: new Map([...m.per].filter(([kind]) => matches(kinds.get(kind)))) });

export function reportSummary(r) {
  const { floor, addsA, rightAfter, mixRight, settled, mixSettled, iso, checks, startup, mix } = r;
  const kindsByName = new Map(r.kinds.map((k) => [k.kind, k]));
  const floorRatio = addsA.rate / floor.rate;
  const keep = addsA.last / addsA.first;
  const startupBound = AT_MILLION ? 2000 : 5000;
  const elu = Math.max(rightAfter.elu, mixRight.elu, settled.elu, mixSettled.elu);
  const generatorGcMax = Math.max(
    ...[rightAfter, mixRight, settled, mixSettled].map((m) => m.generatorGcMax),
  );
  const writerRate = Math.min(mixRight.writer.rate, mixSettled.writer.rate);
  report(
    `\nSUMMARY docs=${DOCS} adds/s=${Math.round(addsA.rate)} add_p99_ms=${addsA.p99.toFixed(1)} floor_adds/s=${Math.round(floor.rate)} ` +
      `kinds_p99_right_after_ms=${rightAfter.worst.toFixed(1)} mix_p99_right_after_ms=${mixRight.p99.toFixed(1)} ` +
      `kinds_p99_settled_ms=${settled.worst.toFixed(1)} mix_p99_settled_ms=${mixSettled.p99.toFixed(1)} ` +
      (iso
        ? `isolation_before=${iso.ratioBefore.toFixed(2)} isolation_after=${iso.ratioAfter.toFixed(2)} write_ratio=${iso.writeRatio.toFixed(2)} ` +
          `drop_pause_ms=${iso.longestPause.toFixed(0)} `
        : 'isolation=not_run ') +
      `startup_ms=${startup.firstSearchMs.toFixed(0)} oracle_wrong=${checks.wrong.length} refused=${r.refused} failed=${r.failed.length}`,
  );
  const rows = [
    ['adds/s at 16 clients, 0 → docs', '≥ 1,200/s', `${n(addsA.rate)}/s`, addsA.rate >= 1200],
    ['add p99', '≤ 50 ms', ms(addsA.p99), addsA.p99 <= 50],
    [
      'adds / bare-INSERT floor (this run)',
      '≥ 0.40×',
      `${n(addsA.rate)} / ${n(floor.rate)} = ${floorRatio.toFixed(2)}×`,
      floorRatio >= 0.4,
    ],
    [
      'adds keep their rate: last tenth / first',
      '≥ 0.80×',
      `${n(addsA.last)} / ${n(addsA.first)} = ${keep.toFixed(2)}×`,
      keep >= 0.8,
    ],
    ...[
      ['right after the load', rightAfter, mixRight],
      ['settled (folds, merges, VACUUM done)', settled, mixSettled],
    ].flatMap(([when, kinds, wide]) => {
      const w = worstKind(kinds);
      return [
        [
          `every query kind p99, ${when}`,
          `≤ ${SEARCH_P99_TARGET} ms`,
          `${ms(w.p99)} (${w.kind})`,
          w.p99 <= SEARCH_P99_TARGET,
        ],
        [
          `wide mix with writes p99, ${when}`,
          `≤ ${SEARCH_P99_TARGET} ms`,
          ms(wide.p99),
          wide.p99 <= SEARCH_P99_TARGET,
        ],
      ];
    }),
    [
      'wide mix: distinct queries, each sent twice',
      '≥ 2,000',
      `${n(mix.distinct)} (${n(mix.sends.length)} sends)`,
      mix.distinct >= 2000,
    ],
    [
      'writer during the mix: adds, replacements, deletes',
      `≥ ${(0.95 * WRITE_RATE).toFixed(1)}/s`,
      `${writerRate.toFixed(1)}/s`,
      writerRate >= 0.95 * WRITE_RATE,
    ],
    [
      'numfound = oracle (after the load, during and after writes)',
      '0 wrong',
      `${checks.wrong.length} wrong of ${n(checks.oracle)}`,
      checks.wrong.length === 0,
    ],
    ['searches answered 429 too many requests (sent again)', '0', n(r.refused), r.refused === 0],
    [
      'searches that failed (neither 200 nor 429)',
      '0',
      `${n(r.failed.length)}${r.failed.length ? ` (${r.failed[0].slice(0, 24)})` : ''}`,
      r.failed.length === 0,
    ],
    ...isolationRows(iso),
    ...OPTION_GROUPS.flatMap(([option, matches]) =>
      [
        ['right after the load', rightAfter],
        ['settled', settled],
      ].map(([when, m]) => {
        const w = worstOf(m, kindsByName, matches);
        return [
          `${option} p99, ${when}`,
          `≤ ${SEARCH_P99_TARGET} ms`,
          `${ms(w.p99)} (${w.kind})`,
          w.p99 <= SEARCH_P99_TARGET,
        ];
      }),
    ),
    [
      'first search after a restart',
      `≤ ${n(startupBound)} ms`,
      ms(startup.firstSearchMs),
      startup.firstSearchMs <= startupBound,
    ],
    [
      'search process RSS (without the load generator)',
      'printed',
      `${n(r.memory.serviceRss / 2 ** 20)} MB`,
      null,
    ],
    ['index tables on disk', 'printed', `${n(r.memory.indexBytes / 2 ** 20)} MB`, null],
    ['load generator: busiest share of its thread', 'printed', `${(elu * 100).toFixed(0)} %`, null],
    ['load generator: its longest GC pause', 'printed', ms(generatorGcMax), null],
  ];
  report(`\n${'TARGET'.padEnd(66)} ${'bound'.padEnd(12)} ${'this run'.padEnd(30)} result`);
  for (const [name, bound, figure, ok] of rows)
    report(
      `${name.padEnd(66)} ${bound.padEnd(12)} ${figure.padEnd(30)} ${ok === undefined ? 'not run' : ok === null ? 'printed' : ok ? 'met' : 'MISSED'}`,
    );
  if (DOCS < 1_000_000)
    report(`(at ${n(DOCS)} documents; the search bounds are 2× at 1,000,000: --docs 1000000)`);
}

/** The isolation rows: each "not run" when the run left the phase out (--isolation 0). */
function isolationRows(iso) {
  const names = [
    ['isolation: A with B loaded / A before', '≤ 1.20×'],
    ['isolation: A with B loaded / A after', '≤ 1.20×'],
    ['adds to B while A is searched / alone', '≥ 0.80×'],
    ["A's searches while B's adds run: p50, p99", 'printed'],
    ["deleting B: A's longest search", '≤ 1,000 ms'],
  ];
  if (!iso) return names.map(([name, bound]) => [name, bound, '-', undefined]);
  const figures = [
    [`${iso.ratioBefore.toFixed(2)}×`, iso.ratioBefore <= 1.2],
    [`${iso.ratioAfter.toFixed(2)}×`, iso.ratioAfter <= 1.2],
    [`${iso.writeRatio.toFixed(2)}×`, iso.writeRatio >= 0.8],
    [`${ms(iso.searchesMeanwhile.p50)}, ${ms(iso.searchesMeanwhile.p99)}`, null],
    [ms(iso.longestPause), iso.longestPause <= 1000],
  ];
  return names.map(([name, bound], i) => [name, bound, ...figures[i]]);
}
