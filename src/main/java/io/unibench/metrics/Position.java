package io.unibench.metrics;

/**
 * Where a request stands in the run and in its conversation.
 *
 * @param index          dispatch sequence number within the run, from 0
 * @param requestId      unique id of the request (also sent as {@code X-Request-Id})
 * @param conversationId conversation (trace) id, or {@code null} for single-turn requests
 * @param turnIndex      0-based turn within the conversation; 0 for single-turn
 * @param lastTurn       the conversation ends with this turn: its last turn, {@code --max-turns} reached, or this
 *                       turn failed (the conversation is abandoned); false for single-turn
 */
public record Position(long index, String requestId, String conversationId, int turnIndex, boolean lastTurn) {

    /** A single-turn request. */
    public static Position single(long index, String requestId) {
        return new Position(index, requestId, null, 0, false);
    }

    /** True for the first turn of a conversation; false for single-turn requests. */
    public boolean firstTurn() {
        return conversationId != null && turnIndex == 0;
    }

    /** This request as turn {@code turn} of {@code conversation}. */
    public Position inConversation(String conversation, int turn, boolean last) {
        return new Position(index, requestId, conversation, turn, last);
    }
}
