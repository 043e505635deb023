package io.unibench.cli;

import io.unibench.BadInputException;
import io.unibench.report.RunComparisonReport;
import io.unibench.store.RunComparison;
import io.unibench.store.RunStore;
import io.unibench.store.StoredRun;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

@Command(name = "compare", mixinStandardHelpOptions = true, description = "Runs side by side against a baseline "
        + "(the first run, or --baseline): their points matched by scenario and level (concurrency or request "
        + "rate), whatever the provider names; per level the mean and p50/p95/p99 of TTFT (and TTFCT of reasoning "
        + "replies), latency and TPOT with Δ, its 95%% interval and a verdict (better, worse, same, unclear) from the runs' stored requests.")
final class RunsCompareCommand extends RunsStoreCommand {
    @Parameters(arity = "2..*", paramLabel = "RUN", description = "Two or more runs (ids or unique prefixes).")
    List<String> runs;

    @Option(names = "--baseline", paramLabel = "RUN", description = "The run the others are compared with; one of "
            + "the RUNs. Default: the first.")
    String baseline;

    @Option(names = "--json", description = "JSON rows instead of tables. Default: tables.")
    boolean json;

    @Option(names = "--force", description = "Give verdicts even where the runs' workload fingerprints differ in "
            + "something that moves the metric (each such row marked). Default: those rows are refused, with why.")
    boolean force;

    @Override
    int run(RunStore store) throws Exception {
        Set<String> ids = new LinkedHashSet<>();
        for (String r : runs) {
            String id = store.resolveId(r);
            if (!ids.add(id)) {
                throw new BadInputException("runs compare: run " + id + " is named twice; name different runs");
            }
        }
        List<String> order = new ArrayList<>(ids);
        if (baseline != null) {
            String base = store.resolveId(baseline);
            if (!order.remove(base)) {
                throw new BadInputException("--baseline " + baseline + ": not one of the runs compared ("
                        + String.join(", ", ids) + ")");
            }
            order.addFirst(base);
        }
        StoredRun base = store.run(order.getFirst());
        List<StoredRun> others = new ArrayList<>();
        for (String id : order.subList(1, order.size())) others.add(store.run(id));
        RunComparison.Result result = RunComparison.compare(store, base, others, force);
        if (json) {
            out().println(RunsCommand.JSON.writeValueAsString(result.toMap()));
        } else {
            for (RunComparison.Pair p : result.pairs()) {
                if (p.refusals().isEmpty()) continue;
                out().println("Workload fingerprints (A | " + p.candidate().label() + "):");
                Map<String, Object> fa = io.unibench.store.RunFingerprints.of(base).toMap();
                Map<String, Object> fb = p.fingerprint().toMap();
                for (String k : fa.keySet()) {
                    out().println("  " + k + ": " + known(fa.get(k)) + " | " + known(fb.get(k)));
                }
                for (var r : p.refusals()) {
                    out().println("  not comparable" + (p.forced() ? " (compared anyway, --force)" : "") + ": " + r.why());
                }
                out().println();
            }
            out().print(RunComparisonReport.render(sideLabel(base), sides(result), RunComparison.METHOD));
            out().flush();
        }
        return 0;
    }

    /** A fingerprint field as the compare page shows it: null is "not known", never "null". */
    private static String known(Object v) {
        return v == null ? "not known" : v.toString();
    }

    /** The comparison's other runs as the report lays them out: B, C, … */
    static List<RunComparisonReport.Side> sides(RunComparison.Result result) {
        List<RunComparisonReport.Side> sides = new ArrayList<>();
        char key = 'B';
        for (RunComparison.Pair p : result.pairs()) {
            sides.add(new RunComparisonReport.Side(String.valueOf(key++), sideLabel(p.candidate()), p.rows(),
                    p.onlyBaseline(), p.onlyCandidate()));
        }
        return sides;
    }

    /** The run in one line, marked when its verdict is not valid: its numbers are compared, but not to be trusted. */
    static String sideLabel(StoredRun run) {
        io.unibench.store.RunRow row = run.row();
        return row.verdict() == null || io.unibench.metrics.PointVerdict.isValid(row.verdict()) ? run.label()
                : run.label() + " — NOT VALID: " + row.verdict();
    }
}
