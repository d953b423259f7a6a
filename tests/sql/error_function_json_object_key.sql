-- JSON_OBJECT's keys are character strings (Calcite's message).
SELECT JSON_OBJECT(1 VALUE 'one') AS o;
