import io.unibench.tokenizer.Tokenizer;
import io.unibench.tokenizer.Tokenizers;
import io.unibench.workload.PromptSynthesizer;

import java.util.SplittableRandom;

/**
 * CPU cost of one synthesized random prompt ({@code --dataset random}), single thread, in µs per prompt.
 * Run under the launcher's JIT: see bench/README.md ("Prompt synthesis").
 * Args: tokenizer (cl100k_base), then token lengths (128 1024); system property synth.seconds (8) per length.
 */
public final class SynthBench {
    public static void main(String[] args) {
        String name = args.length > 0 ? args[0] : "cl100k_base";
        int[] lengths = args.length > 1
                ? java.util.Arrays.stream(args, 1, args.length).mapToInt(Integer::parseInt).toArray()
                : new int[] {128, 1024};
        double seconds = Double.parseDouble(System.getProperty("synth.seconds", "8"));
        Tokenizer tokenizer = Tokenizers.load(name);
        PromptSynthesizer synth = new PromptSynthesizer(tokenizer);
        synth.allowedIdCount(); // the one-off vocabulary scan is not per-prompt cost
        for (int n : lengths) {
            SplittableRandom rng = new SplittableRandom(42);
            run(synth, n, rng, seconds / 4); // warm-up
            long inexact = 0;
            long count = 0;
            long start = System.nanoTime();
            long cpu0 = cpuNanos();
            long end = start + (long) (seconds * 1e9);
            while (System.nanoTime() < end) {
                for (int i = 0; i < 20; i++) {
                    if (!synth.synthesize(n, rng).exact()) inexact++;
                    count++;
                }
            }
            double wallUs = (System.nanoTime() - start) / 1e3 / count;
            double cpuUs = (cpuNanos() - cpu0) / 1e3 / count;
            // the synthesizer's own word is not taken: the tokenizer counts a fresh sample, outside the timing
            SplittableRandom check = new SplittableRandom(7);
            int checked = 2000;
            long miscounted = 0;
            for (int i = 0; i < checked; i++) {
                if (tokenizer.count(synth.synthesize(n, check).text()) != n) miscounted++;
            }
            System.out.printf("%s n=%d: %.1f us/prompt (thread CPU %.1f us), %d prompts, %d inexact;"
                    + " recounted %d: %d not %d tokens%n", name, n, wallUs, cpuUs, count, inexact, checked, miscounted, n);
        }
    }

    private static void run(PromptSynthesizer synth, int n, SplittableRandom rng, double seconds) {
        long end = System.nanoTime() + (long) (seconds * 1e9);
        while (System.nanoTime() < end) synth.synthesize(n, rng);
    }

    private static long cpuNanos() {
        return java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
    }
}
