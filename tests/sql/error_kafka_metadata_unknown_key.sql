-- A metadata key the kafka connector does not read is refused with Flink's
-- message, which lists the keys it reads ('leader-epoch' is not among
-- them: librdkafka 2.0 does not tell it).
CREATE TABLE events (v BIGINT, o BIGINT METADATA FROM 'ofset')
WITH ('connector' = 'kafka', 'topic' = 'events', 'properties.bootstrap.servers' = 'localhost:9092', 'format' = 'json');
