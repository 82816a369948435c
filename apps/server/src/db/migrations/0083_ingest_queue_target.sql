-- The ingest consumer's tests of a person's click read the queue by target (tracking/repository.ts
-- `foldQueue`): the scanner's burst test (the target's other fetches within two seconds of the
-- click), and the landing-view test of a click waiting for its page's view (in the fold and in the
-- young clicks' hold). With only the primary key each of those read the whole queue, once per click:
-- harmless while the consumer keeps up, but a fold of 5,000 events from a queue of 100,000 took
-- seconds and the consumer fell further behind (bench/ingest-fold.ts). This index makes each of them a
-- range of one target's rows, whatever the queue's length; appends pay one more index entry.
-- SQL only, like the table (migration 0036).
CREATE INDEX "ingest_queue_target_idx" ON "ingest_queue" USING btree ("target_id","occurred_at");
