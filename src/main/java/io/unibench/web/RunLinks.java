package io.unibench.web;

import io.unibench.store.RunRow;

import java.util.List;

/**
 * The runs of one service run of several providers: the queued run holds the first provider's results and links the
 * other providers' runs (one stored run per provider, as {@code unibench run --config} stores them); each of those
 * names the queued run it is part of.
 *
 * @param partOf the queued run this one is part of, or null
 * @param linked the other providers' runs of this queued run, in the order they started (empty for the others)
 */
public record RunLinks(String partOf, List<RunRow> linked) {
    public RunLinks {
        linked = List.copyOf(linked);
    }

    /**
     * The run page's question before Delete, naming what goes with the run as the store deletes it
     * ({@code RunStore.deleteRun}): a run's linked providers' runs, a merge's shards' runs; a linked run goes alone.
     */
    public static String deleteQuestion(RunRow row, RunLinks links, int shards) {
        StringBuilder q = new StringBuilder("Delete run " + row.runId() + " and its " + row.requestCount()
                + " stored requests?");
        if (!links.linked().isEmpty()) {
            q.append(" Its other providers' runs are deleted with it: ")
                    .append(String.join(", ", links.linked().stream().map(RunRow::runId).toList())).append('.');
        }
        if (links.partOf() != null) {
            q.append(" It is one provider of run ").append(links.partOf()).append(", which stays with its other providers.");
        }
        if (shards > 0) {
            q.append(" Its ").append(shards).append(" shards' runs and registrations are deleted with it (unibench runs "
                    + "delete ").append(row.runId()).append(" --keep-shards deletes the merge alone).");
        }
        return q.toString();
    }
}
