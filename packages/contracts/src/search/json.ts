import { LosslessNumber, parse } from 'lossless-json';

/** JSON text → the value (numbers as LosslessNumber), or undefined when it is not JSON. */
export function parseLossless(text: string): unknown {
  try {
    return parse(text);
  } catch {
    return undefined;
  }
}

function stringEnd(text: string, open: number): number {
  for (let i = open + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i;
  }
  return text.length;
}

interface Frame {
  readonly isObject: boolean;
  readonly keys: Set<string>;
  expectKey: boolean;
}

/**
 * For text that lossless-json has already accepted: the top-level object's keys in document
 * order, or null when any object (at any depth) repeats a key. lossless-json itself only
 * refuses repeated keys whose values differ, and JavaScript objects list integer-like keys
 * first, so neither gives the order or the duplicates we need.
 */
export function topLevelKeys(text: string): string[] | null {
  const stack: Frame[] = [];
  const keys: string[] = [];
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '"') {
      const end = stringEnd(text, i);
      const frame = stack[stack.length - 1];
      if (frame?.isObject && frame.expectKey) {
        const key = parse(text.slice(i, end + 1)) as string;
        if (frame.keys.has(key)) return null;
        frame.keys.add(key);
        frame.expectKey = false;
        if (stack.length === 1) keys.push(key);
      }
      i = end;
    } else if (ch === '{' || ch === '[') {
      stack.push({ isObject: ch === '{', keys: new Set(), expectKey: ch === '{' });
    } else if (ch === '}' || ch === ']') {
      stack.pop();
    } else if (ch === ',') {
      const frame = stack[stack.length - 1];
      if (frame?.isObject) frame.expectKey = true;
    }
  }
  return keys;
}

/** A JSON object read by parseFlatObject: its keys in document order and its value. */
export interface FlatObject {
  readonly keys: string[];
  readonly value: Record<string, unknown>;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function isJsonSpace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x09 || code === 0x0d;
}

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

/**
 * The shape nearly every doc has, read at native speed: an object whose values are strings,
 * numbers or arrays of numbers, with no key twice. Gives exactly what parseLossless and
 * topLevelKeys give for it (strings decoded by JSON.parse, numbers as LosslessNumber of their
 * text, in the same order), or null for any other text (another shape, a repeated key, text
 * that is not JSON): the caller then takes the general path, which decides every error.
 */
export function parseFlatObject(text: string): FlatObject | null {
  const n = text.length;
  let i = 0;
  const space = () => {
    while (i < n && isJsonSpace(text.charCodeAt(i))) i++;
  };
  /** the string opening at i (JSON.parse decodes it: same result as lossless-json's) */
  const string = (): string | null => {
    const open = i;
    let close = text.indexOf('"', open + 1);
    for (;;) {
      if (close < 0) return null;
      let backslashes = 0;
      while (text.charCodeAt(close - 1 - backslashes) === BACKSLASH) backslashes++;
      if (backslashes % 2 === 0) break;
      close = text.indexOf('"', close + 1);
    }
    i = close + 1;
    try {
      return JSON.parse(text.slice(open, i)) as string;
    } catch {
      return null;
    }
  };
  /** the number starting at i, by the grammar lossless-json reads */
  const number = (): LosslessNumber | null => {
    const start = i;
    if (text.charCodeAt(i) === 0x2d) i++;
    const first = text.charCodeAt(i);
    if (first === 0x30) i++;
    else if (first >= 0x31 && first <= 0x39) while (isDigit(text.charCodeAt(++i)));
    else return null;
    if (text.charCodeAt(i) === 0x2e) {
      if (!isDigit(text.charCodeAt(++i))) return null;
      while (isDigit(text.charCodeAt(++i)));
    }
    const e = text.charCodeAt(i);
    if (e === 0x65 || e === 0x45) {
      const sign = text.charCodeAt(++i);
      if (sign === 0x2b || sign === 0x2d) i++;
      if (!isDigit(text.charCodeAt(i))) return null;
      while (isDigit(text.charCodeAt(++i)));
    }
    return new LosslessNumber(text.slice(start, i));
  };
  const numbers = (): LosslessNumber[] | null => {
    i++; // [
    const out: LosslessNumber[] = [];
    space();
    if (text.charCodeAt(i) === 0x5d) {
      i++;
      return out;
    }
    for (;;) {
      space();
      const item = number();
      if (item === null) return null;
      out.push(item);
      space();
      const next = text.charCodeAt(i++);
      if (next === 0x5d) return out;
      if (next !== 0x2c) return null;
    }
  };

  space();
  if (text.charCodeAt(i++) !== 0x7b) return null;
  const keys: string[] = [];
  const value: Record<string, unknown> = {};
  space();
  if (text.charCodeAt(i) === 0x7d) return null; // {}: the general path
  for (;;) {
    space();
    if (text.charCodeAt(i) !== QUOTE) return null;
    const key = string();
    if (key === null || key === '__proto__' || Object.prototype.hasOwnProperty.call(value, key))
      return null;
    space();
    if (text.charCodeAt(i++) !== 0x3a) return null;
    space();
    const c = text.charCodeAt(i);
    const v = c === QUOTE ? string() : c === 0x5b ? numbers() : number();
    if (v === null) return null;
    keys.push(key);
    value[key] = v;
    space();
    const next = text.charCodeAt(i++);
    if (next === 0x7d) break;
    if (next !== 0x2c) return null;
  }
  space();
  return i === n ? { keys, value } : null;
}
