-- The messages of links just created, on SQLite (issue 32): appended to a table of one b-tree in
-- the link's transaction, and moved into webhook_messages by whoever delivers, before each claim.
-- `seq` is INTEGER PRIMARY KEY without AUTOINCREMENT: the rowid itself, so each row is one write
-- to one b-tree (AUTOINCREMENT would update sqlite_sequence in every transaction as well).

-- CreateTable
CREATE TABLE "webhook_new_messages" (
    "seq" INTEGER NOT NULL PRIMARY KEY,
    "id" TEXT NOT NULL,
    "endpoint_id" TEXT NOT NULL,
    "message_id" TEXT NOT NULL,
    "event" TEXT NOT NULL,
    "payload" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL,
    CONSTRAINT "webhook_new_messages_endpoint_id_fkey" FOREIGN KEY ("endpoint_id") REFERENCES "webhook_endpoints" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
