package io.unibench.cli;

import io.unibench.BadInputException;
import io.unibench.report.RunComparisonReport;
import io.unibench.store.RunComparison;
import io.unibench.store.RunStore;
import io.unibench.store.StoredRun;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "compare", mixinStandardHelpOptions = true, description = "Two runs side by side: every metric "
        + "of every sweep point, Δ = B − A, better or worse, and whether Δ is inside the run-to-run spread of "
        + "repeated runs of the same configuration.")
final class RunsCompareCommand extends RunsStoreCommand {
    @Parameters(index = "0", paramLabel = "RUN_A")
    String a;

    @Parameters(index = "1", paramLabel = "RUN_B")
    String b;

    @Option(names = "--json", description = "JSON rows instead of tables. Default: tables.")
    boolean json;

    @Override
    int run(RunStore store) throws Exception {
        String idA = store.resolveId(a);
        String idB = store.resolveId(b);
        if (idA.equals(idB)) {
            throw new BadInputException("runs compare: RUN_A and RUN_B are the same run (" + idA
                    + "); name two different runs");
        }
        StoredRun ra = store.run(idA);
        StoredRun rb = store.run(idB);
        RunComparison.Result result = RunComparison.compare(store, ra, rb);
        if (json) {
            out().println(RunsCommand.JSON.writeValueAsString(result.toMap()));
        } else {
            out().print(RunComparisonReport.render(ra.row().label(), rb.row().label(), result.rows(),
                    result.unmatched(), result.repeatsA() + result.repeatsB()));
            out().flush();
        }
        return 0;
    }
}
