package io.unibench.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.unibench.BadInputException;
import io.unibench.tokenizer.CharEstimateTokenizer;
import io.unibench.tokenizer.Tokenizer;
import io.unibench.workload.SweSmithDataset;

/** The perf flags of agentic workloads (trie traces, swe_smith) and the character estimate, checked and resolved. */
final class AgenticFlags {
    private AgenticFlags() {}

    /** Datasets that synthesize text of exact token lengths, so need a tokenizer (the bundled default if none). */
    static boolean synthesizes(String dataset) {
        return dataset.startsWith("random") || dataset.startsWith("trie_");
    }

    /** Folds --swe-smith-input and --num-workers into the dataset args, where the swe_smith dataset reads them. */
    static void apply(PerfOptions o, ObjectNode datasetArgs) {
        if (o.sweSmithInput != null) datasetArgs.put(SweSmithDataset.INPUT_ARG, o.sweSmithInput);
        // 0 = the default (evalscope: auto), checked with the other ranges in PerfSettings
        if (o.numWorkers != null && o.numWorkers > 0) datasetArgs.put("num_workers", o.numWorkers);
        if (o.maxTraces != null && o.maxTraces < 1) throw new BadInputException("--max-traces " + o.maxTraces + ": must be >= 1");
        toolLatencyScale(o);
    }

    static double toolLatencyScale(PerfOptions o) {
        double scale = o.toolLatencyScale == null ? 1.0 : o.toolLatencyScale;
        if (!(scale >= 0) || Double.isInfinite(scale)) {
            throw new BadInputException("--tool-latency-scale " + o.toolLatencyScale + ": must be a number >= 0");
        }
        return scale;
    }

    /** Conversations to load: {@code count}, capped by --max-traces. */
    static int poolSize(PerfOptions o, int count) {
        return o.maxTraces == null ? count : Math.min(count, o.maxTraces);
    }

    /** The labelled character estimate for counts without a tokenizer and without usage. */
    static Tokenizer estimate(PerfOptions o) {
        double cpt = o.charsPerToken == null ? CharEstimateTokenizer.DEFAULT_CHARS_PER_TOKEN : o.charsPerToken;
        if (!(cpt > 0) || Double.isInfinite(cpt)) throw new BadInputException("--chars-per-token " + cpt + ": must be > 0");
        return new CharEstimateTokenizer(cpt);
    }
}
