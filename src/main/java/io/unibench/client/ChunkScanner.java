package io.unibench.client;

import java.nio.charset.StandardCharsets;

/**
 * The fast path of {@link ChunkInterpreter}: one pass over a streamed chunk's bytes that checks the JSON grammar
 * and keeps only what we use (the first choice's delta content, reasoning, text and finish reason; where the
 * {@code usage} object lies). No parser object, no tree, no String for anything skipped: against a fast server
 * this runs once per token, and a Jackson parser per chunk cost several times more than the scan.
 *
 * <p>Anything unusual — an error object, an escaped key, nesting deeper than 32, bad grammar, trailing bytes —
 * makes {@link #scan} return false, and the interpreter reads the chunk with Jackson instead, which decides what is
 * valid and words the error. Invalid UTF-8 inside a string we keep becomes U+FFFD here (Jackson would fail).
 *
 * <p>Not thread-safe: one per response, reused for every chunk.
 */
final class ChunkScanner {
    private static final int MAX_DEPTH = 32;
    private static final int FAIL = -1;

    private static final byte[] CHOICES = ascii("choices");
    private static final byte[] USAGE = ascii("usage");
    private static final byte[] TIMINGS = ascii("timings");
    private static final byte[] ERROR = ascii("error");
    private static final byte[] OBJECT = ascii("object");
    private static final byte[] DELTA = ascii("delta");
    private static final byte[] TEXT = ascii("text");
    private static final byte[] FINISH_REASON = ascii("finish_reason");
    private static final byte[] CONTENT = ascii("content");
    private static final byte[] REASONING_CONTENT = ascii("reasoning_content");
    private static final byte[] REASONING = ascii("reasoning");
    private static final byte[] PROMPT_TOKENS = ascii("prompt_tokens");
    private static final byte[] COMPLETION_TOKENS = ascii("completion_tokens");
    private static final byte[] PROMPT_TOKENS_DETAILS = ascii("prompt_tokens_details");
    private static final byte[] CACHED_TOKENS = ascii("cached_tokens");
    private static final byte[] TYPE = ascii("type");
    private static final byte[] THINKING = ascii("thinking");
    private static final byte[] SEQUENCE_NUMBER = ascii("sequence_number");
    /** The typed events that end a stream: completed and incomplete (Responses API), message_stop (Anthropic). */
    private static final byte[][] END_EVENTS = {ascii("response.completed"), ascii("response.incomplete"),
            ascii("message_stop")};
    /** Anthropic's events that carry usage (in message_start's message, in message_delta at the root). */
    private static final byte[][] USAGE_EVENTS = {ascii("message_start"), ascii("message_delta")};
    private static final byte[] RESPONSE = ascii("response");
    private static final byte[] MESSAGE = ascii("message");
    private static final byte[] STOP_REASON = ascii("stop_reason");
    private static final byte[][] REPEAT_HEADS = {ascii("{\"type\":\"response.output_text.done\","),
            ascii("{\"type\":\"response.content_part.done\","), ascii("{\"type\":\"response.output_item.done\",")};
    private static final byte[] STATUS = ascii("status");
    private static final byte[] OUTPUT = ascii("output");
    /** How far from the end of a Responses end event its usage member is looked for (see lastUsageMember). */
    private static final int USAGE_SEARCH = 2048;
    private static final byte[] INCOMPLETE_DETAILS = ascii("incomplete_details");
    /** Token events of the typed APIs: text for content, text for reasoning, Anthropic's content block delta. */
    private static final byte[][] CONTENT_EVENTS = {ascii("response.output_text.delta"), ascii("response.refusal.delta")};
    private static final byte[][] REASONING_EVENTS = {ascii("response.reasoning_text.delta"),
            ascii("response.reasoning_summary_text.delta")};
    private static final byte[] BLOCK_DELTA_EVENT = ascii("content_block_delta");
    /**
     * The typed events whose contents matter beyond their arrival (the end, the usage, failures): the interpreter
     * reads them as trees. Every other typed event (created, in_progress, output_item.added/done,
     * content_part.added/done, output_text.done, content_block_start/stop, ping, ...) is a chunk and nothing else:
     * taken here, as a tree of the .done events (which repeat the whole text) cost more than all the deltas.
     */
    private static final byte[][] READ_EVENTS = {ascii("response.failed"), ascii("error")};
    private static final byte[] INPUT_TOKENS = ascii("input_tokens");
    private static final byte[] OUTPUT_TOKENS = ascii("output_tokens");
    private static final byte[] INPUT_TOKENS_DETAILS = ascii("input_tokens_details");
    /** The output's details (chat's and the Responses API's), read for their {@code reasoning_tokens}. */
    private static final byte[] COMPLETION_TOKENS_DETAILS = ascii("completion_tokens_details");
    private static final byte[] OUTPUT_TOKENS_DETAILS = ascii("output_tokens_details");
    private static final byte[] REASONING_TOKENS = ascii("reasoning_tokens");
    private static final byte[] CACHE_CREATION_INPUT_TOKENS = ascii("cache_creation_input_tokens");
    private static final byte[] CACHE_READ_INPUT_TOKENS = ascii("cache_read_input_tokens");
    private static final byte[] PROMPT_CACHE_HIT_TOKENS = ascii("prompt_cache_hit_tokens");

