package io.unibench.schedule;

import java.util.List;

/**
 * How a round reaches the run pipeline: the schedule's scenario document in, the stored runs out. The CLI's
 * implementation runs it as {@code unibench run --config} does, in this process; the service's puts it in the
 * service's run queue so it waits behind other runs like any run. Every stored run of the round carries the tags
 * {@link #scheduleTag} and {@link #roundTag}, so history, compare and export work on it unchanged.
 */
public interface RoundLauncher {
    /**
     * Runs the round to its end (blocking). The service's implementation returns once the round's run has waited its
     * turn in the queue and ended, so rounds reach it at once and wait there, not in the scheduler.
     *
     * @param started call once the round's run starts (it may wait in a queue first)
     * @return the runs stored, and a problem when the round failed (bad document, endpoint down, …)
     */
    Result launch(Schedule schedule, Round round, Runnable started) throws InterruptedException;

    /** @param problem null when the round ran; else one line saying why it failed */
    record Result(List<String> runIds, String problem) {
        public Result {
            runIds = List.copyOf(runIds);
        }
    }

    static String scheduleTag(String schedule) {
        return "schedule:" + schedule;
    }

    static String roundTag(String roundId) {
        return "round:" + roundId;
    }
}
