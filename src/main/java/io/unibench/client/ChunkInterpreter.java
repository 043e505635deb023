package io.unibench.client;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.unibench.Moments;
import io.unibench.Secrets;

import java.nio.charset.StandardCharsets;

/**
 * Reads what an OpenAI-compatible server says in one response: each SSE data payload of a stream, or the whole
 * body of a non-streamed reply. Collects content, reasoning, usage and finish reason, and the arrival time of
 * every event that carries output, and decides whether the reply is a failure.
 *
 * <p>Not thread-safe: one interpreter per response, used on the channel's event loop.
 */
final class ChunkInterpreter {

    /** What the caller should do after an event. */
    enum Outcome {
        /** Keep reading. */
        CONTINUE,
        /** The reply is complete ({@code [DONE]}, or the end of a non-streamed body) and valid. */
        DONE,
        /** The reply failed: see {@link #failure()} and {@link #failureMessage()}. */
        FAILED
    }

    private static final int MAX_MESSAGE = 200;

    private final ObjectMapper mapper;
    private final ChunkFields fields = new ChunkFields();
    private final ChunkScanner scanner;

    private final TextBuilder content = new TextBuilder();
    private final TextBuilder reasoning = new TextBuilder();
    private final LongList tokenChunkNanos = new LongList();
    private long firstChunkNanos = Moments.ABSENT;
    private long firstTokenNanos = Moments.ABSENT;
    private long lastEventNanos = Moments.ABSENT;
    private Usage usage;
    private Timings timings;
    private String finishReason;
    private boolean sawChoice;
    private boolean sawDone;
    private ErrorClass failure;
    private String failureMessage;
    private String failureType;

    ChunkInterpreter(ObjectMapper mapper) {
        this(mapper, new ChunkScanner());
    }

    /**
     * With the scanner of the connection, whose template (its last token chunk) then also serves the first token
     * chunk of this reply; the scanner must not be used by anyone else meanwhile.
     */
    ChunkInterpreter(ObjectMapper mapper, ChunkScanner scanner) {
        this.mapper = mapper;
        this.scanner = scanner;
    }

    /** One SSE data payload that arrived at {@code nanos}. */
    Outcome onEvent(String data, long nanos) {
        byte[] bytes = data.getBytes(StandardCharsets.UTF_8);
        return onEvent(bytes, 0, bytes.length, nanos);
    }

