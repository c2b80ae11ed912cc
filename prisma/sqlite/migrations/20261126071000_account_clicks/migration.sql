-- An account's clicks per day over all its links (the account overview reads these, not a row
-- per link and day). WITHOUT ROWID (hand-written, see 20261126070000_click_labels): a window is
-- one range of rows in key order.

-- CreateTable
CREATE TABLE "account_daily_clicks" (
    "account_id" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "clicks" INTEGER NOT NULL,
    "bots" INTEGER NOT NULL,

    PRIMARY KEY ("account_id", "day"),
    CONSTRAINT "account_daily_clicks_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts" ("id") ON DELETE CASCADE ON UPDATE CASCADE
) WITHOUT ROWID;

-- CreateTable
CREATE TABLE "account_daily_countries" (
    "account_id" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "country" TEXT NOT NULL,
    "clicks" INTEGER NOT NULL,

    PRIMARY KEY ("account_id", "day", "country"),
    CONSTRAINT "account_daily_countries_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts" ("id") ON DELETE CASCADE ON UPDATE CASCADE
) WITHOUT ROWID;

-- CreateTable
CREATE TABLE "account_daily_referrers" (
    "account_id" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "host" TEXT NOT NULL,
    "clicks" INTEGER NOT NULL,

    PRIMARY KEY ("account_id", "day", "host"),
    CONSTRAINT "account_daily_referrers_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts" ("id") ON DELETE CASCADE ON UPDATE CASCADE
) WITHOUT ROWID;

-- CreateTable
CREATE TABLE "account_daily_links" (
    "account_id" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "code" TEXT NOT NULL,
    "clicks" INTEGER NOT NULL,

    PRIMARY KEY ("account_id", "day", "code"),
    CONSTRAINT "account_daily_links_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "account_daily_links_code_fkey" FOREIGN KEY ("code") REFERENCES "links" ("code") ON DELETE CASCADE ON UPDATE CASCADE
) WITHOUT ROWID;

-- CreateIndex
CREATE INDEX "account_daily_links_code_idx" ON "account_daily_links"("code");


-- Backfill from the links' daily rows (countries are new: none yet).
INSERT INTO "account_daily_clicks" ("account_id", "day", "clicks", "bots")
SELECT l."account_id", d."day", sum(d."clicks"), sum(d."bots")
FROM "link_daily_clicks" d JOIN "links" l ON l."code" = d."code" WHERE l."account_id" IS NOT NULL GROUP BY 1, 2;
INSERT INTO "account_daily_links" ("account_id", "day", "code", "clicks")
SELECT l."account_id", d."day", d."code", d."clicks"
FROM "link_daily_clicks" d JOIN "links" l ON l."code" = d."code" WHERE l."account_id" IS NOT NULL;
INSERT INTO "account_daily_referrers" ("account_id", "day", "host", "clicks")
SELECT l."account_id", r."day", r."host", sum(r."clicks")
FROM "link_daily_referrers" r JOIN "links" l ON l."code" = r."code" WHERE l."account_id" IS NOT NULL GROUP BY 1, 2, 3;
