package io.unibench.schedule;

import com.fasterxml.jackson.databind.JsonNode;
import io.unibench.Secrets;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

/**
 * Delivers the outbox: each due message through its channel's webhook (URL and secret read from the environment
 * now, never stored), within the channel's rate limit, retried with exponential backoff (30 s, 1 min, 2 min, … at
 * most 1 h apart) and given up after {@link #MAX_ATTEMPTS}; every attempt lands in the delivery log. One thread
 * calls {@link #deliverDue}: the service's notifier loop, or {@code schedule run} after its round.
 */
public final class Notifier {
    static final int MAX_ATTEMPTS = 8;
    static final long FIRST_BACKOFF_MILLIS = 30_000;
    static final long MAX_BACKOFF_MILLIS = 3_600_000;

    /** Sends one request; the answer's status and body. */
    public interface Transport {
        Response send(Payloads.Request request) throws IOException, InterruptedException;
    }

    public record Response(int status, String body) {}

    private final OutboxStore outbox;
    private final Map<String, String> env;
    private final LongSupplier clock;
    private final Transport transport;
    private final Map<String, RateLimit> limits = new HashMap<>();
    private final Predicate<String> allowed;
    private final String allowedHint;

    public Notifier(OutboxStore outbox, Map<String, String> env, LongSupplier clock, Transport transport) {
        this(outbox, env, clock, transport, name -> true, null);
    }

    /**
     * @param allowed     the variables a channel may read (the service's channel allow-list); a channel naming
     *                    another one is not sent, and its log says why
     * @param allowedHint where the list comes from, for that line ({@code serve --allow-channel-env …})
     */
    public Notifier(OutboxStore outbox, Map<String, String> env, LongSupplier clock, Transport transport,
                    Predicate<String> allowed, String allowedHint) {
        this.outbox = outbox;
        this.env = env;
        this.clock = clock;
        this.transport = transport;
        this.allowed = allowed;
        this.allowedHint = allowedHint;
    }

    /**
     * A channel's test message, sent now: enqueued like any notice (so it is in the delivery log) and tried once,
     * outside the rate limit; a failure is not retried (the log says why). Returns the message after the attempt.
     */
    public OutboxStore.Message sendTest(String schedule, Channel ch) throws SQLException, InterruptedException {
        long now = clock.getAsLong();
        String id = outbox.enqueue(schedule, ch, Notice.test(schedule, ch.name(), now, ch.language()), now);
        attempt(outbox.message(id), now, true);
        return outbox.message(id);
    }

