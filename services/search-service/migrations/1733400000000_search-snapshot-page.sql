-- Up Migration
-- A search made two round trips to PostgreSQL at the least: its snapshot, then the documents of
-- the page it found. Each round trip costs the service and the server far more than its
-- statement (the search bench's profiles: the driver's writev alone took 20–26 % of the
-- service thread), and most searches are asked again (a page reloaded, the next user's popular
-- query, the bench's mix sending each query twice). So the snapshot statement now also reads
-- the documents of a page the caller expects (p_docs: the ids of the page the same query found
-- last time, src/index/postgres/read/remembered-pages.ts): when the page found is among them, no
-- second round trip. The documents come from the same statement as the snapshot, so they are
-- as of the snapshot: never older than the index the page was found in.
-- `docs`: [id, dockey, version, doc as base64 of its UTF-8 bytes, and the thumbnail's size,
-- key, source url, width, height or nulls] for each of p_docs that the collection has (as
-- store/result-documents.ts loadDocumentsWithThumbnails reads them). The thumbnail is taken by
-- a correlated subquery: the function's settings turn hash joins' alternatives off, and a
-- parameterised look-up by the thumbnails' key is the plan wanted for ten documents.
-- The same holds for the posting lists a search reads cold (terms no search of this instance
-- read yet in a row segment: right after a load, 0.6 reads a search in the bench's mix): the
-- caller names the (segment, kind, term) triples it lacks, from the segments of its last
-- snapshot, and `lists` answers [segment id, kind, term, list as base64 or null] for each, null
-- where the segment has no such list (a segment merged away meanwhile answers null too: the
-- caller keeps only those of segments live in this snapshot). Each is one probe of
-- search_postings' primary key, a subquery per triple.
-- search_snapshot_rows(text, bigint[]) stays for instances not yet updated.
CREATE FUNCTION search_snapshot_rows(p_collection text, p_known bigint[], p_docs bigint[],
                                     p_list_segments bigint[], p_list_kinds "char"[], p_list_terms text[])
RETURNS TABLE (epoch bigint, next_docno integer, segments json, deleted json, tombstones integer[], held bigint[], fresh json, docs json, lists json)
LANGUAGE plpgsql STABLE
SET enable_seqscan = off
SET enable_bitmapscan = off
SET enable_nestloop = off
SET enable_mergejoin = off
SET plan_cache_mode = force_generic_plan
AS $fn$
BEGIN
  RETURN QUERY
  SELECT
    (SELECT s.epoch FROM search_index_state s WHERE s.collection_id = p_collection),
    (SELECT s.next_docno FROM search_index_state s WHERE s.collection_id = p_collection),
    (SELECT json_agg(json_build_array(g.id, g.first_docno, g.doc_count, g.packed IS NOT NULL) ORDER BY g.first_docno)
       FROM search_segments g WHERE g.collection_id = p_collection AND g.retired_at IS NULL),
    (SELECT json_agg(json_build_array(d.chunk, d.version))
       FROM search_deleted d WHERE d.collection_id = p_collection),
    (SELECT array_agg(t.docno) FROM search_tombstones t WHERE t.collection_id = p_collection),
    pending.held,
    pending.fresh,
    (SELECT json_agg(json_build_array(
              d.id::text, d.dockey, d.version, encode(convert_to(d.doc, 'UTF8'), 'base64'),
              t.size, t.thumbnail_key, t.source_url, t.source_width, t.source_height))
       FROM documents d
       LEFT JOIN LATERAL (
         SELECT t.size, t.thumbnail_key, t.source_url, t.source_width, t.source_height
           FROM thumbnails t WHERE t.collection_id = d.collection_id AND t.doc_id = d.id
       ) t ON true
      WHERE d.id = ANY(p_docs) AND d.collection_id = p_collection),
    (SELECT json_agg(json_build_array(k.segment_id::text, k.kind, k.term,
              (SELECT encode(p.data, 'base64') FROM search_postings p
                WHERE p.segment_id = k.segment_id AND p.kind = k.kind AND p.term = k.term COLLATE "C")))
       FROM unnest(p_list_segments, p_list_kinds, p_list_terms) AS k(segment_id, kind, term))
  FROM (
    SELECT array_agg(p.row_id) FILTER (WHERE k.id IS NOT NULL) AS held,
           json_agg(json_build_array(p.row_id, p.doc_id, p.regdate::text, p.categories,
                                     p.terms, p.title_terms)) FILTER (WHERE k.id IS NULL) AS fresh
      FROM search_pending p
      LEFT JOIN unnest(p_known) AS k(id) ON k.id = p.row_id
     WHERE p.collection_id = p_collection
  ) AS pending;
END
$fn$;

-- Down Migration
DROP FUNCTION search_snapshot_rows(text, bigint[], bigint[], bigint[], "char"[], text[]);
