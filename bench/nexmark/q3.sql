-- q3, local item suggestion: sellers in Oregon, Idaho or California and the
-- category-10 auctions they open (a regular join, both sides kept whole).
CREATE TABLE q3_sink (name VARCHAR(24), city VARCHAR(16), state VARCHAR(4), id BIGINT)
  WITH ('connector' = 'blackhole');
INSERT INTO q3_sink
SELECT seller.name, seller.city, seller.state, item.id
FROM auction AS item
JOIN person AS seller ON item.seller = seller.id
WHERE item.category = 10 AND seller.state IN ('OR', 'ID', 'CA');
