-- The landing pages' targets reached (reports/content.ts): the distinct targets with a view of the
-- range, per landing page of the viewed ad. The views were found by the clicks-and-views index and
-- each read from the table for its ad (74,000 views over 90 days at the reports bench's size: about
-- 0.4 s quiet, seconds under load, the most of `content` once its ads' targets reached were kept,
-- migration 0072). This index answers them alone; only views write to it. Declared here only (Drizzle
-- cannot express INCLUDE), like the partitioning.
CREATE INDEX "engagement_events_client_views_idx" ON "engagement_events" USING btree ("client_id","occurred_at") INCLUDE ("content_id","target_id") WHERE "type" = 'view';
