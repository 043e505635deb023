package io.unibench.client;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.unibench.Moments;
import io.unibench.Secrets;

import java.nio.charset.StandardCharsets;

/**
 * Reads what the server says in one response: each SSE data payload of a stream, or the whole body of a
 * non-streamed reply, in the shape of the endpoint's {@link ApiFormat}: OpenAI chat/completions chunks, the
 * Responses API's and Anthropic's typed events (told apart by their {@code type}, whatever the format), or the JSON
 * body of each API. Collects content, reasoning, usage and finish reason, and the arrival time of every event that
 * carries output, and decides whether the reply is a failure.
 *
 * <p>Two paths per event: the {@link ChunkScanner} reads a token event in one pass (the hot path, once per streamed
 * token: a Jackson tree per chunk cost about two thirds of the client's CPU against a fast server); everything it
 * leaves — timings objects, error objects, usage values it cannot read exactly (a string, a fraction), the typed
 * APIs' failure events, odd-but-valid JSON — is read as one Jackson tree, which also decides what is valid and words
 * the error. Usage objects of every vendor shape, read either way, are merged by one rule ({@link UsageMembers}).
 *
 * <p>Not thread-safe: one interpreter per response, used on the channel's event loop.
 */
final class ChunkInterpreter {

    /** What the caller should do after an event. */
    enum Outcome {
        /** Keep reading. */
        CONTINUE,
        /**
         * The reply is complete ({@code [DONE]}, {@code response.completed}, {@code message_stop}, or the end of a
         * non-streamed body) and valid.
         */
        DONE,
        /** The reply failed: see {@link #failure()} and {@link #failureMessage()}. */
        FAILED
    }

    private static final int MAX_MESSAGE = 200;

    private final ObjectMapper mapper;
    private final ChunkScanner scanner;
    private final ApiFormat api;

    private final TextBuilder content = new TextBuilder();
    private final TextBuilder reasoning = new TextBuilder();
    private final LongList tokenChunkNanos = new LongList();
    private long firstChunkNanos = Moments.ABSENT;
    private long firstTokenNanos = Moments.ABSENT;
    /** First token event that carried answer text (content, text, output text), not only reasoning. */
    private long firstContentNanos = Moments.ABSENT;
    private long lastEventNanos = Moments.ABSENT;
    /** Usage seen so far; members a later usage object lacks keep their values (Anthropic splits it in two). */
    private final UsageMembers.Tally usage = new UsageMembers.Tally();
    /** The members of a usage object read as a tree (the scanner has its own). */
    private UsageMembers treeUsage;
    private Timings timings;
    private String finishReason;
    private boolean sawChoice;
    private boolean sawDone;
    private ErrorClass failure;
    private String failureMessage;
    private String failureType;

    ChunkInterpreter(ObjectMapper mapper) {
        this(mapper, new ChunkScanner(), ApiFormat.CHAT);
    }

    ChunkInterpreter(ObjectMapper mapper, ApiFormat api) {
        this(mapper, new ChunkScanner(), api);
    }

    /**
     * With the scanner of the connection, whose template (its last token chunk) then also serves the first token
     * chunk of this reply; the scanner must not be used by anyone else meanwhile.
     */
    ChunkInterpreter(ObjectMapper mapper, ChunkScanner scanner, ApiFormat api) {
        this.mapper = mapper;
        this.scanner = scanner;
        this.api = api;
    }

    /** One SSE data payload that arrived at {@code nanos}. */
    Outcome onEvent(String data, long nanos) {
        byte[] bytes = data.getBytes(StandardCharsets.UTF_8);
        return onEvent(bytes, 0, bytes.length, nanos);
    }

    /**
     * One SSE data payload ({@code length} UTF-8 bytes of {@code buf} from {@code offset}, not kept after the call)
     * that arrived at {@code nanos}.
     */
    Outcome onEvent(byte[] buf, int offset, int length, long nanos) {
        return onEvent(buf, -1, offset, length, nanos);
    }

