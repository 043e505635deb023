package io.unibench.net;

import org.junit.jupiter.api.Test;

import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The certificate made in process reads back as the X.509 it claims to be (the TLS use of it: HttpsTest, SniTest). */
class ServerCertificateTest {
    @Test
    void aSelfSignedCertificateNamesItsAddressesAndHostsAndVerifiesWithItsOwnKey() throws Exception {
        Instant before = Instant.now();
        ServerCertificate made = ServerCertificate.selfSigned(List.of("ip:127.0.0.1", "dns:localhost", "ip:::1",
                "dns:api.example.com"));
        X509Certificate cert = made.chain().get(0);

        assertThat(cert.getVersion()).isEqualTo(3);
        assertThat(cert.getSigAlgName()).isEqualTo("SHA256withECDSA");
        assertThat(cert.getSubjectX500Principal().getName()).isEqualTo("CN=unibench");
        assertThat(cert.getIssuerX500Principal()).isEqualTo(cert.getSubjectX500Principal());
        assertThat(cert.getSerialNumber().signum()).isPositive();
        cert.verify(cert.getPublicKey()); // self-signed: throws when the signature or the encoding is wrong
        assertThat(cert.getPublicKey().getAlgorithm()).isEqualTo("EC");
        assertThat(made.key().getAlgorithm()).isEqualTo("EC");
        // type 7 iPAddress, type 2 dNSName, in the order given (the JDK prints IPv6 in full)
        assertThat(cert.getSubjectAlternativeNames()).containsExactly(List.of(7, "127.0.0.1"), List.of(2, "localhost"),
                List.of(7, "0:0:0:0:0:0:0:1"), List.of(2, "api.example.com"));
        cert.checkValidity(); // valid now
        assertThat(cert.getNotAfter().toInstant()).isBetween(before.plus(Duration.ofDays(30)).minusSeconds(2),
                Instant.now().plus(Duration.ofDays(30)));
        assertThat(made.certificatePem()).startsWith("-----BEGIN CERTIFICATE-----\n");
    }

    @Test
    void eachCertificateHasAKeyOfItsOwn() {
        ServerCertificate a = ServerCertificate.selfSigned(List.of("dns:localhost"));
        ServerCertificate b = ServerCertificate.selfSigned(List.of("dns:localhost"));
        assertThat(a.key().getEncoded()).isNotEqualTo(b.key().getEncoded());
        assertThat(a.chain().get(0).getSerialNumber()).isNotEqualTo(b.chain().get(0).getSerialNumber());
    }

    @Test
    void aNameThatIsNeitherAnAddressNorADnsNameIsRefused() {
        assertThatThrownBy(() -> ServerCertificate.selfSigned(List.of("ip:not-an-address")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ip:not-an-address");
        assertThatThrownBy(() -> ServerCertificate.selfSigned(List.of("localhost")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("localhost");
        assertThatThrownBy(() -> ServerCertificate.selfSigned(List.of()))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
