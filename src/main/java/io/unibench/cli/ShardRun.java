package io.unibench.cli;

import io.unibench.BadInputException;
import io.unibench.engine.Shard;
import io.unibench.engine.StopSignal;
import io.unibench.engine.selfcheck.SelfCheckReport;
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
 * One shard of a sharded {@code perf} run ({@code --shard I/N --run-group G}), hooked into {@code perf} at three
 * moments: {@link #prepare} before the options are resolved (the slice: this shard's share of {@code --number},
 * {@code --parallel}, {@code --rate} and the dataset, written back into the options so the rest of {@code perf}
 * runs a plain smaller benchmark), {@link #awaitStart} just before the point's clock starts (register in the run
 * history with the clock offset against the database, then the start barrier), and {@link #finish} (status and
 * self-check verdict). {@code unibench runs merge G} turns the group back into one run. Not thread-safe: the
 * command's main thread calls it.
 */
final class ShardRun {
    static final ShardRun NONE = new ShardRun(null, null, null, null, 0, 0, null);
    private static final Pattern GROUP = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:-]{0,127}");
    /** How often a shard waiting at the barrier counts its group's registrations. */
    private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final Shard shard;
    private final String group;
    private final Long startAt;
    private final StoreLocation location;
    private final long firstIndex;
    private final double waitSeconds;
    private final LongSupplier localMicros;
    private ShardRegistry registry; // open from awaitStart to finish
    private boolean registered; // this process holds the group's row of its index
    private int absent; // shards that did not reach a level within --shard-wait: later levels do not wait for them

    private ShardRun(Shard shard, String group, Long startAt, StoreLocation location, long firstIndex,
                     double waitSeconds, LongSupplier localMicros) {
        this.shard = shard;
        this.group = group;
        this.startAt = startAt;
        this.location = location;
        this.firstIndex = firstIndex;
        this.waitSeconds = waitSeconds;
        this.localMicros = localMicros;
    }

    /**
     * Checks the shard flags and rewrites {@code o} to this shard's slice; {@link #NONE} without {@code --shard}.
     * Bad input (one line naming the flag): a missing group, {@code --no-db}, a sweep, fewer items than shards.
     */
    static ShardRun prepare(PerfOptions o, Map<String, String> env) {
        return prepare(o, env, ShardRun::wallMicros);
    }

    static ShardRun prepare(PerfOptions o, Map<String, String> env, LongSupplier localMicros) {
        ShardOptions f = o.shard;
        Shard shard = checked(f, o.history);
        if (shard == null) return NONE;
        if (LoadShapeOptions.replaysTrace(o)) {
            // a contiguous block of rows, each shard's replayed from its barrier: the group would send the trace N× fast
            throw new BadInputException("--shard with --dataset mooncake_trace: each shard would replay its block of "
                    + "the trace from the trace's start, N times too fast; shard a trace with run --config F --shard "
                    + "I/N (a mooncake_trace scenario, whose rows are dealt to the shards at their recorded times)");
        }
        int number = single("--number", o.number, null);
        long first = shard.first(number);
        o.number = List.of(share("--number", shard, number));
        if (!o.openLoop) {
            o.parallel = List.of(share("--parallel", shard, single("--parallel", o.parallel, 1)));
        }
        if (o.rate != null) {
            double rate = single("--rate", o.rate);
            if (rate > 0) o.rate = List.of(shard.rate(rate));
        }
        o.datasetOffset += first; // a contiguous block of the dataset: no prompt or conversation in two shards
        return new ShardRun(shard, f.runGroup, f.startAt, StoreLocation.resolve(o.history.store.db, env), first,
                f.shardWaitSeconds, localMicros);
    }

    /**
     * A shard of {@code unibench run --config F}: the flags checked as {@code perf}'s, and every level of the file
     * able to be split ({@link ScenarioSpec#of} slices each level; this only refuses what cannot be): a concurrency
     * level, a level's request count, {@code request_rate.max_concurrency} or a trace's rows below N, and
     * {@code sla_auto_tune} (one search). {@link #NONE} without {@code --shard}.
     */
    static ShardRun forScenario(ShardOptions f, HistoryOptions history, BenchConfig bench, Map<String, String> env) {
        Shard shard = checked(f, history);
        if (shard == null) return NONE;
        BenchConfig.Loads loads = bench.loads();
        if (loads.sla() != null) throw new BadInputException("--shard " + shard + ": " + bench.file() + ": "
                + ScenarioSpec.SLA_UNSHARDED);
        BenchConfig.RequestRate rr = loads.requestRate();
        if (rr == null && bench.scenarios().stream().anyMatch(s -> !loads.traces().containsKey(s.name()))) {
            for (int level : bench.concurrency().levels()) share(bench.file() + ": concurrency level", shard, level);
        }
        long first = -1;
        for (int i = 0; i < bench.scenarios().size(); i++) {
            BenchConfig.Scenario s = bench.scenarios().get(i);
            BenchConfig.TraceReplay trace = loads.traces().get(s.name());
            if (trace == null && rr == null && bench.concurrency().holdSeconds() != null) continue; // held by time
            int total = trace != null ? trace.count() : ScenarioSpec.perLevel(bench, i);
            share(bench.file() + ": " + (trace != null ? "rows replayed" : "requests per level") + " of scenario '"
                    + s.name() + "'", shard, total);
            if (first < 0) first = trace != null ? shard.dealt(0) : shard.first(total);
        }
        if (rr != null && rr.maxConcurrency() != null) {
            share(bench.file() + ": request_rate.max_concurrency", shard, rr.maxConcurrency());
        }
        return new ShardRun(shard, f.runGroup, f.startAt, StoreLocation.resolve(history.store.db, env), Math.max(0, first),
                f.shardWaitSeconds, ShardRun::wallMicros);
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

    private static int single(String flag, List<Integer> values, Integer absent) {
        if (values == null) {
            if (absent != null) return absent;
            throw new BadInputException("--shard needs " + flag + ": the run's total, which the shards divide");
        }
        if (values.size() != 1) {
            throw new BadInputException(flag + " " + values + ": a sharded run has one sweep point; run one group per point");
        }
        return values.getFirst();
    }

    private static double single(String flag, List<Double> values) {
        if (values.size() != 1) {
            throw new BadInputException(flag + " " + values + ": a sharded run has one sweep point; run one group per point");
        }
        return values.getFirst();
    }

    private static int share(String flag, Shard shard, int total) {
        // judged on the total, not on this shard's share: every shard of the group refuses the same spec
        if (total < shard.count()) {
            throw new BadInputException(flag + " " + total + ": fewer than the " + shard.count() + " shards; "
                    + "each shard needs at least 1");
        }
        return (int) shard.share(total);
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