    /**
     * One SSE data payload as {@link #onEvent(byte[], int, int, long)}, of an event that lies whole in {@code buf}
     * from {@code framingStart} (see {@link SseParser.FramedListener}; -1 when it does not).
     */
    Outcome onEvent(byte[] buf, int framingStart, int offset, int length, long nanos) {
        if (failure != null) {
            return Outcome.FAILED;
        }
        if (startsWithDone(buf, offset, length)) {
            lastEventNanos = nanos;
            if (typedEvents()) {
                // a typed stream ends with its own event; [DONE] after it changes nothing, [DONE] alone is cut short
                return sawDone ? Outcome.DONE : fail(ErrorClass.BUSINESS_ERROR, "[DONE] before " + terminalEvent());
            }
            sawDone = true;
            return sawChoice ? Outcome.DONE : fail(ErrorClass.BUSINESS_ERROR, "stream ended without any choice");
        }
        if (isBlank(buf, offset, length)) {
            return Outcome.CONTINUE; // an empty event carries nothing; treated as a keep-alive
        }
        ChunkScanner sc = scanner;
        if (sc.scan(buf, framingStart, offset, length) && (sc.usageStart < 0 || sc.usageRead) && sc.timingsStart < 0) {
            if (sc.typedUsage) return typedFromScan(buf, nanos);
            return sc.rawField == ChunkScanner.NO_HOLE ? applyScanned(nanos) : applyRaw(buf, nanos);
        }
        return onTree(buf, offset, length, nanos);
    }

    /**
     * A whole SSE event read in place from {@code buf[offset, ...)} before its line ends are known (see
     * {@link SseParser.Claimer}): when it is the previous token event with another string, within {@code limit},
     * it is taken as {@link #onEvent} would take its data and its length is returned; otherwise -1 and nothing
     * changed.
     */
    int claim(byte[] buf, int offset, int limit, long nanos) {
        if (failure != null) {
            return -1;
        }
        int length = scanner.claim(buf, offset, limit);
        if (length < 0) {
            return -1;
        }
        if (scanner.rawField != ChunkScanner.NO_HOLE) {
            applyRaw(buf, nanos);
        } else {
            applyScanned(nanos); // no usage on the template path: nothing else to read
        }
        return length;
    }

    /** A token chunk whose one text field the scanner left as ASCII bytes of {@code buf} (see ChunkScanner). */
    private Outcome applyRaw(byte[] buf, long nanos) {
        ChunkScanner sc = scanner;
        arrivedEvent(nanos);
        sawChoice = true;
        TextBuilder to = sc.rawField == ChunkScanner.HOLE_CONTENT || sc.rawField == ChunkScanner.HOLE_TEXT ? content : reasoning;
        if (to.appendAscii(buf, sc.rawStart, sc.rawLength)) {
            tokenAt(nanos);
        }
        if (sc.finishReason != null) {
            finishReason = sc.finishReason;
        }
        return Outcome.CONTINUE;
    }

    /** What the scanner read: a chunk without timings, whose usage (if any) is OpenAI's shape. */
    private Outcome applyScanned(long nanos) {
        ChunkScanner sc = scanner;
        arrivedEvent(nanos);
        if (sc.usageRead) {
            usage.merge(sc.usage);
        }
        if (sc.choice) {
            sawChoice = true;
            boolean token = content.append(sc.content);
            token |= reasoning.append(sc.reasoningContent);
            token |= reasoning.append(sc.reasoning);
            token |= content.append(sc.text);
            if (token) {
                tokenAt(nanos);
            }
            if (sc.finishReason != null) {
                finishReason = sc.finishReason;
            }
        }
        return Outcome.CONTINUE;
    }

    /**
     * A typed event with usage or an end, as the scanner found it ({@code response.completed},
     * {@code response.incomplete}, {@code message_start}, {@code message_delta}, {@code message_stop}), without a
     * tree of the whole event (the Responses API's end repeats every output item): the usage as the scanner read it
     * (a tree only for odd values), the incomplete details as a tree.
     */
    private Outcome typedFromScan(byte[] buf, long nanos) {
        ChunkScanner sc = scanner;
        arrivedEvent(nanos);
        if (sc.usageRead) {
            usage.merge(sc.usage);
        } else {
            readUsage(subtree(buf, sc.responseUsageStart, sc.responseUsageEnd)); // odd values: Jackson's rules
        }
        JsonNode incomplete = subtree(buf, sc.responseIncompleteStart, sc.responseIncompleteEnd);
        if (failure != null) return Outcome.FAILED;
        if (sc.finishReason != null) finishReason = sc.finishReason; // message_delta's stop_reason
        if (!sc.typedEnd) {
            sawChoice = true;
            return Outcome.CONTINUE;
        }
        if (sc.responseStatus != null || incomplete != null) {
            String reason = incomplete == null ? null : textual(incomplete.get("reason"));
            finishReason = "incomplete".equals(sc.responseStatus) && reason != null ? reason
                    : sc.responseStatus != null ? sc.responseStatus : "completed";
        }
        sawDone = true;
        return Outcome.DONE;
    }

