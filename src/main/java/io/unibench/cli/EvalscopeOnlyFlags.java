package io.unibench.cli;

import io.unibench.BadInputException;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * The flags of {@code evalscope perf} that cannot apply here, so that an evalscope command line gets a reason
 * instead of "unknown option": features this tool does not have (a local model server, image
 * datasets, visualizer uploads) are refused with one line; evalscope's tuning knobs
 * of its Python pipeline, which change no result, are accepted with a note.
 */
final class EvalscopeOnlyFlags {
    private static final String NO_SERVER = "Not supported: evalscope's --api local starts a model server; unibench "
            + "starts none (give --url, or `unibench sim`).";
    private static final String NO_IMAGES = "Not supported: no image datasets (random_vl).";
    private static final String NO_VISUALIZER = "Not supported: no visualizer uploads; every run is in the run "
            + "history (`unibench runs`).";

    @Option(names = "--attn-implementation", paramLabel = "NAME", description = NO_SERVER + " Default: none.")
    String attnImplementation;

    @Option(names = "--port", paramLabel = "N", description = NO_SERVER + " Default: none.")
    Integer port;

    @Option(names = {"--image-width", "--image-height", "--image-format", "--image-num", "--image-patch-size"},
            paramLabel = "V", description = NO_IMAGES + " Default: none.")
    List<String> imageSettings = new ArrayList<>();

    @Option(names = "--visualizer", paramLabel = "NAME", description = NO_VISUALIZER + " Default: none.")
    String visualizer;

    // the value is a credential: it is never echoed
    @Option(names = {"--wandb-api-key", "--swanlab-api-key", "--swanlab-host"}, paramLabel = "V",
            description = NO_VISUALIZER + " Default: none.")
    List<String> visualizerSettings = new ArrayList<>();

    @Option(names = "--data-source", paramLabel = "SOURCE", description = "Only 'local': datasets are read from "
            + "--dataset-path, nothing is downloaded (modelscope/huggingface refused). Default: local.")
    String dataSource;

    @Option(names = "--db-commit-interval", paramLabel = "N", description = "No effect here: the run history "
            + "commits every 0.5 s and at the end, however many rows. Default: none.")
    Integer dbCommitInterval;

    @Option(names = {"--queue-size-multiplier", "--in-flight-task-multiplier"}, paramLabel = "N",
            description = "No effect here: there is no result queue or task pool to size; each request's "
                    + "record reaches the sinks as it ends. Default: none.")
    List<Integer> pipelineKnobs = new ArrayList<>();

    /** Refuses what cannot apply (one line, the first found); notes on {@code err} the knobs accepted without effect. */
    void check(PrintWriter err) {
        if (attnImplementation != null) throw refuse("--attn-implementation", NO_SERVER);
        if (port != null) throw refuse("--port", NO_SERVER);
        if (!imageSettings.isEmpty()) throw refuse("--image-*", NO_IMAGES);
        if (visualizer != null || !visualizerSettings.isEmpty()) throw refuse("--visualizer/--wandb-*/--swanlab-*", NO_VISUALIZER);
        if (dataSource != null && !dataSource.equals("local")) {
            throw new BadInputException("--data-source '" + dataSource + "': only local (--dataset-path); nothing is downloaded");
        }
        if (dbCommitInterval != null) {
            err.println("Note: --db-commit-interval has no effect: the run history commits every 0.5 s and at the end.");
        }
        if (!pipelineKnobs.isEmpty()) {
            err.println("Note: --queue-size-multiplier/--in-flight-task-multiplier have no effect: there is no queue or "
                    + "task pool to size.");
        }
    }

    private static BadInputException refuse(String flag, String reason) {
        return new BadInputException(flag + ": " + Character.toLowerCase(reason.charAt(0)) + reason.substring(1));
    }
}
