-- The one row of the notifications' sequence (MySQL has no sequences; see schema/mysql.ts). It exists before any
-- transaction locks it: creating it on first use would let two first writers deadlock on the gap.
INSERT INTO `notification_seq` (`id`, `last`) VALUES (1, 0);
