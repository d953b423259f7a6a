-- A DATE literal that is no date (2023 is not a leap year) is refused
-- with Calcite's message.
SELECT DATE '2023-02-29';
