package io.unibench.web;

import io.unibench.BadInputException;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * How {@code unibench serve} listens.
 *
 * @param host  address to bind; anything but loopback needs a token
 * @param port  0 for a free port (tests)
 * @param token the bearer token every API call and page needs, or null (loopback only); off loopback at least
 *              {@value #MIN_TOKEN_CHARS} characters
 * @param publicUrl where users reach the service ({@code UNIBENCH_PUBLIC_URL}), or null: its origin is the
 *              service's own too (a reverse proxy), its host is served on loopback, and https makes the session
 *              cookie {@code Secure}
 */
public record WebConfig(String host, int port, String token, String publicUrl) {
    /** A token a network attacker cannot guess: {@code openssl rand -hex 32} gives 64. */
    public static final int MIN_TOKEN_CHARS = 32;

    public WebConfig {
        if (port < 0 || port > 65535) throw new BadInputException("--port " + port + ": 0 … 65535");
        if (token != null && token.isBlank()) token = null;
        if (publicUrl != null && publicUrl.isBlank()) publicUrl = null;
        if (token == null && !loopback(host)) {
            throw new BadInputException("--host " + host + ": binding an address other than loopback needs a token "
                    + "(set UNIBENCH_TOKEN, or the variable --token-env names)");
        }
        if (token != null && token.strip().length() < MIN_TOKEN_CHARS && !loopback(host)) {
            throw new BadInputException("--host " + host + ": the token has " + token.strip().length()
                    + " characters; off loopback it needs at least " + MIN_TOKEN_CHARS + " (make one with "
                    + "`openssl rand -hex 32`)");
        }
    }

    public WebConfig(String host, int port, String token) {
        this(host, port, token, null);
    }

    /** The browser reaches the service over https (behind a proxy): its cookie is {@code Secure}. */
    boolean https() {
        return publicUrl != null && publicUrl.regionMatches(true, 0, "https://", 0, 8);
    }

    /** True when every address the name resolves to is a loopback address. */
    static boolean loopback(String host) {
        try {
            InetAddress[] all = InetAddress.getAllByName(host);
            for (InetAddress a : all) if (!a.isLoopbackAddress()) return false;
            return all.length > 0;
        } catch (UnknownHostException e) {
            throw new BadInputException("--host " + host + ": unknown host");
        }
    }
}
