-- A nexmark ROW's field by a name the generator does not make: the fields it has.
CREATE TABLE nexmark (event_type INT, bid ROW<auction BIGINT, cost BIGINT>) WITH ('connector' = 'nexmark', 'events.num' = '10');
