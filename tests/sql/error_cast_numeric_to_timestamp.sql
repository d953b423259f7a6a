-- Flink refuses a number as a timestamp (and back) with its cast rule's
-- words, pointing at TO_TIMESTAMP.
SELECT CAST(1700000000 AS TIMESTAMP(3));
