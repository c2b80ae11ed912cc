-- Every change reaches every instance (issue 55): what changed how links answer, for the other
-- processes on the database. On PostgreSQL they hear of changes through LISTEN/NOTIFY and this
-- table stays empty: it is here so that both schemas describe the same models.

-- CreateTable
CREATE TABLE "link_changes" (
    "seq" SERIAL NOT NULL,
    "codes" TEXT NOT NULL,
    "origin" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "link_changes_pkey" PRIMARY KEY ("seq")
);

