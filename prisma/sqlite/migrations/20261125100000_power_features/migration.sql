-- AlterTable
ALTER TABLE "links" ADD COLUMN "expires_at" DATETIME;

-- CreateTable
CREATE TABLE "idempotency_records" (
    "account_id" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "request_hash" TEXT NOT NULL,
    "status" INTEGER,
    "response" TEXT,
    "location" TEXT,
    "created_at" DATETIME NOT NULL,
    "expires_at" DATETIME NOT NULL,

    PRIMARY KEY ("account_id", "key"),
    CONSTRAINT "idempotency_records_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "idempotency_records_expires_at_idx" ON "idempotency_records"("expires_at");
