package io.unibench.check;

import java.util.List;

/**
 * What one check found: PASS, FAIL, SKIP (it could not be judged) or WARN (something worth knowing that the check
 * does not judge, e.g. a difference the server said to expect; like PASS and SKIP it does not fail the run), with
 * the evidence in one line: the numbers, the first offending bytes, or why it could not be judged. A check of
 * several probes (errors-are-errors: malformed body, unknown model, oversize prompt) gives each probe a verdict of its
 * own ({@link #probes}): one probe's problem does not hide the others'.
 */
public record Verdict(String check, Status status, String evidence, List<Probe> probes) {
    public enum Status { PASS, FAIL, SKIP, WARN }

    /** One probe of a check: what was sent and what came back. */
    public record Probe(String name, Status status, String evidence) {
        /** {@code       WARN  unknown model: HTTP 200 …}, under its check's line. */
        public String line() {
            return String.format("      %-4s  %s: %s", status, name, evidence);
        }
    }

    public Verdict {
        probes = List.copyOf(probes);
    }

    public Verdict(String check, Status status, String evidence) {
        this(check, status, evidence, List.of());
    }

    public static Verdict pass(String check, String evidence) { return new Verdict(check, Status.PASS, evidence); }

    public static Verdict fail(String check, String evidence) { return new Verdict(check, Status.FAIL, evidence); }

    public static Verdict skip(String check, String evidence) { return new Verdict(check, Status.SKIP, evidence); }

    public static Verdict warn(String check, String evidence) { return new Verdict(check, Status.WARN, evidence); }

    /**
     * A check judged by its probes: FAIL when one failed, else WARN when one warned, else PASS when one passed, else
     * SKIP; the evidence counts them ({@code 3 probes: 2 passed, 1 warned}).
     */
    public static Verdict ofProbes(String check, List<Probe> probes) {
        Status status = probes.stream().anyMatch(p -> p.status() == Status.FAIL) ? Status.FAIL
                : probes.stream().anyMatch(p -> p.status() == Status.WARN) ? Status.WARN
                : probes.stream().anyMatch(p -> p.status() == Status.PASS) ? Status.PASS : Status.SKIP;
        StringBuilder counts = new StringBuilder(probes.size() + " probes: ");
        String sep = "";
        for (Status s : List.of(Status.PASS, Status.FAIL, Status.WARN, Status.SKIP)) {
            long n = probes.stream().filter(p -> p.status() == s).count();
            if (n == 0) continue;
            counts.append(sep).append(n).append(switch (s) {
                case PASS -> " passed";
                case FAIL -> " failed";
                case WARN -> " warned";
                case SKIP -> " skipped";
            });
            sep = ", ";
        }
        return new Verdict(check, status, counts.toString(), probes);
    }

    /** {@code PASS  stream-format  evidence}: the line the terminal shows, then one line per probe. */
    public String line() {
        StringBuilder sb = new StringBuilder(String.format("%-4s  %-24s %s", status, check, evidence));
        for (Probe p : probes) sb.append('\n').append(p.line());
        return sb.toString();
    }
}
