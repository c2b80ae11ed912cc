-- CreateTable
CREATE TABLE "click_batches" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "logged_at" DATETIME NOT NULL,
    "counts" TEXT NOT NULL
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_links" (
    "code" TEXT NOT NULL PRIMARY KEY,
    "url" TEXT NOT NULL,
    "account_id" TEXT,
    "clicks" INTEGER NOT NULL DEFAULT 0,
    "clicks_through_batch" INTEGER NOT NULL DEFAULT 0,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" DATETIME NOT NULL,
    CONSTRAINT "links_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_links" ("account_id", "clicks", "code", "created_at", "updated_at", "url") SELECT "account_id", "clicks", "code", "created_at", "updated_at", "url" FROM "links";
DROP TABLE "links";
ALTER TABLE "new_links" RENAME TO "links";
CREATE INDEX "links_account_id_created_at_code_idx" ON "links"("account_id", "created_at" DESC, "code");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
