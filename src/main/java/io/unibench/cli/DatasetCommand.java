package io.unibench.cli;

import io.unibench.BadInputException;
import io.unibench.metrics.Percentiles;
import io.unibench.tokenizer.Tokenizer;
import io.unibench.tokenizer.Tokenizers;
import io.unibench.workload.SweSmithBuilder;
import io.unibench.workload.SweSmithFile;
import io.unibench.workload.Trajectory;
import io.unibench.workload.TrajectoryReader;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/** {@code unibench dataset}: builds dataset files offline. */
@Command(name = "dataset", mixinStandardHelpOptions = true,
        description = "Build dataset files for perf runs.",
        subcommands = {DatasetCommand.BuildSweSmith.class})
public final class DatasetCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** {@code unibench dataset build-swe-smith}: evalscope's {@code build_swe_smith_dataset.py} on local files. */
    @Command(name = "build-swe-smith", mixinStandardHelpOptions = true, sortOptions = false,
            description = {"Build agentic_dataset.json (for --dataset swe_smith --dataset-path) from local agent "
                    + "trajectories: the SWE-smith-trajectories JSONL ('messages' per line) or SWE-agent .traj files.",
                    "Deterministic for a seed; only user and tool messages are used."})
    public static final class BuildSweSmith implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Option(names = "--input", required = true, arity = "1..*", paramLabel = "FILE",
                description = "Trajectory files (.jsonl: one per line; .json/.traj: one object or an array).")
        List<String> inputs;

        @Option(names = "--tokenizer-path", required = true, description = "Tokenizer for exact token counts: a "
                + "local tokenizer.json / model folder, or a tiktoken encoding name.")
        String tokenizerPath;

        @Option(names = "--first-turn-length", defaultValue = "65000", paramLabel = "N|[A,B]",
                description = "Tokens of the first turn, or a range drawn per conversation. Default: ${DEFAULT-VALUE}.")
        String firstTurnLength;

        @Option(names = "--subsequent-turn-length", defaultValue = "500", paramLabel = "N|[A,B]",
                description = "Tokens added by each later turn, or a range. Default: ${DEFAULT-VALUE}.")
        String subsequentTurnLength;

        @Option(names = "--min-turns", defaultValue = "1", description = "Default: ${DEFAULT-VALUE}.")
        int minTurns;

        @Option(names = "--max-turns", description = "Turns per conversation are drawn from [min, max]. "
                + "Default: --min-turns.")
        Integer maxTurns;

        @Option(names = "--number", defaultValue = "128", description = "Conversations to build. Default: ${DEFAULT-VALUE}.")
        int number;

        @Option(names = "--seed", defaultValue = "42", description = "Default: ${DEFAULT-VALUE}.")
        long seed;

        @Option(names = "--chars-per-token", defaultValue = "3.0", description = "Pre-filter: trajectories need "
                + "(upper(first) + upper(subsequent)·(max_turns−1))·X characters. Default: ${DEFAULT-VALUE}.")
        double charsPerToken;

        @Option(names = "--num-workers", description = "Threads. Default: the cores available.")
        Integer numWorkers;

        @Option(names = "--output", defaultValue = "outputs/agentic_dataset.json", paramLabel = "FILE",
                description = "Default: ${DEFAULT-VALUE}.")
        String output;

        @Override public Integer call() throws Exception {
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            int workers = numWorkers != null ? numWorkers : Math.max(1, Runtime.getRuntime().availableProcessors());
            SweSmithBuilder.Settings settings = new SweSmithBuilder.Settings(
                    SweSmithBuilder.Range.parse("--first-turn-length", firstTurnLength),
                    SweSmithBuilder.Range.parse("--subsequent-turn-length", subsequentTurnLength),
                    minTurns, maxTurns, number, seed, charsPerToken, workers);
            Path target = Path.of(output);
            if (java.nio.file.Files.isDirectory(target)) {
                throw new BadInputException("--output '" + output + "': is a folder; name the file to write");
            }
            try { // the folder of the output first: a build may take minutes, then fail to write
                if (target.toAbsolutePath().getParent() != null) {
                    java.nio.file.Files.createDirectories(target.toAbsolutePath().getParent());
                }
            } catch (java.io.IOException e) {
                throw BadInputException.io("--output", output, e);
            }
            Tokenizer tokenizer = Tokenizers.load(tokenizerPath);
            List<Trajectory> trajectories = new java.util.ArrayList<>();
            for (String in : inputs) trajectories.addAll(TrajectoryReader.read(in));
            SweSmithBuilder builder = new SweSmithBuilder(tokenizer, settings);
            int candidates = builder.candidates(trajectories, 0).size();
            if (candidates < number) {
                throw new BadInputException(candidates + " of " + trajectories.size() + " trajectories pass the "
                        + "pre-filter of " + settings.minChars() + " characters, fewer than --number " + number
                        + "; lower --number, the turn lengths or --max-turns");
            }
            ProgressBar bar = new ProgressBar(err, number);
            SweSmithBuilder.Result result = builder.build(trajectories, 0, bar::update);
            bar.finish();
            Map<String, Object> meta = new LinkedHashMap<>();
            meta.put("model_path", tokenizerPath);
            meta.put("dataset_name", String.join(",", inputs));
            meta.put("split", null);
            meta.put("first_turn_length", lengthValue(settings.firstTurnLength()));
            meta.put("subsequent_turn_length", lengthValue(settings.subsequentTurnLength()));
            meta.put("min_turns", minTurns);
            meta.put("max_turns", settings.maxTurnsOrMin());
            meta.put("seed", seed);
            meta.put("chars_per_token", charsPerToken);
            SweSmithFile.write(Path.of(output), meta, result.conversations());
            out.println(statistics(result, settings));
            out.println("Wrote " + result.conversations().size() + " conversations to " + Path.of(output).toAbsolutePath());
            if (result.conversations().size() < number) {
                err.println("Warning: only " + result.conversations().size() + " of --number " + number
                        + " conversations could be built (" + result.discarded() + " candidates ran out of messages)");
            }
            return 0;
        }

        private static Object lengthValue(SweSmithBuilder.Range r) {
            return r.min() == r.max() ? (Object) r.min() : List.of(r.min(), r.max());
        }
    }

    /** The builder's report: inputs, filter, and turns / first / last prompt tokens. */
    static String statistics(SweSmithBuilder.Result r, SweSmithBuilder.Settings s) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "Trajectories: %d, passed the pre-filter (>= %d chars): %d, tried: %d, "
                + "discarded (ran out of messages): %d, built: %d%n", r.trajectories(), s.minChars(), r.candidates(),
                r.tried(), r.discarded(), r.conversations().size()));
        int n = r.conversations().size();
        if (n == 0) return sb.toString();
        double[] turns = new double[n];
        double[] first = new double[n];
        double[] last = new double[n];
        long hits = 0;
        long turnCount = 0;
        for (int i = 0; i < n; i++) {
            var c = r.conversations().get(i);
            turns[i] = c.turns().size();
            first[i] = c.turns().get(0).promptTokens();
            last[i] = c.turns().get(c.turns().size() - 1).promptTokens();
            for (var t : c.turns()) {
                turnCount++;
                if (t.newTokens() == t.targetTokens()) hits++;
            }
        }
        sb.append(stat("Turns", turns)).append(stat("First-turn prompt tokens", first))
                .append(stat("Last-turn prompt tokens", last))
                .append(String.format(Locale.ROOT, "Turns at their exact target length: %d/%d", hits, turnCount));
        return sb.toString();
    }

    private static String stat(String name, double[] v) {
        double[] sorted = v.clone();
        Arrays.sort(sorted);
        return String.format(Locale.ROOT, "%-26s mean %.1f  min %.0f  p50 %.0f  max %.0f%n", name + ":",
                Arrays.stream(v).average().orElse(Double.NaN), sorted[0], Percentiles.nearestRankHigh(sorted, 50),
                sorted[sorted.length - 1]);
    }

    /** A one-line bar on stderr, redrawn with '\r' (a plain line per 10% when stderr is not a terminal). */
    static final class ProgressBar {
        private final PrintWriter err;
        private final int total;
        private final boolean terminal = System.console() != null;
        private int lastDecile = -1;

        ProgressBar(PrintWriter err, int total) {
            this.err = err;
            this.total = total;
        }

        synchronized void update(int done) {
            int width = 30;
            int filled = (int) ((long) done * width / total);
            String bar = "building [" + "#".repeat(filled) + " ".repeat(width - filled) + "] " + done + "/" + total;
            if (terminal) {
                err.print("\r" + bar);
                err.flush();
            } else {
                int decile = (int) ((long) done * 10 / total);
                if (decile != lastDecile) {
                    lastDecile = decile;
                    err.println(bar);
                }
            }
        }

        void finish() {
            if (terminal) err.println();
        }
    }
}
