-- SELECT's hints: weir knows STATE_TTL; another hint is refused where it
-- stands.
CREATE TABLE users (uid BIGINT, name STRING)
WITH ('connector' = 'filesystem', 'path' = 'data/join_users.json', 'format' = 'json');
SELECT /*+ BROADCAST(users) */ name FROM users;
