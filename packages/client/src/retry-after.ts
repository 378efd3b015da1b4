/**
 * `Retry-After` (RFC 9110, 10.2.3) as seconds to wait from `now`: delay-seconds (digits), or an
 * HTTP-date in any of its three forms (IMF-fixdate, the obsolete RFC 850 and asctime forms),
 * read as UTC; a date in the past is 0. Undefined when the header is absent or neither form.
 */
export function parseRetryAfter(
  header: string | null | undefined,
  now: number = Date.now(),
): number | undefined {
  const value = header?.trim() ?? '';
  if (/^\d+$/.test(value)) return Number(value);
  const time = httpDate(value, now);
  return time === undefined ? undefined : Math.max(0, Math.ceil((time - now) / 1000));
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const LONG_DAY = '(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)';
const MONTH = `(${MONTHS.join('|')})`;
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';

/** `Sun, 06 Nov 1994 08:49:37 GMT` */
const IMF_FIXDATE = new RegExp(`^${DAY}, (\\d{2}) ${MONTH} (\\d{4}) ${TIME} GMT$`);
/** `Sunday, 06-Nov-94 08:49:37 GMT` */
const RFC850_DATE = new RegExp(`^${LONG_DAY}, (\\d{2})-${MONTH}-(\\d{2}) ${TIME} GMT$`);
/** `Sun Nov  6 08:49:37 1994` */
const ASCTIME_DATE = new RegExp(`^${DAY} ${MONTH} ([ \\d]\\d) ${TIME} (\\d{4})$`);

/** The time (ms since the epoch) of an HTTP-date, or undefined. */
function httpDate(value: string, now: number): number | undefined {
  let m = IMF_FIXDATE.exec(value);
  if (m) return utc(Number(m[3]), m[2]!, m[1]!, m.slice(4, 7));
  m = RFC850_DATE.exec(value);
  if (m) {
    // a two-digit year that looks more than 50 years ahead is of the past century (RFC 9110)
    const thisYear = new Date(now).getUTCFullYear();
    let year = Math.floor(thisYear / 100) * 100 + Number(m[3]);
    if (year > thisYear + 50) year -= 100;
    return utc(year, m[2]!, m[1]!, m.slice(4, 7));
  }
  m = ASCTIME_DATE.exec(value);
  if (m) return utc(Number(m[6]), m[1]!, m[2]!, m.slice(3, 6));
  return undefined;
}

/** The time of that day and clock (hh, mm, ss) in UTC; undefined for 31 Feb or 25:00. */
function utc(year: number, month: string, day: string, clock: string[]): number | undefined {
  const [h, min, s] = clock.map(Number) as [number, number, number];
  const mon = MONTHS.indexOf(month);
  const d = Number(day);
  const daysInMonth = new Date(Date.UTC(year, mon + 1, 0)).getUTCDate();
  if (d < 1 || d > daysInMonth || h > 23 || min > 59 || s > 60) return undefined;
  return Date.UTC(year, mon, d, h, min, s);
}
