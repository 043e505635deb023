package io.unibench.cli;

import io.unibench.BadInputException;
import io.unibench.engine.Shard;
import io.unibench.engine.StopSignal;
import io.unibench.engine.selfcheck.SelfCheckReport;
import io.unibench.engine.spec.RunSpec;
import io.unibench.scenario.BenchConfig;
import io.unibench.scenario.ScenarioSpec;
import io.unibench.store.ClockOffset;
import io.unibench.store.MergedRuns;
import io.unibench.store.Owner;
import io.unibench.store.RunRow;
import io.unibench.store.ShardRegistry;
import io.unibench.store.ShardRow;
import io.unibench.store.StoreLocation;

import java.io.PrintWriter;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;

/**
 * One shard of a sharded run ({@code --shard I/N --run-group G}) of {@code perf}, {@code run --config F} or
 * {@code run SPEC}: the flags checked ({@link #of}), the whole run's spec sliced by the engine's one function
 * ({@link #slice}: {@link RunSpec#slice}, the same slice and the same refusals for every front end), then hooked in at
 * two moments: {@link #awaitStart} just before the first point's clock starts (register in the run history with the
 * clock offset against the database, then the start barrier; {@link #awaitPoint} before each later level of a
 * scenario file) and {@link #finish} (status and self-check verdict). {@code unibench runs merge G} turns the group
 * back into one run. Not thread-safe: the command's main thread calls it.
 */
