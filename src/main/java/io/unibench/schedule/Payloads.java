package io.unibench.schedule;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.unibench.metrics.LevelName;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The HTTP request each channel type expects for a {@link Notice}, signed as that service documents:
 * <ul>
 *   <li>Feishu/Lark custom bot: {@code msg_type} interactive (a card) or text; signed with
 *       {@code sign = Base64(HmacSHA256(key = timestamp + "\n" + secret, msg = ""))}, timestamp in seconds, both in
 *       the body.</li>
 *   <li>DingTalk: markdown; signed with {@code Base64(HmacSHA256(key = secret, msg = timestamp + "\n" + secret))},
 *       timestamp in milliseconds, both (URL-encoded) in the query string.</li>
 *   <li>WeCom group bot: markdown. Slack incoming webhook: {@code text}. (Their URL is the secret; no signing.)</li>
 *   <li>Generic webhook: the notice as JSON; with a secret, {@code X-Unibench-Timestamp: SECONDS} and
 *       {@code X-Unibench-Signature: sha256=hex(HmacSHA256(key = secret, msg = SECONDS + "." + body))}.</li>
 * </ul>
 */
public final class Payloads {
    static final ObjectMapper JSON = new ObjectMapper();
    public static final String TIMESTAMP_HEADER = "X-Unibench-Timestamp";

    private Payloads() {}

    /** One request to send. */
    public record Request(String url, Map<String, String> headers, String body) {}

    /** @param nowMillis the signing time (injected: a test recomputes the signature) */
    public static Request build(Channel ch, Notice n, String url, String secret, long nowMillis) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Content-Type", "application/json; charset=utf-8");
        Map<String, Object> body = new LinkedHashMap<>();
        switch (ch.type()) {
            case FEISHU, LARK -> {
                if (secret != null) {
                    long ts = nowMillis / 1000;
                    body.put("timestamp", Long.toString(ts));
                    body.put("sign", feishuSign(ts, secret));
                }
                if ("text".equals(ch.format())) {
                    body.put("msg_type", "text");
                    body.put("content", Map.of("text", n.text()));
                } else {
                    body.put("msg_type", "interactive");
                    body.put("card", feishuCard(n));
                }
            }
            case DINGTALK -> {
                if (secret != null) {
                    long ts = nowMillis;
                    url = url + (url.contains("?") ? "&" : "?") + "timestamp=" + ts + "&sign="
                            + URLEncoder.encode(dingtalkSign(ts, secret), StandardCharsets.UTF_8);
                }
                body.put("msgtype", "markdown");
                body.put("markdown", ordered("title", n.title(), "text", "### " + n.title() + "\n\n" + markdown(n, "- ")));
            }
            case WECOM -> {
                body.put("msgtype", "markdown");
                body.put("markdown", Map.of("content", "**" + n.title() + "**\n" + markdown(n, "> ")));
            }
            case SLACK -> body.put("text", "*" + n.title() + "*\n" + String.join("\n", n.lines()));
            case WEBHOOK -> body.putAll(webhookBody(n));
        }
        String text = write(body);
        if (ch.type() == Channel.Type.WEBHOOK && secret != null) {
            long ts = nowMillis / 1000;
            headers.put(TIMESTAMP_HEADER, Long.toString(ts));
            headers.put(ch.signatureHeader(), "sha256=" + HexFormat.of().formatHex(
                    hmac(secret.getBytes(StandardCharsets.UTF_8), (ts + "." + text).getBytes(StandardCharsets.UTF_8))));
        }
        return new Request(url, headers, text);
    }

    public static String feishuSign(long timestampSeconds, String secret) {
        byte[] key = (timestampSeconds + "\n" + secret).getBytes(StandardCharsets.UTF_8);
        return Base64.getEncoder().encodeToString(hmac(key, new byte[0]));
    }

    public static String dingtalkSign(long timestampMillis, String secret) {
        byte[] msg = (timestampMillis + "\n" + secret).getBytes(StandardCharsets.UTF_8);
        return Base64.getEncoder().encodeToString(hmac(secret.getBytes(StandardCharsets.UTF_8), msg));
    }

    private static Map<String, Object> feishuCard(Notice n) {
        List<Object> elements = new ArrayList<>();
        elements.add(ordered("tag", "div", "text", ordered("tag", "lark_md", "content", markdown(n, ""))));
        if (n.runUrl() != null) {
            elements.add(ordered("tag", "action", "actions", List.of(ordered("tag", "button",
                    "text", ordered("tag", "plain_text", "content", "zh".equals(n.language()) ? "查看运行" : "Open the run"), "type", "primary",
                    "url", n.runUrl()))));
        }
        return ordered("config", ordered("wide_screen_mode", true),
                "header", ordered("template", n.colour(), "title", ordered("tag", "plain_text", "content", n.title())),
                "elements", elements);
    }

    /** The notice's lines with bold labels ({@code **Rule:** …}), each after {@code prefix}. */
    private static String markdown(Notice n, String prefix) {
        List<String> out = new ArrayList<>();
        for (String line : n.lines()) {
            int colon = line.indexOf(": ");
            int wide = line.indexOf('：'); // a Chinese line's label ends with a full-width colon
            if (wide > 0 && (colon < 0 || wide < colon)) {
                out.add(prefix + "**" + line.substring(0, wide) + "：**" + line.substring(wide + 1));
                continue;
            }
            out.add(prefix + (colon > 0 ? "**" + line.substring(0, colon) + ":** " + line.substring(colon + 2) : line));
        }
        return String.join("\n", out);
    }

    /** A concurrency level's number, as before levels had names; another level's name ({@code rate_10}). */
    private static Object level(Target t) {
        Integer c = LevelName.concurrency(t.level());
        return c != null ? c : t.level();
    }

    private static Map<String, Object> webhookBody(Notice n) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("event", n.kind());
        m.put("title", n.title());
        m.put("schedule", n.schedule());
        m.put("rule", n.rule());
        m.put("condition", n.condition());
        m.put("target", n.target() == null ? null : ordered("provider", n.target().provider(), "model",
                n.target().model(), "scenario", n.target().scenario(), "level", level(n.target()), "level_name",
                n.target().level()));
        m.put("value", n.value());
        m.put("interval", n.interval()); // [low, high], the value's 95 % confidence interval; null when none
        m.put("threshold", n.threshold());
        m.put("worst", n.worst());
        m.put("unit", n.unit());
        m.put("last_values", n.lastValues());
        m.put("since", n.since());
        m.put("at", n.at());
        m.put("rounds", n.rounds());
        m.put("round_id", n.roundId());
        m.put("run_id", n.runId());
        m.put("run_url", n.runUrl());
        m.put("metric", n.metric());
        m.put("language", n.language() == null ? "en" : n.language());
        m.put("text", n.text());
        return m;
    }

    private static Map<String, Object> ordered(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) m.put((String) kv[i], kv[i + 1]);
        return m;
    }

    private static byte[] hmac(byte[] key, byte[] message) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            // an empty key is refused by SecretKeySpec; Feishu's key is never empty (timestamp + newline)
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(message);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is missing from this JDK", e);
        }
    }

    private static String write(Object body) {
        try {
            return JSON.writeValueAsString(body);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
