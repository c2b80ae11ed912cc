-- CreateTable
CREATE TABLE "link_tags" (
    "code" TEXT NOT NULL,
    "tag" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL,

    PRIMARY KEY ("code", "tag"),
    CONSTRAINT "link_tags_code_fkey" FOREIGN KEY ("code") REFERENCES "links" ("code") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "account_tags" (
    "account_id" TEXT NOT NULL,
    "tag" TEXT NOT NULL,
    "link_count" INTEGER NOT NULL,

    PRIMARY KEY ("account_id", "tag"),
    CONSTRAINT "account_tags_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "link_tags_account_id_tag_created_at_code_idx" ON "link_tags"("account_id", "tag", "created_at" DESC, "code");

-- How many of an account's links have each tag, kept by triggers (Prisma does not model them;
-- they live here), so that `GET /api/links?tag=` reads its total instead of counting the tag's
-- index entries (270 µs at 10,000 links). Every writer of link_tags (Prisma, the background
-- writer, a link's or an account's deletion through the foreign keys) goes through them, inside
-- its own transaction. A tag no link has any more loses its row.
CREATE TRIGGER "link_tags_count_insert" AFTER INSERT ON "link_tags"
BEGIN
    INSERT INTO "account_tags" ("account_id", "tag", "link_count") VALUES (NEW."account_id", NEW."tag", 1)
    ON CONFLICT ("account_id", "tag") DO UPDATE SET "link_count" = "link_count" + 1;
END;

CREATE TRIGGER "link_tags_count_delete" AFTER DELETE ON "link_tags"
BEGIN
    UPDATE "account_tags" SET "link_count" = "link_count" - 1
    WHERE "account_id" = OLD."account_id" AND "tag" = OLD."tag";
    DELETE FROM "account_tags" WHERE "account_id" = OLD."account_id" AND "tag" = OLD."tag" AND "link_count" <= 0;
END;
