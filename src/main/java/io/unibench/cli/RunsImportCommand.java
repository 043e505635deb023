package io.unibench.cli;

import io.unibench.importer.Foreign;
import io.unibench.importer.ForeignFormat;
import io.unibench.importer.ResultImport;
import io.unibench.store.ImportedRun;
import io.unibench.store.Owner;
import io.unibench.store.RunStore;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

@Command(name = "import", mixinStandardHelpOptions = true,
        description = {"Stores other tools' results as runs of the history (runs list/show/compare, pages, trends): "
                + "evalscope perf output folders (with benchmark_data.db: every figure recomputed from its requests) "
                + "and vLLM bench serve result JSON (with --save-detailed: likewise), AIPerf's profile_export.jsonl "
                + "and profile_export_aiperf.json (side by side: one run), GuideLLM reports and llm-d Benchmark "
                + "Report v0.2 (YAML or JSON).",
                "Each run is marked with the source tool, its version where the files say it, each file's SHA-256 "
                        + "and what the source did not measure (absent, never zero). All files are read before "
                        + "anything is stored: a bad one stores nothing (one line naming the file and JSON pointer, "
                        + "exit 2). See docs/import.md."})
final class RunsImportCommand extends RunsStoreCommand {
    @Parameters(paramLabel = "PATH", arity = "1..*", description = "Result files or folders (searched below).")
    List<Path> paths;

    @Option(names = "--format", paramLabel = "FORMAT", description = "Read every PATH as this format "
            + "(evalscope-perf, vllm-bench-serve, aiperf, guidellm, br-v0.2). Default: recognised by content.")
    String format;

    @Option(names = "--tag", paramLabel = "TAG", description = "A tag for every imported run (repeatable).")
    List<String> tags = new ArrayList<>();

    @Option(names = "--name", paramLabel = "NAME", description = "The imported runs' name. Default: none.")
    String name;

    @Option(names = "--again", description = "Store a run even when its files (by their SHA-256) were imported "
            + "before. Default: such files are refused, naming the run they are stored as, and nothing is stored.")
    boolean again;

    @Override
    boolean writes() {
        return true;
    }

    @Override
    int run(RunStore store) throws Exception {
        ForeignFormat forced = format == null ? null : ForeignFormat.of(format);
        List<Foreign> runs = ResultImport.read(paths, forced, System.currentTimeMillis());
        ResultImport.Duplicate dup = again ? null : ResultImport.firstDuplicate(store, runs);
        if (dup != null) {
            throw new io.unibench.BadInputException(dup.file() + ": already imported as run " + dup.storedAs()
                    + "; --again to store another copy");
        }
        List<ImportedRun> stored = new ArrayList<>();
        for (Foreign f : runs) stored.add(ResultImport.toStored(f, tags, name));
        for (int i = 0; i < stored.size(); i++) {
            Foreign f = runs.get(i);
            String id = store.storeImported(stored.get(i), Owner.current());
            long rows = stored.get(i).points().stream().mapToLong(p -> p.requests().size()).sum();
            out().println("Imported " + id + " from " + f.format().tool() + " (" + String.join(", ",
                    f.files().keySet()) + "): " + f.points().size() + " point(s), "
                    + (rows > 0 ? rows + " requests, figures recomputed from them" : "figures as the tool wrote them")
                    + "; not measured: " + String.join(", ", f.lacks()));
        }
        out().flush();
        return 0;
    }
}
