package io.unibench.engine.spec;

import io.unibench.BadInputException;
import io.unibench.engine.ArrivalShape;
import io.unibench.engine.LoadPlan;
import io.unibench.engine.Shard;

import java.util.ArrayList;
import java.util.List;

/**
 * Shard I/N of a whole run, as a function of its spec ({@link RunSpec#slice}): the one slicing every front end calls
 * ({@code perf --shard}, {@code run --shard} on a scenario file or a spec file). Each point keeps its label, target,
 * workload, pause and arrival shape, and sends its share of the whole point's requests ({@link RunSpec.Slice}):
 * <ul>
 *   <li>a counted point: a contiguous block of its requests ({@link Shard#share} from {@link Shard#first}), its
 *       concurrency's share (a closed loop, or a paced one bounded by it), {@code λ/N} of its rate (and of a ramp's
 *       rates: independent arrival processes superpose, their seeds differing by their first index);</li>
 *   <li>a point held by time ({@code number} unbounded, a duration): its hold time, its concurrency's share, the
 *       start of its 1/N of the index range (no index in two shards);</li>
 *   <li>a recorded trace ({@link ArrivalShape.Recorded}): its rows dealt in turn, row k to shard k mod N, each at its
 *       recorded time from the trace's start, so every shard sends about 1/N of the trace's load at each moment.</li>
 * </ul>
 * The N slices together are the whole: every request index in exactly one shard, the counts, concurrencies and rates
 * summing to the whole point's. What cannot be sliced is refused, one line naming {@code --shard}, the same whatever
 * the front end: an SLA search, a point with fewer requests (rows) or a concurrency below N, a trace with a warm-up,
 * a spec that is already a shard's.
 */
final class ShardSlice {
    /** Why a search runs in one process. */
    static final String SLA_UNSHARDED = "an SLA search (sla_auto_tune, perf's --sla-auto-tune) cannot be sharded: it "
            + "chooses each probe from the last probe's result, which one process must judge; run it without --shard";

    private ShardSlice() {}

    static RunSpec of(RunSpec whole, Shard shard) {
        if (shard.equals(Shard.WHOLE)) return whole;
        String flag = "--shard " + shard + ": ";
        if (!whole.shard().equals(Shard.WHOLE)) {
            throw new BadInputException(flag + "the spec is already shard " + whole.shard() + " of its group; slice "
                    + "the whole run's spec");
        }
        if (!whole.sla().isEmpty()) throw new BadInputException(flag + SLA_UNSHARDED);
        List<RunSpec.Point> points = new ArrayList<>();
        for (RunSpec.Point p : whole.points()) points.add(point(p, shard, flag));
        return new RunSpec(whole.name(), whole.targets(), whole.workloads(), points, null, shard, whole.goodput(),
                whole.cancels(), whole.outputs(), whole.history(), whole.seed(), whole.limits());
    }

    private static RunSpec.Point point(RunSpec.Point p, Shard shard, String flag) {
        LoadPlan plan = p.plan();
        String where = flag + "point '" + p.label() + "' ";
        if (plan.arrivals() instanceof ArrivalShape.Recorded r) {
            if (plan.warmup() > 0) {
                throw new BadInputException(where + "replays a trace after " + plan.warmup() + " warm-up requests; its "
                        + "rows are dealt to the shards, a warm-up cannot be: give it none (--warmup-num 0)");
            }
            int rows = atLeast(where, "replays " + plan.number() + " trace rows", plan.number(), shard);
            long[] all = r.offsetsNanos();
            long base = r.fromStart() ? 0 : all[0]; // the whole point's phase starts at its first row
            long[] times = new long[(int) shard.share(rows)];
            for (int j = 0; j < times.length; j++) times[j] = all[(int) shard.dealt(j)] - base;
            LoadPlan mine = plan.openLoop() ? LoadPlan.openLoop(times.length, shard.rate(plan.rate()), plan.duration(), 0)
                    : new LoadPlan(share(where, plan.parallel(), shard), times.length, shard.rate(plan.rate()),
                    plan.duration(), 0);
            return sliced(p, mine.withArrivals(new ArrivalShape.Recorded(times, true, r.speedup())),
                    new RunSpec.Slice(shard.index(), shard.count(), rows));
        }
        boolean held = plan.duration() != null && plan.number() == Integer.MAX_VALUE;
        int parallel = plan.openLoop() ? 0 : share(where, plan.parallel(), shard); // the concurrency is judged first
        int number = held ? plan.number() : (int) shard.share(atLeast(where, "sends " + plan.number() + " requests",
                plan.number(), shard));
        long first = held ? shard.index() * ((long) Integer.MAX_VALUE / shard.count()) : shard.first(plan.number());
        double rate = plan.paced() ? shard.rate(plan.rate()) : plan.rate();
        LoadPlan mine = plan.openLoop() ? LoadPlan.openLoop(number, rate, plan.duration(), plan.warmup())
                : new LoadPlan(parallel, number, rate, plan.duration(), plan.warmup());
        ArrivalShape arrivals = plan.arrivals() instanceof ArrivalShape.RampUp ramp
                ? ArrivalShape.ramp(new ArrivalShape.Ramp(ramp.ramp().strategy(), shard.rate(ramp.ramp().startRps()),
                shard.rate(ramp.ramp().endRps())), ramp.burstiness())
                : plan.arrivals();
        return sliced(p, mine.withArrivals(arrivals), new RunSpec.Slice(first, 1, plan.number()));
    }

    private static RunSpec.Point sliced(RunSpec.Point p, LoadPlan plan, RunSpec.Slice slice) {
        return new RunSpec.Point(label(p, plan), p.target(), p.workload(), plan, p.pauseAfter(), slice);
    }

    /**
     * A point named by its load is named by the shard's, as its folder is: perf's {@code parallel_P_number_N} (or
     * {@code rate_R_number_N}) and a scenario level's {@code …/parallel_C}. Any other name is the group's and kept (a
     * scenario's {@code …/rate_R} of the whole λ, {@code …/trace}): the merge lines the shards' points up by index.
     */
    private static String label(RunSpec.Point p, LoadPlan mine) {
        String whole = p.label();
        if (whole.equals(p.plan().label())) return mine.label();
        String level = "/parallel_" + p.plan().parallel();
        if (!p.plan().paced() && whole.endsWith(level)) {
            return whole.substring(0, whole.length() - level.length()) + "/parallel_" + mine.parallel();
        }
        return whole;
    }

    private static int share(String where, int parallel, Shard shard) {
        return (int) shard.share(atLeast(where, "runs " + parallel + " at once", parallel, shard));
    }

    /** Judged on the whole, not on a share: every shard of the group refuses the same spec. */
    private static int atLeast(String where, String what, int total, Shard shard) {
        if (total < shard.count()) {
            throw new BadInputException(where + what + ", fewer than the " + shard.count() + " shards; each shard "
                    + "needs at least 1");
        }
        return total;
    }
}
