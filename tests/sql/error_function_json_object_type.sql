-- A value JSON has no type for is refused at plan time, as Flink's
-- JsonGenerateUtils refuses it: a DATE (Flink writes TIMESTAMPs only).
SELECT JSON_OBJECT('day' VALUE DATE '2024-01-05') AS o;
