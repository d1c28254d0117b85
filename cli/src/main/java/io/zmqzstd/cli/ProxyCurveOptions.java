package io.zmqzstd.cli;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.nio.file.Path;

/**
 * The proxy's CURVE options, one set per side (a picocli mixin): each side, independently, a CURVE
 * server, a client or plain, as send's and recv's {@link CurveOptions}; {@link CurveSide} does the
 * work, with these names in its messages.
 */
final class ProxyCurveOptions {

    private static final CurveSide.Names FRONTEND = CurveSide.Names.withPrefix("--frontend-", true);
    private static final CurveSide.Names BACKEND = CurveSide.Names.withPrefix("--backend-", true);

    private static final String SERVER_KEY = " is a CURVE client of the server with this public key (Z85, 40 chars), or the key"
            + " read from FILE (a valid key that begins with '@' is the key unless a file of that name exists).";
    private static final String KEY_PAIR = " key pair, as written by 'keygen --out' (server: its secret key is used;"
            + " client: optional, a fresh pair otherwise).";

    @Spec(Spec.Target.MIXEE)
    CommandSpec spec;

    @Option(names = "--frontend-curve-server",
            description = "The frontend is a CURVE server: senders need its public key (needs --frontend-curve-secret-key-file"
                    + " or --frontend-curve-keypair-file).")
    boolean frontendServer;

    @Option(names = "--frontend-curve-server-key", paramLabel = "KEY|@FILE", description = "The frontend" + SERVER_KEY)
    String frontendServerKey;

    @Option(names = "--frontend-curve-secret-key-file", paramLabel = "FILE", description = "The frontend's secret key (server).")
    Path frontendSecretKeyFile;

    @Option(names = "--frontend-curve-keypair-file", paramLabel = "FILE", description = "The frontend's" + KEY_PAIR)
    Path frontendKeyPairFile;

    @Option(names = "--backend-curve-server",
            description = "The backend is a CURVE server: receivers need its public key (needs --backend-curve-secret-key-file"
                    + " or --backend-curve-keypair-file).")
    boolean backendServer;

    @Option(names = "--backend-curve-server-key", paramLabel = "KEY|@FILE", description = "The backend" + SERVER_KEY)
    String backendServerKey;

    @Option(names = "--backend-curve-secret-key-file", paramLabel = "FILE", description = "The backend's secret key (server).")
    Path backendSecretKeyFile;

    @Option(names = "--backend-curve-keypair-file", paramLabel = "FILE", description = "The backend's" + KEY_PAIR)
    Path backendKeyPairFile;

    /** The frontend's (senders' side) CURVE role. */
    CurveSide frontend() {
        return new CurveSide(spec.commandLine(), FRONTEND, frontendServer, frontendServerKey, frontendSecretKeyFile,
                frontendKeyPairFile);
    }

    /** The backend's (receivers' side) CURVE role. */
    CurveSide backend() {
        return new CurveSide(spec.commandLine(), BACKEND, backendServer, backendServerKey, backendSecretKeyFile,
                backendKeyPairFile);
    }
}
