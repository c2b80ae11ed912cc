-- Every change reaches every instance (issue 55): what changed how links answer, for the other
-- processes on the database, which read the rows after the last one they saw (src/scale-out/
-- link-change-feed.ts).

-- CreateTable
CREATE TABLE "link_changes" (
    "seq" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "codes" TEXT NOT NULL,
    "origin" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

