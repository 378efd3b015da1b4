-- Runs once, when the postgres container starts on an empty data volume
-- (/docker-entrypoint-initdb.d). One database per service; each service creates its own
-- tables at start (node-pg-migrate, services/<service>/migrations/*.sql, advisory-locked).
-- To re-run it, remove the volume: docker compose down -v  (this deletes all data).
CREATE DATABASE feed;
CREATE DATABASE search;
