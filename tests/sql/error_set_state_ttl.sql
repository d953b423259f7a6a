-- 'table.exec.state.ttl' takes a duration as Flink writes one.
SET 'table.exec.state.ttl' = '1 fortnight';
