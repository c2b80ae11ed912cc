-- Search (GET /api/links?q=) matches substrings of codes and URLs: a trigram index serves
-- ILIKE '%…%' on patterns of three characters or more. pg_trgm ships with PostgreSQL (contrib)
-- and is a trusted extension: the database's owner may create it without superuser rights.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- CreateIndex
CREATE INDEX "links_search_trgm_idx" ON "links" USING GIN ("code" gin_trgm_ops, "url" gin_trgm_ops);
