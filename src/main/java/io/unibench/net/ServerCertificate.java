package io.unibench.net;

import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.util.NetUtil;

import javax.net.ssl.SSLException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Base64;
import java.util.List;

/**
 * A key and certificate chain a TLS server presents: the simulator's ({@code unibench sim --tls}, read from PEM
 * files or made at start) and the client warm-up's loopback responder's (made for each warm-up, trusted by the
 * warm-up's client alone). Here, in {@code net}, because both {@code sim} and {@code client} use it.
 *
 * @param key   the private key
 * @param chain the certificate first, then any CAs between it and the root
 */
public record ServerCertificate(PrivateKey key, List<X509Certificate> chain) {

    /** The names a self-signed simulator certificate is valid for: the simulator's loopback addresses. */
    public static final List<String> LOOPBACK_NAMES = List.of("ip:127.0.0.1", "dns:localhost", "ip:::1");

    /** How long a self-signed certificate is valid; it is made again at every start. */
    private static final Duration VALIDITY = Duration.ofDays(30);

    // DER of the object identifiers used: ecdsa-with-SHA256 (1.2.840.10045.4.3.2) as an AlgorithmIdentifier without
    // parameters, id-at-commonName (2.5.4.3), id-ce-subjectAltName (2.5.29.17)
    private static final byte[] ECDSA_SHA256 =
            {0x30, 0x0A, 0x06, 0x08, 0x2A, (byte) 0x86, 0x48, (byte) 0xCE, 0x3D, 0x04, 0x03, 0x02};
    private static final byte[] COMMON_NAME = {0x06, 0x03, 0x55, 0x04, 0x03};
    private static final byte[] SUBJECT_ALT_NAME = {0x06, 0x03, 0x55, 0x1D, 0x11};

    public ServerCertificate {
        chain = List.copyOf(chain);
        if (chain.isEmpty()) throw new IllegalArgumentException("a certificate chain needs a certificate");
    }

    /**
     * A new EC P-256 key and a self-signed X.509 v3 certificate (SHA256withECDSA, CN=unibench) valid for 30 days for
     * the given subject alternative names: {@code ip:ADDRESS} (an IPv4 or IPv6 literal) or {@code dns:NAME}. Made in
     * this process in a few milliseconds (the JDK's keytool took 0.8 CPU-s in a JVM of its own, too slow for a
     * warm-up of at most 1 s), DER-encoded here because the JDK has no public certificate builder.
     *
     * @throws IllegalArgumentException when a name is neither {@code ip:} with an address literal nor {@code dns:}
     */
    public static ServerCertificate selfSigned(List<String> subjectAltNames) {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
            generator.initialize(new ECGenParameterSpec("secp256r1"));
            KeyPair pair = generator.generateKeyPair();
            byte[] serial = new byte[16];
            new SecureRandom().nextBytes(serial);
            serial[0] = (byte) ((serial[0] & 0x7F) | 0x40); // positive, and no leading zero byte to encode
            byte[] name = der(0x30, der(0x31, der(0x30, COMMON_NAME, der(0x0C, ascii("unibench")))));
            Instant now = Instant.now();
            byte[] tbs = der(0x30,
                    der(0xA0, der(0x02, new byte[] {2})), // v3
                    der(0x02, serial),
                    ECDSA_SHA256,
                    name,
                    der(0x30, utcTime(now.minus(Duration.ofMinutes(1))), utcTime(now.plus(VALIDITY))),
                    name,
                    pair.getPublic().getEncoded(), // the SubjectPublicKeyInfo, DER already
                    der(0xA3, der(0x30, der(0x30, SUBJECT_ALT_NAME, der(0x04, generalNames(subjectAltNames))))));
            Signature signer = Signature.getInstance("SHA256withECDSA");
            signer.initSign(pair.getPrivate());
            signer.update(tbs);
            byte[] signature = signer.sign(); // DER (r, s) already
            byte[] certificate = der(0x30, tbs, ECDSA_SHA256, der(0x03, new byte[] {0}, signature));
            X509Certificate parsed = (X509Certificate) CertificateFactory.getInstance("X.509")
                    .generateCertificate(new ByteArrayInputStream(certificate));
            return new ServerCertificate(pair.getPrivate(), List.of(parsed));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot make a certificate: " + e.getMessage(), e);
        }
    }

    /** GeneralNames: dNSName [2] IA5String, iPAddress [7] the address bytes (RFC 5280 4.2.1.6). */
    private static byte[] generalNames(List<String> names) {
        if (names.isEmpty()) throw new IllegalArgumentException("a certificate needs at least one name");
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        for (String n : names) {
            if (n.startsWith("dns:") && n.length() > 4) {
                all.writeBytes(der(0x82, ascii(n.substring(4))));
            } else if (n.startsWith("ip:") && isAddressLiteral(n.substring(3))) {
                all.writeBytes(der(0x87, address(n.substring(3))));
            } else {
                throw new IllegalArgumentException("not ip:ADDRESS or dns:NAME: " + n);
            }
        }
        return der(0x30, all.toByteArray());
    }

    private static boolean isAddressLiteral(String s) {
        return NetUtil.isValidIpV4Address(s) || NetUtil.isValidIpV6Address(s);
    }

    private static byte[] address(String literal) {
        try {
            return InetAddress.getByName(literal).getAddress(); // a literal: no lookup
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("not an address: " + literal, e);
        }
    }

    /** UTCTime, which RFC 5280 requires for dates through 2049. */
    private static byte[] utcTime(Instant t) {
        return der(0x17, ascii(DateTimeFormatter.ofPattern("yyMMddHHmmss'Z'").withZone(ZoneOffset.UTC).format(t)));
    }

    /** One DER element: its tag, its definite length, then its parts (a certificate stays far below 64 KiB). */
    private static byte[] der(int tag, byte[]... parts) {
        int length = 0;
        for (byte[] p : parts) length += p.length;
        ByteArrayOutputStream out = new ByteArrayOutputStream(length + 4);
        out.write(tag);
        if (length >= 0x100) {
            out.write(0x82);
            out.write(length >> 8);
        } else if (length >= 0x80) {
            out.write(0x81);
        }
        out.write(length);
        for (byte[] p : parts) out.writeBytes(p);
        return out.toByteArray();
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /** The certificate (first of the chain) in PEM, what a client passes as its trusted CA. */
    public String certificatePem() {
        return pem("CERTIFICATE", encoded(chain.get(0)));
    }

    /** The key in unencrypted PKCS#8 PEM ({@code BEGIN PRIVATE KEY}), the form {@code --tls-key} reads. */
    public String keyPem() {
        return pem("PRIVATE KEY", key.getEncoded());
    }

    /**
     * A TLS server context presenting this certificate (BoringSSL where it loads: {@link TlsProvider}) that selects
     * http/1.1 when the client offers it by ALPN, as nginx and the engines' servers answer the benchmark's client.
     */
    public SslContext serverContext() {
        try {
            return alpn(SslContextBuilder.forServer(key, chain.toArray(X509Certificate[]::new))).build();
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
            return alpn(SslContextBuilder.forServer(certFile.toFile(), keyFile.toFile())).build();
        } catch (SSLException | IllegalArgumentException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            throw new IllegalArgumentException(certFile + " / " + keyFile + ": not a PEM certificate chain and "
                    + "unencrypted PKCS#8 key (" + cause.getMessage() + ")", e);
        }
    }

    private static SslContextBuilder alpn(SslContextBuilder server) {
        return server.sslProvider(TlsProvider.best())
                .applicationProtocolConfig(new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN,
                        ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                        ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
                        ApplicationProtocolNames.HTTP_1_1));
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
}
