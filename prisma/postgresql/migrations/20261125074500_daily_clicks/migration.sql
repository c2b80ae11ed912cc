-- CreateTable
CREATE TABLE "link_daily_clicks" (
    "code" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "clicks" INTEGER NOT NULL,

    CONSTRAINT "link_daily_clicks_pkey" PRIMARY KEY ("code","day")
);

-- CreateTable
CREATE TABLE "link_daily_referrers" (
    "code" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "host" TEXT NOT NULL,
    "clicks" INTEGER NOT NULL,

    CONSTRAINT "link_daily_referrers_pkey" PRIMARY KEY ("code","day","host")
);

-- AddForeignKey
ALTER TABLE "link_daily_clicks" ADD CONSTRAINT "link_daily_clicks_code_fkey" FOREIGN KEY ("code") REFERENCES "links"("code") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "link_daily_referrers" ADD CONSTRAINT "link_daily_referrers_code_fkey" FOREIGN KEY ("code") REFERENCES "links"("code") ON DELETE CASCADE ON UPDATE CASCADE;