    // the result of the last successful scan
    boolean choice;
    String content;
    String reasoningContent;
    String reasoning;
    String text;
    String finishReason;
    /**
     * When not -1: the text field ({@code RAW_CONTENT} ...) whose value is plain ASCII without escapes, left as the
     * bytes {@code [rawStart, rawStart + rawLength)} of the scanned buffer instead of a String (its String field is
     * null). Only on the template path, where a chunk carries just that one string.
     */
    int rawField;
    int rawStart;
    int rawLength;
    /** Byte range of the {@code usage} object in the scanned buffer, or -1. */
    int usageStart;
    int usageEnd;
    /** Byte range of llama.cpp's {@code timings} object (once per reply: left to Jackson), or -1. */
    int timingsStart;
    int timingsEnd;
    /**
     * The usage object read by the scan ({@code usageRead}): the root's {@code usage} of a chunk, or a typed event's
     * ({@link #responseUsageStart}). False when there is none, or when a member that counts held anything else than
     * an integer literal of at most 9 digits or null (a string, a fraction): the interpreter then reads it with
     * Jackson, whose conversions decide.
     */
    boolean usageRead;
    final UsageMembers usage = new UsageMembers();

    /**
     * A typed event the interpreter takes from what the scanner found, without a tree of the whole event (the
     * Responses API's end repeats every output item): {@code typedEnd} when it ends the stream, the byte range of
     * its usage object ({@code response.usage}, {@code message.usage}, message_delta's {@code usage}; -1 when
     * absent), of {@code response.incomplete_details} (-1), and {@code response.status} (null when absent);
     * message_delta's {@code delta.stop_reason} is {@link #finishReason}.
     */
    boolean typedUsage;
    boolean typedEnd;
    int responseUsageStart;
    int responseUsageEnd;
    int responseIncompleteStart;
    int responseIncompleteEnd;
    String responseStatus;

    /** The output array of an end event may be skipped ({@link #lastUsageMember}) in the scan in progress. */
    private boolean skipOutput;
    /** The last scan skipped an end event's output array (read by tests: the shortcut must serve the usual shapes). */
    boolean skippedOutput;

    // the root's "type" string and "delta" member (the Responses API's and Anthropic's events), while scanning
    private int typeStart;
    private int typeEnd;
    /** The root's {@code sequence_number} integer in the buffer, or -1. */
    private int counterStart;
    private int counterEnd;
    private String rootDelta;
    private boolean rootDeltaObject;

    private byte[] b;
    private int end;
    private int keyStart;
    private int keyEnd;
    private int stringStart;
    private boolean stringEscaped;
    private boolean stringAscii;

    /** Which text field a template's hole is (see {@link ChunkTemplate}). */
    static final int NO_HOLE = -1;
    static final int HOLE_CONTENT = 0;
    static final int HOLE_REASONING_CONTENT = 1;
    static final int HOLE_REASONING = 2;
    static final int HOLE_TEXT = 3;
    private static final int EVENT_END = 2; // the LF LF after an event's data
    private final ChunkTemplate template = new ChunkTemplate();
    // the text strings kept by the scan in progress
    private int keptStrings;
    private int keptField;
    private int keptStart;
    private int keptEnd;

    /** Scans one chunk; false when the interpreter must read it with Jackson instead. */
    boolean scan(byte[] buf, int offset, int length) {
        return scan(buf, -1, offset, length);
    }

    /**
     * Scans one chunk, which lies in an SSE event whole in place from {@code framingStart} (see
     * {@link SseParser.FramedListener}) or was copied (-1).
     */
    boolean scan(byte[] buf, int framingStart, int offset, int length) {
        b = buf;
        end = offset + length;
        if (length > 64 && repeatsOutput(offset)) {
            resetResult();
            b = null;
            return true; // a chunk that carries nothing new: taken unread
        }
        // an event in place was offered to claim() first: like the template it is not, or framed otherwise (then
        // the whole scan makes it the template, framing included)
        if (template.field != NO_HOLE && framingStart < 0) {
            resetResult();
            if (likeTemplate(offset, false) == end) {
                b = null;
                return true;
            }
        }
        boolean valid = wholeScan(offset, true);
        if (!valid && skippedOutput) valid = wholeScan(offset, false); // the shortcut did not fit: every byte
        if (valid) {
            keepTemplate(framingStart, offset);
            if (typedUsage ? responseUsageStart >= 0 : usageStart >= 0) {
                usageRead = typedUsage ? readUsage(responseUsageStart, responseUsageEnd) : readUsage(usageStart, usageEnd);
            }
        }
        b = null;
        return valid;
    }

