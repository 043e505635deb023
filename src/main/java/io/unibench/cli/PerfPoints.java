package io.unibench.cli;

import io.unibench.client.LlmClient;
import io.unibench.engine.BenchmarkRunner;
import io.unibench.engine.CancelPolicy;
import io.unibench.engine.LoadPlan;
import io.unibench.engine.PreparedRequest;
import io.unibench.engine.RecordFactory;
import io.unibench.engine.RequestFactory;
import io.unibench.engine.RunOutcome;
import io.unibench.engine.ServerTokenize;
import io.unibench.engine.SessionRunner;
import io.unibench.engine.StopSignal;
import io.unibench.engine.spec.RunSpec;
import io.unibench.metrics.PromptLengthStats;
import io.unibench.metrics.RecordSink;
import io.unibench.metrics.RunInfo;
import io.unibench.metrics.RunMetrics;
import io.unibench.metrics.RunResult;
import io.unibench.output.EvalscopeFiles;
import io.unibench.output.RequestsJsonlWriter;
import io.unibench.tokenizer.Tokenizer;
import io.unibench.workload.Prompt;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code perf}'s part of each sweep point, for the session runner: the point's prompts (or conversations) at its
 * dataset offset, its folder with {@code benchmark_args.json}, {@code requests.jsonl}, the progress lines and
 * {@code progress.json}, the prompt-length figures, and evalscope's files at the end.
 */
final class PerfPoints implements SessionRunner.Front {
    private final RunSpec spec;
    private final RunSpec.Workload workload;
    private final DatasetLoader datasets;
    private final MultiTurnPerf multiTurn; // null unless --multi-turn
    private final List<Prompt> firstPrompts;
    private final RecordFactory records;
    private final StopSignal stop;
    private final PrintWriter err;
    private final ProgressFile progressFile; // --enable-progress-tracker, else null
    private final PromptLengthStats sweepPromptLengths;
    private final String lengthTokenizer;
    private final boolean terminal;
    private final Map<String, String> env;
    private final ShardRun shards; // --shard: the start barrier before the first point's clock
    private BenchmarkRunner runner;
    private long offset;
    private ServerTokenize.Result serverCounted; // --server-tokenize, null when off
    CancelPolicy cancels = CancelPolicy.NONE; // --cancel-rate, set by PerfCommand
    Runnable register = () -> { }; // starts the stored run (the run history's), set by PerfRun
    private Path nextDir; // the next point's folder when not ROOT/LABEL (an SLA probe's), else null

    PerfPoints(RunSpec spec, DatasetLoader datasets, MultiTurnPerf multiTurn,
               List<Prompt> firstPrompts, RecordFactory records, StopSignal stop, PrintWriter err,
               ProgressFile progressFile, PromptLengthStats sweepPromptLengths, String lengthTokenizer,
               boolean terminal, Map<String, String> env, ShardRun shards) {
        this.spec = spec;
        this.workload = spec.workloads().getFirst();
        this.datasets = datasets;
        this.multiTurn = multiTurn;
        this.firstPrompts = firstPrompts;
        this.records = records;
        this.stop = stop;
        this.err = err;
        this.progressFile = progressFile;
        this.sweepPromptLengths = sweepPromptLengths;
        this.lengthTokenizer = lengthTokenizer;
        this.terminal = terminal;
        this.env = env;
        this.shards = shards;
        this.offset = workload.options().offset();
    }

    /** The next point's files go to {@code dir} instead of {@code ROOT/LABEL} (the SLA auto-tune's probes). */
    void nextDir(Path dir) {
        nextDir = dir;
    }

    ServerTokenize.Result serverCounted() {
        return serverCounted;
    }

    @Override
    public void targetStarted(int target, LlmClient client) {
        // --cancel-rate cancels a share mid-stream; --retry-on sends refusals again
        runner = cancels.runner(client, records, stop, spec.limits().retry(), spec.seed());
    }

    @Override
    public SessionRunner.PointRun prepare(int index, RunSpec.Point point) {
        LoadPlan plan = point.plan();
        int count = plan.number() + plan.warmup();
        // the first sweep point's prompts were loaded up front (an SLA probe's count is its own)
        boolean loadedFirst = index == 0 && spec.sla() == null;
        long pointOffset = offset + point.firstRequest(); // a shard's slice of the whole point (RunSpec.slice)
        List<Prompt> prompts = loadedFirst || multiTurn != null ? firstPrompts : datasets.load(pointOffset, point, count);
        if (index > 0 && multiTurn != null) multiTurn.prepare(pointOffset, count);
        offset += point.wholeNumber(); // the next point follows the whole run's, whichever shard this is
        RequestFactory requests = new RequestFactory(prompts, workload.generation(), spec.seed() + pointOffset,
                Long.toString(System.currentTimeMillis(), 36) + "-" + index);
        Path dir = nextDir != null ? nextDir : spec.outputs().root().resolve(point.label());
        nextDir = null;
        return new Point(index, point, requests, pointOffset, dir);
    }

