-- AlterTable
ALTER TABLE "links" ADD COLUMN     "clicks_through_batch" INTEGER NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "click_batches" (
    "id" SERIAL NOT NULL,
    "logged_at" TIMESTAMP(3) NOT NULL,
    "counts" TEXT NOT NULL,

    CONSTRAINT "click_batches_pkey" PRIMARY KEY ("id")
);
