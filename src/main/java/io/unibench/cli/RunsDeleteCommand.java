package io.unibench.cli;

import io.unibench.BadInputException;
import io.unibench.store.RunRow;
import io.unibench.store.RunStore;
import io.unibench.store.StoredRun;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

@Command(name = "delete", mixinStandardHelpOptions = true, description = "Deletes a run and its requests.")
final class RunsDeleteCommand extends RunsStoreCommand {
    @Parameters(paramLabel = "RUN")
    String run;

    @Override
    int run(RunStore store) throws Exception {
        String id = store.resolveId(run);
        StoredRun r = store.run(id);
        if (RunRow.RUNNING.equals(r.row().status())) {
            throw new BadInputException("run " + id + " is still running; stop it first");
        }
        store.delete(id);
        out().println("Deleted run " + id + " (" + r.row().requestCount() + " requests).");
        return 0;
    }
}