final class ShardRun {
    static final ShardRun NONE = new ShardRun(null, null, null, null, 0, ShardRun::wallMicros);
    private static final Pattern GROUP = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:-]{0,127}");
    /** How often a shard waiting at the barrier counts its group's registrations. */
    private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final Shard shard;
    private final String group;
    private final Long startAt;
    private final StoreLocation location;
    private long firstIndex; // the dataset index, among the whole first point's, of this shard's first request
    private final double waitSeconds;
    private final LongSupplier localMicros;
    private ShardRegistry registry; // open from awaitStart to finish
    private boolean registered; // this process holds the group's row of its index
    private int absent; // shards that did not reach a level within --shard-wait: later levels do not wait for them

    private ShardRun(Shard shard, String group, Long startAt, StoreLocation location, double waitSeconds,
                     LongSupplier localMicros) {
        this.shard = shard;
        this.group = group;
        this.startAt = startAt;
        this.location = location;
        this.waitSeconds = waitSeconds;
        this.localMicros = localMicros;
    }

    /** {@code perf}'s shard flags, checked; {@link #NONE} without {@code --shard}. */
    static ShardRun prepare(PerfOptions o, Map<String, String> env) {
        return prepare(o, env, ShardRun::wallMicros);
    }

    static ShardRun prepare(PerfOptions o, Map<String, String> env, LongSupplier localMicros) {
        return of(o.shard, o.history, env, localMicros);
    }

    /**
     * The shard flags, checked (bad input, one line naming the flag: a missing or bad group, {@code --no-db}, a bad
     * {@code --start-at} or {@code --shard-wait}); {@link #NONE} without {@code --shard}. What the run's spec allows
     * is the engine's to say, when {@link #slice} slices it.
     */
    static ShardRun of(ShardOptions f, HistoryOptions history, Map<String, String> env) {
        return of(f, history, env, ShardRun::wallMicros);
    }

    private static ShardRun of(ShardOptions f, HistoryOptions history, Map<String, String> env, LongSupplier localMicros) {
        Shard shard = checked(f, history);
        if (shard == null) return NONE;
        return new ShardRun(shard, f.runGroup, f.startAt, StoreLocation.resolve(history.store.db, env),
                f.shardWaitSeconds, localMicros);
    }

    /**
     * A shard of {@code unibench run --config F}: the flags checked as {@code perf}'s, and the file's whole spec
     * sliced now (against the providers as described, before any simulator starts), so what cannot be sliced is
     * refused before anything runs, with the engine's message. {@link #NONE} without {@code --shard}.
     */
    static ShardRun forScenario(ShardOptions f, HistoryOptions history, BenchConfig bench, Map<String, String> env) {
        ShardRun run = of(f, history, env);
        if (run.shard != null) {
            run.firstIndex = firstIndex(ScenarioSpec.of(bench, ScenarioTargets.described(bench),
                    java.nio.file.Path.of("."), new RunSpec.History(false, null, List.of()), run.shard));
        }
        return run;
    }

    /**
     * A shard of {@code unibench run SPEC} ({@code run} the spec with its history as the flags override it): a whole
     * spec with {@code --shard I/N} is sliced as {@code perf --shard} slices its own; a spec that already is a
     * shard's ({@code /shard}, e.g. {@code perf --shard I/N --dry-run}'s) runs as that shard and needs only
     * {@code --run-group G} (a different {@code --shard} is refused). The shards meet in the spec's run history.
     * Returns the spec to run; {@code shards[0]} gets the shard's hooks ({@link #NONE} for a whole run).
     */
    static RunSpec forSpec(ShardOptions f, RunSpec run, Map<String, String> env, String where, ShardRun[] shards) {
        ShardOptions mine = f;
        if (!run.shard().equals(Shard.WHOLE)) {
            if (f.shard != null && !Shard.parse("--shard", f.shard).equals(run.shard())) {
                throw new BadInputException("--shard " + f.shard + ": " + where + " is already shard " + run.shard()
                        + " (/shard); drop --shard, or give the whole run's spec");
            }
            if (f.runGroup == null) {
                throw new BadInputException(where + ": /shard " + run.shard() + " is one shard of a run group: give "
                        + "--run-group G (every shard the same G and run history), whose start barrier it waits at");
            }
            mine = new ShardOptions();
            mine.shard = run.shard().toString();
            mine.runGroup = f.runGroup;
            mine.startAt = f.startAt;
            mine.shardWaitSeconds = f.shardWaitSeconds;
        }
        HistoryOptions history = new HistoryOptions();
        history.noDb = !run.history().enabled();
        history.store.db = run.history().db();
        shards[0] = of(mine, history, env);
        if (!run.shard().equals(Shard.WHOLE)) {
            shards[0].firstIndex = firstIndex(run);
            return run;
        }
        return shards[0].slice(run);
    }

    /**
     * This shard's slice of {@code whole} ({@link RunSpec#slice}); {@code whole} itself when not sharded. Bad input,
     * one line naming {@code --shard}, for what cannot be sliced — the same for every front end.
     */
    RunSpec slice(RunSpec whole) {
        if (shard == null) return whole;
        RunSpec mine = whole.slice(shard);
        firstIndex = firstIndex(mine);
        return mine;
    }

    /** The first counted point's first request index (a level held by time has none to give; 0 when all are). */
    private static long firstIndex(RunSpec sliced) {
        return sliced.points().stream().filter(p -> p.slice() != null && p.slice().of() != Integer.MAX_VALUE)
                .mapToLong(RunSpec.Point::firstRequest).findFirst().orElse(0);
    }

    /** The shard of the flags, checked (bad input naming the flag); null without {@code --shard}. */
    private static Shard checked(ShardOptions f, HistoryOptions history) {
        if (f.shard == null) {
            if (f.runGroup != null) throw new BadInputException("--run-group needs --shard I/N");
            if (f.startAt != null) throw new BadInputException("--start-at needs --shard I/N");
            return null;
        }
        Shard shard = Shard.parse("--shard", f.shard);
        if (f.runGroup == null) {
            throw new BadInputException("--shard " + shard + " needs --run-group G: the name every shard of the run gives");
        }
        if (!GROUP.matcher(f.runGroup).matches()) {
            throw new BadInputException("--run-group '" + f.runGroup + "': letters, digits and . _ : - only (at most "
                    + "128, starting with a letter or digit)");
        }
        if (history.noDb) {
            throw new BadInputException("--shard: the shards meet in the run history; drop --no-db and give every "
                    + "shard the same --db");
        }
        if (f.startAt != null && f.startAt <= 0) throw new BadInputException("--start-at " + f.startAt + ": epoch ms > 0");
        if (!(f.shardWaitSeconds > 0)) throw new BadInputException("--shard-wait " + f.shardWaitSeconds + ": must be > 0");
        return shard;
    }

    /** This process's slice: {@link Shard#WHOLE} when not sharded. */
    Shard shard() {
        return shard == null ? Shard.WHOLE : shard;
    }

    boolean sharded() {
        return shard != null;
    }

    /**
     * Registers this shard (its clock offset against the database's) and waits at the start barrier: until
     * {@code --start-at} on the database's clock, or until all N shards have registered (at most
     * {@code --shard-wait}). Returns at once when not sharded or already started; a stop ends the wait.
     */
    void awaitStart(StopSignal stop, PrintWriter err) throws InterruptedException {
        if (shard == null || registry != null) return;
        try {
            registry = ShardRegistry.open(location);
            ClockOffset clock = registry.measureOffset(localMicros);
            registry.register(group, shard.index(), shard.count(), firstIndex, clock, Owner.current());
            registered = true;
            barrier(clock, stop, err);
        } catch (SQLException e) {
            throw new BadInputException("--shard " + shard + ": run history " + location.display() + ": "
                    + StoreLocation.mask(String.valueOf(e.getMessage())));
        }
    }

    private void barrier(ClockOffset clock, StopSignal stop, PrintWriter err) throws SQLException, InterruptedException {
        err.println("Shard " + shard + " of run group '" + group + "' in " + location.display() + ": clock "
                + String.format(Locale.ROOT, "%+.3f ms (± %.3f ms)", clock.offsetMicros() / 1e3, clock.rttMicros() / 2e3)
                + " against the database's; requests " + firstIndex + " onwards of the group");
        if (startAt != null) {
            long waitMillis = startAt - registry.databaseNowMicros() / 1000;
            if (waitMillis < 0) {
                err.println("Shard " + shard + ": --start-at " + startAt + " passed " + (-waitMillis) + " ms ago on the "
                        + "database's clock; starting now");
            } else {
                err.println("Shard " + shard + ": starting in " + waitMillis + " ms (--start-at " + startAt + ")");
                if (stop.awaitUntil(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMillis))) return;
            }
        } else {
            awaitAllRegistered(stop, err);
        }
        registry.started(group, shard.index());
    }

    /**
     * A scenario file's level {@code point} may start: the first registers and waits as {@link #awaitStart}; each
     * later one waits until every shard has reached it (or ended), at most {@code --shard-wait}, then goes on
     * without the missing ones (said on {@code err}) — a shard that died must not hold the others for ever.
     */
    void awaitPoint(int point, StopSignal stop, PrintWriter err) throws InterruptedException {
        if (shard == null) return;
        if (registry == null) {
            awaitStart(stop, err);
            return;
        }
        try {
            registry.arrive(group, shard.index(), point);
            long deadline = System.nanoTime() + (long) (waitSeconds * 1e9);
            int seen = registry.arrived(group, point);
            while (seen < shard.count() - absent) {
                if (System.nanoTime() - deadline > 0) {
                    err.println("Shard " + shard + ": " + seen + " of " + shard.count() + " shards reached level "
                            + point + " within " + waitSeconds + " s (--shard-wait); going on without the others");
                    absent = shard.count() - seen;
                    return;
                }
                if (stop.awaitUntil(System.nanoTime() + POLL_NANOS)) return;
                seen = registry.arrived(group, point);
            }
        } catch (SQLException e) {
            throw new BadInputException("--shard " + shard + ": run history " + location.display() + ": "
                    + StoreLocation.mask(String.valueOf(e.getMessage())));
        }
    }

    private void awaitAllRegistered(StopSignal stop, PrintWriter err) throws SQLException, InterruptedException {
        long deadline = System.nanoTime() + (long) (waitSeconds * 1e9);
        int seen = registry.registered(group);
        if (seen < shard.count()) err.println("Shard " + shard + ": waiting for the other shards (" + seen + " of "
                + shard.count() + " registered; at most " + waitSeconds + " s, --shard-wait)");
        while (seen < shard.count()) {
            if (System.nanoTime() - deadline > 0) {
                throw new BadInputException("--run-group " + group + ": " + seen + " of " + shard.count() + " shards "
                        + "registered within " + waitSeconds + " s (--shard-wait); start the others with the same group");
            }
            if (stop.awaitUntil(System.nanoTime() + POLL_NANOS)) return;
            seen = registry.registered(group);
        }
    }

    /**
     * Records how the shard ended: its run, {@code interrupted}/{@code failed}/{@code finished}, and the self-check
     * verdict of its points ({@code client-bound: …} when one warned). A store failure here is said, not thrown: the
     * run's files and stored requests stand.
     */
    void finish(String runId, List<SelfCheckReport> checks, boolean interrupted, boolean failed, PrintWriter err) {
        if (registry == null) return;
        if (!registered) {
            closeQuietly(registry); // another process holds this index: its row is not ours to mark
            return;
        }
        String status = interrupted ? RunRow.INTERRUPTED : failed ? RunRow.FAILED : RunRow.FINISHED;
        String verdict = checks.stream().filter(SelfCheckReport::bottleneck).findFirst()
                .map(c -> ShardRow.CLIENT_BOUND + ": " + c.warningLine()).orElse(ShardRow.SELF_CHECK_OK);
        try (ShardRegistry r = registry) {
            r.finish(group, shard.index(), runId, status, verdict);
        } catch (SQLException e) {
            err.println("Warning: run history: shard " + shard + " not marked " + status + " ("
                    + StoreLocation.mask(String.valueOf(e.getMessage())) + ")");
            return;
        }
        err.println("Shard " + shard + " of run group '" + group + "': " + status);
        storeMergeWhenLast(err);
    }

    /** The last shard to end stores the group's merged run ({@link MergedRuns}: exactly one process does). */
    private void storeMergeWhenLast(PrintWriter err) {
        try {
            MergedRuns.Result m = MergedRuns.mergeWhenDone(location, group, Owner.current(), System.currentTimeMillis());
            err.println(switch (m.kind()) {
                case STORED -> "Run group '" + group + "': every shard has ended; merged run " + m.runId() + " stored"
                        + (m.why() == null ? "" : " (partial: " + m.why() + ")");
                case ALREADY -> "Run group '" + group + "': merged run " + m.runId() + " stored by another process";
                case NOT_YET -> "Run group '" + group + "': " + m.why() + "; the last shard to end stores the merged "
                        + "run " + m.runId() + " (or `unibench runs merge " + group + "`)";
            });
        } catch (SQLException e) {
            err.println("Warning: run history: the merged run of group '" + group + "' was not stored ("
                    + StoreLocation.mask(String.valueOf(e.getMessage())) + "); `unibench runs merge " + group
                    + "` computes it");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("Warning: the merge of run group '" + group + "' was interrupted; `unibench runs merge " + group
                    + "` computes it");
        }
    }

    private static void closeQuietly(ShardRegistry r) {
        try {
            r.close();
        } catch (SQLException ignored) {
            // nothing was written on it
        }
    }

    private static long wallMicros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
    }
}
