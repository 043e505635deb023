package io.unibench.metrics;

/**
 * What one point's request starts waited on the rate limiter in front of them (a scenario file's {@code rate_limit},
 * {@code engine.StartGate}).
 *
 * @param starts             request starts of the point
 * @param rampWaited         of its starts that opened the connections it added (the ramp), how many waited
 * @param rampWaitSeconds    their total wait
 * @param steadyWaited       later starts that waited: the limiter, not the provider, set the point's throughput
 * @param steadyWaitSeconds  their total wait
 */
public record StartWaits(long starts, long rampWaited, double rampWaitSeconds, long steadyWaited,
                         double steadyWaitSeconds) {
    public static final StartWaits NONE = new StartWaits(0, 0, 0, 0, 0);

    /** The limiter held back steady-state starts: the point's throughput is capped by it. */
    public boolean capped() {
        return steadyWaited > 0;
    }
}
