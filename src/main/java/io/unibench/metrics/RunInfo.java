package io.unibench.metrics;

/**
 * Identity of one run of a sweep, as shown in reports.
 *
 * @param label       sub-directory name, e.g. {@code parallel_8_number_400} or {@code rate_5.0_number_400}
 * @param concurrency closed-loop concurrency; −1 for open loop (no concurrency bound)
 * @param rate        configured request rate in req/s; −1 when the run was not paced
 * @param number      requests (or conversations) the run was asked for
 */
public record RunInfo(String label, int concurrency, double rate, int number) {}
