-- Email (issue 57): the mail outbox, single-use links sent by email (password reset, the proof of
-- a sign-up's address), the admins' report digest's last sending, and whether an account waits
-- for its email's link. Every account made before this migration keeps creating links and
-- tokens as before: its address is taken as given (email_unverified false).

-- AlterTable
ALTER TABLE "accounts" ADD COLUMN "email_unverified" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "email_tokens" (
    "token_hash" TEXT NOT NULL PRIMARY KEY,
    "account_id" TEXT NOT NULL,
    "purpose" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" DATETIME NOT NULL,
    "used_at" DATETIME,
    CONSTRAINT "email_tokens_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "mail_messages" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "kind" TEXT NOT NULL,
    "recipient" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "html" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "claimed_until" DATETIME,
    "sent_at" DATETIME,
    "last_error" TEXT
);

-- CreateTable
CREATE TABLE "mail_digests" (
    "kind" TEXT NOT NULL PRIMARY KEY,
    "sent_at" DATETIME NOT NULL
);

-- CreateIndex
CREATE INDEX "email_tokens_account_id_idx" ON "email_tokens"("account_id");

-- CreateIndex
CREATE INDEX "mail_messages_status_next_attempt_at_idx" ON "mail_messages"("status", "next_attempt_at");

