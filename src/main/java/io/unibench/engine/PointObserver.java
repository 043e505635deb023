package io.unibench.engine;

import io.unibench.metrics.RunResult;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

/**
 * Something that watches each run point from outside the client, such as the target server's own metrics: started
 * when a point starts, finished with the point's result. (The session runner's "point started / point finished"
 * events will carry the same moments.)
 */
public interface PointObserver {
    PointObserver NONE = (label, endpoint) -> Point.NONE;

    /** A point against {@code endpoint} (its chat completions URL) starts now. */
    Point start(String label, String endpoint);

    interface Point {
        Point NONE = (dir, result) -> Observed.NOTHING;

        /** The point ended: write its files into {@code dir}; what goes into its summary and the store. */
        Observed finish(Path dir, RunResult result) throws IOException;
    }

    /**
     * @param summaryKeys keys added to the point's summary
     * @param storedJson  the JSON the run history keeps for the point, or null
     */
    record Observed(Map<String, Object> summaryKeys, String storedJson) {
        public static final Observed NOTHING = new Observed(Map.of(), null);

        public Observed {
            summaryKeys = Map.copyOf(summaryKeys);
        }
    }
}
