-- CreateTable
CREATE TABLE "link_daily_clicks" (
    "code" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "clicks" INTEGER NOT NULL,

    PRIMARY KEY ("code", "day"),
    CONSTRAINT "link_daily_clicks_code_fkey" FOREIGN KEY ("code") REFERENCES "links" ("code") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "link_daily_referrers" (
    "code" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "host" TEXT NOT NULL,
    "clicks" INTEGER NOT NULL,

    PRIMARY KEY ("code", "day", "host"),
    CONSTRAINT "link_daily_referrers_code_fkey" FOREIGN KEY ("code") REFERENCES "links" ("code") ON DELETE CASCADE ON UPDATE CASCADE
);

