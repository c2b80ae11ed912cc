-- CreateTable
CREATE TABLE "link_tags" (
    "code" TEXT NOT NULL,
    "tag" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "link_tags_pkey" PRIMARY KEY ("code","tag")
);

-- CreateTable
CREATE TABLE "account_tags" (
    "account_id" TEXT NOT NULL,
    "tag" TEXT NOT NULL,
    "link_count" INTEGER NOT NULL,

    CONSTRAINT "account_tags_pkey" PRIMARY KEY ("account_id","tag")
);

-- CreateIndex
CREATE INDEX "link_tags_account_id_tag_created_at_code_idx" ON "link_tags"("account_id", "tag", "created_at" DESC, "code");

-- AddForeignKey
ALTER TABLE "link_tags" ADD CONSTRAINT "link_tags_code_fkey" FOREIGN KEY ("code") REFERENCES "links"("code") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "account_tags" ADD CONSTRAINT "account_tags_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- How many of an account's links have each tag, kept by triggers (Prisma does not model them;
-- they live here), so that `GET /api/links?tag=` reads its total instead of counting the tag's
-- index entries. Once per statement, from its transition table, as links' link_count: a bulk
-- creation of 1000 tagged links updates each of its tags' rows once. A tag no link has any more
-- loses its row.
--
-- Each function first locks the row of the account whose tags change (the lock links'
-- link_count triggers take too). Changing a link's tags is a DELETE then an INSERT, two
-- statements: without that lock, two such changes in one account that swap tags (one removes
-- `a` and adds `b`, the other the reverse) would lock the two count rows in opposite orders and
-- deadlock. With it, the tag changes of one account take their turn, as its link creations do.
CREATE FUNCTION "link_tags_count_inserted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM "accounts" WHERE "id" IN (SELECT "account_id" FROM "inserted_tags")
        ORDER BY "id" FOR NO KEY UPDATE;
    INSERT INTO "account_tags" ("account_id", "tag", "link_count")
    SELECT "account_id", "tag", count(*) FROM "inserted_tags" GROUP BY "account_id", "tag" ORDER BY "account_id", "tag"
    ON CONFLICT ("account_id", "tag") DO UPDATE SET "link_count" = "account_tags"."link_count" + EXCLUDED."link_count";
    RETURN NULL;
END;
$$;

CREATE FUNCTION "link_tags_count_deleted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM "accounts" WHERE "id" IN (SELECT "account_id" FROM "deleted_tags")
        ORDER BY "id" FOR NO KEY UPDATE;
    UPDATE "account_tags" SET "link_count" = "account_tags"."link_count" - "removed"."n"
    FROM (SELECT "account_id", "tag", count(*) AS "n" FROM "deleted_tags" GROUP BY "account_id", "tag") AS "removed"
    WHERE "account_tags"."account_id" = "removed"."account_id" AND "account_tags"."tag" = "removed"."tag";
    DELETE FROM "account_tags" WHERE "link_count" <= 0
        AND ("account_id", "tag") IN (SELECT "account_id", "tag" FROM "deleted_tags");
    RETURN NULL;
END;
$$;

CREATE TRIGGER "link_tags_count_insert" AFTER INSERT ON "link_tags"
    REFERENCING NEW TABLE AS "inserted_tags" FOR EACH STATEMENT EXECUTE FUNCTION "link_tags_count_inserted"();

CREATE TRIGGER "link_tags_count_delete" AFTER DELETE ON "link_tags"
    REFERENCING OLD TABLE AS "deleted_tags" FOR EACH STATEMENT EXECUTE FUNCTION "link_tags_count_deleted"();
