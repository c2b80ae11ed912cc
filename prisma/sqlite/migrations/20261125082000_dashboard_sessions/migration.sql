-- AlterTable
ALTER TABLE "accounts" ADD COLUMN "password_hash" TEXT;

-- CreateTable
CREATE TABLE "sessions" (
    "id_hash" TEXT NOT NULL PRIMARY KEY,
    "account_id" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_seen_at" DATETIME NOT NULL,
    CONSTRAINT "sessions_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "sessions_account_id_idx" ON "sessions"("account_id");
