-- The admins' list of every link, newest first (/admin/links), read from an index instead of
-- sorting the whole table for each page (47 ms a page at 100k links on SQLite). Built once here:
-- a few seconds at a million links, during which link writes wait.

-- CreateIndex
CREATE INDEX "links_created_at_code_idx" ON "links"("created_at" DESC, "code");
