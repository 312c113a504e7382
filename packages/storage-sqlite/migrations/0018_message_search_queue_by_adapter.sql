-- A new message is queued for search indexing by the adapter's insert (repositories/messages.ts),
-- in the same transaction, not by this trigger: a trigger makes the message's INSERT a
-- multi-statement write, for which SQLite keeps a statement journal holding a copy of every
-- page the insert changes (the row and its 14 indexes), in case the trigger fails. The same
-- queue row written by a second statement costs ~10 µs less per message (issue #20).
DROP TRIGGER `messages_search_insert`;
