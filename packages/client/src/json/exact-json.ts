/**
 * JSON parsing that keeps every number's exact source text. `JSON.parse` turns every number
 * into a double (9223372036854775807 becomes 9223372036854776000) and Node 20's reviver gets
 * only that double, so the text is tokenised here: strings are found by their quotes and
 * decoded by `JSON.parse` itself, numbers are handed as text to `reviveNumber`.
 */

/** Where a value stands: object keys and array indexes from the top. */
export type JsonPath = readonly (string | number)[];

export type NumberReviver = (source: string, path: JsonPath) => unknown;

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const INTEGER = /^-?(?:0|[1-9][0-9]*)$/;

/** True for the text of a JSON integer (no fraction, no exponent). */
export function isIntegerText(source: string): boolean {
  return INTEGER.test(source);
}

/** Integers that a double holds exactly stay numbers; larger ones become bigint; the rest numbers. */
export const exactNumber: NumberReviver = (source) => {
  if (!isIntegerText(source)) return Number(source);
  const n = Number(source);
  return Number.isSafeInteger(n) ? n : BigInt(source);
};

export function parseJsonExact(text: string, reviveNumber: NumberReviver = exactNumber): unknown {
  const parser = new Parser(text, reviveNumber);
  parser.skipSpace();
  const value = parser.value([]);
  parser.skipSpace();
  if (parser.pos !== text.length) parser.fail('unexpected text after the value');
  return value;
}

class Parser {
  pos = 0;
  constructor(
    private readonly text: string,
    private readonly reviveNumber: NumberReviver,
  ) {}

  fail(what: string): never {
    throw new SyntaxError(`JSON: ${what} at position ${this.pos}`);
  }

  skipSpace(): void {
    const t = this.text;
    while (this.pos < t.length) {
      const c = t.charCodeAt(this.pos);
      if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return;
      this.pos++;
    }
  }

  value(path: (string | number)[]): unknown {
    const c = this.text[this.pos];
    if (c === '{') return this.object(path);
    if (c === '[') return this.array(path);
    if (c === '"') return this.string();
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return this.number(path);
    for (const [word, value] of LITERALS) {
      if (this.text.startsWith(word, this.pos)) {
        this.pos += word.length;
        return value;
      }
    }
    return this.fail(c === undefined ? 'unexpected end' : `unexpected ${JSON.stringify(c)}`);
  }

  private object(path: (string | number)[]): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    this.pos++; // {
    this.skipSpace();
    if (this.text[this.pos] === '}') {
      this.pos++;
      return out;
    }
    for (;;) {
      if (this.text[this.pos] !== '"') this.fail('expected a key');
      const key = this.string();
      this.skipSpace();
      if (this.text[this.pos] !== ':') this.fail('expected ":"');
      this.pos++;
      this.skipSpace();
      path.push(key);
      const value = this.value(path);
      path.pop();
      // defineProperty, as JSON.parse does: a "__proto__" key is an own property
      Object.defineProperty(out, key, {
        value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
      this.skipSpace();
      const c = this.text[this.pos++];
      if (c === '}') return out;
      if (c !== ',') this.fail('expected "," or "}"');
      this.skipSpace();
    }
  }

  private array(path: (string | number)[]): unknown[] {
    const out: unknown[] = [];
    this.pos++; // [
    this.skipSpace();
    if (this.text[this.pos] === ']') {
      this.pos++;
      return out;
    }
    for (;;) {
      path.push(out.length);
      out.push(this.value(path));
      path.pop();
      this.skipSpace();
      const c = this.text[this.pos++];
      if (c === ']') return out;
      if (c !== ',') this.fail('expected "," or "]"');
      this.skipSpace();
    }
  }

  /** The string token (quotes to the unescaped closing quote), decoded by JSON.parse. */
  private string(): string {
    const start = this.pos;
    let i = start + 1;
    const t = this.text;
    for (;;) {
      const c = t.charCodeAt(i);
      if (Number.isNaN(c)) this.fail('unterminated string');
      if (c === 0x5c) i += 2;
      else if (c === 0x22) break;
      else i++;
    }
    this.pos = i + 1;
    return JSON.parse(t.slice(start, this.pos)) as string;
  }

  private number(path: (string | number)[]): unknown {
    NUMBER.lastIndex = this.pos;
    const m = NUMBER.exec(this.text);
    if (!m) return this.fail('bad number');
    this.pos += m[0].length;
    return this.reviveNumber(m[0], path);
  }
}

const LITERALS: readonly (readonly [string, unknown])[] = [
  ['true', true],
  ['false', false],
  ['null', null],
];
