package io.unibench.engine;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.unibench.BadInputException;
import io.unibench.engine.spec.RunSpec;
import io.unibench.tokenizer.CharEstimateTokenizer;
import io.unibench.tokenizer.Tokenizer;
import io.unibench.workload.SweSmithDataset;

/**
 * The options of agentic workloads (trie traces, swe_smith) and the character estimate, checked and resolved from a
 * spec's workload; each message names the {@code perf} flag that sets the value.
 */
public final class AgenticFlags {
    private AgenticFlags() {}

    /** Datasets that synthesize text of exact token lengths, so need a tokenizer (the bundled default if none). */
    static boolean synthesizes(String dataset) {
        return dataset.startsWith("random") || dataset.startsWith("trie_");
    }

    /** Folds --swe-smith-input and --num-workers into the dataset args, where the swe_smith dataset reads them. */
    static void apply(RunSpec.Conversations c, ObjectNode datasetArgs) {
        if (c.sweSmithInput() != null) datasetArgs.put(SweSmithDataset.INPUT_ARG, c.sweSmithInput());
        // 0 = the default (evalscope: auto), checked with the other ranges in PerfSettings
        if (c.workers() != null && c.workers() > 0) datasetArgs.put("num_workers", c.workers());
        if (c.maxTraces() != null && c.maxTraces() < 1) {
            throw new BadInputException("--max-traces " + c.maxTraces() + ": must be >= 1");
        }
        toolLatencyScale(c.toolLatencyScale());
    }

    public static double toolLatencyScale(Double given) {
        double scale = given == null ? 1.0 : given;
        if (!(scale >= 0) || Double.isInfinite(scale)) {
            throw new BadInputException("--tool-latency-scale " + given + ": must be a number >= 0");
        }
        return scale;
    }

    /** Conversations to load: {@code count}, capped by --max-traces. */
    static int poolSize(RunSpec.Conversations c, int count) {
        return c.maxTraces() == null ? count : Math.min(count, c.maxTraces());
    }

    /** The labelled character estimate for counts without a tokenizer and without usage (--chars-per-token). */
    public static Tokenizer estimate(Double charsPerToken) {
        double cpt = charsPerToken == null ? CharEstimateTokenizer.DEFAULT_CHARS_PER_TOKEN : charsPerToken;
        if (!(cpt > 0) || Double.isInfinite(cpt)) throw new BadInputException("--chars-per-token " + cpt + ": must be > 0");
        return new CharEstimateTokenizer(cpt);
    }
}
