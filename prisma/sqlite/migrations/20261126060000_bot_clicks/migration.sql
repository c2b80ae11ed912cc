-- AlterTable
ALTER TABLE "link_daily_clicks" ADD COLUMN "bots" INTEGER NOT NULL DEFAULT 0;
