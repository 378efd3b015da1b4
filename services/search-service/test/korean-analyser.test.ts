import { attaches, isHangulSyllable } from '../src/index/analysis/hangul';
import { oneSyllableStem, queryStem } from '../src/index/analysis/korean-particles';
import { queryTerms, terms } from '../src/index/analyser';
import { testFinds, testMisses } from './helpers/term-match';

describe('Korean particles: the syllable before a particle', () => {
  test.each([
    ['울', 'consonant', true],
    ['교', 'consonant', false],
    ['교', 'vowel', true],
    ['울', 'vowel-or-rieul', true],
    ['집', 'vowel-or-rieul', false],
    ['울', 'consonant-not-rieul', false],
    ['집', 'consonant-not-rieul', true],
    ['京', 'vowel', true],
  ] as const)('When %s is followed by a particle for %s, it fits: %s', (syllable, form, fits) => {
    expect(attaches(syllable, form)).toBe(fits);
  });

  test('When a character is not a precomposed Hangul syllable, it is not taken for one', () => {
    expect(isHangulSyllable('경')).toBe(true);
    expect(isHangulSyllable('ㄱ')).toBe(false);
    expect(isHangulSyllable('京')).toBe(false);
    expect(isHangulSyllable('a')).toBe(false);
  });
});

describe('Korean particles: the stem a query word is searched by', () => {
  /** One test per [word, stem] case, named `title` (%s: the word, then the stem). */
  const testStems = (title: string, cases: Array<[word: string, stem: string]>) =>
    test.each(cases)(title, (word, stem) => {
      expect(queryStem(word)).toBe(stem);
    });

  testStems('When a query word is %s, its stem is %s', [
    // case particles, longest first
    ['경복궁에서', '경복궁'],
    ['경복궁의', '경복궁'],
    ['경복궁을', '경복궁'],
    ['경복궁은', '경복궁'],
    ['학교는', '학교'],
    ['학교를', '학교'],
    ['서울에', '서울'],
    ['친구에게', '친구'],
    ['친구에게서', '친구'],
    ['선생님께서', '선생님'],
    ['선생님께', '선생님'],
    ['부산까지', '부산'],
    ['아침부터', '아침'],
    ['어제보다', '어제'],
    ['꽃처럼', '꽃'],
    ['한국과', '한국'],
    ['일본과', '일본'],
    ['커피와', '커피'],
    ['개발자들', '개발자'],
    // 으로 after a consonant other than ㄹ, 로 after a vowel or ㄹ
    ['부산으로', '부산'],
    ['서울로', '서울'],
    ['제주로', '제주'],
    ['집으로', '집'],
  ]);

  testStems('When a word of three syllables or more ends in 이/가 (%s), its stem is %s', [
    ['태풍이', '태풍'],
    ['서버가', '서버'],
    ['카카오톡이', '카카오톡'],
    ['드라마가', '드라마'],
  ]);

  testStems(
    'When a word ends in 도/만 (%s), it is split only from four syllables or more (three keep two bigrams): %s',
    [
      ['부산시도', '부산시'],
      ['제주도도', '제주도'],
      ['이천만', '이천만'],
      ['해상도', '해상도'],
    ],
  );

  testStems('When particles are stacked (%s), each is split off: %s', [
    ['경복궁에서는', '경복궁'],
    ['서울에서의', '서울'],
    ['부산으로는', '부산'],
    ['학생들에게', '학생'],
    ['친구와의', '친구'],
    ['제주도에서도', '제주도'],
    ['공항에만', '공항'],
  ]);

  testStems('When a query word ends in the copula or a 하다/되다 ending (%s), its stem is %s', [
    ['박물관이다', '박물관'],
    ['박물관입니다', '박물관'],
    ['카페예요', '카페'],
    ['박물관이라고', '박물관'],
    ['학교라는', '학교'],
    ['개발했다', '개발'],
    ['개발하는', '개발'],
    ['출시됐다', '출시'],
    ['출시된', '출시'],
    ['공부합니다', '공부'],
  ]);

  test.each([
    // the particle form must fit the syllable before it
    ['아이'],
    ['나이'],
    ['마을'],
    ['가을'],
    ['경로'],
    // endings a query never splits off: too many nouns end in them
    ['고양이'],
    ['어린이'],
    ['제주도'],
    ['경기도'],
    ['휴가'],
    ['젊은이'],
    ['대만'],
    ['강남대로'],
    // 의, 로, 와, 과: only from words of three syllables or more
    ['회의'],
    ['강의'],
    ['도로'],
    ['사과'],
    ['함께'],
    // nouns that end like a particle
    ['고속도로'],
    ['정신과'],
    ['무제한'],
    // a word of one syllable, or a particle alone
    ['책'],
    ['은'],
    ['에서'],
  ])('When a query word is %s, it is kept whole (it only looks like stem + particle)', (word) => {
    expect(queryStem(word)).toBe(word);
  });

  test.each([
    ['년의', 'digits', '년'],
    ['명이', 'digits', '명'],
    ['년도', 'digits', '년'],
    ['월에', 'digits', '월'],
    ['에서', 'digits', ''],
    ['을', 'other', ''],
    ['가', 'other', ''],
    ['에서는', 'other', ''],
    ['도', 'digits', '도'],
    ['만', 'digits', '만'],
    ['도에서', 'digits', '도'],
    ['반도체를', 'other', '반도체'],
  ] as const)(
    'When a Hangul run %s follows a number or a Latin word (%s), it gives %j (counters keep one syllable; particles of a Latin word go)',
    (run, start, stem) => {
      expect(queryStem(run, start)).toBe(stem);
    },
  );
});

