package io.unibench.cli;

import io.unibench.BadInputException;
import io.unibench.metrics.RunResult;
import io.unibench.metrics.Summary;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.Map;

/**
 * The exit status a finished run earns from what it measured, so that CI can gate on it: 130 when interrupted;
 * {@link #EXIT_FAILED_REQUESTS} when no request succeeded, or when {@code --max-error-rate} is given and a run point
 * failed more of its requests than that (each point is judged alone, so a failing high-concurrency level is not
 * averaged away by the levels below it); 0 otherwise. The reason is one line on stderr.
 */
final class RunVerdict {
    /**
     * Named points of a perf sweep, by their result folder names. A label seen again (the SLA auto-tune's repeated
     * runs of one value) is kept as {@code label #2}, {@code #3}…: every point counts towards the verdict.
     */
    static Map<String, RunResult> byLabel(java.util.List<RunResult> results) {
        Map<String, RunResult> m = new java.util.LinkedHashMap<>();
        for (RunResult r : results) {
            String label = r.info().label();
            for (int k = 2; m.containsKey(label); k++) label = r.info().label() + " #" + k;
            m.put(label, r);
        }
        return m;
    }

    /** Exit status of a run that completed but whose requests failed (none succeeded, or above the error limit). */
    static final int EXIT_FAILED_REQUESTS = 3;

    private RunVerdict() {}

    /** The {@code --max-error-rate} value, checked before anything runs; null when not given. */
    static Double checkedLimit(Double percent, String flag) {
        if (percent != null && !(percent >= 0 && percent <= 100)) {
            throw new BadInputException(flag + " " + percent + ": expected a percentage from 0 to 100");
        }
        return percent;
    }

    /**
     * @param points        the results of every run point (sweep level, scenario level) by the name the line shows
     * @param maxErrorRate  the highest acceptable failed share of a point's requests in percent; null: no limit
     * @param stopped       the run was interrupted (its report is partial)
     */
    static int exitCode(Map<String, RunResult> points, Double maxErrorRate, boolean stopped, PrintWriter err) {
        if (stopped) return Main.EXIT_INTERRUPTED;
        long total = 0;
        long succeeded = 0;
        for (RunResult r : points.values()) {
            total += r.summary().requests().totalRequests();
            succeeded += r.summary().requests().successRequests();
        }
        if (succeeded == 0) {
            err.println("unibench: no request succeeded (" + (total == 0 ? "none was sent"
                    : total - succeeded + " of " + total + " failed; see the Errors table") + ")");
            return EXIT_FAILED_REQUESTS;
        }
        if (maxErrorRate == null) return 0;
        for (Map.Entry<String, RunResult> e : points.entrySet()) {
            Summary s = e.getValue().summary();
            if (s.requests().totalRequests() == 0) continue;
            double rate = 100.0 * s.requests().failedRequests() / s.requests().totalRequests();
            if (rate > maxErrorRate) {
                err.println(String.format(Locale.ROOT, "unibench: %s: %d of %d requests failed (%.1f%%), above "
                        + "--max-error-rate %s%%", e.getKey(), s.requests().failedRequests(), s.requests().totalRequests(), rate,
                        stripZeros(maxErrorRate)));
                return EXIT_FAILED_REQUESTS;
            }
        }
        return 0;
    }

    private static String stripZeros(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
    }
}
