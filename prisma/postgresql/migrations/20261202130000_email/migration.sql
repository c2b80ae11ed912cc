-- Email (issue 57): the mail outbox, single-use links sent by email (password reset, the proof of
-- a sign-up's address), the admins' report digest's last sending, and whether an account waits
-- for its email's link. Every account made before this migration keeps creating links and
-- tokens as before: its address is taken as given (email_unverified false).

-- AlterTable
ALTER TABLE "accounts" ADD COLUMN     "email_unverified" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "email_tokens" (
    "token_hash" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "purpose" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMP(3) NOT NULL,
    "used_at" TIMESTAMP(3),

    CONSTRAINT "email_tokens_pkey" PRIMARY KEY ("token_hash")
);

-- CreateTable
CREATE TABLE "mail_messages" (
    "id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "recipient" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "html" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "claimed_until" TIMESTAMP(3),
    "sent_at" TIMESTAMP(3),
    "last_error" TEXT,

    CONSTRAINT "mail_messages_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "mail_digests" (
    "kind" TEXT NOT NULL,
    "sent_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "mail_digests_pkey" PRIMARY KEY ("kind")
);

-- CreateIndex
CREATE INDEX "email_tokens_account_id_idx" ON "email_tokens"("account_id");

-- CreateIndex
CREATE INDEX "mail_messages_status_next_attempt_at_idx" ON "mail_messages"("status", "next_attempt_at");

-- AddForeignKey
ALTER TABLE "email_tokens" ADD CONSTRAINT "email_tokens_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