    /** The JDK client: connect and answer within {@code timeout}, redirects not followed (a webhook never redirects). */
    public static Transport http(Duration timeout) {
        HttpClient client = HttpClient.newBuilder().connectTimeout(timeout).followRedirects(HttpClient.Redirect.NEVER)
                .build();
        return r -> {
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(r.url())).timeout(timeout)
                    .POST(HttpRequest.BodyPublishers.ofString(r.body()));
            r.headers().forEach(b::header);
            HttpResponse<String> res = client.send(b.build(), HttpResponse.BodyHandlers.ofString());
            return new Response(res.statusCode(), res.body());
        };
    }

    /** One pass over the due messages; returns how many were delivered. */
    public int deliverDue() throws SQLException, InterruptedException {
        int sent = 0;
        for (OutboxStore.Message m : outbox.due(clock.getAsLong(), 200)) {
            Channel ch = m.channel();
            RateLimit limit = limits.computeIfAbsent(ch.type().id() + " " + ch.urlEnv(), k -> RateLimit.of(ch.type()));
            long now = clock.getAsLong();
            long allowed = limit.allowedAt(now);
            if (allowed > now) {
                outbox.postpone(m.messageId(), allowed);
                continue;
            }
            limit.record(now);
            if (attempt(m, now, false)) sent++;
        }
        return sent;
    }

    private boolean attempt(OutboxStore.Message m, long now, boolean once) throws SQLException, InterruptedException {
        Channel ch = m.channel();
        boolean urlAllowed = allowed.test(ch.urlEnv());
        boolean secretAllowed = ch.secretEnv() == null || allowed.test(ch.secretEnv());
        String url = urlAllowed ? env.get(ch.urlEnv()) : null;
        String secret = ch.secretEnv() == null || !secretAllowed ? null : env.get(ch.secretEnv());
        Integer status = null;
        String problem;
        if (!urlAllowed || !secretAllowed) {
            problem = "environment variable " + (urlAllowed ? ch.secretEnv() : ch.urlEnv()) + " is not one this "
                    + "service reads for channels (" + allowedHint + ")";
        } else if (url == null || url.isBlank()) {
            problem = "environment variable " + ch.urlEnv() + " is not set";
        } else if (ch.secretEnv() != null && (secret == null || secret.isBlank())) {
            problem = "environment variable " + ch.secretEnv() + " is not set";
        } else {
            try {
                Response r = transport.send(Payloads.build(ch, m.notice(), url, secret, now));
                status = r.status();
                problem = refusal(ch.type(), r);
            } catch (IOException | IllegalArgumentException e) {
                problem = e.getClass().getSimpleName() + ": " + e.getMessage();
            }
            problem = problem == null ? null : masked(problem, url, secret);
        }
        if (problem == null) {
            outbox.attempted(m, now, status, OutboxStore.SENT, null, now);
            return true;
        }
        int attempts = m.attempts() + 1;
        if (once) {
            outbox.attempted(m, now, status, OutboxStore.FAILED, problem + " (a test message: not retried)", now);
            return false;
        }
        boolean giveUp = attempts >= MAX_ATTEMPTS;
        long backoff = Math.min(MAX_BACKOFF_MILLIS, FIRST_BACKOFF_MILLIS << Math.min(20, attempts - 1));
        outbox.attempted(m, now, status, giveUp ? OutboxStore.FAILED : OutboxStore.PENDING,
                problem + (giveUp ? " (gave up after " + attempts + " attempts)" : ""), now + backoff);
        return false;
    }

    /**
     * Why the service refused the message, or null when it took it: a non-2xx status, or the error code that
     * Feishu/Lark ({@code code}), DingTalk and WeCom ({@code errcode}) return with status 200.
     */
    static String refusal(Channel.Type type, Response r) {
        String body = r.body() == null ? "" : r.body();
        String shortBody = body.length() > 300 ? body.substring(0, 300) + "…" : body;
        if (r.status() / 100 != 2) return "HTTP " + r.status() + ": " + shortBody;
        String codeField = switch (type) {
            case FEISHU, LARK -> "code";
            case DINGTALK, WECOM -> "errcode";
            default -> null;
        };
        if (codeField == null) return null;
        try {
            JsonNode json = Payloads.JSON.readTree(body);
            JsonNode code = json.get(codeField);
            if (code == null && json.has("StatusCode")) code = json.get("StatusCode"); // Feishu's older answer
            if (code != null && code.asInt(-1) == 0) return null;
            return "refused: " + shortBody;
        } catch (IOException e) {
            return "not a JSON answer: " + shortBody;
        }
    }

    /** The webhook URL and secret never appear in a log line, whatever an exception put in its message. */
    private static String masked(String text, String url, String secret) {
        String t = text;
        if (url != null && !url.isEmpty()) t = t.replace(url, "<webhook URL>");
        if (secret != null && !secret.isEmpty()) t = t.replace(secret, Secrets.mask(secret));
        return Secrets.redact(t);
    }

    /** Delivers until nothing is pending or due before {@code deadlineMillis}, waiting with {@code sleeper}. */
    public void drain(long deadlineMillis, Sleeper sleeper) throws SQLException, InterruptedException {
        while (true) {
            deliverDue();
            Long next = outbox.nextAttempt();
            if (next == null || next > deadlineMillis) return;
            sleeper.sleepUntil(Math.max(next, clock.getAsLong()));
        }
    }

    /** Waits until an epoch-ms moment of the notifier's clock (tests advance a manual clock instead). */
    public interface Sleeper {
        void sleepUntil(long epochMillis) throws InterruptedException;
    }

    /** Messages of the schedule still pending or given up, for a command's closing line. */
    public static List<OutboxStore.Message> undelivered(OutboxStore outbox, String schedule) throws SQLException {
        return outbox.messages(schedule, 50).stream().filter(m -> !m.status().equals(OutboxStore.SENT)).toList();
    }
}
