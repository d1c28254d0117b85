package io.zmqzstd.benchmark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.luben.zstd.Zstd;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class PayloadsTest {

    @Test
    void shouldGenerateTheSameBytesForTheSameSeed() {
        assertArrayEquals(Payloads.telemetry(5000, 3), Payloads.telemetry(5000, 3));
        assertArrayEquals(Payloads.binary(5000, 3), Payloads.binary(5000, 3));
        assertEquals(64, Payloads.generate(Payloads.TELEMETRY, 64, 1).length);
        // and the seed matters: a generator that ignored it would pass the lines above
        assertFalse(Arrays.equals(Payloads.telemetry(5000, 3), Payloads.telemetry(5000, 4)));
        assertFalse(Arrays.equals(Payloads.binary(5000, 3), Payloads.binary(5000, 4)));
    }

    @Test
    void shouldMakeTelemetryMoreCompressibleThanBinary() {
        int size = 1 << 20;
        double telemetry = (double) size / Zstd.compress(Payloads.telemetry(size, 1), 3).length;
        double binary = (double) size / Zstd.compress(Payloads.binary(size, 1), 3).length;
        assertTrue(telemetry > 3, "telemetry ratio " + telemetry);
        assertTrue(binary > 1.2 && binary < 2.5, "binary ratio " + binary);
    }
}