    /** The JSON value the scanner found at {@code buf[start, end)} (already checked), or null when absent. */
    private JsonNode subtree(byte[] buf, int start, int end) {
        if (start < 0) return null;
        try {
            return mapper.readTree(buf, start, end - start);
        } catch (java.io.IOException e) {
            fail(ErrorClass.PROTOCOL_ERROR, "unreadable SSE data: " + oneLine(e.getMessage()));
            return null;
        }
    }

    private void arrivedEvent(long nanos) {
        if (firstChunkNanos == Moments.ABSENT) {
            firstChunkNanos = nanos;
        }
        lastEventNanos = nanos;
    }

    /**
     * A token event arrived at {@code nanos}. The first content moment is the first token event after which the answer
     * text is non-empty: the one that carried its first piece (one comparison per token once it is known).
     */
    private void tokenAt(long nanos) {
        if (firstTokenNanos == Moments.ABSENT) {
            firstTokenNanos = nanos;
        }
        if (firstContentNanos == Moments.ABSENT && !content.isEmpty()) {
            firstContentNanos = nanos;
        }
        tokenChunkNanos.add(nanos);
    }

    /** The cold path: the event read as one Jackson tree. */
    private Outcome onTree(byte[] buf, int offset, int length, long nanos) {
        JsonNode root;
        try {
            root = mapper.readTree(buf, offset, length);
        } catch (JacksonException e) {
            return fail(ErrorClass.PROTOCOL_ERROR, "invalid JSON in SSE data: " + oneLine(text(buf, offset, length)));
        } catch (java.io.IOException e) {
            return fail(ErrorClass.PROTOCOL_ERROR, "unreadable SSE data: " + oneLine(e.getMessage()));
        }
        if (root == null || !root.isObject()) {
            return fail(ErrorClass.PROTOCOL_ERROR, "SSE data is not a JSON object: " + oneLine(text(buf, offset, length)));
        }
        arrivedEvent(nanos);
        if (isError(root)) {
            failureType = errorType(root);
            return fail(ErrorClass.BUSINESS_ERROR, errorMessage(root));
        }
        JsonNode type = root.get("type");
        if (type != null && type.isTextual()) {
            return onTypedEvent(type.textValue(), root, nanos);
        }
        readUsage(root.get("usage"));
        readTimings(root.get("timings"));
        JsonNode choice = firstChoice(root);
        if (choice != null) {
            sawChoice = true;
            JsonNode delta = choice.get("delta"); // a stream's chunk; "message" belongs to non-streamed bodies only
            boolean token = delta != null && delta.isObject() && appendOutput(delta);
            token |= append(content, choice.get("text"));
            if (token) {
                tokenAt(nanos);
            }
            readFinishReason(choice);
        }
        return Outcome.CONTINUE;
    }

    /**
     * An event of the Responses API or Anthropic's Messages API (both name it in {@code type}). Events that carry
     * nothing we measure (created, in_progress, output_item.added, content_block_start, ping, ...) are chunks, not
     * tokens; unknown types are skipped, as both APIs ask of clients.
     */
    private Outcome onTypedEvent(String type, JsonNode root, long nanos) {
        switch (type) {
            case "response.output_text.delta", "response.refusal.delta" -> {
                sawChoice = true;
                if (append(content, root.get("delta"))) tokenAt(nanos);
            }
            case "response.reasoning_text.delta", "response.reasoning_summary_text.delta" -> {
                sawChoice = true;
                if (append(reasoning, root.get("delta"))) tokenAt(nanos);
            }
            case "content_block_delta" -> {
                sawChoice = true;
                JsonNode delta = root.path("delta");
                boolean token = append(content, delta.get("text"));
                token |= append(reasoning, delta.get("thinking"));
                if (token) tokenAt(nanos);
            }
            case "response.completed", "response.incomplete" -> {
                JsonNode response = root.path("response");
                readUsage(response.get("usage"));
                finishReason = responsesFinish(response);
                sawDone = true;
                return Outcome.DONE;
            }
            case "response.failed" -> {
                JsonNode error = root.path("response").path("error");
                failureType = textual(error.get("code"));
                String message = textual(error.get("message"));
                return fail(ErrorClass.BUSINESS_ERROR, message != null ? message : "response.failed");
            }
            case "message_start" -> {
                sawChoice = true;
                readUsage(root.path("message").get("usage"));
            }
            case "message_delta" -> {
                JsonNode stop = root.path("delta").get("stop_reason");
                if (stop != null && stop.isTextual()) finishReason = stop.textValue();
                readUsage(root.get("usage"));
            }
            case "message_stop" -> {
                sawDone = true;
                return Outcome.DONE;
            }
            default -> { }
        }
        return Outcome.CONTINUE;
    }

