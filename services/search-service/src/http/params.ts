/**
 * Request parameters: `application/x-www-form-urlencoded` text from the query string and/or
 * the request body, decoded here (not by Express) so that bad input is reported, never
 * replaced silently:
 *  - `+` is a space, `%XX` a byte; the bytes of a value are decoded as UTF-8 with a fatal
 *    decoder. Invalid UTF-8, or a `%` not followed by two hex digits, marks the value
 *    "invalid encoding" (it keeps a lossy decoding for messages, never for storage).
 *  - A body whose declared charset is not UTF-8 marks every body value "invalid encoding".
 *  - The body wins when both places carry a parameter; inside one place the first occurrence
 *    wins. `name` without `=` is present with the empty value.
 */

export interface ParamValue {
  /** the decoded text (lossy when !valid) */
  readonly value: string;
  /** false when the value was not valid percent-encoded UTF-8 */
  readonly valid: boolean;
}

// ignoreBOM: a leading U+FEFF is part of the value, not a marker to drop
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const lossyUtf8 = new TextDecoder('utf-8', { ignoreBOM: true });

/** The value of each byte as a hex digit, -1 for any other byte. */
const HEX_VALUES = new Int8Array(256).fill(-1);
for (let d = 0; d < 16; d++) {
  HEX_VALUES['0123456789abcdef'.charCodeAt(d)] = d;
  HEX_VALUES['0123456789ABCDEF'.charCodeAt(d)] = d;
}

/** Percent-decodes bytes[from, to) ('+' → space); `valid` is false on a malformed escape. */
function percentDecode(bytes: Uint8Array, from: number, to: number): ParamValue {
  const out = new Uint8Array(to - from);
  let n = 0;
  let wellFormed = true;
  for (let i = from; i < to; i++) {
    const b = bytes[i]!;
    if (b === 0x25) {
      const hi = i + 2 < to ? HEX_VALUES[bytes[i + 1]!]! : -1;
      const lo = i + 2 < to ? HEX_VALUES[bytes[i + 2]!]! : -1;
      if (hi < 0 || lo < 0) {
        wellFormed = false;
        out[n++] = b;
      } else {
        out[n++] = (hi << 4) | lo;
        i += 2;
      }
    } else {
      out[n++] = b === 0x2b ? 0x20 : b;
    }
  }
  const decoded = out.subarray(0, n);
  try {
    return { value: strictUtf8.decode(decoded), valid: wellFormed };
  } catch {
    return { value: lossyUtf8.decode(decoded), valid: false };
  }
}

/** Parses form-encoded bytes into name → value (first occurrence of a name wins). */
export function parseForm(input: Uint8Array | string, allValid = true): Map<string, ParamValue> {
  const bytes = typeof input === 'string' ? Buffer.from(input, 'latin1') : input;
  const params = new Map<string, ParamValue>();
  let start = 0;
  while (start <= bytes.length) {
    let end = bytes.indexOf(0x26, start);
    if (end < 0) end = bytes.length;
    if (end > start) {
      let eq = bytes.indexOf(0x3d, start);
      if (eq < 0 || eq > end) eq = end;
      const name = percentDecode(bytes, start, eq);
      if (name.valid && !params.has(name.value)) {
        const value = eq < end ? percentDecode(bytes, eq + 1, end) : { value: '', valid: true };
        params.set(name.value, allValid ? value : { value: value.value, valid: false });
      }
    }
    start = end + 1;
  }
  return params;
}

/** The parameters of one request: body first, then the query string. */
export class RequestParams {
  constructor(
    private readonly body: Map<string, ParamValue>,
    private readonly query: Map<string, ParamValue>,
  ) {}

  static from(queryString: string, body: Uint8Array | null, bodyIsUtf8 = true): RequestParams {
    return new RequestParams(
      body && body.length ? parseForm(body, bodyIsUtf8) : new Map<string, ParamValue>(),
      parseForm(queryString),
    );
  }

  entry(name: string): ParamValue | undefined {
    return this.body.get(name) ?? this.query.get(name);
  }

  /**
   * The decoded value, undefined when absent. A value whose encoding is invalid comes back as
   * its lossy decoding followed by U+0000: every contract parser refuses U+0000 with that
   * parameter's own error (apikey is invalid, dockey is invalid, q is invalid encoding, ca
   * parameter is invalid, fieldvalue is invalid, ...), after its null/empty/length checks.
   */
  get(name: string): string | undefined {
    const entry = this.entry(name);
    if (!entry) return undefined;
    return entry.valid ? entry.value : `${entry.value}\u0000`;
  }

  /** True when any of these parameters is present with an invalid encoding. */
  invalid(...names: string[]): boolean {
    return names.some((name) => this.entry(name)?.valid === false);
  }
}
