package io.unibench.web;

import io.unibench.store.MergedRuns;
import io.unibench.store.Owner;
import io.unibench.store.StoreLocation;

import java.io.PrintWriter;
import java.sql.SQLException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The service's part of automatic merging: every {@link #PERIOD_SECONDS} s, each run group with no stored merge is
 * merged once all its shards have ended ({@link MergedRuns#mergeOpenGroups}). The shards' last one usually does it
 * itself; this catches the group whose last shard was killed (it counts as ended once its process is gone) and a
 * shard whose own merge failed.
 */
final class GroupMerger implements AutoCloseable {
    static final long PERIOD_SECONDS = 15;

    private final StoreLocation location;
    private final PrintWriter log;
    private final CountDownLatch closed = new CountDownLatch(1);
    private final Thread thread;

    GroupMerger(StoreLocation location, PrintWriter log) {
        this.location = location;
        this.log = log;
        this.thread = Thread.ofVirtual().name("unibench-group-merger").start(this::loop);
    }

    private void loop() {
        try {
            while (!closed.await(PERIOD_SECONDS, TimeUnit.SECONDS)) pollOnce();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** One poll: merges and stores every group that is done; says what it stored and what failed. */
    void pollOnce() throws InterruptedException {
        try {
            for (MergedRuns.Result r : MergedRuns.mergeOpenGroups(location, Owner.current(), System.currentTimeMillis(),
                    (group, e) -> log.println("unibench serve: merging run group '" + group + "' failed: "
                            + StoreLocation.mask(String.valueOf(e))))) {
                log.println("unibench serve: stored merged run " + r.runId()
                        + (r.why() == null ? "" : " (partial: " + r.why() + ")"));
            }
        } catch (SQLException e) {
            log.println("unibench serve: run groups not polled: " + StoreLocation.mask(String.valueOf(e.getMessage())));
        }
        log.flush();
    }

    @Override
    public void close() {
        closed.countDown();
        try {
            thread.join(TimeUnit.SECONDS.toMillis(30));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