    /**
     * Scans the chunk from its first byte; {@code maySkipOutput}: the output array of a {@code response.completed}
     * or {@code response.incomplete} event may be skipped (see {@link #lastUsageMember}).
     */
    private boolean wholeScan(int offset, boolean maySkipOutput) {
        resetResult(); // a partial match may have set fields
        keptStrings = 0;
        skipOutput = maySkipOutput;
        skippedOutput = false;
        int p = ws(offset);
        if (p >= end || b[p] != '{') return false;
        p = root(p);
        if (p == FAIL) return false;
        p = ws(p);
        return p == end && typedEvent();
    }

    private void resetResult() {
        choice = false;
        content = reasoningContent = reasoning = text = finishReason = null;
        usageStart = usageEnd = -1;
        timingsStart = timingsEnd = -1;
        usageRead = false;
        rawField = NO_HOLE;
        typeStart = typeEnd = -1;
        counterStart = counterEnd = -1;
        typedUsage = typedEnd = false;
        responseUsageStart = responseUsageEnd = responseIncompleteStart = responseIncompleteEnd = -1;
        responseStatus = null;
        rootDelta = null;
        rootDeltaObject = false;
    }

    /**
     * Sorts out a typed event after the root was scanned: a token event of the Responses API (its {@code delta}
     * string is content or reasoning by the type) or Anthropic's {@code content_block_delta} (its delta object was
     * read as a chat delta: {@code text}, {@code thinking}) is a choice; any other typed event (lifecycle, usage,
     * errors), or a root {@code delta} without a type, is left to the interpreter's tree: false.
     */
    private boolean typedEvent() {
        if (typeStart < 0) return rootDelta == null && !rootDeltaObject;
        if (typeIs(BLOCK_DELTA_EVENT)) {
            if (rootDelta != null) return false;
            choice = true;
            return true;
        }
        boolean reasoningEvent = typeIs(REASONING_EVENTS[0]) || typeIs(REASONING_EVENTS[1]);
        if (!(reasoningEvent || typeIs(CONTENT_EVENTS[0]) || typeIs(CONTENT_EVENTS[1]))) {
            for (byte[] read : READ_EVENTS) if (typeIs(read)) return false;
            typedEnd = typeIs(END_EVENTS[0]) || typeIs(END_EVENTS[1]) || typeIs(END_EVENTS[2]);
            boolean delta = typeIs(USAGE_EVENTS[1]);
            typedUsage = typedEnd || delta || typeIs(USAGE_EVENTS[0]);
            if (delta && usageStart >= 0) { // message_delta's usage is at the root
                responseUsageStart = usageStart;
                responseUsageEnd = usageEnd;
                usageStart = usageEnd = -1;
            }
            if (!delta) finishReason = null;
            // a chunk that carries nothing else we measure; a kept string there is not ours to take
            content = reasoning = reasoningContent = text = null;
            choice = false;
            keptStrings = 0;
            return usageStart < 0 && timingsStart < 0;
        }
        if (rootDelta == null || rootDeltaObject) return false;
        choice = true;
        if (reasoningEvent) {
            reasoning = rootDelta;
            keptField = HOLE_REASONING;
        } else {
            content = rootDelta;
            keptField = HOLE_CONTENT;
        }
        return true;
    }

    /**
     * The Responses API's {@code response.output_text.done}, {@code response.content_part.done} and
     * {@code response.output_item.done} (each starting {@code {"type":"NAME"}, as OpenAI and the simulator send
     * them) repeat the whole output text the deltas carried: scanning them cost as much as all the deltas together,
     * and nothing in them is measured, so they are taken by their name alone, not checked as JSON.
     */
    private boolean repeatsOutput(int offset) {
        if (b[offset] != '{' || b[offset + 1] != '"' || b[offset + 2] != 't') return false;
        for (byte[] head : REPEAT_HEADS) {
            if (java.util.Arrays.equals(b, offset, offset + head.length, head, 0, head.length)) return true;
        }
        return false;
    }

    private boolean endEvent() {
        return typeStart >= 0 && (typeIs(END_EVENTS[0]) || typeIs(END_EVENTS[1]));
    }

