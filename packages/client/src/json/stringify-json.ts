/**
 * JSON.stringify that writes a bigint as its digits (JSON.stringify throws on bigint, and
 * Node 20 has no JSON.rawJSON). Everything else as JSON.stringify writes it: keys in their
 * order, undefined members left out, toJSON (Date) applied.
 */
export function stringifyJson(value: unknown): string {
  const out = write(value);
  if (out === undefined) throw new TypeError('JSON: the value has no JSON form');
  return out;
}

function write(value: unknown): string | undefined {
  if (typeof value === 'bigint') return value.toString();
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isFinite(value)) {
      throw new TypeError(`JSON: ${value} is not a JSON number`);
    }
    return JSON.stringify(value); // undefined for undefined, a function or a symbol
  }
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') return write(toJSON.call(value));
  if (Array.isArray(value)) return `[${value.map((v) => write(v) ?? 'null').join(',')}]`;
  const members: string[] = [];
  for (const [key, v] of Object.entries(value)) {
    const text = write(v);
    if (text !== undefined) members.push(`${JSON.stringify(key)}:${text}`);
  }
  return `{${members.join(',')}}`;
}
