package io.unibench.web;

import io.javalin.http.Context;

import java.net.URI;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * What every request passes before the token is looked at: the browser-side attacks a page of another site can
 * make on a service the user runs (the quick-start mode has no token, so this is all that stands in the way).
 * <ul>
 * <li><b>DNS rebinding.</b> A service bound to loopback answers only to a loopback host name ({@code 127.0.0.1},
 *     {@code localhost}, {@code [::1]}, the bound name) or the configured public URL's host: a foreign name that
 *     resolves to 127.0.0.1 gets 421. Checked by name; the port is not (a rebound name cannot become a loopback
 *     name, whatever its port).</li>
 * <li><b>Cross-site requests (CSRF).</b> A state-changing method (POST, PUT, PATCH, DELETE) is refused with 403 when
 *     its {@code Origin} (or, without one, its {@code Referer}) is not the service's own: the {@code Host} the request
 *     was sent to, or the public URL's. A request with neither header (curl, the CLI, scripts: no browser sends a
 *     cross-site POST without {@code Origin}) passes — unless it carries the session cookie, which only a browser
 *     holds. In token mode such a request still needs the token.</li>
 * <li><b>Framing and injected scripts.</b> Every answer says {@code X-Frame-Options: DENY} and a content security
 *     policy: scripts, styles, images and connections from the service itself only, no inline script or style, no
 *     frame ancestor, forms posting only to the service. The self-contained report ({@link #REPORT_POLICY}) keeps
 *     its inlined scripts in a sandbox: an opaque origin, so nothing in it can reach the service's API.</li>
 * </ul>
 */
final class RequestGuard {
    static final String PAGE_POLICY = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            + "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
            + "frame-ancestors 'none'";
    /** The downloadable report: its scripts and styles are inline (it opens offline), so it runs sandboxed. */
    static final String REPORT_POLICY = "sandbox allow-scripts; default-src 'none'; script-src 'unsafe-inline'; "
            + "style-src 'unsafe-inline'; img-src data:; frame-ancestors 'none'";
    private static final Set<String> UNSAFE = Set.of("POST", "PUT", "PATCH", "DELETE");

    private final Set<String> loopbackNames; // null: not bound to loopback, any Host is served
    private final String publicAuthority;   // host[:port] of the public URL, lower case, or null

    /**
     * @param loopback  the service listens on loopback only (its Host names are checked)
     * @param boundHost the address it is bound to, as given ({@code --host})
     * @param publicUrl where users reach it ({@code UNIBENCH_PUBLIC_URL}), or null
     */
    RequestGuard(boolean loopback, String boundHost, String publicUrl) {
        this.publicAuthority = publicUrl == null || publicUrl.isBlank() ? null : authority(publicUrl);
        String bound = boundHost.contains(":") && !boundHost.startsWith("[") ? "[" + boundHost + "]" : boundHost;
        Set<String> names = new java.util.HashSet<>(List.of("127.0.0.1", "localhost", "[::1]",
                bound.toLowerCase(Locale.ROOT)));
        if (publicAuthority != null) names.add(hostOf(publicAuthority));
        this.loopbackNames = !loopback ? null : Set.copyOf(names);
    }

    /** Refuses (421 or 403, one line) what a foreign page could make the browser send; sets the security headers. */
    void check(Context ctx) {
        ctx.header("X-Frame-Options", "DENY");
        ctx.header("Content-Security-Policy", PAGE_POLICY);
        ctx.header("X-Content-Type-Options", "nosniff");
        ctx.header("Referrer-Policy", "same-origin");
        String host = ctx.header("Host");
        String authority = host == null ? "" : host.strip().toLowerCase(Locale.ROOT);
        if (loopbackNames != null && !loopbackNames.contains(hostOf(authority))) {
            throw new ApiError(421, "Host '" + clip(host) + "': this service listens on loopback and answers only to "
                    + "127.0.0.1, localhost or [::1] (or the host of UNIBENCH_PUBLIC_URL)");
        }
        if (!UNSAFE.contains(ctx.method().name())) return;
        String origin = ctx.header("Origin");
        String from = origin != null ? origin : ctx.header("Referer");
        if (from == null) {
            if (ctx.cookie(Auth.COOKIE) != null) {
                throw new ApiError(403, "cross-site request refused: a browser request that changes something must "
                        + "say its Origin");
            }
            return; // not a browser: curl, the CLI, a script (the token, when set, is checked next)
        }
        String source = authorityOrNull(from);
        if (source == null || !(source.equals(authority) || source.equals(publicAuthority))) {
            throw new ApiError(403, "cross-site request refused: " + (origin != null ? "Origin" : "Referer") + " '"
                    + clip(from) + "' is not this service's own origin");
        }
    }

    /** host[:port] of a URL, lower case; null for "null" or anything that is not an absolute URL. */
    private static String authorityOrNull(String url) {
        try {
            URI u = URI.create(url.strip());
            return u.getRawAuthority() == null || u.getScheme() == null ? null
                    : u.getRawAuthority().toLowerCase(Locale.ROOT);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static String authority(String url) {
        String a = authorityOrNull(url);
        if (a == null) throw new io.unibench.BadInputException("UNIBENCH_PUBLIC_URL '" + url + "': not an absolute URL");
        return a;
    }

    /** The name of host[:port]: {@code [::1]} of {@code [::1]:8080}, {@code localhost} of {@code localhost:80}. */
    static String hostOf(String authority) {
        if (authority.startsWith("[")) {
            int end = authority.indexOf(']');
            return end < 0 ? authority : authority.substring(0, end + 1);
        }
        int colon = authority.indexOf(':');
        return colon < 0 ? authority : authority.substring(0, colon);
    }

    private static String clip(String s) {
        if (s == null) return "";
        String one = s.replaceAll("[\\r\\n\\t]", " ");
        return one.length() > 100 ? one.substring(0, 100) + "…" : one;
    }
}
