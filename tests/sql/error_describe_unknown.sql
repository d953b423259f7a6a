-- DESCRIBE of a name that is no table or view: Flink's message.
DESCRIBE nope;
