-- Password-protected links and device targets (issue 31): nullable columns without defaults,
-- so adding them rewrites no row and existing links keep redirecting as they did.
ALTER TABLE "links" ADD COLUMN "password_hash" TEXT,
ADD COLUMN "ios_url" TEXT,
ADD COLUMN "android_url" TEXT;
