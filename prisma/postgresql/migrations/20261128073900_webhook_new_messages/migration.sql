-- The messages of links just created, on SQLite (issue 32): there they are appended to a table of
-- one b-tree in the link's transaction and moved into webhook_messages before each claim. On
-- PostgreSQL links write webhook_messages directly and this table stays empty: it is here so that
-- both schemas describe the same models (docs/adr/0007-sqlite-outbox-journal.md).

-- CreateTable
CREATE TABLE "webhook_new_messages" (
    "seq" INTEGER NOT NULL,
    "id" TEXT NOT NULL,
    "endpoint_id" TEXT NOT NULL,
    "message_id" TEXT NOT NULL,
    "event" TEXT NOT NULL,
    "payload" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "webhook_new_messages_pkey" PRIMARY KEY ("seq")
);

-- AddForeignKey
ALTER TABLE "webhook_new_messages" ADD CONSTRAINT "webhook_new_messages_endpoint_id_fkey" FOREIGN KEY ("endpoint_id") REFERENCES "webhook_endpoints"("id") ON DELETE CASCADE ON UPDATE CASCADE;
