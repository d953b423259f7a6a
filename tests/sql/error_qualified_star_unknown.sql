-- t.* names a source of the query's FROM: X is none
CREATE TABLE t (k STRING, amount BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'data/over.json', 'format' = 'json');
SELECT T.k, X.* FROM t AS T;
