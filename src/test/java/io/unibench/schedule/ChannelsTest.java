package io.unibench.schedule;

import com.fasterxml.jackson.databind.JsonNode;
import io.unibench.store.TestStores;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every channel through the outbox to a webhook receiver on 127.0.0.1: the exact JSON each service expects, each
 * signature recomputed here from the secret, retries with backoff, rate limits and the delivery log.
 */
class ChannelsTest {
    private static final long NOW = 1_764_554_400_123L; // 2025-12-01 02:00:00.123 UTC
    private static final String SECRET = "s3cr3t-signing-key";

    @TempDir
    Path tmp;
    ScheduleStore store;
    final AtomicLong clock = new AtomicLong(NOW);

    @BeforeEach
    void open() throws Exception {
        store = ScheduleStore.open(TestStores.sqlite(tmp).location());
    }

    @AfterEach
    void close() throws Exception {
        store.close();
    }

    static Notice fired() {
        return new Notice("fired", "nightly", "slow-first-token", "ttft_p95_ms > 2000", "ms",
                new Target("deepseek", "deepseek-chat", "chat", "parallel_8"), 2350.0, 2000.0, 2350.0,
                Arrays.asList(1200.0, null, 2100.0, 2350.0), NOW - 86_400_000L, NOW, 2, "round-1", "run-1",
                "https://bench.example.com/runs/run-1", "ttft_p95_ms", null);
    }

    private WebhookReceiver.Received deliverOne(Channel ch, Map<String, String> env, WebhookReceiver rx) throws Exception {
        store.outbox().enqueue("nightly", ch, fired(), NOW);
        Notifier n = new Notifier(store.outbox(), env, clock::get, Notifier.http(Duration.ofSeconds(5)));
        assertThat(n.deliverDue()).isEqualTo(1);
        return rx.received.getFirst();
    }

