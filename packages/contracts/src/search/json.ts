import { parse } from 'lossless-json';

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
