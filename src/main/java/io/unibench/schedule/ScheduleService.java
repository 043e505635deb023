package io.unibench.schedule;

import io.unibench.store.RunStore;
import io.unibench.store.StoreLocation;

import java.io.PrintWriter;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The service's scheduler: one loop thread that ticks the {@link Scheduler} and delivers the outbox, and a virtual
 * thread per round that hands it to the {@link RoundLauncher} (the service's run queue, {@code web.QueuedRoundLauncher})
 * and waits for its end, then evaluates its alerts. Rounds wait in that queue behind other runs like any run, so
 * they never compete for the client's CPU; two rounds of one schedule never overlap (the {@link Scheduler} records
 * the second as skipped). The loop sleeps until the next due round or message, at most {@link #MAX_IDLE}, and wakes
 * at once when {@link #wake} is called (a schedule was added or edited, or a round ended with notices to deliver).
 */
public final class ScheduleService implements AutoCloseable {
    static final Duration MAX_IDLE = Duration.ofSeconds(30);

    private final ScheduleStore store;
    private final RunStore runs;
    private final Scheduler scheduler;
    private final Notifier notifier;
    private final RoundRunner rounds;
    private final PrintWriter log;
    private final ExecutorService roundThreads = Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name("unibench-schedule-round-", 0).factory());
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition woken = lock.newCondition();
    private boolean wakeRequested; // guarded by lock
    private volatile boolean stopped;
    private final Thread loop;

    private ScheduleService(StoreLocation location, RoundLauncher launcher, Map<String, String> env, String publicUrl,
                            PrintWriter log, java.util.function.Predicate<String> channelEnv, String channelHint)
            throws SQLException {
        this.store = ScheduleStore.open(location);
        this.runs = RunStore.open(location);
        this.log = log;
        this.rounds = new RoundRunner(store, runs, launcher, System::currentTimeMillis, publicUrl, log);
        this.notifier = new Notifier(store.outbox(), env, System::currentTimeMillis, Notifier.http(Duration.ofSeconds(10)),
                channelEnv, channelHint);
        this.scheduler = new Scheduler(store, System::currentTimeMillis,
                bound -> ThreadLocalRandom.current().nextLong(bound + 1), this::submit, log);
        this.loop = new Thread(this::loop, "unibench-schedule-loop");
        this.loop.setDaemon(true);
    }

    /** Starts the loop over the schedules of {@code location}; rounds left running by a killed service are marked. */
    public static ScheduleService start(StoreLocation location, RoundLauncher launcher, Map<String, String> env,
                                        String publicUrl, PrintWriter log) throws SQLException {
        return start(location, launcher, env, publicUrl, log, name -> true, null);
    }

    /**
     * @param channelEnv  the variables a notify channel may read (the service's allow-list); a message of a channel
     *                    naming another is not sent, its delivery log says why
     * @param channelHint where that list comes from, for the log line
     */
    public static ScheduleService start(StoreLocation location, RoundLauncher launcher, Map<String, String> env,
                                        String publicUrl, PrintWriter log, java.util.function.Predicate<String> channelEnv,
                                        String channelHint) throws SQLException {
        ScheduleService s = new ScheduleService(location, launcher, env, publicUrl, log, channelEnv, channelHint);
        int recovered = s.store.recoverAbandoned(System.currentTimeMillis());
        if (recovered > 0) log.println("schedules: " + recovered + " round(s) left running by a stopped service marked interrupted");
        s.loop.start();
        return s;
    }

    public ScheduleStore store() {
        return store;
    }

    /** Look at the schedules now (one was added, edited, enabled). */
    public void wake() {
        lock.lock();
        try {
            wakeRequested = true;
            woken.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * A round of {@code name} now ({@code manual}, as {@code schedule run} records it), whether the schedule is
     * enabled or not: queued behind the service's runs, or skipped (naming the round in the way) while one is
     * queued or running. Returns the round as stored.
     */
    public Round runNow(String name) throws SQLException {
        Schedule s = store.get(name);
        long now = System.currentTimeMillis();
        Round r = store.startRound(s.name(), Round.MANUAL, now, now);
        if (!r.status().equals(Round.SKIPPED)) submit(s, r);
        return r;
    }

    private void submit(Schedule s, Round r) {
        roundThreads.execute(() -> {
            try {
                RoundRunner.Done done = rounds.run(s, r);
                log.println("schedule " + s.name() + ": round " + r.roundId() + " " + done.round().status()
                        + (done.round().reason() != null ? " (" + done.round().reason() + ")" : ""));
                log.flush();
                wake(); // deliver its notices now
            } catch (SQLException e) {
                log.println("schedule " + s.name() + ": round " + r.roundId() + ": run history: "
                        + StoreLocation.mask(String.valueOf(e.getMessage())));
                log.flush();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
    }

    private void loop() {
        while (!stopped) {
            long wait = MAX_IDLE.toMillis();
            try {
                Long due = scheduler.tick();
                notifier.deliverDue();
                Long message = store.outbox().nextAttempt();
                long now = System.currentTimeMillis();
                if (due != null) wait = Math.min(wait, due - now);
                if (message != null) wait = Math.min(wait, message - now);
            } catch (SQLException e) {
                log.println("schedules: run history: " + StoreLocation.mask(String.valueOf(e.getMessage())));
                log.flush();
            } catch (InterruptedException e) {
                return;
            }
            await(Math.max(0, wait));
        }
    }

    private void await(long millis) {
        lock.lock();
        try {
            long nanos = TimeUnit.MILLISECONDS.toNanos(millis);
            while (!wakeRequested && !stopped && nanos > 0) nanos = woken.awaitNanos(nanos);
            wakeRequested = false;
        } catch (InterruptedException e) {
            stopped = true;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void close() {
        stopped = true;
        wake();
        loop.interrupt();
        roundThreads.shutdownNow();
        try {
            loop.join(5000);
            roundThreads.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            store.close();
            runs.close();
        } catch (SQLException ignored) {
            // stopping: nothing left to tell
        }
    }
}
