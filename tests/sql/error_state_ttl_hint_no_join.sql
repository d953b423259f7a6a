-- weir's STATE_TTL sets a regular join's inputs' times to live: on a query
-- without a join it is refused (Flink's applies to a group aggregate too).
CREATE TABLE users (uid BIGINT, name STRING)
WITH ('connector' = 'filesystem', 'path' = 'data/join_users.json', 'format' = 'json');
SELECT /*+ STATE_TTL('users' = '1d') */ name FROM users;
