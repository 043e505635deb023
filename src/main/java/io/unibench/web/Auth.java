package io.unibench.web;

import io.javalin.http.Context;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The service's one bearer token. API calls send {@code Authorization: Bearer …}; the browser sends it once through
 * the login form and then carries a session: a random id (never the token) in an {@code HttpOnly},
 * {@code SameSite=Strict} cookie, {@code Secure} when the public URL is https. Sessions live in the service's memory
 * for {@value #SESSION_MS} ms, until the logout or a restart. The token is compared in constant time: SHA-256 of both
 * sides, then {@link MessageDigest#isEqual}, so neither the length nor a common prefix shows in the timing. Failed
 * attempts (form or bearer) are throttled per client ({@link LoginThrottle}): 429 while a client must wait.
 */
final class Auth {
    static final String COOKIE = "unibench_session";
    static final long SESSION_MS = 12 * 3600_000L;
    static final int MAX_SESSIONS = 10_000;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final byte[] tokenHash;
    private final boolean secure;
    private final LongSupplier clock;
    private final LoginThrottle throttle;
    private final Map<String, Long> sessions = new LinkedHashMap<>(16, 0.75f, false) { // id → created
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Long> eldest) {
            return size() > MAX_SESSIONS;
        }
    };

    /** @param secure the browser reaches the service over https (its cookie is {@code Secure}) */
    Auth(String token, boolean secure, LongSupplier clock) {
        this.tokenHash = token == null ? null : sha256(token);
        this.secure = secure;
        this.clock = clock;
        this.throttle = new LoginThrottle(clock);
    }

    boolean required() {
        return tokenHash != null;
    }

    /** True when no token is configured, or the request carries it (bearer) or a live session cookie. */
    boolean allows(Context ctx) {
        if (tokenHash == null) return true;
        String header = ctx.header("Authorization");
        if (header != null && header.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return check(ctx.ip(), header.substring(7).strip());
        }
        String cookie = ctx.cookie(COOKIE);
        return cookie != null && session(cookie);
    }

    /**
     * One attempt of a client with a token: refused with 429 (without looking) while the client must wait, else
     * compared, a failure counted.
     */
    boolean check(String client, String presented) {
        long wait = throttle.waitMs(client);
        if (wait > 0) {
            throw new ApiError(429, "too many wrong tokens from " + client + ": try again in "
                    + Math.max(1, (wait + 999) / 1000) + " s");
        }
        boolean ok = tokenHash != null && presented != null && MessageDigest.isEqual(tokenHash, sha256(presented));
        if (ok) throttle.succeeded(client);
        else throttle.failed(client);
        return ok;
    }

    /** A new session: the {@code Set-Cookie} value carrying its random id. */
    synchronized String newSession() {
        byte[] id = new byte[32];
        RANDOM.nextBytes(id);
        String s = HexFormat.of().formatHex(id);
        sessions.put(s, clock.getAsLong());
        return COOKIE + "=" + s + "; Path=/; HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "");
    }

    synchronized boolean session(String id) {
        Long created = sessions.get(id);
        if (created == null) return false;
        if (clock.getAsLong() - created >= SESSION_MS) {
            sessions.remove(id);
            return false;
        }
        return true;
    }

    /** Ends the request's session; the {@code Set-Cookie} value that clears the cookie. */
    synchronized String endSession(Context ctx) {
        String cookie = ctx.cookie(COOKIE);
        if (cookie != null) sessions.remove(cookie);
        return COOKIE + "=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "");
    }

    private static byte[] sha256(String s) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