    /** The Responses API's account of why a response ended: its status, or why it is incomplete. */
    private static String responsesFinish(JsonNode response) {
        String status = textual(response.get("status"));
        if ("incomplete".equals(status)) {
            String reason = textual(response.path("incomplete_details").get("reason"));
            return reason != null ? reason : status;
        }
        return status != null ? status : "completed";
    }

    /** The typed APIs end with an event of their own, not {@code [DONE]}. */
    private boolean typedEvents() {
        return api == ApiFormat.RESPONSES || api == ApiFormat.ANTHROPIC;
    }

    private String terminalEvent() {
        return api == ApiFormat.ANTHROPIC ? "message_stop" : "response.completed";
    }

    private static boolean startsWithDone(byte[] b, int off, int len) {
        return len >= 6 && b[off] == '[' && b[off + 1] == 'D' && b[off + 2] == 'O' && b[off + 3] == 'N'
                && b[off + 4] == 'E' && b[off + 5] == ']';
    }

    private static boolean isBlank(byte[] b, int off, int len) {
        for (int i = off; i < off + len; i++) {
            byte c = b[i];
            if (c != ' ' && (c < 0x09 || c > 0x0D) && (c < 0x1C || c > 0x1F)) { // String.isBlank's ASCII set
                return false;
            }
        }
        return true;
    }

    private static String text(byte[] b, int off, int len) {
        return new String(b, off, Math.min(len, MAX_MESSAGE * 2), StandardCharsets.UTF_8);
    }

    /** The end of the event stream was reached without {@code [DONE]}. */
    Outcome onEndOfStream() {
        if (failure != null) {
            return Outcome.FAILED;
        }
        if (sawDone) {
            return Outcome.DONE;
        }
        if (typedEvents()) {
            return fail(ErrorClass.BUSINESS_ERROR, "stream ended before " + terminalEvent());
        }
        if (!sawChoice) {
            return fail(ErrorClass.BUSINESS_ERROR, "stream ended without any choice");
        }
        if (finishReason == null) {
            return fail(ErrorClass.BUSINESS_ERROR, "stream ended without [DONE] and without finish_reason");
        }
        return Outcome.DONE;
    }

    /** A whole non-streamed reply body that was complete at {@code nanos}. */
    Outcome onBody(byte[] body, int length, long nanos) {
        firstChunkNanos = nanos;
        firstTokenNanos = nanos;
        firstContentNanos = nanos;
        lastEventNanos = nanos;
        JsonNode root;
        try {
            root = mapper.readTree(body, 0, length);
        } catch (java.io.IOException e) {
            String why = e instanceof JacksonException je ? je.getOriginalMessage() : e.getMessage();
            return fail(ErrorClass.PROTOCOL_ERROR, "invalid JSON body: " + oneLine(why));
        }
        if (root == null || !root.isObject()) {
            return fail(ErrorClass.PROTOCOL_ERROR, "reply body is not a JSON object");
        }
        if (isError(root)) {
            failureType = errorType(root);
            return fail(ErrorClass.BUSINESS_ERROR, errorMessage(root));
        }
        readUsage(root.get("usage"));
        return switch (api) {
            case CHAT, COMPLETIONS -> chatBody(root);
            case RESPONSES -> responsesBody(root);
            case ANTHROPIC -> anthropicBody(root);
            case EMBEDDING -> inputOnlyBody(root, "data");
            case RERANK -> inputOnlyBody(root, "results");
        };
    }

    private Outcome chatBody(JsonNode root) {
        readTimings(root.get("timings"));
        JsonNode choice = firstChoice(root);
        if (choice == null) {
            return fail(ErrorClass.BUSINESS_ERROR, "reply has no choices");
        }
        sawChoice = true;
        JsonNode message = choice.get("message");
        if (message != null && message.isObject()) {
            appendOutput(message);
        }
        append(content, choice.get("text"));
        readFinishReason(choice);
        return Outcome.DONE;
    }