    /**
     * The Responses API's end ({@code response.completed}, {@code response.incomplete}) repeats every output item,
     * and is read only for its status, incomplete details and usage; its {@code response} object puts {@code usage}
     * after {@code output}, near the end, as OpenAI and the simulator send it. So where {@code output} starts at
     * {@code from} the scan goes on at the last member named {@code usage} within the event's last
     * {@value #USAGE_SEARCH} bytes, found from the end: the index of its opening quote, or -1 to scan on as usual.
     *
     * <p>Such a member is {@code "usage"} then a colon, with a comma before it (whitespace aside): a quote after a
     * comma is not escaped, so in valid JSON it opens a member name (one that closed a string could not be followed
     * by a letter), not the first of its object. One nested deeper (in the output, in metadata) is followed by more
     * than the response's and the root's closing braces, so the scan that goes on from there fails at the end and
     * {@link #scan} scans the whole event again. What is skipped is taken as valid JSON unread, as the repeating
     * {@code .done} events are ({@link #repeatsOutput}); a usage member of another root object after
     * {@code response} would be taken for the response's (no API sends one).
     */
    private int lastUsageMember(int from) {
        int low = Math.max(from + 1, end - USAGE_SEARCH);
        for (int q = end - USAGE.length - 3; q >= low; q--) {
            if (b[q] != '"' || b[q + USAGE.length + 1] != '"' || !matches(USAGE, q + 1)) continue;
            int colon = ws(q + USAGE.length + 2);
            if (colon >= end || b[colon] != ':') continue;
            int before = q - 1;
            while (before > from && isWs(b[before])) before--;
            if (b[before] == ',') return q;
        }
        return -1;
    }

    private static boolean isWs(byte c) {
        return c == ' ' || c == '\n' || c == '\r' || c == '\t';
    }

    private boolean typeIs(byte[] name) {
        return typeEnd - typeStart == name.length && matches(name, typeStart);
    }

    /**
     * Takes a whole SSE event starting at {@code offset}, within {@code buf[offset, limit)}, on the template path
     * only: the bytes from {@code offset} are the framed template (event lines, {@code data:}, the chunk, LF LF)
     * with another string in its hole. Returns the event's length with its fields taken, or -1 (fields undefined)
     * when they are not. Such an event is lines ended by LF that the SSE parser reads as this one event: the
     * template was one (see {@link SseParser.FramedListener}), and the string has no raw control character.
     */
    int claim(byte[] buf, int offset, int limit) {
        if (!template.framed()) return -1;
        b = buf;
        end = limit;
        resetResult();
        int after = likeTemplate(offset, true);
        b = null;
        return after < 0 ? -1 : after - offset;
    }

    /**
     * The bytes from {@code at} are the template (the whole {@code event}, or its chunk) with another string in its
     * hole: takes the fields and returns the index after the last byte, or -1. The bytes must end by {@link #end},
     * not necessarily at it.
     */
    private int likeTemplate(int at, boolean event) {
        ChunkTemplate t = template;
        int p = t.head(b, at, end, event);
        if (p < 0) return -1;
        int after = string(p - 1);
        if (after == FAIL) return -1;
        int end = t.tail(b, after, this.end, event);
        if (end < 0) return -1;
        t.matched(b);
        choice = true;
        finishReason = t.finishReason;
        if (!stringEscaped && stringAscii) {
            rawField = t.field;
            rawStart = stringStart;
            rawLength = after - 1 - stringStart;
            return end;
        }
        String s = decoded(after);
        switch (t.field) {
            case HOLE_CONTENT -> content = s;
            case HOLE_REASONING_CONTENT -> reasoningContent = s;
            case HOLE_REASONING -> reasoning = s;
            default -> text = s;
        }
        return end;
    }

    /** Keeps the chunk just scanned as the template when it is a token chunk; see scan for {@code framingStart}. */
    private void keepTemplate(int framingStart, int offset) {
        if (keptStrings != 1 || !choice || usageStart >= 0 || timingsStart >= 0
                || end - offset > ChunkTemplate.MAX_CHUNK || keptEnd - keptStart == 2) {
            // the previous template stays: a role chunk (its content is "") or a finish chunk does not end a run
            // of token chunks, and the template then serves the next reply on the connection too
            return;
        }
        if (SseParser.lineEnd(b, offset, end) != end) {
            return; // JSON spread over several data lines: a template must be one line for claim()
        }
        boolean framed = framingStart >= 0 && SseParser.endsEvent(b, end, b.length);
        int from = framed ? framingStart : offset;
        template.keep(b, from, framed ? end + EVENT_END : end, framed, offset - from, end - from);
        template.hole(keptStart - from, keptEnd - from, keptField, finishReason,
                counterStart >= 0 ? counterStart - from : -1, counterEnd - from);
    }