describe('Korean particles: one-syllable stems of documents', () => {
  test.each([
    ['책을', '책'],
    ['책에서는', '책'],
    ['집에', '집'],
    ['책에도', '책'],
    ['나는', '나'],
    ['차를', '차'],
  ])('When a document word is one syllable plus particles (%s), it also gives %s', (word, stem) => {
    expect(oneSyllableStem(word)).toBe(stem);
  });

  test.each([['서울'], ['서울에서'], ['아이'], ['책상'], ['가을'], ['마을'], ['책']])(
    'When a document word %s is not one syllable plus particles, it gives no extra term',
    (word) => {
      expect(oneSyllableStem(word)).toBeNull();
    },
  );

  test.each([['회의'], ['강의를'], ['속도'], ['강도가'], ['불만']])(
    'When a two-syllable word ends in 의/도/만 (%s), it is taken for a noun (회의, 속도, 불만), not a syllable plus particle',
    (word) => {
      expect(oneSyllableStem(word)).toBeNull();
    },
  );

  test('When a counter after a number carries 의/도/만 (2024년의), the counter is its stem', () => {
    expect(oneSyllableStem('년의', true)).toBe('년');
    expect(terms('2024년의')).toEqual(['2024', '년의', '년']);
  });

  test('When a document word is one syllable plus particles, its terms are its bigrams and that syllable', () => {
    expect(terms('책을 읽었다')).toEqual(['책을', '책', '읽었', '었다']);
  });
});

describe('Korean particles: what a query finds', () => {
  testFinds('When a document says %s, q=%s finds it', [
    ['경복궁의 야경이 아름답다', '경복궁에서'],
    ['경복궁을 방문했다', '경복궁에서'],
    ['경복궁 관람 시간', '경복궁에서'],
    ['서울에서 부산까지 기차로', '부산으로'],
    ['이 책은 재미있다', '책을'],
    ['책에서 읽었다', '책을'],
    ['2024년 3월 출시', '2024년에'],
    ['2024년의 실적', '2024년에'],
    ['iPhone을 샀다', 'iPhone은'],
    ['AI 반도체 수요', 'AI가'],
    ['한국의 역사와 문화', '한국과 문화'],
    ['서울특별시 맛집', '서울의 맛집'],
    ['개발자 커뮤니티', '개발자들'],
    ['앱 개발 방법', '개발하는 방법'],
  ]);

  testMisses(
    'When a document says %s, the bigram-only baseline does not find q=%s',
    [
      ['경복궁의 야경', '경복궁에서'],
      ['이 책은 재미있다', '책을'],
      ['iPhone을 샀다', 'iPhone은'],
    ],
    { bigramOnly: true },
  );

  testMisses('When a document says %s, q=%s does not find it (a stem is not split from a noun)', [
    ['고양시 일산 호수공원', '고양이'],
    ['축구 경기 결과', '경기도'],
    ['책상 위의 컵', '책을'],
    ['한강 공원', '강의를'],
    ['정신 건강', '정신과'],
    ['고속 인터넷 속도', '고속도로'],
    ['정책을 발표했다', '책을'],
  ]);

  test('When the bigram-only baseline is asked, a query keeps every bigram of its words', () => {
    expect(queryTerms('경복궁에서', { bigramOnly: true })).toEqual([
      '경복',
      '복궁',
      '궁에',
      '에서',
    ]);
    expect(queryTerms('경복궁에서')).toEqual(['경복', '복궁']);
    expect(terms('책을', { bigramOnly: true })).toEqual(['책을']);
  });
});