    /** {@code output[]}: message items' {@code output_text}/{@code refusal} parts, reasoning items' texts. */
    private Outcome responsesBody(JsonNode root) {
        if ("failed".equals(textual(root.get("status")))) {
            JsonNode error = root.path("error");
            failureType = textual(error.get("code"));
            String message = textual(error.get("message"));
            return fail(ErrorClass.BUSINESS_ERROR, message != null ? message : "response failed");
        }
        JsonNode output = root.get("output");
        if (output == null || !output.isArray()) {
            return fail(ErrorClass.BUSINESS_ERROR, "reply has no output");
        }
        for (JsonNode item : output) {
            String type = item.path("type").asText("");
            if (type.equals("message")) {
                for (JsonNode part : item.path("content")) {
                    append(content, part.get("text"));
                    append(content, part.get("refusal"));
                }
            } else if (type.equals("reasoning")) {
                for (JsonNode part : item.path("content")) append(reasoning, part.get("text"));
                for (JsonNode part : item.path("summary")) append(reasoning, part.get("text"));
            }
        }
        finishReason = responsesFinish(root);
        return Outcome.DONE;
    }

    /** Anthropic's message: {@code content[]} blocks of text and thinking, {@code stop_reason}. */
    private Outcome anthropicBody(JsonNode root) {
        JsonNode blocks = root.get("content");
        if (blocks == null || !blocks.isArray()) {
            return fail(ErrorClass.BUSINESS_ERROR, "reply has no content");
        }
        for (JsonNode block : blocks) {
            append(content, block.get("text"));
            append(reasoning, block.get("thinking"));
        }
        JsonNode stop = root.get("stop_reason");
        if (stop != null && stop.isTextual()) finishReason = stop.textValue();
        return Outcome.DONE;
    }

    /**
     * Embeddings ({@code data}) and rerank ({@code results}): no output; the input tokens are {@code prompt_tokens},
     * else {@code total_tokens} (servers that count only the input send just that).
     */
    private Outcome inputOnlyBody(JsonNode root, String member) {
        JsonNode items = root.get(member);
        if (items == null || !items.isArray()) {
            return fail(ErrorClass.BUSINESS_ERROR, "reply has no " + member);
        }
        JsonNode counts = root.get("usage");
        if (counts != null && counts.isObject() && !counts.has("prompt_tokens") && counts.path("total_tokens").isNumber()) {
            usage.prompt = counts.get("total_tokens").asInt();
        }
        usage.completion = 0;
        sawChoice = true;
        return Outcome.DONE;
    }

    /** What an error body says: its message and its {@link #errorType type}, either null when absent. */
    record ServerError(String message, String type) {}

    /** The server's words in an OpenAI error body ({@code error.message}, {@code error.type}), or {@code null}. */
    static ServerError serverError(ObjectMapper mapper, byte[] body, int length) {
        try {
            JsonNode root = mapper.readTree(body, 0, length);
            return root != null && isError(root) ? new ServerError(errorMessage(root), errorType(root)) : null;
        } catch (java.io.IOException | RuntimeException e) {
            return null;
        }
    }

    /** Appends content and reasoning of a delta or message; true when any of them was non-empty. */
    private boolean appendOutput(JsonNode node) {
        boolean any = append(content, node.get("content"));
        any |= append(reasoning, node.get("reasoning_content"));
        any |= append(reasoning, node.get("reasoning"));
        return any;
    }

    private static boolean append(TextBuilder to, String s) {
        return to.append(s);
    }

    private static boolean append(TextBuilder to, JsonNode text) {
        if (text == null || !text.isTextual()) {
            return false;
        }
        return to.append(text.textValue());
    }

    private static JsonNode firstChoice(JsonNode root) {
        JsonNode choices = root.get("choices");
        if (choices == null || !choices.isArray() || choices.isEmpty()) {
            return null;
        }
        JsonNode first = choices.get(0);
        return first.isObject() ? first : null;
    }

    private void readFinishReason(JsonNode choice) {
        JsonNode reason = choice.get("finish_reason");
        if (reason != null && reason.isTextual()) {
            finishReason = reason.textValue();
        }
    }