    /** Notes a text string the scan keeps: its literal runs from the quote at {@code start} to before {@code end}. */
    private void kept(int field, int start, int end) {
        keptStrings++;
        keptField = field;
        keptStart = start;
        keptEnd = end;
    }

    // ---- the usage object, already checked by the scan ----

    /** Reads the usage object at {@code b[from, to)} into {@link #usage}; false when Jackson must read it. */
    private boolean readUsage(int from, int to) {
        int scanEnd = end;
        end = to;
        UsageMembers u = usage;
        u.clear();
        try {
            int p = ws(from + 1);
            if (b[p] == '}') return true;
            while (true) {
                p = key(p);
                if (p == FAIL) return false;
                int v = ws(p);
                if (keyIs(PROMPT_TOKENS)) {
                    p = intOrNull(v);
                    u.promptTokens = intValue;
                } else if (keyIs(COMPLETION_TOKENS)) {
                    p = intOrNull(v);
                    u.completionTokens = intValue;
                } else if (keyIs(INPUT_TOKENS)) {
                    p = intOrNull(v);
                    u.inputTokens = intValue;
                } else if (keyIs(OUTPUT_TOKENS)) {
                    p = intOrNull(v);
                    u.outputTokens = intValue;
                } else if (keyIs(CACHE_CREATION_INPUT_TOKENS)) {
                    p = intOrNull(v);
                    u.cacheCreationInputTokens = intValue;
                } else if (keyIs(CACHE_READ_INPUT_TOKENS)) {
                    p = intOrNull(v);
                    u.cacheReadInputTokens = u.cacheReadCached = intValue;
                } else if (keyIs(PROMPT_CACHE_HIT_TOKENS)) {
                    p = intOrNull(v);
                    u.promptCacheHitTokens = intValue;
                } else if (keyIs(PROMPT_TOKENS_DETAILS)) {
                    u.promptDetails = true;
                    u.promptDetailsCached = UsageMembers.ABSENT; // a later details member replaces an earlier one, as in a tree
                    p = b[v] == '{' ? detailsMember(v, CACHED_TOKENS, PROMPT_CACHED) : skipValue(v, 2);
                } else if (keyIs(INPUT_TOKENS_DETAILS)) {
                    u.inputDetailsCached = UsageMembers.ABSENT;
                    p = b[v] == '{' ? detailsMember(v, CACHED_TOKENS, INPUT_CACHED) : skipValue(v, 2);
                } else if (keyIs(COMPLETION_TOKENS_DETAILS)) {
                    u.completionDetailsReasoning = UsageMembers.ABSENT;
                    p = b[v] == '{' ? detailsMember(v, REASONING_TOKENS, COMPLETION_REASONING) : skipValue(v, 2);
                } else if (keyIs(OUTPUT_TOKENS_DETAILS)) {
                    u.outputDetailsReasoning = UsageMembers.ABSENT;
                    p = b[v] == '{' ? detailsMember(v, REASONING_TOKENS, OUTPUT_REASONING) : skipValue(v, 2);
                } else {
                    p = skipValue(v, 2); // total_tokens, another vendor's extra: not counted
                }
                if (p == FAIL) return false;
                p = ws(p);
                if (b[p] == '}') return true;
                p = ws(p + 1); // the scan checked the grammar: this is a comma
            }
        } finally {
            end = scanEnd;
        }
    }

    /** Which usage field a details object's one wanted member fills. */
    private static final int PROMPT_CACHED = 0, INPUT_CACHED = 1, COMPLETION_REASONING = 2, OUTPUT_REASONING = 3;

    /**
     * A details object's one wanted member ({@code cached_tokens} of prompt_/input_tokens_details,
     * {@code reasoning_tokens} of completion_/output_tokens_details) into its usage field; the rest skipped.
     */
    private int detailsMember(int p, byte[] wanted, int field) {
        p = ws(p + 1);
        if (b[p] == '}') return p + 1;
        while (true) {
            p = key(p);
            if (p == FAIL) return FAIL;
            int v = ws(p);
            if (keyIs(wanted)) {
                p = intOrNull(v);
                switch (field) {
                    case PROMPT_CACHED -> usage.promptDetailsCached = intValue;
                    case INPUT_CACHED -> usage.inputDetailsCached = intValue;
                    case COMPLETION_REASONING -> usage.completionDetailsReasoning = intValue;
                    default -> usage.outputDetailsReasoning = intValue;
                }
            } else {
                p = skipValue(v, 3);
            }
            if (p == FAIL) return FAIL;
            p = ws(p);
            if (b[p] == '}') return p + 1;
            p = ws(p + 1);
        }
    }

    private int intValue;

