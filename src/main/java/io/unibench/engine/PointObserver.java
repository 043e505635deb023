package io.unibench.engine;

import io.unibench.engine.spec.RunSpec;
import io.unibench.metrics.RunResult;

import java.util.Map;

/**
 * Something that watches each run point from outside the client, such as the target server's own metrics: started
 * when a point starts, finished with the point's result. (The session runner's "point started / point finished"
 * events will carry the same moments.)
 */
public interface PointObserver {
    PointObserver NONE = (label, target) -> Point.NONE;

    /** A point against {@code target} (its URL, and how its certificate is checked) starts now. */
    Point start(String label, RunSpec.Target target);

    interface Point {
        Point NONE = result -> Observed.NOTHING;

        /** The point ended: what goes into its summary, the store and its folder. */
        Observed finish(RunResult result);
    }

    /**
     * @param summaryKeys keys added to the point's summary
     * @param storedJson  the JSON the run history keeps for the point, or null
     * @param files       files of the point's folder (name → content), written by the runner after the store has the
     *                    point, each whole or not at all
     */
    record Observed(Map<String, Object> summaryKeys, String storedJson, Map<String, String> files) {
        public static final Observed NOTHING = new Observed(Map.of(), null, Map.of());

        public Observed {
            summaryKeys = Map.copyOf(summaryKeys);
            files = Map.copyOf(files);
        }
    }
}
