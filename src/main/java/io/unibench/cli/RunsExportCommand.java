package io.unibench.cli;

import io.unibench.BadInputException;
import io.unibench.store.RunExport;
import io.unibench.store.RunStore;
import io.unibench.store.StoredRun;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;

@Command(name = "export", mixinStandardHelpOptions = true, description = "A run's summaries and per-request rows "
        + "as JSON (one document) or CSV (summary.csv and requests.csv in --output DIR; without --output, "
        + "the requests table on stdout).")
final class RunsExportCommand extends RunsStoreCommand {
    @Parameters(paramLabel = "RUN")
    String run;

    enum Format { json, csv, br_v0_2 }

    @Option(names = "--format", defaultValue = "json", converter = FormatConverter.class, description = "json, csv, "
            + "br-v0.2 (llm-d's Benchmark Report v0.2: the last point's figures; `runs import` reads it back). "
            + "Default: ${DEFAULT-VALUE}.")
    Format format;

    /** {@code br-v0.2} as the flag spells it. */
    static final class FormatConverter implements picocli.CommandLine.ITypeConverter<Format> {
        @Override
        public Format convert(String value) {
            for (Format f : Format.values()) {
                if (f.name().equals(value.replace('-', '_').replace('.', '_'))) return f;
            }
            throw new picocli.CommandLine.TypeConversionException("'" + value + "' is not one of json, csv, br-v0.2");
        }
    }

    @Option(names = {"-o", "--output"}, paramLabel = "PATH", description = "JSON: the file; CSV: a directory. "
            + "Default: stdout.")
    Path output;

    @Override
    int run(RunStore store) throws Exception {
        StoredRun r = store.run(store.resolveId(run));
        try {
            return write(store, r);
        } catch (IOException e) {
            throw BadInputException.io("--output", output, e);
        }
    }

    private int write(RunStore store, StoredRun r) throws IOException, SQLException {
        switch (format) {
            case json -> {
                if (output == null) {
                    RunExport.json(store, r, out()); // the command's stream, so a caller (or test) captures it
                    out().println();
                    out().flush();
                } else {
                    createParent(output);
                    try (Writer w = writer(output)) {
                        RunExport.json(store, r, w);
                    }
                    err().println("Wrote " + output);
                }
            }
            case br_v0_2 -> {
                String doc = RunsCommand.JSON.writeValueAsString(io.unibench.importer.BenchmarkReport.export(r));
                if (output == null) {
                    out().println(doc);
                    out().flush();
                } else {
                    createParent(output);
                    try (Writer w = writer(output)) {
                        w.write(doc);
                    }
                    err().println("Wrote " + output);
                }
            }
            case csv -> {
                if (output == null) {
                    RunExport.requestsCsv(store, r, out());
                } else {
                    Files.createDirectories(output);
                    try (Writer w = writer(output.resolve("summary.csv"))) {
                        RunExport.summaryCsv(r, w);
                    }
                    try (Writer w = writer(output.resolve("requests.csv"))) {
                        RunExport.requestsCsv(store, r, w);
                    }
                    err().println("Wrote " + output.resolve("summary.csv") + " and " + output.resolve("requests.csv"));
                }
            }
        }
        return 0;
    }

    private static Writer writer(Path file) throws IOException {
        return new BufferedWriter(new OutputStreamWriter(Files.newOutputStream(file), StandardCharsets.UTF_8));
    }

    private static void createParent(Path file) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) Files.createDirectories(parent);
    }
}
