import {
  fieldKind,
  FIELD_TYPES,
  isReservedField,
  isValidFieldName,
  parseFieldName,
  RESERVED_FIELDS,
  RESERVED_NAME_PARTS,
} from '../src';
import { testCalls } from './helpers';

describe('field types and reserved fields', () => {
  it('has the three field types of the spec', () => {
    expect(FIELD_TYPES).toEqual(['contents', 'icontents', 'score']);
  });

  it('lists the reserved fields of the spec with their required flags', () => {
    expect(RESERVED_FIELDS.map((f) => [f.name, f.kind, f.required])).toEqual([
      ['contents_url', 'contents', false],
      ['icontents_title', 'icontents', true],
      ['icontents_body', 'icontents', true],
      ['score_regdate', 'score', true],
      ['contents_image', 'contents', false],
      ['categories', 'categories', false],
    ]);
  });

  it('takes the name parts url, title, body, regdate, image and categories', () => {
    expect(RESERVED_NAME_PARTS).toEqual(['url', 'title', 'body', 'regdate', 'image', 'categories']);
  });

  it.each(RESERVED_FIELDS.map((f) => f.name))('reserved field %s is a valid field name', (name) => {
    expect(isReservedField(name)).toBe(true);
    expect(isValidFieldName(name)).toBe(true);
  });
});

describe('parseFieldName', () => {
  it.each([
    ['contents_author', 'contents', 'author'],
    ['icontents_tag2', 'icontents', 'tag2'],
    ['score_view', 'score', 'view'],
    ['score_Title', 'score', 'Title'],
    ['contents_' + 'x'.repeat(64), 'contents', 'x'.repeat(64)],
  ])('splits %s into type %s and name %s', (name, type, part) => {
    expect(parseFieldName(name)).toEqual({ type, name: part });
  });

  it.each([
    'categories',
    'contents',
    'contents_',
    'contents__x',
    'contents_a_b',
    'contents_a.b',
    'contents_ä',
    'CONTENTS_x',
    'icontent_x',
    'scores_x',
    ' score_x',
    'score_x ',
    'contents_' + 'x'.repeat(65),
  ])('refuses %p', (name) => {
    expect(parseFieldName(name)).toBeNull();
  });
});

describe('reserved-name rule', () => {
  it.each([
    'contents_title',
    'contents_body',
    'contents_regdate',
    'icontents_url',
    'icontents_image',
    'icontents_regdate',
    'score_url',
    'score_title',
    'score_body',
    'score_image',
    'contents_categories',
    'score_categories',
    'icontents_Title',
    'contents_URL',
  ])('When a user field is named %s (a reserved name part), it is invalid', (name) => {
    expect(fieldKind(name)).toBeNull();
    expect(isValidFieldName(name)).toBe(false);
  });

  testCalls('%s is a %s field', fieldKind, [
    ['contents_author', 'contents'],
    ['icontents_tag', 'icontents'],
    ['score_view', 'score'],
    ['contents_url2', 'contents'],
    ['score_titles', 'score'],
    ['categories', 'categories'],
  ]);
});
