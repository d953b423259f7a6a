-- A nexmark string longer than its field's capacity fails the query with
-- the table, the column and the field, never cut ('extra' pads an event to
-- its kind's average size: 100 bytes for a bid).
CREATE TABLE nexmark (event_type INT, bid ROW<auction BIGINT, extra VARCHAR(10)>) WITH ('connector' = 'nexmark', 'events.num' = '100');
SELECT COUNT(*) FROM nexmark;
