-- Two indexes fewer on the outbox (issue 32): every link created with a webhook wrote six b-trees
-- for its message. The `webhook-id` is never looked up (its uniqueness is by construction), and
-- the clean-up of old messages walks each endpoint's (endpoint_id, created_at) index instead.

-- DropIndex
DROP INDEX "webhook_messages_created_at_idx";

-- DropIndex
DROP INDEX "webhook_messages_message_id_key";
