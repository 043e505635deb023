-- The service's run queue (unibench serve, issue 17): runs are created `queued` and may end `cancelled`; the
-- status column is free text, so the new statuses need no change. What a run's status alone cannot say is kept
-- beside it: why it failed, was cancelled or was interrupted (one line, secrets masked), NULL when it finished.
ALTER TABLE runs ADD COLUMN status_reason TEXT;
