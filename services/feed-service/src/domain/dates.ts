/**
 * Publication dates as publishers send them: RFC 822 (RFC 2822 form) or ISO 8601 with a
 * time and an offset. Strict on purpose: `Date.parse` accepts almost anything ("2", "1 1").
 */
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
const ZONES: Record<string, number> = {
  gmt: 0,
  ut: 0,
  utc: 0,
  z: 0,
  est: -300,
  edt: -240,
  cst: -360,
  cdt: -300,
  mst: -420,
  mdt: -360,
  pst: -480,
  pdt: -420,
};

const RFC822 =
  /^(?:(mon|tue|wed|thu|fri|sat|sun),\s*)?(\d{1,2})\s+(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)\s+(\d{4}|\d{2})\s+(\d{2}):(\d{2})(?::(\d{2}))?\s+(gmt|utc|ut|z|[ecmp][sd]t|[+-]\d{4})$/i;
const ISO8601 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?([Zz]|[+-]\d{2}(?::?\d{2})?)$/;

/** Earliest and latest accepted dates: four-digit years keep RFC 822 output well-formed. */
export const MIN_PUB_DATE = Date.UTC(1970, 0, 1);
export const MAX_PUB_DATE = Date.UTC(9999, 11, 31, 23, 59, 59);

function build(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
  ms: number,
  offsetMinutes: number,
): Date | undefined {
  if (month < 0 || month > 11 || day < 1 || hour > 23 || minute > 59 || second > 59)
    return undefined;
  const local = Date.UTC(year, month, day, hour, minute, second, ms);
  if (new Date(local).getUTCDate() !== day) return undefined; // 31 Feb and the like
  const t = local - offsetMinutes * 60_000;
  if (t < MIN_PUB_DATE || t > MAX_PUB_DATE) return undefined;
  return new Date(t);
}

function offset(text: string): number | undefined {
  const named = ZONES[text.toLowerCase()];
  if (named !== undefined) return named;
  const m = /^([+-])(\d{2}):?(\d{2})?$/.exec(text);
  if (!m) return undefined;
  const hours = Number(m[2]);
  const minutes = Number(m[3] ?? '0');
  if (hours > 23 || minutes > 59) return undefined;
  return (m[1] === '-' ? -1 : 1) * (hours * 60 + minutes);
}

export function parseRfc822(text: string): Date | undefined {
  const m = RFC822.exec(text.trim());
  if (!m) return undefined;
  let year = Number(m[4]);
  if (m[4]!.length === 2) year += year < 50 ? 2000 : 1900;
  const month = MONTHS.indexOf(m[3]!.toLowerCase());
  const day = Number(m[2]);
  const off = offset(m[8]!);
  if (off === undefined) return undefined;
  const date = build(year, month, day, Number(m[5]), Number(m[6]), Number(m[7] ?? '0'), 0, off);
  // a weekday, when given, must be the weekday of the date as written
  if (date && m[1] && DAYS[new Date(Date.UTC(year, month, day)).getUTCDay()] !== m[1].toLowerCase())
    return undefined;
  return date;
}

export function parseIso8601(text: string): Date | undefined {
  const m = ISO8601.exec(text.trim());
  if (!m) return undefined;
  const off = offset(m[8]!);
  if (off === undefined) return undefined;
  const ms = m[7] ? Math.floor(Number(`0.${m[7]}`) * 1000) : 0;
  return build(
    Number(m[1]),
    Number(m[2]) - 1,
    Number(m[3]),
    Number(m[4]),
    Number(m[5]),
    Number(m[6] ?? '0'),
    ms,
    off,
  );
}

/** RFC 822 or ISO 8601; undefined when neither (or out of range). */
export function parsePubDate(text: string): Date | undefined {
  return parseRfc822(text) ?? parseIso8601(text);
}
