package io.unibench.client;

import io.netty.handler.ssl.util.InsecureTrustManagerFactory;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;

/**
 * How {@code https://} connections check the server. By default as a browser does: the certificate chain must lead to
 * a CA of the JDK's trust store and name the host of the URL (endpoint identification "HTTPS").
 *
 * @param trustedCas CAs trusted instead of the JDK's trust store (as curl's {@code --cacert}); empty = the trust store
 * @param insecure   accept any certificate for any host: no verification at all, for self-signed lab servers
 */
public record TlsOptions(List<X509Certificate> trustedCas, boolean insecure) {

    /** Verification on, the JDK's trust store. */
    public static final TlsOptions DEFAULT = new TlsOptions(List.of(), false);

    public TlsOptions {
        trustedCas = List.copyOf(trustedCas);
        if (insecure && !trustedCas.isEmpty()) {
            throw new IllegalArgumentException("trusted CAs given with verification off: they would never be used");
        }
    }

    /**
     * These options for a JDK client ({@code java.net.http}: the server-metrics scrape of the same target): the given
     * CAs, else the JDK's trust store; with {@link #insecure()} no check at all (the host-name check is the trust
     * manager's, so it goes too, as it does for the benchmark's own connections).
     */
    public SSLContext jdkContext() {
        try {
            if (!insecure && trustedCas.isEmpty()) return SSLContext.getDefault();
            TrustManagerFactory trust;
            if (insecure) {
                trust = InsecureTrustManagerFactory.INSTANCE;
            } else {
                KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
                store.load(null, null);
                for (int i = 0; i < trustedCas.size(); i++) store.setCertificateEntry("ca-" + i, trustedCas.get(i));
                trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
                trust.init(store);
            }
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, trust.getTrustManagers(), null);
            return context;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("cannot set up the JDK's TLS: " + e.getMessage(), e);
        }
    }

    /**
     * The certificates of a PEM file (one or more {@code -----BEGIN CERTIFICATE-----} blocks, DER also works).
     *
     * @throws IllegalArgumentException with a one-line reason when the file is missing, unreadable or holds none
     */
    public static List<X509Certificate> readCertificates(Path file) {
        if (!Files.isRegularFile(file)) throw new IllegalArgumentException("no such file");
        try (InputStream in = Files.newInputStream(file)) {
            List<X509Certificate> out = new ArrayList<>();
            for (var c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                out.add((X509Certificate) c);
            }
            if (out.isEmpty()) throw new IllegalArgumentException("no PEM certificate in it");
            return out;
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read: " + ErrorMapping.message(e));
        } catch (CertificateException e) {
            throw new IllegalArgumentException("not a PEM certificate file (" + ErrorMapping.message(e) + ")");
        }
    }
}
