/**
 * The message of anything thrown, for logs and stored error columns: an Error's message, or
 * the value as text; cut to `max` characters so one odd error cannot fill a log line or a row.
 */
export function errorText(err: unknown, max = 2000): string {
  return (err instanceof Error ? err.message : String(err)).slice(0, max);
}