    private final class Point implements SessionRunner.PointRun {
        private final int index;
        private final RunSpec.Point point;
        private final RequestFactory requests;
        private final long pointOffset;
        private final Path dir;
        private final PromptLengthStats promptLengths = new PromptLengthStats(lengthTokenizer);

        Point(int index, RunSpec.Point point, RequestFactory requests, long pointOffset, Path dir) {
            this.index = index;
            this.point = point;
            this.requests = requests;
            this.pointOffset = pointOffset;
            this.dir = dir;
        }

        @Override
        public PreparedRequest probe() {
            return requests.probe();
        }

        @Override
        public void beforeStart() throws IOException, InterruptedException {
            String url = spec.target(point).url();
            int serverTokenize = workload.options().serverTokenize();
            if (index == 0 && serverTokenize > 0 && multiTurn == null) {
                serverCounted = ServerTokenize.sample(URI.create(url), spec.target(point).clientConfig(env, false)
                        .headers(), spec.target(point).model(), firstPrompts, serverTokenize);
                err.println("Server-counted prompt lengths: " + serverCounted.describe());
            }
            try {
                Files.createDirectories(dir);
            } catch (IOException e) {
                throw new io.unibench.OutputFailedException(dir, e);
            }
            if (spec.outputs().arguments() != null) { // a spec file may carry none
                ArgsFile.write(dir.resolve("benchmark_args.json"), spec.outputs().arguments(), url, point.plan(), pointOffset);
            }
            register.run(); // the run history shows the run before its requests are prepared
            // synthesized prompts: the first second of the plan is made before the point's clock starts, the rest
            // streamed ahead of the dispatcher
            requests.awaitFirstBatch(point.plan(), line -> err.println(line), stop::isStopped);
            shards.awaitPoint(index, stop, err); // a shard registers and waits at the start barrier (each point)
        }

        @Override
        public List<RecordSink> sinks(RunInfo info, long startNanos, RunMetrics metrics) throws IOException {
            List<RecordSink> sinks = new ArrayList<>();
            sinks.add(new RequestsJsonlWriter(dir.resolve("requests.jsonl"), startNanos));
            sinks.add(promptLengths);
            sinks.add(sweepPromptLengths);
            // a terminal shows the live bar (an event subscriber); logs get a line every --log-every-n-query requests
            if (!terminal) sinks.add(counted(new ProgressSink(err, metrics, point.label(), point.plan().number(),
                    spec.outputs().logEvery())));
            if (progressFile != null) sinks.add(counted(progressFile));
            return sinks;
        }

        /** Progress counts conversations in multi-turn runs (the unit of --number). */
        private RecordSink counted(RecordSink progress) {
            return multiTurn != null ? MultiTurnPerf.conversationProgress(progress) : progress;
        }

        @Override
        public RunOutcome dispatch(LlmClient client, LoadPlan plan, List<RecordSink> sinks) throws InterruptedException {
            long seed = spec.seed() + pointOffset;
            return multiTurn != null ? multiTurn.run(client, stop, plan, sinks, seed)
                    : runner.run(plan, requests, sinks, seed);
        }

        @Override
        public Path dir() {
            return dir;
        }

        @Override
        public Map<String, Object> finished(RunResult result) {
            Map<String, Object> extraKeys = new LinkedHashMap<>(cancels.summaryKeys());
            extraKeys.putAll(promptLengths.summaryKeys());
            extraKeys.putAll(requests.summaryKeys()); // Preparation Waits: the dispatcher caught up with preparation
            RequestFactory.Waits waits = requests.preparationWaits();
            if (waits.count() > 0) {
                err.printf(Locale.ROOT, "Preparation: %,d requests of %s were not ready when their turn came (%.3f s "
                        + "waited in all; a paced point's dispatch lag includes it, latency does not)%n", waits.count(),
                        point.label(), waits.nanos() / 1e9);
            }
            extraKeys.putAll(LoadShapeOptions.summaryKeys(point.plan()));
            if (serverCounted != null && index == 0) extraKeys.putAll(serverCounted.summaryKeys()); // its prompts were sampled
            return extraKeys;
        }

        @Override
        public void write(RunResult result, Map<String, Object> summaryKeys) {
            EvalscopeFiles.write(dir, result, summaryKeys);
        }

        @Override
        public void close() {
            requests.close();
        }
    }
}
