-- CreateTable
CREATE TABLE "webhook_endpoints" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "account_id" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "events" TEXT NOT NULL,
    "secret" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "disabled_at" DATETIME,
    "last_delivered_at" DATETIME,
    "last_failed_at" DATETIME,
    "failing_since" DATETIME,
    CONSTRAINT "webhook_endpoints_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "webhook_messages" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "endpoint_id" TEXT NOT NULL,
    "message_id" TEXT NOT NULL,
    "event" TEXT NOT NULL,
    "payload" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" DATETIME,
    "last_attempt_at" DATETIME,
    "response_status" INTEGER,
    "claimed_until" DATETIME,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "webhook_messages_endpoint_id_fkey" FOREIGN KEY ("endpoint_id") REFERENCES "webhook_endpoints" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "webhook_click_tallies" (
    "code" TEXT NOT NULL PRIMARY KEY,
    "clicks" INTEGER NOT NULL,
    "bots" INTEGER NOT NULL,
    "since" DATETIME NOT NULL,
    "due_at" DATETIME NOT NULL,
    CONSTRAINT "webhook_click_tallies_code_fkey" FOREIGN KEY ("code") REFERENCES "links" ("code") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "webhook_endpoints_account_id_idx" ON "webhook_endpoints"("account_id");

-- CreateIndex
CREATE UNIQUE INDEX "webhook_messages_message_id_key" ON "webhook_messages"("message_id");

-- CreateIndex
CREATE INDEX "webhook_messages_status_next_attempt_at_idx" ON "webhook_messages"("status", "next_attempt_at");

-- CreateIndex
CREATE INDEX "webhook_messages_endpoint_id_created_at_idx" ON "webhook_messages"("endpoint_id", "created_at" DESC);

-- CreateIndex
CREATE INDEX "webhook_messages_created_at_idx" ON "webhook_messages"("created_at");

-- CreateIndex
CREATE INDEX "webhook_click_tallies_due_at_idx" ON "webhook_click_tallies"("due_at");

