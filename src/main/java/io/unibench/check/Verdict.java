package io.unibench.check;

/**
 * What one check found: PASS, FAIL, SKIP (it could not be judged) or WARN (something worth knowing that the check
 * does not judge, e.g. a difference the server said to expect; like PASS and SKIP it does not fail the run), with
 * the evidence in one line: the numbers, the first offending bytes, or why it could not be judged.
 */
public record Verdict(String check, Status status, String evidence) {
    public enum Status { PASS, FAIL, SKIP, WARN }

    public static Verdict pass(String check, String evidence) { return new Verdict(check, Status.PASS, evidence); }

    public static Verdict fail(String check, String evidence) { return new Verdict(check, Status.FAIL, evidence); }

    public static Verdict skip(String check, String evidence) { return new Verdict(check, Status.SKIP, evidence); }

    public static Verdict warn(String check, String evidence) { return new Verdict(check, Status.WARN, evidence); }

    /** {@code PASS  stream-format  evidence}: the line the terminal shows. */
    public String line() {
        return String.format("%-4s  %-24s %s", status, check, evidence);
    }
}
