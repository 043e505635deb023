package io.unibench.sim;

import java.util.List;

/**
 * The simulator's chat template: each message becomes {@code <|role|>\ncontent\n}, followed by the generation prompt
 * {@code <|assistant|>\n}. {@code prompt_tokens} of a chat request is the token count of this rendered text, so every
 * message costs a few tokens more than its content, as with real model templates. The markers are plain text to the
 * tokenizer (no special tokens), which keeps counts reproducible with any tokenizer.
 */
final class ChatTemplate {
    private ChatTemplate() {}

    record Message(String role, String content) {}

    static String render(List<Message> messages) {
        StringBuilder sb = new StringBuilder(64);
        for (Message m : messages) {
            sb.append("<|").append(m.role()).append("|>\n").append(m.content()).append('\n');
        }
        return sb.append("<|assistant|>\n").toString();
    }
}
