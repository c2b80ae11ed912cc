-- Visitor labels of people's clicks, per day and per month, and referrers per month.
--
-- The monthly tables hold the daily rows summed per UTC month: a window of many days reads its
-- full months there and only its first, partial month by day (a year of a busy link's labels:
-- about 1,000 rows instead of 9,150). Existing referrer rows are summed into months here.
--
-- The daily tables are WITHOUT ROWID (hand-written: Prisma's schema cannot say it, and a later
-- RedefineTables migration of either table must keep it): their rows are stored in primary key
-- order, so a window's rows are read as one range with no lookup in a table beside the index.

-- CreateTable
CREATE TABLE "link_daily_labels" (
    "code" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "dimension" TEXT NOT NULL,
    "label" TEXT NOT NULL,
    "clicks" INTEGER NOT NULL,

    PRIMARY KEY ("code", "day", "dimension", "label"),
    CONSTRAINT "link_daily_labels_code_fkey" FOREIGN KEY ("code") REFERENCES "links" ("code") ON DELETE CASCADE ON UPDATE CASCADE
) WITHOUT ROWID;

-- CreateTable
CREATE TABLE "link_monthly_referrers" (
    "code" TEXT NOT NULL,
    "month" TEXT NOT NULL,
    "host" TEXT NOT NULL,
    "clicks" INTEGER NOT NULL,

    PRIMARY KEY ("code", "month", "host"),
    CONSTRAINT "link_monthly_referrers_code_fkey" FOREIGN KEY ("code") REFERENCES "links" ("code") ON DELETE CASCADE ON UPDATE CASCADE
) WITHOUT ROWID;

-- CreateTable
CREATE TABLE "link_monthly_labels" (
    "code" TEXT NOT NULL,
    "month" TEXT NOT NULL,
    "dimension" TEXT NOT NULL,
    "label" TEXT NOT NULL,
    "clicks" INTEGER NOT NULL,

    PRIMARY KEY ("code", "month", "dimension", "label"),
    CONSTRAINT "link_monthly_labels_code_fkey" FOREIGN KEY ("code") REFERENCES "links" ("code") ON DELETE CASCADE ON UPDATE CASCADE
) WITHOUT ROWID;

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_link_daily_referrers" (
    "code" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "host" TEXT NOT NULL,
    "clicks" INTEGER NOT NULL,

    PRIMARY KEY ("code", "day", "host"),
    CONSTRAINT "link_daily_referrers_code_fkey" FOREIGN KEY ("code") REFERENCES "links" ("code") ON DELETE CASCADE ON UPDATE CASCADE
) WITHOUT ROWID;
INSERT INTO "new_link_daily_referrers" ("clicks", "code", "day", "host") SELECT "clicks", "code", "day", "host" FROM "link_daily_referrers";
DROP TABLE "link_daily_referrers";
ALTER TABLE "new_link_daily_referrers" RENAME TO "link_daily_referrers";
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- Backfill
INSERT INTO "link_monthly_referrers" ("code", "month", "host", "clicks")
SELECT "code", substr("day", 1, 7), "host", sum("clicks") FROM "link_daily_referrers" GROUP BY 1, 2, 3;
