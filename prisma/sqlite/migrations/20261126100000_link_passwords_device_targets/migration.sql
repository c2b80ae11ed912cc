-- Password-protected links and device targets (issue 31): nullable columns, so existing links
-- keep redirecting as they did.
ALTER TABLE "links" ADD COLUMN "password_hash" TEXT;
ALTER TABLE "links" ADD COLUMN "ios_url" TEXT;
ALTER TABLE "links" ADD COLUMN "android_url" TEXT;