    /** llama.cpp's {@code timings} object; a chunk without one changes nothing. */
    private void readTimings(JsonNode node) {
        if (node == null || !node.isObject()) {
            return;
        }
        timings = new Timings(node.path("prompt_n").asInt(-1), node.path("prompt_ms").asDouble(Double.NaN),
                node.path("predicted_n").asInt(-1), node.path("predicted_ms").asDouble(Double.NaN),
                node.path("cache_n").asInt(-1));
    }

    /** A usage object as a tree, in any of the shapes {@link UsageMembers} reads; null or not an object: nothing. */
    private void readUsage(JsonNode node) {
        if (node == null || !node.isObject()) {
            return; // OpenAI sends "usage": null on every chunk but the last
        }
        if (treeUsage == null) treeUsage = new UsageMembers();
        treeUsage.read(node);
        usage.merge(treeUsage);
    }

    /** An {@code error} member (OpenAI, current vLLM, Anthropic), {@code "object": "error"} (vLLM up to 0.8) or
     * {@code "type": "error"} (the Responses API's error event). */
    private static boolean isError(JsonNode root) {
        JsonNode error = root.get("error");
        if (error != null && !error.isNull()) {
            return true;
        }
        return "error".equals(root.path("object").asText(null)) || "error".equals(root.path("type").asText(null));
    }

    /**
     * The error object's kind in the server's words: its {@code type} ({@code exceed_context_size_error} from
     * llama.cpp, {@code BadRequestError} or a mid-stream {@code server_error} from vLLM), then {@code /} and its
     * {@code code} when that is a string ({@code invalid_request_error/context_length_exceeded} from OpenAI; a
     * numeric code only repeats the HTTP status); null when it names neither.
     */
    static String errorType(JsonNode root) {
        JsonNode error = root.get("error");
        JsonNode holder = error != null && error.isObject() ? error : root; // vLLM <= 0.8: top-level fields
        String type = textual(holder.get("type"));
        String code = textual(holder.get("code"));
        if (holder == root && "error".equals(type)) type = null; // the Responses API's error event: its code says it
        if (type == null) return code;
        return code == null || code.equals(type) ? type : type + "/" + code;
    }

    private static String textual(JsonNode node) {
        if (node == null || !node.isTextual() || node.textValue().isBlank()) return null;
        return oneLine(node.textValue());
    }

    private static String errorMessage(JsonNode root) {
        JsonNode error = root.get("error");
        JsonNode message = error != null && error.isObject() ? error.get("message") : root.get("message");
        if (message != null && message.isTextual()) {
            return oneLine(message.textValue());
        }
        return oneLine(error != null && !error.isNull() ? error.toString() : root.toString());
    }

    private Outcome fail(ErrorClass errorClass, String message) {
        failure = errorClass;
        failureMessage = message;
        return Outcome.FAILED;
    }

    /** A short, single-line, secret-free version of a message. */
    static String oneLine(String text) {
        if (text == null) {
            return "";
        }
        String s = text.length() > MAX_MESSAGE * 2 ? text.substring(0, MAX_MESSAGE * 2) : text;
        s = Secrets.redact(s.replace('\r', ' ').replace('\n', ' ').strip());
        return s.length() > MAX_MESSAGE ? s.substring(0, MAX_MESSAGE - 3) + "..." : s;
    }

    ErrorClass failure() {
        return failure;
    }

    String failureMessage() {
        return failureMessage;
    }

    /** The failure's error type in the server's words ({@link #errorType}), or null. */
    String failureType() {
        return failureType;
    }

    /** The server's {@code timings}, or null when it sent none. */
    Timings timings() {
        return timings;
    }

    String content() {
        return content.toString();
    }

    String reasoning() {
        return reasoning.toString();
    }

    long firstChunkNanos() {
        return firstChunkNanos;
    }

    long firstTokenNanos() {
        return firstTokenNanos;
    }

    /**
     * The first token event that carried answer text (for a reply without reasoning, {@link #firstTokenNanos}); the
     * whole body's arrival when not streamed; {@link Moments#ABSENT} when no answer text arrived.
     */
    long firstContentNanos() {
        return firstContentNanos;
    }

    /** Arrival of the last data event (incl. {@code [DONE]}), or {@link Moments#ABSENT}. */
    long lastEventNanos() {
        return lastEventNanos;
    }

    long[] tokenChunkNanos() {
        return tokenChunkNanos.toArray();
    }

    /** The server's usage, or null when it sent none. */
    Usage usage() {
        return usage.usage();
    }

    String finishReason() {
        return finishReason;
    }
}
