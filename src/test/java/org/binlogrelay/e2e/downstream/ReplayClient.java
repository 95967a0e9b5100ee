package org.binlogrelay.e2e.downstream;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;

import javax.net.ssl.SSLSocket;

import org.binlogrelay.protocol.auth.CachingSha2Hash;
import org.binlogrelay.protocol.auth.NativePasswordHash;
import org.binlogrelay.protocol.handshake.AuthMoreData;
import org.binlogrelay.protocol.handshake.AuthSwitchRequest;
import org.binlogrelay.protocol.handshake.CapabilityFlags;
import org.binlogrelay.protocol.handshake.HandshakeResponse41;
import org.binlogrelay.protocol.handshake.HandshakeV10;
import org.binlogrelay.protocol.handshake.SslRequest;
import org.binlogrelay.protocol.packet.ErrPacket;
import org.binlogrelay.protocol.packet.OkPacket;
import org.binlogrelay.protocol.query.QueryResponseReader;

/**
 * A minimal client for replaying transcripts against the relay: TLS, then either password plugin (following auth
 * switches and caching_sha2_password's full path in clear text over TLS), then commands. Every packet either way also
 * goes to a {@link ConnectionTranscriber}, so the relay's answers come out in the transcript format. Not thread-safe.
 */
final class ReplayClient implements AutoCloseable {

    private static final int CAPABILITIES = CapabilityFlags.CLIENT_PROTOCOL_41 | CapabilityFlags.CLIENT_SECURE_CONNECTION
            | CapabilityFlags.CLIENT_PLUGIN_AUTH | CapabilityFlags.CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA
            | CapabilityFlags.CLIENT_LONG_PASSWORD | CapabilityFlags.CLIENT_TRANSACTIONS
            | CapabilityFlags.CLIENT_DEPRECATE_EOF | CapabilityFlags.CLIENT_SSL;

    private final ConnectionTranscriber transcriber = new ConnectionTranscriber();
    private Socket socket;
    private InputStream in;
    private OutputStream out;
    private int seq;

    ReplayClient(int port) {
        try {
            socket = new Socket("127.0.0.1", port);
            socket.setSoTimeout(20_000);
            in = socket.getInputStream();
            out = socket.getOutputStream();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Logs in over TLS; returns false (the relay answered ERR, recorded by the transcriber) if refused. */
    boolean login(String user, String password) {
        HandshakeV10 greeting = HandshakeV10.decode(receive());
        send(new SslRequest(CAPABILITIES, 1 << 24, 255).encode());
        upgrade();
        String plugin = greeting.authPluginName();
        send(new HandshakeResponse41(CAPABILITIES, 1 << 24, 255, user, respond(plugin, password, greeting.scramble()),
                null, plugin, Map.of()).encode());
        while (true) {
            byte[] p = receive();
            if (OkPacket.isOk(p)) {
                return true;
            }
            if (ErrPacket.isErr(p)) {
                return false;
            }
            if (AuthSwitchRequest.isAuthSwitch(p)) {
                AuthSwitchRequest s = AuthSwitchRequest.decode(p);
                send(respond(s.pluginName(), password, Arrays.copyOf(s.pluginData(), 20)));
            } else if (Arrays.equals(AuthMoreData.decode(p).data(), new byte[] {4})) {
                byte[] clear = password.getBytes(StandardCharsets.UTF_8);
                send(Arrays.copyOf(clear, clear.length + 1));
            }
        }
    }

    private static byte[] respond(String plugin, String password, byte[] scramble) {
        return plugin.equals(NativePasswordHash.PLUGIN) ? NativePasswordHash.scramble(password, scramble)
                : CachingSha2Hash.scramble(password, scramble);
    }

    /** Sends a command and reads its whole answer (a result set for COM_QUERY, one packet otherwise). */
    void command(byte[] payload) {
        seq = 0;
        send(payload);
        if ((payload[0] & 0xff) == 0x03) {
            QueryResponseReader reader = new QueryResponseReader(true, 4096, 100_000);
            while (!reader.accept(receive())) {
                // keep reading the result set
            }
        } else {
            receive();
        }
    }

    Transcript transcript(String name) {
        return new Transcript(name, java.util.List.of(), transcriber.exchanges());
    }

    private void upgrade() {
        try {
            SSLSocket tls = (SSLSocket) TestCertificates.trustAllClientContext().getSocketFactory()
                    .createSocket(socket, "127.0.0.1", socket.getPort(), true);
            tls.setUseClientMode(true);
            tls.startHandshake();
            socket = tls;
            in = tls.getInputStream();
            out = tls.getOutputStream();
        } catch (IOException e) {
            throw new UncheckedIOException("TLS with the relay failed", e);
        }
    }

    private void send(byte[] payload) {
        transcriber.fromClient(payload);
        try {
            out.write(new byte[] {(byte) payload.length, (byte) (payload.length >>> 8), (byte) (payload.length >>> 16),
                (byte) seq++});
            out.write(payload);
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private byte[] receive() {
        try {
            byte[] header = readFully(4);
            int length = (header[0] & 0xff) | (header[1] & 0xff) << 8 | (header[2] & 0xff) << 16;
            seq = (header[3] & 0xff) + 1;
            byte[] payload = readFully(length);
            transcriber.fromServer(payload);
            return payload;
        } catch (IOException e) {
            throw new UncheckedIOException("The relay closed the connection", e);
        }
    }

    private byte[] readFully(int n) throws IOException {
        byte[] b = new byte[n];
        int at = 0;
        while (at < n) {
            int r = in.read(b, at, n - at);
            if (r < 0) {
                throw new EOFException();
            }
            at += r;
        }
        return b;
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException e) {
            // closed
        }
    }
}