    /**
     * An integer literal of at most 9 digits (into {@link #intValue}) or {@code null} ({@link UsageMembers#NULL});
     * FAIL for any other value, so that Jackson's rules decide (strings that read as numbers, fractions, large
     * numbers).
     */
    private int intOrNull(int p) {
        if (b[p] == 'n') {
            intValue = UsageMembers.NULL;
            return literal(p, "null");
        }
        int after = number(p);
        if (after == FAIL) return FAIL;
        boolean negative = b[p] == '-';
        int from = negative ? p + 1 : p;
        if (after - from > 9) return FAIL;
        int value = 0;
        for (int i = from; i < after; i++) {
            byte c = b[i];
            if (c < '0' || c > '9') return FAIL; // a fraction or an exponent
            value = value * 10 + (c - '0');
        }
        intValue = (int) (negative ? -value : value);
        return after;
    }

    // ---- the objects we look into ----

    private int root(int p) {
        p = ws(p + 1);
        if (p < end && b[p] == '}') return p + 1;
        while (true) {
            p = key(p);
            if (p == FAIL) return FAIL;
            int v = ws(p);
            if (v >= end) return FAIL;
            byte c = b[v];
            if (keyIs(CHOICES) && c == '[') {
                p = choices(v);
            } else if (keyIs(USAGE) && c == '{') {
                usageStart = v;
                p = skipValue(v, 1);
                usageEnd = p;
            } else if (keyIs(TIMINGS) && c == '{') {
                timingsStart = v;
                p = skipValue(v, 1);
                timingsEnd = p;
            } else if ((keyIs(RESPONSE) || keyIs(MESSAGE)) && c == '{') {
                p = responseObject(v);
            } else if (keyIs(SEQUENCE_NUMBER) && c >= '0' && c <= '9') {
                p = number(v);
                if (p != FAIL) {
                    counterStart = v;
                    counterEnd = p;
                }
            } else if (keyIs(TYPE) && c == '"') {
                p = string(v);
                if (p != FAIL && stringEscaped) return FAIL; // an escaped type name: the tree reads it
                typeStart = stringStart;
                typeEnd = p - 1;
            } else if (keyIs(DELTA) && c == '"') {
                p = string(v);
                if (p != FAIL) {
                    rootDelta = decoded(p);
                    kept(HOLE_CONTENT, v, p); // content or reasoning: the type decides (typedEvent)
                }
            } else if (keyIs(DELTA) && c == '{') {
                rootDeltaObject = true;
                p = delta(v);
            } else if (keyIs(ERROR) && c != 'n') {
                return FAIL; // an error object (or a malformed null): Jackson path
            } else if (keyIs(OBJECT) && c == '"') {
                p = string(v);
                if (p != FAIL && !stringEscaped && p - 1 - stringStart == 5 && matches(ERROR, stringStart)) return FAIL;
            } else {
                p = skipValue(v, 1);
            }
            if (p == FAIL) return FAIL;
            p = ws(p);
            if (p >= end) return FAIL;
            if (b[p] == '}') return p + 1;
            if (b[p] != ',') return FAIL;
            p = ws(p + 1);
        }
    }

    /**
     * The Responses API's {@code response} object, Anthropic's {@code message}: where its usage, status and incomplete
     * details are.
     */
    private int responseObject(int p) {
        p = ws(p + 1);
        if (p < end && b[p] == '}') return p + 1;
        while (true) {
            p = key(p);
            if (p == FAIL) return FAIL;
            int v = ws(p);
            if (v >= end) return FAIL;
            byte c = b[v];
            if (keyIs(USAGE) && c == '{') {
                responseUsageStart = v;
                p = skipValue(v, 2);
                responseUsageEnd = p;
            } else if (keyIs(INCOMPLETE_DETAILS) && c == '{') {
                responseIncompleteStart = v;
                p = skipValue(v, 2);
                responseIncompleteEnd = p;
            } else if (keyIs(STATUS) && c == '"') {
                p = string(v);
                if (p != FAIL) responseStatus = decoded(p);
            } else if (keyIs(OUTPUT) && c == '[' && skipOutput && endEvent() && (p = lastUsageMember(v)) >= 0) {
                skippedOutput = true;
                continue; // on at the usage member: the output array and the members before it go unread
            } else {
                p = skipValue(v, 2);
            }
            if (p == FAIL) return FAIL;
            p = ws(p);
            if (p >= end) return FAIL;
            if (b[p] == '}') return p + 1;
            if (b[p] != ',') return FAIL;
            p = ws(p + 1);
        }
    }

