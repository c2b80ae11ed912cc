-- AlterTable
ALTER TABLE "accounts" ADD COLUMN     "password_set_at" TIMESTAMP(3);

-- AlterTable
ALTER TABLE "sessions" ADD COLUMN     "authenticated_at" TIMESTAMP(3);

-- A session made before this column signed in when it was made: its sign-in is its last proof.
-- (Never "now": that would make every session of the instance fresh for 5 minutes after the
-- upgrade.) Accounts' password_set_at stays null: when an existing password was set is unknown.
UPDATE "sessions" SET "authenticated_at" = "created_at";
