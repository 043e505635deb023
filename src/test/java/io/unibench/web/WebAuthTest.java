package io.unibench.web;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/** A service with a token (on loopback): the API needs the bearer, the browser signs in once and keeps a cookie. */
class WebAuthTest {
    private static final String TOKEN = "tok-9d2c1e";

    @TempDir
    static Path dir;

    private static WebFixture f;
    private static final HttpClient PLAIN = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();

    @BeforeAll
    static void start() throws Exception {
        f = new WebFixture(dir, TOKEN);
    }

    @AfterAll
    static void stop() throws Exception {
        f.close();
    }

    private static HttpResponse<String> get(String path, String header, String value) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(f.base() + path));
        if (header != null) b.header(header, value);
        return PLAIN.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void apiNeedsTheBearerToken() throws Exception {
        for (String path : new String[] {"/api/runs", "/api/runs/" + f.runIds.get(0), "/metrics", "/api/openapi.json"}) {
            HttpResponse<String> none = get(path, null, null);
            assertThat(none.statusCode()).as(path).isEqualTo(401);
            assertThat(none.body()).contains("\"error\"");
            assertThat(none.headers().firstValue("WWW-Authenticate")).hasValue("Bearer");
            assertThat(get(path, "Authorization", "Bearer wrong").statusCode()).as(path).isEqualTo(401);
            assertThat(get(path, "Authorization", "Bearer " + TOKEN + "x").statusCode()).as(path).isEqualTo(401);
            assertThat(get(path, "Authorization", "Bearer " + TOKEN).statusCode()).as(path).isEqualTo(200);
        }
        assertThat(get("/healthz", null, null).statusCode()).isEqualTo(200);
        // creating, cancelling and watching runs need it too; nothing is queued without it
        long runs = f.store.count();
        String id = f.runIds.get(0);
        for (String path : new String[] {"/api/runs", "/api/runs/" + id + "/cancel", "/api/scenarios/validate",
                "/api/connection-test", "/api/runs/import?file=x.yaml"}) {
            HttpResponse<String> r = PLAIN.send(HttpRequest.newBuilder(URI.create(f.base() + path))
                    .header("Content-Type", "application/yaml").POST(HttpRequest.BodyPublishers.ofString("name: x\n"))
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as(path).isEqualTo(401);
        }
        assertThat(get("/api/runs/" + id + "/events", null, null).statusCode()).isEqualTo(401);
        assertThat(get("/api/runs/" + id + "/events", "Authorization", "Bearer " + TOKEN).statusCode()).isEqualTo(200);
        assertThat(get("/api/runs/" + id + "/export?format=br-v0.2", null, null).statusCode()).isEqualTo(401);
        // the runs page's import form without the session: to the login page, nothing imported
        HttpResponse<String> form = PLAIN.send(HttpRequest.newBuilder(URI.create(f.base() + "/runs/import"))
                .header("Content-Type", "multipart/form-data; boundary=b").POST(HttpRequest.BodyPublishers.ofString(
                        "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"x.yaml\"\r\n\r\nname: x\r\n--b--\r\n"))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(form.statusCode()).isEqualTo(302);
        assertThat(form.headers().firstValue("Location")).hasValue("/login");
        assertThat(f.store.count()).isEqualTo(runs);
    }

    @Test
    void pagesAskOnceThenTheCookieCarriesTheToken() throws Exception {
        HttpResponse<String> home = get("/", null, null);
        assertThat(home.statusCode()).isEqualTo(302);
        assertThat(home.headers().firstValue("Location")).hasValue("/login");
        assertThat(get("/login", null, null).body()).contains("<form class=\"login\"");

        HttpResponse<String> wrong = post("token=nope");
        assertThat(wrong.statusCode()).isEqualTo(401);
        assertThat(wrong.headers().firstValue("Set-Cookie")).isEmpty();

        HttpResponse<String> ok = post("token=" + URLEncoder.encode(TOKEN, StandardCharsets.UTF_8));
        assertThat(ok.statusCode()).isEqualTo(303);
        String cookie = ok.headers().firstValue("Set-Cookie").orElseThrow();
        assertThat(cookie).startsWith(Auth.COOKIE + "=").contains("HttpOnly").contains("SameSite=Strict");
        String pair = cookie.substring(0, cookie.indexOf(';'));
        HttpResponse<String> page = get("/", "Cookie", pair);
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.body()).contains(f.runIds.get(0));
        assertThat(get("/api/runs", "Cookie", pair).statusCode()).isEqualTo(200);
        assertThat(get("/", "Cookie", Auth.COOKIE + "=forged").statusCode()).isEqualTo(302);
        // the cookie holds a random session id, never the token (it held the raw token)
        assertThat(cookie).doesNotContain(TOKEN).doesNotContain(URLEncoder.encode(TOKEN, StandardCharsets.UTF_8));
        assertThat(pair.substring(pair.indexOf('=') + 1)).matches("[0-9a-f]{64}");
        assertThat(page.body()).contains("action=\"/logout\"");
        // signing out ends the session: the same cookie opens nothing any more
        HttpResponse<String> out = PLAIN.send(HttpRequest.newBuilder(URI.create(f.base() + "/logout"))
                .header("Cookie", pair).header("Origin", f.base()).POST(HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(out.statusCode()).isEqualTo(303);
        assertThat(out.headers().firstValue("Location")).hasValue("/login");
        assertThat(out.headers().firstValue("Set-Cookie").orElseThrow()).contains("Max-Age=0");
        assertThat(get("/", "Cookie", pair).statusCode()).isEqualTo(302);
        assertThat(get("/api/runs", "Cookie", pair).statusCode()).isEqualTo(401);
    }

    @Test
    void aBrowserWriteWithTheCookieButNoOriginIsRefused() throws Exception {
        String pair = post("token=" + URLEncoder.encode(TOKEN, StandardCharsets.UTF_8)).headers()
                .firstValue("Set-Cookie").orElseThrow().split(";")[0];
        HttpResponse<String> r = PLAIN.send(HttpRequest.newBuilder(URI.create(f.base() + "/api/runs/"
                + f.runIds.get(0) + "/cancel")).header("Cookie", pair).POST(HttpRequest.BodyPublishers.noBody())
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(403);
    }

    @Test
    void failedTokensAreThrottledPerClientOnTheInjectedClock() {
        long[] now = {1_000_000};
        Auth auth = new Auth("right-token", false, () -> now[0]);
        for (int i = 0; i < LoginThrottle.FREE; i++) assertThat(auth.check("10.0.0.1", "wrong" + i)).isFalse();
        // the sixth attempt at once is not even looked at, the right token neither; another client is not slowed
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> auth.check("10.0.0.1", "right-token"))
                .isInstanceOf(ApiError.class).hasMessageContaining("try again in 1 s");
        assertThat(auth.check("10.0.0.2", "right-token")).isTrue();
        now[0] += 1000; // waited: one more attempt, wrong: the wait doubles
        assertThat(auth.check("10.0.0.1", "wrong")).isFalse();
        now[0] += 1000;
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> auth.check("10.0.0.1", "wrong"))
                .isInstanceOf(ApiError.class).hasMessageContaining("try again in 1 s");
        now[0] += 1000;
        assertThat(auth.check("10.0.0.1", "right-token")).isTrue(); // a success forgets the failures
        assertThat(auth.check("10.0.0.1", "wrong")).isFalse();
        assertThat(auth.check("10.0.0.1", "right-token")).isTrue();
    }

    @Test
    void theSessionCookieIsSecureBehindHttps() {
        Auth auth = new Auth("right-token", true, () -> 0L);
        assertThat(auth.newSession()).contains("; Secure").contains("SameSite=Strict").contains("HttpOnly");
        assertThat(new Auth("right-token", false, () -> 0L).newSession()).doesNotContain("Secure");
    }

    private static HttpResponse<String> post(String form) throws Exception {
        return PLAIN.send(HttpRequest.newBuilder(URI.create(f.base() + "/login"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
