-- AlterTable
ALTER TABLE "accounts" ADD COLUMN "totp_enabled_at" DATETIME;
ALTER TABLE "accounts" ADD COLUMN "totp_last_step" INTEGER;
ALTER TABLE "accounts" ADD COLUMN "totp_secret" TEXT;

-- CreateTable
CREATE TABLE "recovery_codes" (
    "account_id" TEXT NOT NULL,
    "code_hash" TEXT NOT NULL,
    "used_at" DATETIME,

    PRIMARY KEY ("account_id", "code_hash"),
    CONSTRAINT "recovery_codes_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "passkeys" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "account_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "public_key" TEXT NOT NULL,
    "counter" INTEGER NOT NULL DEFAULT 0,
    "transports" TEXT NOT NULL DEFAULT '',
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" DATETIME,
    CONSTRAINT "passkeys_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "sign_in_challenges" (
    "id_hash" TEXT NOT NULL PRIMARY KEY,
    "purpose" TEXT NOT NULL,
    "account_id" TEXT,
    "data" TEXT NOT NULL DEFAULT '{}',
    "expires_at" DATETIME NOT NULL,
    CONSTRAINT "sign_in_challenges_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "passkeys_account_id_idx" ON "passkeys"("account_id");

-- CreateIndex
CREATE INDEX "sign_in_challenges_expires_at_idx" ON "sign_in_challenges"("expires_at");
