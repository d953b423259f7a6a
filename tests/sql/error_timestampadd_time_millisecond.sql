-- TIMESTAMPADD of a TIME by MILLISECOND or MICROSECOND is refused: Flink
-- types the result a TIMESTAMP(3) while its code generator adds to the TIME.
SELECT TIMESTAMPADD(MILLISECOND, 5, TIME '10:00:00') AS t;
