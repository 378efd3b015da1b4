import request from 'supertest';
import type { FeedApp } from '../../src/app';
import type { ChannelView, ItemTextField } from '../../src/render/view';
import { READ_TOKEN, WRITE_TOKEN } from './tokens';

export const ACCEPT_XML = 'application/vnd.vendor.resource-1.0+xml;charset=utf-8';
export const ACCEPT_JSON = 'application/vnd.vendor.resource-1.0+json;charset=utf-8';
export const TYPE_XML = 'application/vnd.vendor.resource-1.0+xml;charset=utf-8';
export const TYPE_JSON = 'application/vnd.vendor.resource-1.0+json;charset=utf-8';
/** A date as RSS 2.0 writes it (RFC 822). */
export const RFC822 =
  /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} (GMT|[+-]\d{4})$/;

/** Names given as one space-separated string. */
const names = <K extends string>(list: string) => list.split(' ') as K[];
/** The text members of every channel, in order (JSON keys, RSS elements). */
export const CHANNEL_KEYS = names<keyof ChannelView>(
  'title link description language copyright lastBuildDate',
);
/** The members of an item before its creator (and enclosure), in order. */
export const ITEM_KEYS = names<ItemTextField>(
  'title link author description category pubDate guid',
);

type App = Parameters<typeof request>[0];

/** A read with a token (READ_TOKEN unless given) and an Accept header (JSON unless given). */
export function getFeed(
  app: FeedApp,
  path: string,
  accept: string | undefined = ACCEPT_JSON,
  bearer: string = READ_TOKEN,
) {
  const r = request(app).get(path).set('Authorization', `Bearer ${bearer}`);
  return accept === undefined ? r : r.set('Accept', accept);
}

/** A write with a token (WRITE_TOKEN unless given) and, when there is one, this body text. */
export function write(
  app: App,
  method: 'post' | 'put' | 'delete',
  path: string,
  body?: string,
  { bearer = WRITE_TOKEN, contentType = 'application/json' } = {},
) {
  const r = request(app)[method](path).set('Authorization', `Bearer ${bearer}`);
  return body === undefined ? r : r.set('Content-Type', contentType).send(body);
}

/** POST /hub/contents with `body` as JSON. */
export function publish(app: App, body: unknown, bearer: string = WRITE_TOKEN) {
  return write(app, 'post', '/hub/contents', JSON.stringify(body), { bearer });
}
/** PUT /hub/contents/{id} with `body` as JSON. */
export function put(app: App, id: string, body: unknown, bearer: string = WRITE_TOKEN) {
  return write(app, 'put', `/hub/contents/${id}`, JSON.stringify(body), { bearer });
}
/** DELETE /hub/contents/{id}. */
export function del(app: App, id: string, bearer: string = WRITE_TOKEN) {
  return write(app, 'delete', `/hub/contents/${id}`, undefined, { bearer });
}

export interface ItemInput {
  title?: unknown;
  link?: unknown;
  description?: unknown;
  category?: unknown;
  creator?: unknown;
  author?: unknown;
  pubDate?: unknown;
  enclosure?: unknown;
  [k: string]: unknown;
}
/** A valid item to publish; `overrides` change or add fields. */
export function item(overrides: ItemInput = {}): ItemInput {
  return {
    title: '서울의 가을 산책길',
    link: 'https://hub.example.com/contents/1',
    description: '단풍이 아름다운 산책 코스를 소개합니다.',
    category: 'trip',
    creator: '김하늘',
    pubDate: 'Mon, 23 Nov 2026 05:26:57 +0000',
    ...overrides,
  };
}

/** Text that breaks naive XML or JSON: Korean, emoji, markup characters, a CDATA end. */
export const TRICKY = {
  title: '한글 제목 😀 <b>굵게</b> & "따옴표" \'s\' ]]> 끝',
  link: "https://hub.example.com/a?x=1&y=%3C2%3E&z=%5D%5D%3E&w=('q')",
  description: '<p>설명 & 내용</p> ]]> <![CDATA[ x ]]> 🍜🇰🇷 \t탭\n줄바꿈',
  category: 'food',
  creator: '홍길동 <hong> & 친구들 ]]>',
  author: 'writer@example.com (작가 <&> ]]>)',
  enclosure: { url: 'https://img.example.com/p.jpg?a=1&b=2', length: '12345', type: 'image/jpeg' },
};
