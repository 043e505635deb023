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
                "/api/connection-test"}) {
            HttpResponse<String> r = PLAIN.send(HttpRequest.newBuilder(URI.create(f.base() + path))
                    .header("Content-Type", "application/yaml").POST(HttpRequest.BodyPublishers.ofString("name: x\n"))
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as(path).isEqualTo(401);
        }
        assertThat(get("/api/runs/" + id + "/events", null, null).statusCode()).isEqualTo(401);
        assertThat(get("/api/runs/" + id + "/events", "Authorization", "Bearer " + TOKEN).statusCode()).isEqualTo(200);
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
    }

    private static HttpResponse<String> post(String form) throws Exception {
        return PLAIN.send(HttpRequest.newBuilder(URI.create(f.base() + "/login"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