    /**
     * One SSE data payload ({@code length} UTF-8 bytes of {@code buf} from {@code offset}, not kept after the call)
     * that arrived at {@code nanos}.
     *
     * <p>The hot path of the whole benchmark (once per streamed token). A {@link ChunkScanner} reads the bytes in one
     * pass, keeping only the fields we use; what it will not handle (error objects, odd input) is read with Jackson's
     * streaming parser, and error objects then as a tree. A Jackson tree per chunk cost about two thirds of the
     * client's CPU against a fast server, and a Jackson parser per chunk nearly as much (its construction).
     */
    Outcome onEvent(byte[] buf, int offset, int length, long nanos) {
        if (failure != null) {
            return Outcome.FAILED;
        }
        if (startsWithDone(buf, offset, length)) {
            sawDone = true;
            lastEventNanos = nanos;
            return sawChoice ? Outcome.DONE : fail(ErrorClass.BUSINESS_ERROR, "stream ended without any choice");
        }
        if (isBlank(buf, offset, length)) {
            return Outcome.CONTINUE; // an empty event carries nothing; treated as a keep-alive
        }
        ChunkFields f = fields.reset();
        if (scanner.scan(buf, offset, length) && f.from(scanner, mapper, buf)) {
            return scanner.rawField == ChunkScanner.NO_HOLE ? apply(f, nanos) : applyRaw(buf, nanos);
        }
        f.reset();
        try (JsonParser p = mapper.getFactory().createParser(buf, offset, length)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return fail(ErrorClass.PROTOCOL_ERROR, "SSE data is not a JSON object: " + oneLine(text(buf, offset, length)));
            }
            if (!f.readRoot(p)) {
                return onTree(text(buf, offset, length), nanos); // an error object: read it whole
            }
        } catch (JacksonException e) {
            return fail(ErrorClass.PROTOCOL_ERROR, "invalid JSON in SSE data: " + oneLine(text(buf, offset, length)));
        } catch (java.io.IOException e) {
            return fail(ErrorClass.PROTOCOL_ERROR, "unreadable SSE data: " + oneLine(e.getMessage()));
        }
        return apply(f, nanos);
    }

    /**
     * A token chunk read in place from {@code buf[offset, ...)} before its line end is known (see
     * {@link SseParser.Claimer}): when the chunk is the previous token chunk with another string, and the blank
     * line that ends its event follows it within {@code limit}, it is taken as {@link #onEvent} would take it and
     * its length is returned; otherwise -1 and nothing changed.
     */
    int claim(byte[] buf, int offset, int limit, long nanos) {
        if (failure != null) {
            return -1;
        }
        int length = scanner.claim(buf, offset, limit);
        if (length < 0 || !SseParser.endsEvent(buf, offset + length, limit)) {
            return -1;
        }
        if (scanner.rawField != ChunkScanner.NO_HOLE) {
            applyRaw(buf, nanos);
        } else {
            ChunkFields f = fields.reset();
            f.from(scanner, mapper, buf); // no usage on the template path: nothing to read
            apply(f, nanos);
        }
        return length;
    }

    /** A token chunk whose one text field the scanner left as ASCII bytes of {@code buf} (see ChunkScanner). */
    private Outcome applyRaw(byte[] buf, long nanos) {
        ChunkScanner sc = scanner;
        if (firstChunkNanos == Moments.ABSENT) {
            firstChunkNanos = nanos;
        }
        lastEventNanos = nanos;
        sawChoice = true;
        TextBuilder to = sc.rawField == ChunkScanner.HOLE_CONTENT || sc.rawField == ChunkScanner.HOLE_TEXT ? content : reasoning;
        if (to.appendAscii(buf, sc.rawStart, sc.rawLength)) {
            if (firstTokenNanos == Moments.ABSENT) {
                firstTokenNanos = nanos;
            }
            tokenChunkNanos.add(nanos);
        }
        if (sc.finishReason != null) {
            finishReason = sc.finishReason;
        }
        return Outcome.CONTINUE;
    }

    private Outcome apply(ChunkFields f, long nanos) {
        if (firstChunkNanos == Moments.ABSENT) {
            firstChunkNanos = nanos;
        }
        lastEventNanos = nanos;
        if (f.usageRead) {
            usage = new Usage(f.usagePrompt, f.usageCompletion, f.usageCached);
        } else if (f.usage != null) {
            readUsage(f.usage);
        }
        if (f.timings != null) {
            readTimings(f.timings);
        }
        if (f.choice) {
            sawChoice = true;
            boolean token = append(content, f.content);
            token |= append(reasoning, f.reasoningContent);
            token |= append(reasoning, f.reasoning);
            token |= append(content, f.text);
            if (token) {
                if (firstTokenNanos == Moments.ABSENT) {
                    firstTokenNanos = nanos;
                }
                tokenChunkNanos.add(nanos);
            }
            if (f.finishReason != null) {
                finishReason = f.finishReason;
            }
        }
        return Outcome.CONTINUE;
    }

    /** The tree path, for payloads the streaming reader hands back (error objects). */
    private Outcome onTree(String data, long nanos) {
        JsonNode root = parse(data);
        if (root == null) {
            return Outcome.FAILED;
        }
        if (firstChunkNanos == Moments.ABSENT) {
            firstChunkNanos = nanos;
        }
        lastEventNanos = nanos;
        if (isError(root)) {
            failureType = errorType(root);
            return fail(ErrorClass.BUSINESS_ERROR, errorMessage(root));
        }
        // unreachable today: ChunkFields hands back error objects only
        return fail(ErrorClass.PROTOCOL_ERROR, "unexpected SSE data: " + oneLine(data));
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

    /**
     * The fields of one chunk that matter to us, read in one pass of a streaming parser; everything else is
     * skipped unread. Reused for every chunk of a response (the interpreter is single-threaded).
     */
    private static final class ChunkFields {
        boolean choice;
        String content;
        String reasoningContent;
        String reasoning;
        String text;
        String finishReason;
        JsonNode usage;
        /** llama.cpp's {@code timings}, or null. */
        JsonNode timings;
        /** The scanner read the usage object (then {@code usage} is null). */
        boolean usageRead;
        int usagePrompt;
        int usageCompletion;
        int usageCached;

        ChunkFields reset() {
            choice = false;
            content = reasoningContent = reasoning = text = finishReason = null;
            usage = null;
            timings = null;
            usageRead = false;
            return this;
        }

        /** Takes what the fast scanner found; false if its usage object does not read (then Jackson decides). */
        boolean from(ChunkScanner sc, ObjectMapper mapper, byte[] buf) {
            choice = sc.choice;
            content = sc.content;
            reasoningContent = sc.reasoningContent;
            reasoning = sc.reasoning;
            text = sc.text;
            finishReason = sc.finishReason;
            if (sc.usageRead) {
                usageRead = true;
                usagePrompt = sc.usagePrompt;
                usageCompletion = sc.usageCompletion;
                usageCached = sc.usageCached;
            } else if (sc.usageStart >= 0) {
                try {
                    // values the scanner leaves to Jackson's rules (strings, fractions, large numbers)
                    usage = mapper.readTree(buf, sc.usageStart, sc.usageEnd - sc.usageStart);
                } catch (java.io.IOException e) {
                    return false;
                }
            }
            if (sc.timingsStart >= 0) {
                try {
                    timings = mapper.readTree(buf, sc.timingsStart, sc.timingsEnd - sc.timingsStart); // once per reply
                } catch (java.io.IOException e) {
                    return false;
                }
            }
            return true;
        }

        /** Reads the root object; false when it is an error object (the caller then reads it as a tree). */
        boolean readRoot(JsonParser p) throws java.io.IOException {
            String name;
            while ((name = p.nextFieldName()) != null) {
                JsonToken t = p.nextToken();
                switch (name) {
                    case "choices" -> {
                        if (t == JsonToken.START_ARRAY) readChoices(p);
                        else p.skipChildren();
                    }
                    case "usage" -> {
                        if (t == JsonToken.START_OBJECT) usage = p.readValueAsTree(); // once per stream
                        else p.skipChildren();
                    }
                    case "timings" -> {
                        if (t == JsonToken.START_OBJECT) timings = p.readValueAsTree();
                        else p.skipChildren();
                    }
                    case "error" -> {
                        if (t != JsonToken.VALUE_NULL) return false;
                    }
                    case "object" -> {
                        if (t == JsonToken.VALUE_STRING && "error".equals(p.getText())) return false;
                        p.skipChildren();
                    }
                    default -> p.skipChildren();
                }
            }
            return true;
        }

        private void readChoices(JsonParser p) throws java.io.IOException {
            JsonToken t = p.nextToken();
            if (t == JsonToken.START_OBJECT) {
                choice = true;
                readChoice(p);
                t = p.nextToken();
            }
            while (t != JsonToken.END_ARRAY && t != null) { // only the first choice counts
                p.skipChildren();
                t = p.nextToken();
            }
        }

        private void readChoice(JsonParser p) throws java.io.IOException {
            String name;
            while ((name = p.nextFieldName()) != null) {
                JsonToken t = p.nextToken();
                switch (name) {
                    case "delta" -> { // a stream's chunk; "message" belongs to non-streamed bodies only
                        if (t == JsonToken.START_OBJECT) readDelta(p);
                        else p.skipChildren();
                    }
                    case "text" -> text = t == JsonToken.VALUE_STRING ? p.getText() : text;
                    case "finish_reason" -> finishReason = t == JsonToken.VALUE_STRING ? p.getText() : finishReason;
                    default -> p.skipChildren();
                }
            }
        }

        private void readDelta(JsonParser p) throws java.io.IOException {
            String name;
            while ((name = p.nextFieldName()) != null) {
                JsonToken t = p.nextToken();
                boolean string = t == JsonToken.VALUE_STRING;
                switch (name) {
                    case "content" -> content = string ? p.getText() : content;
                    case "reasoning_content" -> reasoningContent = string ? p.getText() : reasoningContent;
                    case "reasoning" -> reasoning = string ? p.getText() : reasoning;
                    default -> p.skipChildren();
                }
            }
        }
    }

    /** The end of the event stream was reached without {@code [DONE]}. */
    Outcome onEndOfStream() {
        if (failure != null) {
            return Outcome.FAILED;
        }
        if (sawDone) {
            return Outcome.DONE;
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

    private JsonNode parse(String data) {
        try {
            JsonNode root = mapper.readTree(data);
            if (root != null && root.isObject()) {
                return root;
            }
            fail(ErrorClass.PROTOCOL_ERROR, "SSE data is not a JSON object: " + oneLine(data));
        } catch (JacksonException e) {
            fail(ErrorClass.PROTOCOL_ERROR, "invalid JSON in SSE data: " + oneLine(data));
        }
        return null;
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

    private void readUsage(JsonNode node) {
        if (node == null || !node.isObject()) {
            return; // OpenAI sends "usage": null on every chunk but the last
        }
        JsonNode details = node.get("prompt_tokens_details");
        JsonNode cached = details != null && details.isObject() ? details.get("cached_tokens") : null;
        usage = new Usage(
                node.path("prompt_tokens").asInt(0),
                node.path("completion_tokens").asInt(0),
                cached != null && cached.isNumber() ? cached.asInt() : -1);
    }

    /** An {@code error} member (OpenAI, current vLLM) or {@code "object": "error"} (vLLM up to 0.8). */
    private static boolean isError(JsonNode root) {
        JsonNode error = root.get("error");
        if (error != null && !error.isNull()) {
            return true;
        }
        JsonNode object = root.get("object");
        return object != null && "error".equals(object.asText());
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

    /** Arrival of the last data event (incl. {@code [DONE]}), or {@link Moments#ABSENT}. */
    long lastEventNanos() {
        return lastEventNanos;
    }

    long[] tokenChunkNanos() {
        return tokenChunkNanos.toArray();
    }

    Usage usage() {
        return usage;
    }

    String finishReason() {
        return finishReason;
    }

    boolean sawDone() {
        return sawDone;
    }
}