    private int choices(int p) {
        p = ws(p + 1);
        if (p < end && b[p] == ']') return p + 1;
        boolean first = true;
        while (true) {
            if (p >= end) return FAIL;
            if (first && b[p] == '{') {
                choice = true;
                p = choice(p);
            } else {
                p = skipValue(p, 2);
            }
            first = false;
            if (p == FAIL) return FAIL;
            p = ws(p);
            if (p >= end) return FAIL;
            if (b[p] == ']') return p + 1;
            if (b[p] != ',') return FAIL;
            p = ws(p + 1);
        }
    }

    private int choice(int p) {
        p = ws(p + 1);
        if (p < end && b[p] == '}') return p + 1;
        while (true) {
            p = key(p);
            if (p == FAIL) return FAIL;
            int v = ws(p);
            if (v >= end) return FAIL;
            byte c = b[v];
            if (keyIs(DELTA) && c == '{') {
                p = delta(v);
            } else if (keyIs(TEXT) && c == '"') {
                p = string(v);
                if (p != FAIL) {
                    text = decoded(p);
                    kept(HOLE_TEXT, v, p);
                }
            } else if (keyIs(FINISH_REASON) && c == '"') {
                p = string(v);
                if (p != FAIL) finishReason = decoded(p);
            } else {
                p = skipValue(v, 3);
            }
            if (p == FAIL) return FAIL;
            p = ws(p);
            if (p >= end) return FAIL;
            if (b[p] == '}') return p + 1;
            if (b[p] != ',') return FAIL;
            p = ws(p + 1);
        }
    }

    private int delta(int p) {
        p = ws(p + 1);
        if (p < end && b[p] == '}') return p + 1;
        while (true) {
            p = key(p);
            if (p == FAIL) return FAIL;
            int v = ws(p);
            if (v >= end) return FAIL;
            if (b[v] == '"' && keyIs(STOP_REASON)) { // Anthropic's message_delta
                p = string(v);
                if (p == FAIL) return FAIL;
                finishReason = decoded(p);
            } else if (b[v] == '"' && (keyIs(TEXT) || keyIs(THINKING))) { // Anthropic's text_delta, thinking_delta
                boolean isText = keyIs(TEXT);
                p = string(v);
                if (p == FAIL) return FAIL;
                String s = decoded(p);
                if (isText) content = s;
                else reasoning = s;
                kept(isText ? HOLE_CONTENT : HOLE_REASONING, v, p);
            } else if (b[v] == '"' && (keyIs(CONTENT) || keyIs(REASONING_CONTENT) || keyIs(REASONING))) {
                boolean isContent = keyIs(CONTENT);
                boolean isReasoningContent = keyIs(REASONING_CONTENT);
                p = string(v);
                if (p == FAIL) return FAIL;
                String s = decoded(p);
                if (isContent) content = s;
                else if (isReasoningContent) reasoningContent = s;
                else reasoning = s;
                kept(isContent ? HOLE_CONTENT : isReasoningContent ? HOLE_REASONING_CONTENT : HOLE_REASONING, v, p);
            } else {
                p = skipValue(v, 4);
            }
            if (p == FAIL) return FAIL;
            p = ws(p);
            if (p >= end) return FAIL;
            if (b[p] == '}') return p + 1;
            if (b[p] != ',') return FAIL;
            p = ws(p + 1);
        }
    }

    // ---- grammar ----

    /** A member name and its colon, from {@code p} (at the opening quote); returns the index after the colon. */
    private int key(int p) {
        if (p >= end || b[p] != '"') return FAIL;
        int q = string(p);
        if (q == FAIL || stringEscaped) return FAIL; // escaped names are rare: Jackson path
        keyStart = p + 1;
        keyEnd = q - 1;
        q = ws(q);
        if (q >= end || b[q] != ':') return FAIL;
        return q + 1;
    }

    private boolean keyIs(byte[] name) {
        return keyEnd - keyStart == name.length && matches(name, keyStart);
    }

    private boolean matches(byte[] name, int at) {
        for (int i = 0; i < name.length; i++) if (b[at + i] != name[i]) return false;
        return true;
    }

