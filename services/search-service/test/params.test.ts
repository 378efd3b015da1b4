import { parseForm, RequestParams } from '../src/http/params';

const valueOf = (form: string, name: string) => parseForm(form).get(name);

describe('form decoding (query string and body)', () => {
  test('When values are percent-encoded UTF-8, they decode exactly', () => {
    expect(valueOf('q=%EC%84%9C%EC%9A%B8', 'q')).toEqual({ value: '서울', valid: true });
    expect(valueOf('q=%F0%9F%98%80', 'q')).toEqual({ value: '😀', valid: true });
    expect(valueOf('q=a%2Bb%26c%3Dd', 'q')).toEqual({ value: 'a+b&c=d', valid: true });
  });

  test('When a value has +, it is a space; %2B is a plus', () => {
    expect(valueOf('q=a+b%2Bc', 'q')!.value).toBe('a b+c');
  });

  test('When a value has raw UTF-8 bytes, they decode', () => {
    const form = Buffer.from('q=서울&x=1', 'utf8');
    expect(parseForm(form).get('q')).toEqual({ value: '서울', valid: true });
  });

  test('When bytes are not UTF-8 (bad sequence, overlong, surrogate, truncated), the value is invalid', () => {
    for (const bad of ['%FF', '%C3%28', '%C0%AF', '%ED%A0%80', '%EC%84', '%F4%90%80%80']) {
      const v = valueOf(`q=${bad}`, 'q')!;
      expect([bad, v.valid]).toEqual([bad, false]);
    }
  });

  test('When an escape is malformed, the value is invalid (the text keeps the %)', () => {
    for (const bad of ['%', '%z1', '%1', 'a%g0b', '100%']) {
      const v = valueOf(`q=${bad}`, 'q')!;
      expect([bad, v.valid]).toEqual([bad, false]);
      expect(v.value).toContain('%');
    }
  });

  test('When a name repeats, the first occurrence counts; a name without = is empty', () => {
    const form = parseForm('a=1&a=2&b&c=&&=x');
    expect(form.get('a')!.value).toBe('1');
    expect(form.get('b')).toEqual({ value: '', valid: true });
    expect(form.get('c')).toEqual({ value: '', valid: true });
    expect(form.get('')!.value).toBe('x');
  });

  test('When a value holds = signs, only the first one separates name and value', () => {
    expect(valueOf('doc=a=b=c', 'doc')!.value).toBe('a=b=c');
  });

  test('When a BOM or NUL is encoded, it is kept (not dropped, not replaced)', () => {
    expect(valueOf('q=%EF%BB%BFx', 'q')!.value).toBe('\ufeffx');
    expect(valueOf('q=a%00b', 'q')).toEqual({ value: 'a\u0000b', valid: true });
  });

  test('When the body is declared in another charset, every body value is invalid', () => {
    const params = RequestParams.from('', Buffer.from('doc=abc'), false);
    expect(params.invalid('doc')).toBe(true);
  });
});

describe('RequestParams', () => {
  test('When both places carry a parameter, the body wins; otherwise the query string', () => {
    const p = RequestParams.from('a=query&b=query', Buffer.from('a=body'));
    expect(p.get('a')).toBe('body');
    expect(p.get('b')).toBe('query');
    expect(p.get('c')).toBeUndefined();
  });

  test('When a value is invalid, get gives its lossy text followed by U+0000 (refused by every contract parser)', () => {
    const p = RequestParams.from('q=%FFa', null);
    expect(p.get('q')).toBe('\ufffda\u0000');
    expect(p.invalid('q')).toBe(true);
    expect(p.invalid('other', 'q')).toBe(true);
    expect(p.invalid('other')).toBe(false);
  });
});
