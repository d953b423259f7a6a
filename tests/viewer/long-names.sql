-- The viewer's topology with the names SQL gives its operators (their
-- plans, up to 70 characters here): viewer_topology's long-sql-names test
-- checks that the six boxes fit a 1600 px window, each name whole in its
-- tooltip. Written by the viewer_sql_capture fixture (tests/viewer/CMakeLists.txt).
CREATE TABLE orders (
  key BIGINT, `value` BIGINT, ts TIMESTAMP(3), partition_id INT,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'datagen', 'number-of-rows' = '200', 'partitions' = '2');

SELECT key AS customer_identifier,
       TUMBLE_END(ts, INTERVAL '1' SECOND) AS window_end_time,
       COUNT(*) AS number_of_orders,
       SUM(`value`) AS total_order_value
FROM orders
WHERE `value` > 10 AND partition_id >= 0
GROUP BY key, TUMBLE(ts, INTERVAL '1' SECOND);
