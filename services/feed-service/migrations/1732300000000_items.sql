-- Up Migration
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
CREATE INDEX feed_items_latest ON feed_items (pub_date DESC, id DESC);
CREATE INDEX feed_items_category_latest ON feed_items (category, pub_date DESC, id DESC);

-- Down Migration
DROP TABLE feed_items;
