package io.unibench.check;

import io.unibench.client.ClientResult;

/** How many tokens a reply carried: the server's usage, else the count of token chunks (at most one token each). */
final class Generated {
    private Generated() {}

    static int tokens(ClientResult r) {
        return r.usage() != null ? r.usage().completionTokens() : r.tokenChunkNanos().length;
    }
}
