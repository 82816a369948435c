-- The landing-view rule (issue 38, decision 0017): a person's click whose redirect goes to our own
-- landing page waits in the queue for that page's view from a browser; a click no browser followed
-- to the page is a gateway's fetch of the link. The request knows where the click goes, so it marks
-- the queued event; the consumer decides.
ALTER TABLE "ingest_queue" ADD COLUMN "awaits_view" boolean DEFAULT false NOT NULL;
