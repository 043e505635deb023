package io.unibench.engine;

import io.unibench.OutputFailedException;
import io.unibench.client.LlmClient;
import io.unibench.metrics.RecordSink;
import io.unibench.metrics.RunInfo;
import io.unibench.metrics.RunMetrics;
import io.unibench.metrics.RunResult;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** One point, as its {@link PointSource} runs it ({@link SessionRunner}'s loop). Closed by the runner after {@link #finished}. */
interface PointRun extends AutoCloseable {
    /** The connection test's request. */
    PreparedRequest probe();

    /** Before the point's clock starts: folders, argument files (which the run history's start may read). */
    default void beforeStart() throws IOException, InterruptedException {}

    /**
     * Right before the point's clock starts, after the run history registered the run: the requests made ahead
     * (the first second of the plan; a line a second while that takes longer).
     */
    default void awaitReady() throws InterruptedException {}

    /**
     * The front end's sinks of the point's records, besides the runner's {@code metrics} (given for live
     * figures) and live view.
     */
    List<RecordSink> sinks(RunInfo info, long startNanos, RunMetrics metrics) throws IOException;

    /** Sends the point's plan (warm-up included) to {@code sinks}; the runner's stop ends it early. */
    RunOutcome dispatch(LlmClient client, LoadPlan plan, List<RecordSink> sinks) throws InterruptedException;

    /** The point's folder: where an outside observer of the point (the server's metrics) writes its files. */
    Path dir();

    /** The requests the dispatcher reached before they were prepared (the verdict's {@code client-bound}). */
    default RequestFactory.Waits preparationWaits() {
        return RequestFactory.Waits.NONE;
    }

    /**
     * The point's result; returns the front end's own summary keys, which follow the runner's (the self-check's,
     * then what the run's {@link PointObserver} saw, e.g. the server's own metrics) in the point's summary and
     * the store. Writes no file ({@link #write} does).
     */
    Map<String, Object> finished(RunResult result);

    /**
     * Writes the point's result files (after the store has the point); a file that cannot be written throws
     * {@link OutputFailedException}, which ends the run after this point.
     */
    default void write(RunResult result, Map<String, Object> summaryKeys) {}

    @Override
    default void close() {}
}
