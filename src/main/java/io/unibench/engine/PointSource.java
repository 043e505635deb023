package io.unibench.engine;

import io.unibench.client.LlmClient;
import io.unibench.engine.spec.RunSpec;

import java.io.IOException;

/**
 * What the points of a run send and write: the engine's {@link SpecPoints} (every front end's spec), or its own
 * probes ({@link ProbeSession}). Not a front end's hook: a front end only makes the spec.
 */
interface PointSource {
    /** Point {@code index} is next: load what it sends; nothing is written yet (a failing test leaves no files). */
    PointRun prepare(int index, RunSpec.Point point) throws IOException;

    /** A target's client is open (before its connection test). */
    default void targetStarted(int target, LlmClient client) {}

    /** A target's last point has run (or the run ended); {@code stopped}: it ended early. */
    default void targetFinished(int target, boolean stopped) {}
}
