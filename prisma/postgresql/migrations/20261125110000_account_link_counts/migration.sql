-- AlterTable
ALTER TABLE "accounts" ADD COLUMN "link_count" INTEGER NOT NULL DEFAULT 0;

-- The count of each account's links, kept by triggers so that listing a large account reads
-- its total instead of counting its index entries (Prisma does not model triggers; they live
-- here). Anonymous links (account_id NULL) are not counted, and their inserts do not even call
-- the function (the WHEN clause is checked first): anonymous creation pays nothing for it.
UPDATE "accounts" SET "link_count" = (SELECT count(*) FROM "links" WHERE "links"."account_id" = "accounts"."id");

CREATE FUNCTION "links_count_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('DELETE', 'UPDATE') AND OLD."account_id" IS NOT NULL THEN
        UPDATE "accounts" SET "link_count" = "link_count" - 1 WHERE "id" = OLD."account_id";
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') AND NEW."account_id" IS NOT NULL THEN
        UPDATE "accounts" SET "link_count" = "link_count" + 1 WHERE "id" = NEW."account_id";
    END IF;
    RETURN NULL;
END;
$$;

CREATE TRIGGER "links_count_insert" AFTER INSERT ON "links"
    FOR EACH ROW WHEN (NEW."account_id" IS NOT NULL) EXECUTE FUNCTION "links_count_change"();

CREATE TRIGGER "links_count_delete" AFTER DELETE ON "links"
    FOR EACH ROW WHEN (OLD."account_id" IS NOT NULL) EXECUTE FUNCTION "links_count_change"();

-- Only statements that set account_id fire it (the click flush's UPDATEs do not).
CREATE TRIGGER "links_count_move" AFTER UPDATE OF "account_id" ON "links"
    FOR EACH ROW WHEN (OLD."account_id" IS DISTINCT FROM NEW."account_id") EXECUTE FUNCTION "links_count_change"();
