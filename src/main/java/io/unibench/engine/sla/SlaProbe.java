package io.unibench.engine.sla;

import io.unibench.metrics.RunResult;

/**
 * Runs one measured point at a value of the tuned variable: what the auto-tune drives, whatever runner carries it out.
 */
@FunctionalInterface
public interface SlaProbe {
    /**
     * @param value the concurrency or rate to run at
     * @param run   which of the value's {@code --sla-num-runs} runs (from 0)
     * @return the point's result; null when the benchmark was stopped (Ctrl-C) and the tuning ends
     */
    RunResult run(int value, int run) throws Exception;
}
