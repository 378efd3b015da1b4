// The stored items: 100 with text like real Korean posts, then (step 5) up to a million made
// by one INSERT … generate_series.

const SUBJECTS = [
  '서울 한옥마을',
  '제주 올레길',
  '부산 해운대 야경',
  '전주 비빔밥 골목',
  '강릉 커피거리',
  '경주 역사유적지구',
  '인공지능 스타트업',
  '반도체 수출 동향',
  '가을 캠핑 준비물',
  '집에서 만드는 김치찌개',
  '재택근무 생산성',
  '주말 미술관 나들이',
];
const SENTENCES = [
  '현지 사람들이 추천하는 숨은 명소를 직접 다녀왔습니다.',
  '처음 방문하는 분들을 위해 교통편과 예상 비용을 정리했습니다.',
  '계절마다 달라지는 풍경과 즐길 거리를 사진과 함께 소개합니다.',
  '전문가 인터뷰를 통해 최근 흐름과 앞으로의 전망을 살펴봅니다.',
  '실패하지 않는 준비 방법과 알아두면 좋은 팁을 모았습니다.',
  '가족, 친구와 함께하기 좋은 일정표도 준비했어요 😀',
  '자세한 내용은 본문 링크에서 확인하세요 & 의견을 남겨 주세요.',
];
const CATEGORIES = ['life', 'culture', 'trip', 'it', 'food', 'biz'];

/** 100 items through SQL, with text like real Korean posts (titles ~25, descriptions ~150 characters). */
export async function insertRealisticItems(pool, n) {
  for (let i = 0; i < n; i++) {
    const subject = SUBJECTS[i % SUBJECTS.length];
    const description = [0, 1, 2, 3]
      .map((k) => SENTENCES[(i + k * 3) % SENTENCES.length])
      .join(' ');
    await pool.query(
      `INSERT INTO feed_items (title, link, description, category, creator, author, pub_date, enclosure_url, enclosure_length, enclosure_type)
       VALUES ($1, $2, $3, $4, $5, NULL, now() - $6 * interval '7 minutes', $7, $8, 'image/jpeg')`,
      [
        `${subject} — 꼭 알아야 할 ${(i % 9) + 2}가지 이야기`,
        `https://hub.example.com/contents/${100000 + i}`,
        `<p>${description}</p>`,
        CATEGORIES[i % CATEGORIES.length],
        ['김하늘', '이서준', '박지민', '최유나', '정도윤'][i % 5],
        i,
        i % 3 === 0 ? null : `https://img.example.com/contents/${100000 + i}/cover.jpg`,
        i % 3 === 1 ? String(120000 + i * 37) : null,
      ],
    );
  }
}

/** Rows up to `total` in one INSERT … SELECT generate_series, pub_dates 315 s apart (ten years for 1M). */
export async function insertBulk(pool, total) {
  const { rows } = await pool.query('SELECT count(*)::int AS n FROM feed_items');
  const missing = total - rows[0].n;
  if (missing <= 0) return;
  await pool.query(
    `INSERT INTO feed_items (title, link, description, category, creator, pub_date, enclosure_url)
     SELECT '제목 ' || g || ' — 서울의 가을 산책길과 숨은 명소 이야기',
            'https://hub.example.com/archive/' || g,
            '현지 사람들이 추천하는 숨은 명소를 직접 다녀왔습니다. 처음 방문하는 분들을 위해 교통편과 예상 비용을 정리했습니다. #' || g,
            (ARRAY['life','culture','trip','it','food','biz'])[1 + g % 6],
            '작성자 ' || (g % 1000),
            now() - g * interval '315 seconds',
            CASE WHEN g % 2 = 0 THEN 'https://img.example.com/' || g || '.jpg' END
     FROM generate_series(1, $1::int) AS g`,
    [missing],
  );
  await pool.query('ANALYZE feed_items');
}
