-- What Flink's SHOW has and weir does not is refused where it stands.
SHOW TABLES;
SHOW DATABASES;
