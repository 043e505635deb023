package io.unibench.check;

/**
 * What one check found: PASS, FAIL or SKIP (it could not be judged), with the evidence in one line: the numbers,
 * the first offending bytes, or why it could not be judged.
 */
public record Verdict(String check, Status status, String evidence) {
    public enum Status { PASS, FAIL, SKIP }

    public static Verdict pass(String check, String evidence) { return new Verdict(check, Status.PASS, evidence); }

    public static Verdict fail(String check, String evidence) { return new Verdict(check, Status.FAIL, evidence); }

    public static Verdict skip(String check, String evidence) { return new Verdict(check, Status.SKIP, evidence); }

    /** {@code PASS  stream-format  evidence}: the line the terminal shows. */
    public String line() {
        return String.format("%-4s  %-24s %s", status, check, evidence);
    }
}
