package io.unibench.net;

import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslProvider;
import io.unibench.BadInputException;

import java.util.Locale;

/**
 * The TLS implementation of the client and the simulator. BoringSSL (netty-tcnative) where its native library
 * loads: over https the JDK's SSLEngine cost 16x the CPU of plain http per streamed request under the launcher's
 * C1-only JIT, which does not intrinsify AES-GCM, and BoringSSL 1.3x (bench/HISTORY.md, "HTTPS"). Elsewhere the JDK's.
 *
 * <p>{@code -Dunibench.tls=jdk} forces the JDK's (to compare, or to get around a broken native library);
 * {@code =openssl} fails loudly when BoringSSL cannot load instead of falling back.
 */
public final class TlsProvider {

    /** The system property that overrides the choice: {@code jdk}, {@code openssl} or {@code auto} (the default). */
    public static final String PROPERTY = "unibench.tls";

    private TlsProvider() {}

    /**
     * The provider to use now (read at each client or simulator start, like {@link Transport#best()}).
     *
     * @throws BadInputException when the property names no provider, or openssl where it cannot load
     */
    public static SslProvider best() {
        String wanted = System.getProperty(PROPERTY, "auto");
        return switch (wanted.toLowerCase(Locale.ROOT)) {
            case "jdk" -> SslProvider.JDK;
            case "openssl" -> {
                if (!OpenSsl.isAvailable()) {
                    throw new BadInputException("-D" + PROPERTY + "=openssl but BoringSSL is unavailable here: "
                            + OpenSsl.unavailabilityCause());
                }
                yield SslProvider.OPENSSL;
            }
            case "auto", "" -> OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK;
            default -> throw new BadInputException("-D" + PROPERTY + " must be auto, openssl or jdk, got " + wanted);
        };
    }
}
