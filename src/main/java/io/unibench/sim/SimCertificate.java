package io.unibench.sim;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.unibench.net.TlsProvider;

import javax.net.ssl.SSLException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A key and certificate for the simulator's TLS ({@code unibench sim --tls}): made at start by the JDK's own
 * {@code keytool} (no key is ever shipped, and no certificate library is needed), or read from PEM files.
 *
 * @param key   the private key
 * @param chain the certificate first, then any CAs between it and the root
 */
public record SimCertificate(PrivateKey key, List<X509Certificate> chain) {

    /** The names a self-signed simulator certificate is valid for: the simulator's loopback addresses. */
    public static final List<String> LOOPBACK_NAMES = List.of("ip:127.0.0.1", "dns:localhost", "ip:::1");

    public SimCertificate {
        chain = List.copyOf(chain);
        if (chain.isEmpty()) throw new IllegalArgumentException("a certificate chain needs a certificate");
    }

    /**
     * A new EC P-256 key and a self-signed certificate valid for 30 days for the given subject alternative names
     * in keytool's syntax ({@code ip:127.0.0.1}, {@code dns:localhost}).
     *
     * @throws IllegalStateException when keytool is missing or fails (a JRE without it, a read-only temp folder)
     */
    public static SimCertificate selfSigned(List<String> subjectAltNames) {
        Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        if (!Files.isExecutable(keytool)) {
            throw new IllegalStateException("no keytool in this Java runtime (" + keytool + ")");
        }
        Path dir = null;
        try {
            dir = Files.createTempDirectory("unibench-cert");
            Path store = dir.resolve("sim.p12");
            byte[] secret = new byte[16];
            new SecureRandom().nextBytes(secret);
            String password = HexFormat.of().formatHex(secret);
            ProcessBuilder pb = new ProcessBuilder(keytool.toString(), "-genkeypair", "-noprompt",
                    "-keystore", store.toString(), "-storetype", "PKCS12", "-storepass:env", "UNIBENCH_KS_PASS",
                    "-alias", "sim", "-keyalg", "EC", "-groupname", "secp256r1", "-sigalg", "SHA256withECDSA",
                    "-dname", "CN=unibench-sim", "-ext", "SAN=" + String.join(",", subjectAltNames),
                    "-validity", "30")
                    .redirectErrorStream(true);
            pb.environment().put("UNIBENCH_KS_PASS", password); // not on the command line, where ps shows it
            Process p = pb.start();
            byte[] output = p.getInputStream().readAllBytes();
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IllegalStateException("keytool failed: " + new String(output, StandardCharsets.UTF_8).strip());
            }
            return fromKeyStore(store, password.toCharArray());
        } catch (IOException e) {
            throw new IllegalStateException("cannot make a certificate with " + keytool + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while making a certificate", e);
        } finally {
            deleteQuietly(dir);
        }
    }

    private static SimCertificate fromKeyStore(Path store, char[] password) throws IOException {
        try (InputStream in = Files.newInputStream(store)) {
            KeyStore ks = KeyStore.getInstance("PKCS12");
            ks.load(in, password);
            List<X509Certificate> chain = new ArrayList<>();
            for (var c : ks.getCertificateChain("sim")) chain.add((X509Certificate) c);
            return new SimCertificate((PrivateKey) ks.getKey("sim", password), chain);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot read the keystore keytool made: " + e.getMessage(), e);
        }
    }

    /** The certificate (first of the chain) in PEM, what a client passes as its trusted CA. */
    public String certificatePem() {
        return pem("CERTIFICATE", encoded(chain.get(0)));
    }

    /** The key in unencrypted PKCS#8 PEM ({@code BEGIN PRIVATE KEY}), the form {@code --tls-key} reads. */
    public String keyPem() {
        return pem("PRIVATE KEY", key.getEncoded());
    }

    /** A TLS server context presenting this certificate (BoringSSL where it loads: {@link TlsProvider}). */
    public SslContext serverContext() {
        try {
            return SslContextBuilder.forServer(key, chain.toArray(X509Certificate[]::new))
                    .sslProvider(TlsProvider.best()).build();
        } catch (SSLException e) {
            throw new IllegalStateException("cannot set up TLS: " + e.getMessage(), e);
        }
    }

    /**
     * A TLS server context from PEM files: the certificate chain, and an unencrypted PKCS#8 key.
     *
     * @throws IllegalArgumentException with a one-line reason naming the file at fault
     */
    public static SslContext serverContext(Path certFile, Path keyFile) {
        for (Path f : List.of(certFile, keyFile)) {
            if (!Files.isReadable(f)) throw new IllegalArgumentException(f + ": no such file or not readable");
        }
        try {
            return SslContextBuilder.forServer(certFile.toFile(), keyFile.toFile())
                    .sslProvider(TlsProvider.best()).build();
        } catch (SSLException | IllegalArgumentException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            throw new IllegalArgumentException(certFile + " / " + keyFile + ": not a PEM certificate chain and "
                    + "unencrypted PKCS#8 key (" + cause.getMessage() + ")", e);
        }
    }

    private static byte[] encoded(X509Certificate c) {
        try {
            return c.getEncoded();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }

    private static void deleteQuietly(Path dir) {
        if (dir == null) return;
        try (var files = Files.list(dir)) {
            for (Path f : files.toList()) Files.deleteIfExists(f);
            Files.deleteIfExists(dir);
        } catch (IOException | UncheckedIOException ignored) {
            // a temp folder left behind holds a keystore of a throwaway key, nothing more
        }
    }
}
