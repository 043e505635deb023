package io.unibench.engine;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.unibench.client.ApiFormat;
import io.unibench.client.ClientResult;
import io.unibench.client.GenerationParams;
import io.unibench.client.LlmClient;
import io.unibench.engine.live.EventHub;
import io.unibench.engine.spec.RunSpec;
import io.unibench.metrics.PointVerdict;
import io.unibench.metrics.RecordSink;
import io.unibench.metrics.RequestRecord;
import io.unibench.metrics.RunInfo;
import io.unibench.metrics.RunMetrics;
import io.unibench.metrics.RunResult;
import io.unibench.tokenizer.Tokenizers;
import io.unibench.workload.Prompt;

import java.io.PrintWriter;
import java.io.Writer;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A validation suite's load probes ({@code unibench check}: its bursts, its concurrency ramp, its recovery levels) as
 * the points of one {@link SessionState}: each a closed-loop {@link LoadPlan} of as many workers as prompts,
 * one request each, run as every run's point is — the connection test before the first, the self-check beside it,
 * its records aggregated by the point's {@link RunMetrics} (the exact percentiles of {@code metrics.Percentiles}), its
 * {@link PointVerdict} (is the client the bottleneck?), live events on the session's {@link EventHub}, the engine's
 * dispatcher ({@link BenchmarkRunner}: a closed loop for an unpaced plan) on the session's client. What a run's point
 * does not have: folders, files, a run history (the check writes its own report).
 *
 * <p>One point at a time, in the order asked; a point may run in the background ({@link #start}) so that its caller
 * can abandon requests mid-flight ({@link Running#pending}, as impatient users do).
 */
public final class ProbeSession implements AutoCloseable {
    private static final long SEED = 1234;

    private final StopSignal stop = new StopSignal();
    private final EventHub events = new EventHub();
    private final RecordFactory records = new RecordFactory(Tokenizers.defaultTokenizer(), false);
    private final SessionState session;
    private final AtomicBoolean busy = new AtomicBoolean();
    private int count;
    private Running next; // what the point being run sends and where its requests go; set before Session.run

    /**
     * @param endpoint    the chat completions URL
     * @param headers     request headers as sent (the key among them; masked wherever a spec is shown)
     * @param model       the model every probe names
     * @param timeout     the client's limit for one request (read and total)
     * @param connections the client's pool: enough for the largest point
     * @param env         where the session runner reads the stored client ceiling ({@code unibench calibrate}'s file,
     *                    for the verdict's {@code client-bound}); an empty map reads none
     * @param notes       where the runner's notes go (a point's self-check warning); its verdict says the same
     */
    public ProbeSession(URI endpoint, Map<String, String> headers, String model, Duration timeout, int connections,
                        Map<String, String> env, PrintWriter notes) {
        RunSpec.Target target = new RunSpec.Target("check", endpoint.toString(), false, model, ApiFormat.CHAT, headers,
                RunSpec.ApiKey.NONE, new RunSpec.Timeouts(Duration.ofSeconds(10), timeout, timeout), connections, null,
                true);
        GenerationParams generation = new GenerationParams(model, ApiFormat.CHAT, 16, 16, null, 0, null, null, null,
                null, true, null);
        RunSpec.Workload probes = new RunSpec.Workload("check probes", false, "prompt", null, null, 0, 0, generation);
        RunSpec spec = new RunSpec("check", List.of(target), List.of(probes), List.of(),
                new RunSpec.Outputs(Path.of(".")), new RunSpec.History(false, null, List.of()), SEED);
        this.session = new SessionRunner(spec, env, false, stop, events, SessionRunner.Recorder.NONE,
                notes == null ? new PrintWriter(Writer.nullWriter()) : notes).progressLines(false).open(new Front());
    }

    /** The session's live events (a point started, a snapshot a second, a point finished, the run's end). */
    public EventHub events() {
        return events;
    }

    /** A point run to its end: {@link #start} then {@link Running#await}. */
    public Point run(String label, List<String> prompts, GenerationParams params) throws InterruptedException {
        return start(label, prompts, params).await();
    }

    /**
     * Starts the next point in the background: {@code prompts.size()} workers, one request each (all at once), each
     * request of one prompt with {@code params}. The previous point must have ended ({@link Running#await}).
     */
    public Running start(String label, List<String> prompts, GenerationParams params) {
        if (prompts.isEmpty()) throw new IllegalArgumentException("a point of no requests");
        if (!busy.compareAndSet(false, true)) throw new IllegalStateException("a probe point is still running");
        List<Prompt> list = prompts.stream().map(ProbeSession::userMessage).toList();
        LoadPlan plan = new LoadPlan(list.size(), list.size(), 0, null, 0);
        RunSpec.Point point = new RunSpec.Point(label, 0, 0, plan, Duration.ZERO);
        Running running = new Running(point, new RequestFactory(list, params, SEED + count, "check-" + count));
        count++;
        Thread.ofVirtual().name("check-point").start(() -> {
            RunResult result = null;
            Throwable failure = null;
            try {
                next = running;
                result = session.run(point);
            } catch (Throwable e) {
                failure = e;
            } finally {
                next = null;
                running.allSent();
                busy.set(false); // before the point's end is told: its caller may start the next one at once
            }
            if (failure != null) running.done.completeExceptionally(failure);
            else running.done.complete(result);
        });
        return running;
    }

    /** {@code text} as one user message, as a run sends a fixed prompt. */
    static Prompt userMessage(String text) {
        ArrayNode messages = JsonNodeFactory.instance.arrayNode();
        messages.addObject().put("role", "user").put("content", text);
        return Prompt.ofMessages(messages, -1, -1);
    }

    /** Ends the session (its run's end is the last live event) and closes its client. */
    @Override
    public void close() {
        try (events) {
            session.finish();
            session.close();
        }
    }

    /** A request of a point in flight: its id, its reply, and the stage that abandons it. */
    public record Pending(String requestId, CompletableFuture<ClientResult> reply, CompletableFuture<Void> abandon) {}

    /**
     * What a point produced: the point, every request's record, the wire results (for what a record does not keep:
     * a refusal's {@code Retry-After}) and the point's result as the session runner made it (the aggregate and its
     * verdict).
     */
    public record Point(RunSpec.Point point, List<RequestRecord> records, List<ClientResult> results, RunResult result) {
        public LoadPlan plan() {
            return point.plan();
        }

        /** The first refusal's (429/503) {@code Retry-After} as sent; null when none carried one. */
        public String retryAfter() {
            for (ClientResult r : results) {
                if ((r.httpStatus() == 429 || r.httpStatus() == 503) && r.retryAfter() != null) return r.retryAfter();
            }
            return null;
        }

        /**
         * The verdict's reason when the client, not the server, limited the point ({@value PointVerdict#CLIENT_BOUND}
         * or {@value PointVerdict#LOAD_NOT_DELIVERED}, with their figures, "; "-joined); null when it did not.
         */
        public String clientLimited() {
            PointVerdict v = result.verdict();
            if (v == null) return null;
            List<String> mine = v.reasons().stream().filter(r -> r.startsWith(PointVerdict.CLIENT_BOUND + ":")
                    || r.startsWith(PointVerdict.LOAD_NOT_DELIVERED + ":")).toList();
            return mine.isEmpty() ? null : String.join("; ", mine);
        }
    }

    /** A point running in the background. */
    public final class Running {
        private final RunSpec.Point point;
        private final RequestFactory requests;
        private final List<Pending> pending = Collections.synchronizedList(new ArrayList<>());
        private final List<ClientResult> results = Collections.synchronizedList(new ArrayList<>());
        private final List<RequestRecord> pointRecords = Collections.synchronizedList(new ArrayList<>());
        private final CountDownLatch sent;
        private final CompletableFuture<RunResult> done = new CompletableFuture<>();

        private Running(RunSpec.Point point, RequestFactory requests) {
            this.point = point;
            this.requests = requests;
            this.sent = new CountDownLatch(point.plan().number());
        }

        private RequestFactory requests() {
            return requests;
        }

        private Sender sender(LlmClient client) {
            return (body, stream, requestId) -> {
                CompletableFuture<Void> abandon = new CompletableFuture<>();
                CompletableFuture<ClientResult> reply = client.send(body, stream, requestId, abandon);
                pending.add(new Pending(requestId, reply, abandon));
                sent.countDown();
                return reply;
            };
        }

        private RequestHooks hooks() {
            return new RequestHooks() {
                @Override public ClientResult check(ClientResult result) {
                    results.add(result);
                    return result;
                }
            };
        }

        private RecordSink sink() {
            return pointRecords::add;
        }

        private void allSent() {
            while (sent.getCount() > 0) sent.countDown(); // a point that failed or ended early sends no more
        }

        /** Waits until every request of the point was sent (handed to the client), or the point ended. */
        public void awaitSent() throws InterruptedException {
            sent.await();
        }

        /** The point's requests sent so far, in sending order. */
        public List<Pending> pending() {
            synchronized (pending) {
                return List.copyOf(pending);
            }
        }

        /**
         * Waits for the point's end: its records and result. A point the engine could not run (the connection test
         * failed: {@link io.unibench.BadInputException}, with the server's own message) throws what it threw.
         */
        public Point await() throws InterruptedException {
            RunResult result;
            try {
                result = done.get();
            } catch (ExecutionException e) {
                if (e.getCause() instanceof RuntimeException r) throw r;
                throw new IllegalStateException("probe point " + point.label() + " failed: " + e.getCause(), e.getCause());
            }
            List<RequestRecord> out;
            synchronized (pointRecords) {
                out = List.copyOf(pointRecords);
            }
            List<ClientResult> wire;
            synchronized (results) {
                wire = List.copyOf(results);
            }
            return new Point(point, out, wire, result);
        }
    }

    /** The session's front end: each point sends what {@link #next} holds, through the session's client. */
    private final class Front implements PointSource {
        @Override
        public PointRun prepare(int index, RunSpec.Point point) {
            Running n = next;
            return new PointRun() {
                @Override public PreparedRequest probe() {
                    return n.requests().probe();
                }

                @Override public List<RecordSink> sinks(RunInfo info, long startNanos, RunMetrics metrics) {
                    return List.of(n.sink());
                }

                @Override public RunOutcome dispatch(LlmClient client, LoadPlan plan, List<RecordSink> sinks)
                        throws InterruptedException {
                    return new BenchmarkRunner(n.sender(client), records, stop, n.hooks(), Clock.system(stop))
                            .run(plan, n.requests(), sinks, SEED + index);
                }

                @Override public Path dir() {
                    return Path.of(".");
                }

                @Override public RequestFactory.Waits preparationWaits() {
                    return n.requests().preparationWaits();
                }

                @Override public Map<String, Object> finished(RunResult result) {
                    return Map.of();
                }

                @Override public void close() {
                    n.requests().close();
                }
            };
        }
    }
}
