package io.unibench.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.unibench.metrics.WorkloadFingerprint.TokenCount;
import org.junit.jupiter.api.Test;

import java.util.List;

/**
 * The comparability guard on the documented traps of comparing across tools (inference-perf's guide; the issue's
 * list): each field that differs refuses the metrics it moves, with the reason; a field one side does not know
 * refuses nothing; the seed is shown, never a refusal.
 */
class WorkloadFingerprintTest {
    private static final WorkloadFingerprint OURS = new WorkloadFingerprint("unibench",
            WorkloadFingerprint.TTFT_FIRST_TOKEN, WorkloadFingerprint.TPOT_AFTER_FIRST, true, "closed", 128, true,
            TokenCount.server(null), TokenCount.server(null), WorkloadFingerprint.uniformLengths(64, 192), "none",
            "random", 42L);

    private static WorkloadFingerprint with(String field, Object value) {
        var f = OURS;
        return new WorkloadFingerprint(f.tool(),
                field.equals("ttft") ? (String) value : f.ttftDefinition(),
                field.equals("tpot") ? (String) value : f.tpotDefinition(),
                field.equals("stream") ? (Boolean) value : f.stream(),
                field.equals("loop") ? (String) value : f.loop(),
                field.equals("max_tokens") ? (Integer) value : f.maxTokens(),
                field.equals("ignore_eos") ? (Boolean) value : f.ignoreEos(),
                field.equals("prompt_tokens") ? (TokenCount) value : f.promptTokens(),
                field.equals("output_tokens") ? (TokenCount) value : f.outputTokens(),
                field.equals("prompt_lengths") ? (String) value : f.promptLengths(),
                field.equals("warmup") ? (String) value : f.warmup(),
                field.equals("dataset") ? (String) value : f.dataset(),
                field.equals("seed") ? (Long) value : f.seed());
    }

    private static List<WorkloadFingerprint.Refusal> refusals(String field, Object value) {
        return WorkloadFingerprint.refusals(OURS, with(field, value));
    }

    @Test
    void theSameWorkloadIsComparable() {
        assertThat(WorkloadFingerprint.refusals(OURS, OURS)).isEmpty();
    }

    @Test
    void aRangeRatioReadTheOtherWayIsAnotherPromptDistribution() {
        // vLLM's --random-range-ratio 0.5 around 128 is 64–192; inference-perf's reading of the same number differs:
        // compared as the lengths each tool actually drew, never as the flag's number
        var r = refusals("prompt_lengths", WorkloadFingerprint.uniformLengths(96, 128));
        assertThat(r).singleElement().satisfies(x -> {
            assertThat(x.columns()).contains(PercentileRow.TTFT, PercentileRow.LATENCY);
            assertThat(x.why()).isEqualTo("A's prompts are uniform 64–192 tokens, B's uniform 96–128 tokens (prefill differs)");
        });
        // one length written two ways is one distribution
        assertThat(WorkloadFingerprint.uniformLengths(550, 550)).isEqualTo(WorkloadFingerprint.normalLengths(550, 0, null, null));
    }

    @Test
    void theDocumentedTrapsEachRefuseWhatTheyMove() {
        assertThat(refusals("ignore_eos", false)).singleElement()
                .satisfies(x -> assertThat(x.columns()).containsExactly(PercentileRow.LATENCY));
        assertThat(refusals("warmup", "10 requests")).singleElement().satisfies(x -> {
            assertThat(x.columns()).containsExactly(PercentileRow.TTFT, PercentileRow.LATENCY);
            assertThat(x.why()).startsWith("A's warm-up was none, B's 10 requests");
        });
        // token source: the output side moves TPOT and output token figures, never TTFT or latency
        assertThat(refusals("output_tokens", TokenCount.tokenizer("Qwen/Qwen3-0.6B"))).singleElement().satisfies(x -> {
            assertThat(x.columns()).contains(PercentileRow.TPOT, Summary.OUTPUT_THROUGHPUT)
                    .doesNotContain(PercentileRow.TTFT, PercentileRow.LATENCY);
            assertThat(x.why()).isEqualTo("A's output tokens are the server's usage, B's counted by tokenizer "
                    + "Qwen/Qwen3-0.6B (TPOT and output token figures differ)");
        });
        assertThat(refusals("loop", "open")).singleElement()
                .satisfies(x -> assertThat(x.why()).isEqualTo("A ran closed, B open (queueing differs)"));
        assertThat(refusals("dataset", "sharegpt")).singleElement()
                .satisfies(x -> assertThat(x.columns()).contains(PercentileRow.TTFT, PercentileRow.TPOT));
        assertThat(refusals("tpot", WorkloadFingerprint.TPOT_INCLUDING_FIRST)).singleElement()
                .satisfies(x -> assertThat(x.why()).isEqualTo("B's TPOT is (last token − start) / output tokens "
                        + "(first token included); A's (latency − TTFT) / (output tokens − 1)"));
    }

