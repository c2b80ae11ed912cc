-- Visitor labels of people's clicks, per day and per month, and referrers per month (see the
-- SQLite migration of the same name). Existing referrer rows are summed into months here.

-- CreateTable
CREATE TABLE "link_monthly_referrers" (
    "code" TEXT NOT NULL,
    "month" TEXT NOT NULL,
    "host" TEXT NOT NULL,
    "clicks" INTEGER NOT NULL,

    CONSTRAINT "link_monthly_referrers_pkey" PRIMARY KEY ("code","month","host")
);

-- CreateTable
CREATE TABLE "link_monthly_labels" (
    "code" TEXT NOT NULL,
    "month" TEXT NOT NULL,
    "dimension" TEXT NOT NULL,
    "label" TEXT NOT NULL,
    "clicks" INTEGER NOT NULL,

    CONSTRAINT "link_monthly_labels_pkey" PRIMARY KEY ("code","month","dimension","label")
);

-- CreateTable
CREATE TABLE "link_daily_labels" (
    "code" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "dimension" TEXT NOT NULL,
    "label" TEXT NOT NULL,
    "clicks" INTEGER NOT NULL,

    CONSTRAINT "link_daily_labels_pkey" PRIMARY KEY ("code","day","dimension","label")
);

-- AddForeignKey
ALTER TABLE "link_monthly_referrers" ADD CONSTRAINT "link_monthly_referrers_code_fkey" FOREIGN KEY ("code") REFERENCES "links"("code") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "link_monthly_labels" ADD CONSTRAINT "link_monthly_labels_code_fkey" FOREIGN KEY ("code") REFERENCES "links"("code") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "link_daily_labels" ADD CONSTRAINT "link_daily_labels_code_fkey" FOREIGN KEY ("code") REFERENCES "links"("code") ON DELETE CASCADE ON UPDATE CASCADE;

-- Backfill
INSERT INTO "link_monthly_referrers" ("code", "month", "host", "clicks")
SELECT "code", substr("day", 1, 7), "host", sum("clicks") FROM "link_daily_referrers" GROUP BY 1, 2, 3;
