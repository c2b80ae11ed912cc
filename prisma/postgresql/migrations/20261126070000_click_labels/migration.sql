-- CreateTable
CREATE TABLE "link_daily_labels" (
    "code" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "dimension" TEXT NOT NULL,
    "label" TEXT NOT NULL,
    "clicks" INTEGER NOT NULL,

    CONSTRAINT "link_daily_labels_pkey" PRIMARY KEY ("code","day","dimension","label")
);

-- AddForeignKey
ALTER TABLE "link_daily_labels" ADD CONSTRAINT "link_daily_labels_code_fkey" FOREIGN KEY ("code") REFERENCES "links"("code") ON DELETE CASCADE ON UPDATE CASCADE;

