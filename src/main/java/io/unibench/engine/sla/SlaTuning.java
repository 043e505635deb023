package io.unibench.engine.sla;

import java.util.List;

/**
 * What an auto-tune found.
 *
 * @param variable   {@code parallel} or {@code rate}
 * @param probes     every value run, in increasing order
 * @param selections one per criterion group (or the one optimization), in the order given
 * @param stopped    the benchmark was stopped before the search ended: the selections are of what ran
 */
public record SlaTuning(String variable, List<ProbeResult> probes, List<Selection> selections, boolean stopped) {
    public SlaTuning {
        probes = List.copyOf(probes);
        selections = List.copyOf(selections);
    }

    /**
     * One row of the "SLA Auto-tune Summary".
     *
     * @param criteria     the group, as {@link SlaParams#describe} gives it
     * @param maxSatisfied the largest value meeting every criterion (for max/min: the best value); null for none
     * @param note         how it was decided, and whether the boundary is within run-to-run spread
     */
    public record Selection(String criteria, Integer maxSatisfied, String note) {}
}
