package io.unibench.schedule;

import java.io.PrintWriter;
import java.sql.SQLException;
import java.util.function.BiConsumer;
import java.util.function.LongSupplier;
import java.util.function.LongUnaryOperator;

/**
 * Decides when each enabled schedule's next round starts; the rounds themselves go to {@code submit}, which hands
 * each to the launcher (in the service: a run of its queue). Driven by {@link #tick} with an injected clock, so tests
 * step time.
 *
 * <ul>
 *   <li>A schedule first seen (new, re-enabled, edited) gets its next fire time after the moment it was stored,
 *       plus a random jitter in 0 … its bound: that moment is when its round is due.</li>
 *   <li>Never two rounds of one schedule at once: a round due while the previous is queued or running is recorded
 *       as skipped, naming the one in the way.</li>
 *   <li>After downtime, at most one catch-up round: a round more than {@link #GRACE_MILLIS} late runs once as
 *       {@code catch-up}, and the other fire times missed meanwhile are recorded as one skipped entry.</li>
 * </ul>
 */
public final class Scheduler {
    /** A round this late is a catch-up (the service was down at its time), not just a slow tick. */
    static final long GRACE_MILLIS = 60_000;

    private final ScheduleStore store;
    private final LongSupplier clock;
    private final LongUnaryOperator jitter;
    private final BiConsumer<Schedule, Round> submit;
    private final PrintWriter log;

    /**
     * @param jitter given a bound in ms, a random delay in 0 … bound
     * @param submit takes a queued round to run (must not block)
     */
    public Scheduler(ScheduleStore store, LongSupplier clock, LongUnaryOperator jitter, BiConsumer<Schedule, Round> submit,
                     PrintWriter log) {
        this.store = store;
        this.clock = clock;
        this.jitter = jitter;
        this.submit = submit;
        this.log = log;
    }

    /** Looks at every enabled schedule once: rounds due now are started or skipped; returns the next due moment. */
    public Long tick() throws SQLException {
        long now = clock.getAsLong();
        Long earliest = null;
        for (Schedule s : store.list()) {
            if (!s.enabled()) continue;
            // first seen (new, edited, re-enabled): the next fire time after it was stored, so a schedule stored a
            // moment before its fire time by another process (the CLI, the UI) still fires at that time
            if (s.nextDueAt() == null) s = plan(s, s.updatedAt());
            if (now >= s.nextDueAt()) {
                fire(s, now);
                s = plan(s, now);
            }
            earliest = earliest == null ? s.nextDueAt() : Math.min(earliest, s.nextDueAt());
        }
        return earliest;
    }

    private Schedule plan(Schedule s, long after) throws SQLException {
        long fire = s.trigger().nextAfter(after);
        long bound = s.jitter().toMillis();
        long due = fire + (bound > 0 ? Math.max(0, Math.min(bound, jitter.applyAsLong(bound))) : 0);
        store.setNext(s.name(), fire, due);
        return s.withTimes(fire, due);
    }

    private void fire(Schedule s, long now) throws SQLException {
        long fire = s.nextFireAt();
        String trigger = Round.SCHEDULED;
        if (now - s.nextDueAt() > GRACE_MILLIS) {
            trigger = Round.CATCH_UP;
            int missed = 0;
            long last = fire;
            for (long t = s.trigger().nextAfter(fire); t <= now && missed < 10_000; t = s.trigger().nextAfter(t)) {
                missed++;
                last = t;
            }
            if (missed > 0) {
                store.skipRound(s.name(), Round.SCHEDULED, last, "missed " + missed + " more fire time(s) up to "
                        + Times.utc(last) + " while no scheduler ran; one catch-up round runs instead", now);
            }
        }
        Round r = store.startRound(s.name(), trigger, fire, now);
        if (r.status().equals(Round.SKIPPED)) {
            log.println("schedule " + s.name() + ": round due " + Times.utc(fire) + " skipped: " + r.reason());
            log.flush();
            return;
        }
        submit.accept(s, r);
    }
}
