package io.unibench.engine.live;

/**
 * A step of the run that is not a load point has begun: what the run is doing before (or between) its points, so a
 * watcher is never left with nothing to show for seconds.
 *
 * @param phase  {@link #STARTING_SIMULATOR}, {@link #CONNECTION_TEST} or {@link #WARMUP}
 * @param detail what it is about (the target's name, the simulators' providers); may be empty
 */
public record PhaseStarted(String phase, String detail) implements RunEvent {
    /** The embedded simulators of the run's {@code base_url: sim} providers are starting. */
    public static final String STARTING_SIMULATOR = "starting_simulator";
    /** A target's connection test: one request before its first point. */
    public static final String CONNECTION_TEST = "connection_test";
    /** The client's warm-up before the first point (its code compiled before anything is measured). */
    public static final String WARMUP = "warmup";

    public PhaseStarted {
        detail = detail == null ? "" : detail;
    }
}
