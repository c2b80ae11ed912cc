-- Instance administration and abuse (issue 33): admins and disabled accounts, disabled links
-- (by whom, so that undoing one cause never undoes another), blocked hosts, reports from the
-- public /report page, and the audit log of admin actions.

-- AlterTable
ALTER TABLE "links" ADD COLUMN "disabled_at" DATETIME;
ALTER TABLE "links" ADD COLUMN "disabled_cause" TEXT;
ALTER TABLE "links" ADD COLUMN "disabled_reason" TEXT;

-- CreateTable
CREATE TABLE "blocked_hosts" (
    "host" TEXT NOT NULL PRIMARY KEY,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by" TEXT NOT NULL
);

-- CreateTable
CREATE TABLE "reports" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "code" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "details" TEXT NOT NULL DEFAULT '',
    "email" TEXT,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "status" TEXT NOT NULL DEFAULT 'open',
    "resolved_at" DATETIME,
    "resolved_by" TEXT
);

-- CreateTable
CREATE TABLE "audit_events" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "actor_id" TEXT,
    "actor" TEXT NOT NULL,
    "via" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "target_type" TEXT NOT NULL,
    "target" TEXT NOT NULL,
    "reason" TEXT
);

-- AlterTable (ADD COLUMN rather than Prisma's copy of the table: the accounts table stays as it
-- is, its rows are not rewritten)
ALTER TABLE "accounts" ADD COLUMN "is_admin" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "accounts" ADD COLUMN "disabled_at" DATETIME;
ALTER TABLE "accounts" ADD COLUMN "disabled_reason" TEXT;

-- CreateIndex
CREATE INDEX "reports_status_created_at_idx" ON "reports"("status", "created_at" DESC);

-- CreateIndex
CREATE INDEX "reports_code_idx" ON "reports"("code");

-- CreateIndex
CREATE INDEX "audit_events_created_at_idx" ON "audit_events"("created_at" DESC);
