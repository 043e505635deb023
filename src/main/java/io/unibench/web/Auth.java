package io.unibench.web;

import io.javalin.http.Context;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The service's one bearer token. API calls send {@code Authorization: Bearer …}; the browser sends it once through
 * the login form and then carries it in an {@code HttpOnly}, {@code SameSite=Strict} cookie (no script can read it,
 * no other site can make the browser send it). Compared in constant time: SHA-256 of both sides, then
 * {@link MessageDigest#isEqual}, so neither the length nor a common prefix shows in the timing.
 */
final class Auth {
    static final String COOKIE = "unibench_token";
    private final byte[] tokenHash;

    Auth(String token) {
        this.tokenHash = token == null ? null : sha256(token);
    }

    boolean required() {
        return tokenHash != null;
    }

    /** True when no token is configured, or the request carries it (header or cookie). */
    boolean allows(Context ctx) {
        if (tokenHash == null) return true;
        String header = ctx.header("Authorization");
        if (header != null && header.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return matches(header.substring(7).strip());
        }
        String cookie = ctx.cookie(COOKIE);
        return cookie != null && matches(java.net.URLDecoder.decode(cookie, StandardCharsets.UTF_8));
    }

    boolean matches(String presented) {
        return tokenHash != null && presented != null && MessageDigest.isEqual(tokenHash, sha256(presented));
    }

    /** The cookie holding the token for the browser's later requests (session cookie: gone when it closes). */
    static String cookieHeader(String token) {
        return COOKIE + "=" + java.net.URLEncoder.encode(token, StandardCharsets.UTF_8)
                + "; Path=/; HttpOnly; SameSite=Strict";
    }

    private static byte[] sha256(String s) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