    private static byte[] hmac(byte[] key, byte[] msg) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(key, "HmacSHA256"));
        return mac.doFinal(msg);
    }

    private static final String LINES_MD = "**Schedule:** nightly\\n**Rule:** slow-first-token (ttft_p95_ms > 2000)\\n"
            + "**Target:** deepseek (deepseek-chat) · chat · concurrency 8\\n**Value:** TTFT p95 2,350 ms (threshold 2,000 ms)\\n"
            + "**Last rounds:** TTFT p95 1,200 → no data → 2,100 → 2,350 ms (oldest first)\\n**Run:** https://bench.example.com/runs/run-1";

    @Test
    void feishuCardSignedAsFeishuDocuments() throws Exception {
        try (WebhookReceiver rx = new WebhookReceiver(new WebhookReceiver.Answer(200, "{\"code\":0,\"msg\":\"success\"}"))) {
            WebhookReceiver.Received r = deliverOne(new Channel("team", Channel.Type.FEISHU, "F_URL", "F_SECRET", "card", null),
                    Map.of("F_URL", rx.url("/open-apis/bot/v2/hook/abc"), "F_SECRET", SECRET), rx);
            assertThat(r.path()).isEqualTo("/open-apis/bot/v2/hook/abc");
            long ts = NOW / 1000;
            String sign = Base64.getEncoder().encodeToString(hmac((ts + "\n" + SECRET).getBytes(StandardCharsets.UTF_8), new byte[0]));
            assertThat(r.body()).isEqualTo("{\"timestamp\":\"" + ts + "\",\"sign\":\"" + sign + "\",\"msg_type\":\"interactive\","
                    + "\"card\":{\"config\":{\"wide_screen_mode\":true},\"header\":{\"template\":\"red\",\"title\":"
                    + "{\"tag\":\"plain_text\",\"content\":\"[FIRING] slow-first-token · deepseek (deepseek-chat) · chat · "
                    + "concurrency 8\"}},\"elements\":[{\"tag\":\"div\",\"text\":{\"tag\":\"lark_md\",\"content\":\""
                    + LINES_MD + "\"}},{\"tag\":\"action\",\"actions\":[{\"tag\":\"button\",\"text\":{\"tag\":"
                    + "\"plain_text\",\"content\":\"Open the run\"},\"type\":\"primary\",\"url\":"
                    + "\"https://bench.example.com/runs/run-1\"}]}]}}");
            assertThat(r.headers().get("Content-Type")).isEqualTo("application/json; charset=utf-8");
        }
    }

    @Test
    void feishuTextUnsigned() throws Exception {
        try (WebhookReceiver rx = new WebhookReceiver(new WebhookReceiver.Answer(200, "{\"code\":0}"))) {
            WebhookReceiver.Received r = deliverOne(new Channel("t", Channel.Type.LARK, "F_URL", null, "text", null),
                    Map.of("F_URL", rx.url("/hook")), rx);
            JsonNode body = Payloads.JSON.readTree(r.body());
            assertThat(body.fieldNames()).toIterable().containsExactly("msg_type", "content");
            assertThat(body.get("msg_type").asText()).isEqualTo("text");
            assertThat(body.get("content").get("text").asText()).isEqualTo(fired().text());
            assertThat(fired().text()).startsWith("[FIRING] slow-first-token").contains("\nValue: TTFT p95 2,350 ms (threshold 2,000 ms)\n");
        }
    }

    @Test
    void dingtalkSignsInTheQueryStringWithMilliseconds() throws Exception {
        try (WebhookReceiver rx = new WebhookReceiver(new WebhookReceiver.Answer(200, "{\"errcode\":0,\"errmsg\":\"ok\"}"))) {
            WebhookReceiver.Received r = deliverOne(new Channel("d", Channel.Type.DINGTALK, "D_URL", "D_SECRET", null, null),
                    Map.of("D_URL", rx.url("/robot/send?access_token=tok"), "D_SECRET", SECRET), rx);
            String expected = Base64.getEncoder().encodeToString(hmac(SECRET.getBytes(StandardCharsets.UTF_8),
                    (NOW + "\n" + SECRET).getBytes(StandardCharsets.UTF_8)));
            assertThat(r.query()).startsWith("access_token=tok&timestamp=" + NOW + "&sign=");
            String sign = URLDecoder.decode(r.query().substring(r.query().indexOf("&sign=") + 6), StandardCharsets.UTF_8);
            assertThat(sign).isEqualTo(expected);
            assertThat(r.body()).isEqualTo("{\"msgtype\":\"markdown\",\"markdown\":{\"title\":\"[FIRING] slow-first-token · "
                    + "deepseek (deepseek-chat) · chat · concurrency 8\",\"text\":\"### [FIRING] slow-first-token · deepseek "
                    + "(deepseek-chat) · chat · concurrency 8\\n\\n- " + LINES_MD.replace("\\n", "\\n- ") + "\"}}");
        }
    }

    @Test
    void wecomAndSlackBodies() throws Exception {
        try (WebhookReceiver rx = new WebhookReceiver(new WebhookReceiver.Answer(200, "{\"errcode\":0}"))) {
            WebhookReceiver.Received r = deliverOne(new Channel("w", Channel.Type.WECOM, "W_URL", null, null, null),
                    Map.of("W_URL", rx.url("/cgi-bin/webhook/send?key=k")), rx);
            assertThat(r.body()).isEqualTo("{\"msgtype\":\"markdown\",\"markdown\":{\"content\":\"**[FIRING] slow-first-token"
                    + " · deepseek (deepseek-chat) · chat · concurrency 8**\\n> " + LINES_MD.replace("\\n", "\\n> ") + "\"}}");
        }
        try (WebhookReceiver rx = new WebhookReceiver(new WebhookReceiver.Answer(200, "ok"))) {
            WebhookReceiver.Received r = deliverOne(new Channel("s", Channel.Type.SLACK, "S_URL", null, null, null),
                    Map.of("S_URL", rx.url("/services/T/B/X")), rx);
            assertThat(r.body()).isEqualTo(Payloads.JSON.writeValueAsString(Map.of("text",
                    "*" + fired().title() + "*\n" + String.join("\n", fired().lines()))));
        }
    }

    @Test
    void genericWebhookHmacHeaderOverTimestampAndBody() throws Exception {
        try (WebhookReceiver rx = new WebhookReceiver(new WebhookReceiver.Answer(204, ""))) {
            WebhookReceiver.Received r = deliverOne(new Channel("h", Channel.Type.WEBHOOK, "H_URL", "H_SECRET", null,
                    "X-Signature"), Map.of("H_URL", rx.url("/alerts"), "H_SECRET", SECRET), rx);
            String ts = r.headers().get(Payloads.TIMESTAMP_HEADER);
            assertThat(ts).isEqualTo(Long.toString(NOW / 1000));
            assertThat(r.headers().get("X-Signature")).isEqualTo("sha256=" + HexFormat.of().formatHex(
                    hmac(SECRET.getBytes(StandardCharsets.UTF_8), (ts + "." + r.body()).getBytes(StandardCharsets.UTF_8))));
            JsonNode b = Payloads.JSON.readTree(r.body());
            assertThat(b.get("event").asText()).isEqualTo("fired");
            assertThat(b.get("target").toString()).isEqualTo("{\"provider\":\"deepseek\",\"model\":\"deepseek-chat\","
                    + "\"scenario\":\"chat\",\"level\":8,\"level_name\":\"parallel_8\"}");
            assertThat(b.get("last_values").toString()).isEqualTo("[1200.0,null,2100.0,2350.0]");
            assertThat(b.get("run_url").asText()).isEqualTo("https://bench.example.com/runs/run-1");
        }
    }

    @Test
    void failuresAreRetriedWithBackoffLoggedMaskedAndNeverBlockOthers() throws Exception {
        try (WebhookReceiver rx = new WebhookReceiver(new WebhookReceiver.Answer(500, "busy"),
                new WebhookReceiver.Answer(200, "{\"code\":19021,\"msg\":\"sign match fail\"}"),
                new WebhookReceiver.Answer(200, "{\"code\":0}"))) {
            String url = rx.url("/hook/very-secret-token");
            Channel ch = new Channel("f", Channel.Type.FEISHU, "F_URL", null, "text", null);
            String id = store.outbox().enqueue("nightly", ch, fired(), NOW);
            Notifier n = new Notifier(store.outbox(), Map.of("F_URL", url), clock::get, Notifier.http(Duration.ofSeconds(5)));
            assertThat(n.deliverDue()).isZero();
            assertThat(store.outbox().nextAttempt()).isEqualTo(NOW + 30_000);
            clock.set(NOW + 29_999);
            assertThat(n.deliverDue()).isZero();
            assertThat(rx.received).hasSize(1);
            clock.set(NOW + 30_000);
            assertThat(n.deliverDue()).isZero(); // HTTP 200 with a Feishu error code is a failure
            assertThat(store.outbox().nextAttempt()).isEqualTo(NOW + 30_000 + 60_000);
            clock.set(NOW + 90_000);
            assertThat(n.deliverDue()).isEqualTo(1);
            List<OutboxStore.Delivery> log = store.outbox().deliveries(id);
            assertThat(log).extracting(OutboxStore.Delivery::outcome).containsExactly("error", "error", "delivered");
            assertThat(log.get(0).detail()).isEqualTo("HTTP 500: busy");
            assertThat(log.get(1).detail()).isEqualTo("refused: {\"code\":19021,\"msg\":\"sign match fail\"}");
            assertThat(log.get(1).httpStatus()).isEqualTo(200);
        }
    }

    @Test
    void aDeadEndpointGivesUpAfterMaxAttemptsWithTheUrlMasked() throws Exception {
        Channel ch = new Channel("f", Channel.Type.FEISHU, "F_URL", null, "text", null);
        String id = store.outbox().enqueue("nightly", ch, fired(), NOW);
        String url = "http://127.0.0.1:1/hook/very-secret-token";
        Notifier.Transport refusing = r -> {
            throw new java.net.ConnectException("Connection refused: " + r.url());
        };
        Notifier n = new Notifier(store.outbox(), Map.of("F_URL", url), clock::get, refusing);
        List<Long> waits = new java.util.ArrayList<>();
        n.drain(NOW + 86_400_000L, until -> {
            waits.add(until - clock.get());
            clock.set(until);
        });
        assertThat(waits).containsExactly(30_000L, 60_000L, 120_000L, 240_000L, 480_000L, 960_000L, 1_920_000L);
        List<OutboxStore.Delivery> log = store.outbox().deliveries(id);
        assertThat(log).hasSize(Notifier.MAX_ATTEMPTS);
        assertThat(log.getLast().detail()).isEqualTo("ConnectException: Connection refused: <webhook URL> (gave up after 8 attempts)");
        assertThat(store.outbox().messages("nightly", 1).getFirst().status()).isEqualTo(OutboxStore.FAILED);
        assertThat(log).allSatisfy(d -> assertThat(d.detail()).doesNotContain("very-secret-token"));
    }

    @Test
    void anUnsetVariableIsADeliveryErrorNamingIt() throws Exception {
        Channel ch = new Channel("f", Channel.Type.DINGTALK, "D_URL", "D_SECRET", null, null);
        String id = store.outbox().enqueue("nightly", ch, fired(), NOW);
        new Notifier(store.outbox(), Map.of("D_URL", "http://127.0.0.1:9/x"), clock::get, r -> {
            throw new AssertionError("nothing is sent without the secret");
        }).deliverDue();
        assertThat(store.outbox().deliveries(id).getFirst().detail()).isEqualTo("environment variable D_SECRET is not set");
    }

    @Test
    void feishuRateLimitHoldsTheSixthMessageOfASecondAndTheHundredFirstOfAMinute() throws Exception {
        Channel ch = new Channel("f", Channel.Type.FEISHU, "F_URL", null, "text", null);
        for (int i = 0; i < 6; i++) store.outbox().enqueue("nightly", ch, fired(), NOW);
        List<Long> sentAt = new java.util.ArrayList<>();
        Notifier n = new Notifier(store.outbox(), Map.of("F_URL", "http://127.0.0.1:9/x"), clock::get, r -> {
            sentAt.add(clock.get());
            return new Notifier.Response(200, "{\"code\":0}");
        });
        assertThat(n.deliverDue()).isEqualTo(5);
        assertThat(store.outbox().nextAttempt()).isEqualTo(NOW + 1000);
        clock.set(NOW + 1000);
        assertThat(n.deliverDue()).isEqualTo(1);
        RateLimit minute = RateLimit.of(Channel.Type.FEISHU);
        for (int i = 0; i < 100; i++) minute.record(NOW + i * 300L); // 100 sends over 30 s: 5/s never exceeded
        assertThat(minute.allowedAt(NOW + 30_000)).isEqualTo(NOW + 60_000);
    }

    /** The notice of an incident that opened 56 s before it resolved (two rounds 28 s apart, then the third). */
    static Notice resolved(String language) {
        return new Notice("resolved", "nightly", "slow-first-token", "ttft_p95_ms > 500", "ms",
                new Target("deepseek", "deepseek-chat", "chat", "parallel_8"), 420.5, 500.0, 1012.92,
                Arrays.asList(1012.92, 880.0, 420.5), NOW - 56_000, NOW, 3, "round-3", "run-3", null, "ttft_p95_ms",
                language);
    }

    @Test
    void aResolvedNoticeSaysHowLongItLastedToTheSecondAndNamesItsValuesWithUnits() {
        // before: "lasted 0s" (the duration was cut to whole minutes) and "worst 1012.92 ms" (no metric, no grouping)
        assertThat(resolved(null).lines()).containsExactly(
                "Schedule: nightly",
                "Rule: slow-first-token (ttft_p95_ms > 500)",
                "Target: deepseek (deepseek-chat) · chat · concurrency 8",
                "Value: TTFT p95 420.5 ms (threshold 500 ms)",
                "Fired " + Times.utc(NOW - 56_000) + ", lasted 56s (3 rounds); worst TTFT p95 1,012.9 ms",
                "Last rounds: TTFT p95 1,012.9 → 880 → 420.5 ms (oldest first)",
                "Run: run-3");
        assertThat(resolved(null).title()).isEqualTo("[RESOLVED] slow-first-token · deepseek (deepseek-chat) · chat · "
                + "concurrency 8");
    }

    @Test
    void aChineseChannelGetsItsNoticesInChinese() throws Exception {
        assertThat(resolved("zh").title()).isEqualTo("[已恢复] slow-first-token · deepseek (deepseek-chat) · chat · 并发 8");
        assertThat(resolved("zh").lines()).containsExactly(
                "巡检：nightly",
                "规则：slow-first-token（ttft_p95_ms > 500）",
                "目标：deepseek (deepseek-chat) · chat · 并发 8",
                "当前值：TTFT p95 420.5 ms（阈值 500 ms）",
                "告警开始：" + Times.utc(NOW - 56_000) + "，持续 56秒（3 轮）；最差 TTFT p95 1,012.9 ms",
                "最近几轮：TTFT p95 1,012.9 → 880 → 420.5 ms（从旧到新）",
                "运行：run-3");
        // the channel's language is the notice's: enqueued in English, delivered in Chinese, as a Feishu card
        try (WebhookReceiver rx = new WebhookReceiver(new WebhookReceiver.Answer(200, "{\"code\":0}"))) {
            Channel ch = new Channel("team", Channel.Type.FEISHU, "F_URL", null, "card", null, "zh");
            WebhookReceiver.Received r = deliverOne(ch, Map.of("F_URL", rx.url("/hook")), rx);
            JsonNode card = Payloads.JSON.readTree(r.body()).get("card");
            assertThat(card.at("/header/title/content").asText()).isEqualTo("[告警] slow-first-token · deepseek "
                    + "(deepseek-chat) · chat · 并发 8");
            assertThat(card.at("/elements/0/text/content").asText()).startsWith("**巡检：**nightly\n**规则：**slow-first-token")
                    .contains("**当前值：**TTFT p95 2,350 ms（阈值 2,000 ms）");
            assertThat(card.at("/elements/1/actions/0/text/content").asText()).isEqualTo("查看运行");
        }
    }

    @Test
    void aTestMessageIsSentOnceLoggedAndNotRetried() throws Exception {
        try (WebhookReceiver rx = new WebhookReceiver(new WebhookReceiver.Answer(500, "down"),
                new WebhookReceiver.Answer(200, "{\"errcode\":0}"))) {
            Channel ch = new Channel("ding", Channel.Type.DINGTALK, "D_HOOK_URL", null, null, null, "zh");
            Notifier n = new Notifier(store.outbox(), Map.of("D_HOOK_URL", rx.url("/robot/send?access_token=secret-tok")),
                    clock::get, Notifier.http(Duration.ofSeconds(5)));
            OutboxStore.Message failed = n.sendTest("nightly", ch);
            assertThat(failed.status()).isEqualTo(OutboxStore.FAILED);
            assertThat(failed.lastError()).isEqualTo("HTTP 500: down (a test message: not retried)");
            assertThat(store.outbox().nextAttempt()).isNull(); // nothing left to retry
            clock.set(NOW + 1000);
            OutboxStore.Message sent = n.sendTest("nightly", ch);
            assertThat(sent.status()).isEqualTo(OutboxStore.SENT);
            assertThat(rx.received).hasSize(2);
            assertThat(Payloads.JSON.readTree(rx.received.get(1).body()).at("/markdown/title").asText())
                    .isEqualTo("[测试] 巡检 nightly · 通知渠道 ding");
            // the delivery log: both messages, newest first, each with its attempt
            List<OutboxStore.Entry> log = store.outbox().log("nightly", 10);
            assertThat(log).extracting(e -> e.message().status()).containsExactly(OutboxStore.SENT, OutboxStore.FAILED);
            assertThat(log.get(1).attempts()).singleElement().satisfies(d -> assertThat(d.httpStatus()).isEqualTo(500));
        }
    }

    @Test
    void aChannelVariableOffTheAllowListIsNeverRead() throws Exception {
        Channel ch = new Channel("h", Channel.Type.WEBHOOK, "TEAM_HOOK_URL", "UNIBENCH_TOKEN", null, "X-Sig");
        String id = store.outbox().enqueue("nightly", ch, fired(), NOW);
        new Notifier(store.outbox(), Map.of("TEAM_HOOK_URL", "http://127.0.0.1:9/x", "UNIBENCH_TOKEN", "service-token"),
                clock::get, r -> {
                    throw new AssertionError("nothing is sent with a variable the service does not read for channels");
                }, name -> name.endsWith("HOOK_URL"), "serve --allow-channel-env: *HOOK_URL").deliverDue();
        assertThat(store.outbox().deliveries(id).getFirst().detail()).isEqualTo("environment variable UNIBENCH_TOKEN "
                + "is not one this service reads for channels (serve --allow-channel-env: *HOOK_URL)");
    }
}
