import { isLosslessNumber, parse } from 'lossless-json';
import { deleteNonXmlChars } from '@hub/service-kit';
import type { ResultDocument, SearchResult } from '../domain/search';
import type { CollectionStatus } from '../domain/status';

/**
 * The JSON and XML writers of search results and status. Numbers are never passed through
 * JavaScript doubles: stored docs are parsed with lossless-json (numbers keep their text).
 *
 * A result document lists: dockey, then the stored fields in the order the client sent them,
 * then categories ([] when the doc has none), then the archive_* fields of the thumbnails, then
 * with hl=1 highlight_title and highlight_body (fragments: in XML escaped like any text, so an
 * XML parser gives the same string as the JSON).
 */

export type ResultFields = Array<[string, unknown]>;

export function resultFields(d: ResultDocument): ResultFields {
  const stored = parse(d.doc.toString('utf8')) as Record<string, unknown>;
  const fields: ResultFields = [['dockey', d.dockey], ...Object.entries(stored)];
  if (!('categories' in stored)) fields.push(['categories', []]);
  for (const [name, value] of Object.entries(d.archive)) fields.push([name, value]);
  for (const [name, value] of highlightFields(d)) fields.push([name, value]);
  return fields;
}

/** highlight_title, highlight_body: names no stored field has (user fields carry a type prefix). */
function highlightFields(d: ResultDocument): Array<[string, string]> {
  if (!d.highlight) return [];
  return [
    ['highlight_title', d.highlight.title],
    ['highlight_body', d.highlight.body],
  ];
}

// ---------------------------------------------------------------- JSON

/**
 * The stored doc is compact JSON written by lossless-json (exact numbers): its bytes are spliced
 * into the answer as they are, with no parse, re-serialisation or string of them made
 * (store/result-documents.ts reads them as bytes). A top-level key can only be preceded by `{`
 * (the first key) or `,`; inside a string a quote is always escaped, so this test is exact.
 */
function hasCategories(doc: Buffer): boolean {
  return doc.indexOf('{"categories":') === 0 || doc.indexOf(',"categories":') !== -1;
}

/** The answer's pieces: text and the stored docs' bytes, joined once into one Buffer. */
class JsonAnswer {
  private readonly parts: Buffer[] = [];
  private text = '';

  write(s: string): this {
    this.text += s;
    return this;
  }

  bytes(b: Buffer): this {
    if (this.text) this.parts.push(Buffer.from(this.text));
    this.text = '';
    this.parts.push(b);
    return this;
  }

  done(): Buffer {
    if (this.text) this.parts.push(Buffer.from(this.text));
    return Buffer.concat(this.parts);
  }
}

function jsonDoc(out: JsonAnswer, d: ResultDocument): void {
  out.write(`{"dockey":${JSON.stringify(d.dockey)}`);
  if (d.doc.length > 2) out.write(',').bytes(d.doc.subarray(1, -1)); // {} has no fields
  if (!hasCategories(d.doc)) out.write(',"categories":[]');
  for (const [name, value] of [...Object.entries(d.archive), ...highlightFields(d)]) {
    out.write(`,${JSON.stringify(name)}:${JSON.stringify(value)}`);
  }
  out.write('}');
}

/** ,"facets":{"categories":{"3":120,"7":45}} (keys ascending), or nothing without facet */
function jsonFacets(r: SearchResult): string {
  if (!r.facets) return '';
  const counts = r.facets.categories.map(([c, n]) => `"${c}":${n}`).join(',');
  return `,"facets":{"categories":{${counts}}}`;
}

/**
 * {"querytime":…,"start":…,"numfound":…,"docs":[…]}, then "facets" when asked for: UTF-8
 * bytes, the stored docs among them as they were read
 */
export function searchJson(r: SearchResult): Buffer {
  const out = new JsonAnswer();
  out.write(`{"querytime":${r.querytime},"start":${r.start},"numfound":${r.numfound},"docs":[`);
  r.docs.forEach((d, i) => {
    if (i > 0) out.write(',');
    jsonDoc(out, d);
  });
  return out.write(`]${jsonFacets(r)}}`).done();
}

/** {"search_status":"true"|"false","document_count":…} (search_status is a string, as in the spec) */
export function statusJson(s: CollectionStatus): string {
  return `{"search_status":"${s.searchable}","document_count":${s.documentCount}}`;
}

// ---------------------------------------------------------------- XML

/** Text content / attribute value: characters XML cannot carry removed, markup characters escaped. */
export function xmlText(s: string): string {
  return deleteNonXmlChars(s).replace(/[&<>"']/g, (c) => XML_ENTITIES[c]!);
}

const XML_ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
};

const XML_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

function xmlValue(value: unknown): string {
  if (typeof value === 'string') return xmlText(value);
  if (isLosslessNumber(value)) return value.toString();
  return xmlText(String(value));
}

/** One field: <name>value</name>; categories: <categories><category>1</category>…</categories>. */
function xmlField(name: string, value: unknown): string {
  const element = XML_NAME.test(name) && !/^xml/i.test(name) ? name : null;
  const open = element ?? `field name="${xmlText(name)}"`;
  const close = element ?? 'field';
  if (Array.isArray(value)) {
    const items = value.map((v) => `<category>${xmlValue(v)}</category>`).join('');
    return `<${open}>${items}</${close}>`;
  }
  return `<${open}>${xmlValue(value)}</${close}>`;
}

const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>';

/** <facets><categories><category id="3">120</category>…</categories></facets>, or nothing */
function xmlFacets(r: SearchResult): string {
  if (!r.facets) return '';
  const counts = r.facets.categories.map(([c, n]) => `<category id="${c}">${n}</category>`);
  return `<facets><categories>${counts.join('')}</categories></facets>`;
}

/**
 * <result><querytime/><start/><numfound/><docs><doc><dockey/>…fields…</doc>…</docs></result>,
 * with <facets> after <docs> when asked for
 */
export function searchXml(r: SearchResult): string {
  const docs = r.docs
    .map(
      (d) =>
        `<doc>${resultFields(d)
          .map(([n, v]) => xmlField(n, v))
          .join('')}</doc>`,
    )
    .join('');
  return (
    `${XML_DECLARATION}<result><querytime>${r.querytime}</querytime><start>${r.start}</start>` +
    `<numfound>${r.numfound}</numfound><docs>${docs}</docs>${xmlFacets(r)}</result>`
  );
}

/** <status><search_status>true</search_status><document_count>…</document_count></status> */
export function statusXml(s: CollectionStatus): string {
  return (
    `${XML_DECLARATION}<status><search_status>${s.searchable}</search_status>` +
    `<document_count>${s.documentCount}</document_count></status>`
  );
}
