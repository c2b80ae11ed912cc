-- AlterTable
ALTER TABLE "accounts" ADD COLUMN "link_count" INTEGER NOT NULL DEFAULT 0;

-- The count of each account's links, kept by triggers so that listing a large account reads
-- its total instead of counting its index entries (Prisma does not model triggers; they live
-- here). Anonymous links (account_id NULL) are not counted. Every writer of links (Prisma, the
-- background writer, the CLI) goes through them, inside its own transaction.
UPDATE "accounts" SET "link_count" = (SELECT count(*) FROM "links" WHERE "links"."account_id" = "accounts"."id");

CREATE TRIGGER "links_count_insert" AFTER INSERT ON "links" WHEN NEW."account_id" IS NOT NULL
BEGIN
    UPDATE "accounts" SET "link_count" = "link_count" + 1 WHERE "id" = NEW."account_id";
END;

CREATE TRIGGER "links_count_delete" AFTER DELETE ON "links" WHEN OLD."account_id" IS NOT NULL
BEGIN
    UPDATE "accounts" SET "link_count" = "link_count" - 1 WHERE "id" = OLD."account_id";
END;

CREATE TRIGGER "links_count_move" AFTER UPDATE OF "account_id" ON "links"
    WHEN OLD."account_id" IS NOT NEW."account_id"
BEGIN
    UPDATE "accounts" SET "link_count" = "link_count" - 1 WHERE "id" = OLD."account_id";
    UPDATE "accounts" SET "link_count" = "link_count" + 1 WHERE "id" = NEW."account_id";
END;
