-- IF NOT EXISTS: the shared reports bench database applied this once as 0068, before another 0068 landed.
-- The summary's event totals (rollups.ts `engagementTotals`) without reading the raw events of a day
-- a range cuts, at either end.
--
-- Today: its events by type up to `computed_to`, the client's whole count (an event of a prospect tied
-- to no account counts too), kept in the same row and by the same rules as today's account counts
-- (migration 0031; account-rollups.ts `ensureToday`): the events triggers forget the row when an event
-- before `computed_to` is written, changed or deleted. Null in a row counted before this migration:
-- such a row is not read for them.
ALTER TABLE "account_engagement_today" ADD COLUMN IF NOT EXISTS "impressions" integer;
--> statement-breakpoint
ALTER TABLE "account_engagement_today" ADD COLUMN IF NOT EXISTS "clicks" integer;
--> statement-breakpoint
ALTER TABLE "account_engagement_today" ADD COLUMN IF NOT EXISTS "views" integer;
--> statement-breakpoint
-- The day a range starts in: a rolled-up day's events by type and hour, cumulative ([k] counts the
-- first k hours, UTC), made in the same pass as its rollups and valid while its marker is (a write to
-- the day deletes the marker, migration 0024). Not kept for a folded day (decision 0032: the triggers
-- adjust a folded day's rollups, not these), so a folded day's hours are not read. Null for a day
-- rolled up before this migration: made again when a range starts in it.
ALTER TABLE "engagement_rollup_days" ADD COLUMN IF NOT EXISTS "impressions_by_hour" integer[];
--> statement-breakpoint
ALTER TABLE "engagement_rollup_days" ADD COLUMN IF NOT EXISTS "clicks_by_hour" integer[];
--> statement-breakpoint
ALTER TABLE "engagement_rollup_days" ADD COLUMN IF NOT EXISTS "views_by_hour" integer[];
