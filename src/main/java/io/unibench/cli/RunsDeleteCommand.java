package io.unibench.cli;

import io.unibench.BadInputException;
import io.unibench.store.RunRow;
import io.unibench.store.RunStore;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.util.List;

@Command(name = "delete", mixinStandardHelpOptions = true, description = {"Deletes a run and its requests, with what "
        + "belongs to it: a run of several providers with its linked runs NAME/PROVIDER (a linked run alone is deleted "
        + "alone); a sharded run's merge group:G with its shards' runs and registrations (G may then be used again).",
        "A run that is queued or running is refused."})
final class RunsDeleteCommand extends RunsStoreCommand {
    @Parameters(paramLabel = "RUN")
    String run;

    @Option(names = "--keep-shards", description = "group:G only: delete the merge alone and keep its shards' runs; the "
            + "group is merged again (by `unibench serve` within 15 s, or `runs merge G --store`)")
    boolean keepShards;

    @Override
    int run(RunStore store) throws Exception {
        String id = store.resolveId(run);
        if (keepShards && !id.startsWith(RunStore.MERGED_PREFIX)) {
            throw new BadInputException("--keep-shards: " + id + " is not a sharded run's merge (group:G)");
        }
        List<RunRow> rows = store.deletedWith(id, keepShards);
        String parent = id.startsWith(RunStore.MERGED_PREFIX) ? null : store.parentRun(id);
        RunStore.Deletion d;
        try {
            d = store.deleteRun(id, keepShards);
        } catch (IllegalStateException active) {
            throw new BadInputException(active.getMessage());
        }
        long requests = rows.stream().mapToLong(RunRow::requestCount).sum();
        out().println("Deleted run " + id + (d.runIds().size() > 1 ? " and " + String.join(", ", d.runIds().subList(1,
                d.runIds().size())) : "") + " (" + requests + " requests).");
        if (d.releasedGroup() != null) {
            out().println(d.shardsKept() ? "Run group " + d.releasedGroup() + ": its shards' runs are kept; the group "
                    + "is merged again (unibench serve, or runs merge " + d.releasedGroup() + " --store)."
                    : "Run group " + d.releasedGroup() + ": its shards' registrations are deleted; the name may be "
                    + "used again.");
        }
        if (parent != null) out().println("It was one provider of run " + parent + ", which stays.");
        return 0;
    }
}
