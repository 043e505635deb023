package io.unibench.workload;

import java.util.List;

/**
 * One agent trajectory reduced to what the swe_smith builder uses.
 *
 * @param source       {@code file:LINE} or {@code file#INDEX}, for messages
 * @param rawLength    characters of the trajectory's messages as given (the JSON string, or the array serialized)
 * @param userContents the contents of its user messages in order (tool outputs included: {@code tool} becomes
 *                     {@code user}), list contents joined with newlines, empty ones dropped
 */
public record Trajectory(String source, long rawLength, List<String> userContents) {
    public Trajectory {
        userContents = List.copyOf(userContents);
    }

    /** Characters of all user contents. */
    public long userChars() {
        long n = 0;
        for (String s : userContents) n += s.length();
        return n;
    }
}
