-- Up Migration
-- Published hub contents. Text limits are enforced by the service (see README, "Limits").
CREATE TABLE feed_items (
  id bigserial PRIMARY KEY,
  title text NOT NULL,
  link text NOT NULL,
  description text NOT NULL,
  category text NOT NULL,
  creator text NOT NULL,
  author text,
  pub_date timestamptz NOT NULL,
  enclosure_url text,
  enclosure_length text,
  enclosure_type text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
-- The two read queries: latest 100 overall, latest 100 of one category (index-only order, LIMIT stops early).
CREATE INDEX feed_items_latest ON feed_items (pub_date DESC, id DESC);
CREATE INDEX feed_items_category_latest ON feed_items (category, pub_date DESC, id DESC);

-- When each feed ('all' or a category code) last changed, deletions included: the
-- Last-Modified of that feed. Written in the same transaction as the item change.
CREATE TABLE feed_state (
  feed text PRIMARY KEY,
  changed_at timestamptz NOT NULL
);

-- Down Migration
DROP TABLE feed_state;
DROP TABLE feed_items;
