-- A binary literal is whole bytes: an even number of hex digits.
SELECT X'0a0';
