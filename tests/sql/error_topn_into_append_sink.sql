-- A Top-N into an insert-only sink.
CREATE TABLE t (k STRING, amount BIGINT, ts TIMESTAMP(3),
                WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'data/over.json', 'format' = 'json',
      'scan.watermark.emit.strategy' = 'on-event');
CREATE TABLE out (k STRING, amount BIGINT) WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'json');
INSERT INTO out SELECT k, amount FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY amount DESC) AS rn FROM t) WHERE rn <= 3;
