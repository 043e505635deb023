package io.unibench.web;

import io.unibench.BadInputException;

/**
 * What one run of the service may ask of the machine, checked before it is queued (400 with the JSON pointer of
 * the field over the limit): requests in flight at once, requests in all, and time in all. The defaults fit a small
 * machine (2 cores, or a 512 MB container): every record of a level is held until the level ends. {@code serve}'s
 * flags raise them.
 *
 * @param maxConcurrency  requests in flight at once (a closed loop's level, request_rate's max_concurrency, the
 *                        SLA search's upper bound)
 * @param maxRequests     requests of the whole run (levels × requests per level × scenarios × providers)
 * @param maxDurationSec  seconds of the whole run held by time (levels × hold × scenarios × providers)
 */
public record RunLimits(int maxConcurrency, long maxRequests, long maxDurationSec) {
    public static final int DEFAULT_CONCURRENCY = 1024;
    public static final long DEFAULT_REQUESTS = 200_000;
    public static final long DEFAULT_DURATION_SEC = 24 * 3600;

    public static final RunLimits DEFAULTS = new RunLimits(DEFAULT_CONCURRENCY, DEFAULT_REQUESTS, DEFAULT_DURATION_SEC);

    public RunLimits {
        if (maxConcurrency < 1) throw new BadInputException("--max-run-concurrency " + maxConcurrency + ": at least 1");
        if (maxRequests < 1) throw new BadInputException("--max-run-requests " + maxRequests + ": at least 1");
        if (maxDurationSec < 1) throw new BadInputException("--max-run-duration " + maxDurationSec + ": at least 1 s");
    }
}