    @Test
    void eachTokenSideRefusesOnlyTheFiguresThatCountIt() {
        // vLLM: prompts counted by its tokenizer, outputs from the server's usage (else its tokenizer); evalscope:
        // both from the server's usage (else its tokenizer): the prompt side differs, the output side does not
        var vllm = with("prompt_tokens", TokenCount.tokenizer("qwen-plus"));
        vllm = new WorkloadFingerprint(vllm.tool(), vllm.ttftDefinition(), vllm.tpotDefinition(), vllm.stream(),
                vllm.loop(), vllm.maxTokens(), vllm.ignoreEos(), vllm.promptTokens(),
                TokenCount.server("tokenizer qwen-plus"), vllm.promptLengths(), vllm.warmup(), vllm.dataset(),
                vllm.seed());
        var evalscope = with("output_tokens", TokenCount.server("tokenizer stub"));
        evalscope = new WorkloadFingerprint(evalscope.tool(), evalscope.ttftDefinition(), evalscope.tpotDefinition(),
                evalscope.stream(), evalscope.loop(), evalscope.maxTokens(), evalscope.ignoreEos(),
                TokenCount.server("tokenizer stub"), evalscope.outputTokens(), evalscope.promptLengths(),
                evalscope.warmup(), evalscope.dataset(), evalscope.seed());
        var r = WorkloadFingerprint.refusals(evalscope, vllm);
        assertThat(r).singleElement().satisfies(x -> {
            assertThat(x.field()).isEqualTo("prompt_tokens");
            assertThat(x.columns()).containsExactly(Summary.AVG_INPUT_TOKENS, Summary.TOTAL_INPUT_TOKENS,
                    Summary.INPUT_THROUGHPUT, Summary.TOTAL_THROUGHPUT);
            assertThat(x.why()).isEqualTo("A's prompt tokens are the server's usage, B's counted by tokenizer "
                    + "qwen-plus (prompt token figures differ)");
        });
        assertThat(vllm.toMap()).containsEntry("prompt_tokens", "tokenizer qwen-plus")
                .containsEntry("output_tokens", "server usage (else tokenizer qwen-plus)");
        // two tokenizers of different names count differently; one of an unknown name refuses nothing
        assertThat(WorkloadFingerprint.refusals(with("output_tokens", TokenCount.tokenizer("a")),
                with("output_tokens", TokenCount.tokenizer("b")))).singleElement()
                .satisfies(x -> assertThat(x.field()).isEqualTo("output_tokens"));
        assertThat(WorkloadFingerprint.refusals(with("output_tokens", TokenCount.tokenizer("a")),
                with("output_tokens", TokenCount.tokenizer(null)))).isEmpty();
        assertThat(refusals("output_tokens", null)).isEmpty();
    }

    @Test
    void unknownOnOneSideAndTheSeedRefuseNothing() {
        assertThat(refusals("warmup", null)).isEmpty();
        assertThat(refusals("prompt_lengths", null)).isEmpty();
        assertThat(refusals("seed", 7L)).isEmpty();
        assertThat(with("seed", 7L).toMap()).containsEntry("seed", 7L).containsEntry("warmup", "none");
    }
}