    /** A string from its opening quote at {@code p}; returns the index after the closing quote. */
    private int string(int p) {
        stringStart = p + 1;
        stringEscaped = false;
        stringAscii = true;
        // the common string (a token): printable ASCII without escapes, in locals (C1 reloads fields every step)
        byte[] b = this.b;
        int end = this.end;
        int i = p + 1;
        while (i < end) {
            byte c = b[i];
            if (c == '"') return i + 1;
            if (c == '\\' || c < 0x20) break; // an escape, a control character or a non-ASCII byte (negative)
            i++;
        }
        while (i < end) {
            byte c = b[i];
            if (c == '"') return i + 1;
            if (c == '\\') {
                stringEscaped = true;
                if (i + 1 >= end) return FAIL;
                byte e = b[i + 1];
                if (e == 'u') {
                    if (i + 5 >= end) return FAIL;
                    for (int h = i + 2; h < i + 6; h++) if (hex(b[h]) < 0) return FAIL;
                    i += 6;
                } else if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' || e == 'r' || e == 't') {
                    i += 2;
                } else {
                    return FAIL;
                }
            } else if (c >= 0 && c < 0x20) {
                return FAIL; // a raw control character: invalid JSON
            } else {
                if (c < 0) stringAscii = false;
                i++;
            }
        }
        return FAIL;
    }

    /** The value of the string just scanned, which ended before {@code after}. */
    private String decoded(int after) {
        int from = stringStart;
        int to = after - 1;
        if (!stringEscaped) {
            return new String(b, from, to - from, stringAscii ? StandardCharsets.ISO_8859_1 : StandardCharsets.UTF_8);
        }
        StringBuilder sb = new StringBuilder(to - from);
        int run = from;
        int i = from;
        while (i < to) {
            if (b[i] != '\\') {
                i++;
                continue;
            }
            if (i > run) sb.append(new String(b, run, i - run, StandardCharsets.UTF_8));
            byte e = b[i + 1];
            switch (e) {
                case 'n' -> sb.append('\n');
                case 't' -> sb.append('\t');
                case 'r' -> sb.append('\r');
                case 'b' -> sb.append('\b');
                case 'f' -> sb.append('\f');
                case 'u' -> sb.append((char) ((hex(b[i + 2]) << 12) | (hex(b[i + 3]) << 8) | (hex(b[i + 4]) << 4) | hex(b[i + 5])));
                default -> sb.append((char) e); // " \ /
            }
            i += e == 'u' ? 6 : 2;
            run = i;
        }
        if (to > run) sb.append(new String(b, run, to - run, StandardCharsets.UTF_8));
        return sb.toString();
    }

    /** Any value from {@code p} (its first byte), checked but not kept; returns the index after it. */
    private int skipValue(int p, int depth) {
        if (p >= end) return FAIL;
        byte c = b[p];
        switch (c) {
            case '"':
                return string(p);
            case '{': {
                if (depth >= MAX_DEPTH) return FAIL;
                p = ws(p + 1);
                if (p < end && b[p] == '}') return p + 1;
                while (true) {
                    p = key(p);
                    if (p == FAIL) return FAIL;
                    p = skipValue(ws(p), depth + 1);
                    if (p == FAIL) return FAIL;
                    p = ws(p);
                    if (p >= end) return FAIL;
                    if (b[p] == '}') return p + 1;
                    if (b[p] != ',') return FAIL;
                    p = ws(p + 1);
                }
            }
            case '[': {
                if (depth >= MAX_DEPTH) return FAIL;
                p = ws(p + 1);
                if (p < end && b[p] == ']') return p + 1;
                while (true) {
                    p = skipValue(p, depth + 1);
                    if (p == FAIL) return FAIL;
                    p = ws(p);
                    if (p >= end) return FAIL;
                    if (b[p] == ']') return p + 1;
                    if (b[p] != ',') return FAIL;
                    p = ws(p + 1);
                }
            }
            case 't':
                return literal(p, "true");
            case 'f':
                return literal(p, "false");
            case 'n':
                return literal(p, "null");
            default:
                return number(p);
        }
    }

    private int literal(int p, String word) {
        if (p + word.length() > end) return FAIL;
        for (int i = 0; i < word.length(); i++) if (b[p + i] != word.charAt(i)) return FAIL;
        return p + word.length();
    }

    /** -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
    private int number(int p) {
        int i = p;
        if (i < end && b[i] == '-') i++;
        if (i >= end) return FAIL;
        if (b[i] == '0') {
            i++;
        } else if (b[i] >= '1' && b[i] <= '9') {
            while (i < end && b[i] >= '0' && b[i] <= '9') i++;
        } else {
            return FAIL;
        }
        if (i < end && b[i] == '.') {
            int digits = ++i;
            while (i < end && b[i] >= '0' && b[i] <= '9') i++;
            if (i == digits) return FAIL;
        }
        if (i < end && (b[i] == 'e' || b[i] == 'E')) {
            i++;
            if (i < end && (b[i] == '+' || b[i] == '-')) i++;
            int digits = i;
            while (i < end && b[i] >= '0' && b[i] <= '9') i++;
            if (i == digits) return FAIL;
        }
        return i;
    }

    private int ws(int p) {
        byte[] b = this.b;
        int end = this.end;
        while (p < end) {
            byte c = b[p];
            if (c != ' ' && c != '\n' && c != '\r' && c != '\t') return p;
            p++;
        }
        return p;
    }

    private static int hex(byte c) {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
