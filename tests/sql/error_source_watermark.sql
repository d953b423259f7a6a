-- SOURCE_WATERMARK() adopts the watermarks a source emits itself; the
-- filesystem and datagen connectors emit none, and Flink fails such a table
-- with SOURCE_WATERMARK()'s message. weir refuses it at CREATE TABLE.
CREATE TABLE orders (`user` STRING, amount BIGINT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS source_watermark( ))
WITH ('connector' = 'filesystem', 'path' = 'data/orders.json', 'format' = 'json');
