-- Visitor labels of people's clicks, and referrer rows keyed host by host (see the SQLite
-- migration of the same name).

-- AlterTable
ALTER TABLE "link_daily_referrers" DROP CONSTRAINT "link_daily_referrers_pkey",
ADD CONSTRAINT "link_daily_referrers_pkey" PRIMARY KEY ("code", "host", "day");

-- CreateTable
CREATE TABLE "link_daily_labels" (
    "code" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "dimension" TEXT NOT NULL,
    "label" TEXT NOT NULL,
    "clicks" INTEGER NOT NULL,

    CONSTRAINT "link_daily_labels_pkey" PRIMARY KEY ("code","dimension","label","day")
);

-- AddForeignKey
ALTER TABLE "link_daily_labels" ADD CONSTRAINT "link_daily_labels_code_fkey" FOREIGN KEY ("code") REFERENCES "links"("code") ON DELETE CASCADE ON UPDATE CASCADE;
