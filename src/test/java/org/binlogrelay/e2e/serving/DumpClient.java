package org.binlogrelay.e2e.serving;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

import org.binlogrelay.e2e.servers.Credentials;
import org.binlogrelay.e2e.servers.HostAndPort;
import org.binlogrelay.protocol.auth.CachingSha2Hash;
import org.binlogrelay.protocol.auth.NativePasswordHash;
import org.binlogrelay.protocol.handshake.AuthSwitchRequest;
import org.binlogrelay.protocol.handshake.CapabilityFlags;
import org.binlogrelay.protocol.handshake.HandshakeResponse41;
import org.binlogrelay.protocol.handshake.HandshakeV10;
import org.binlogrelay.protocol.handshake.SslRequest;
import org.binlogrelay.protocol.packet.ErrPacket;
import org.binlogrelay.protocol.query.QueryResponse;
import org.binlogrelay.protocol.query.QueryResponseReader;

/**
 * Test side: a raw replication client, to ask a real server and the relay the very same dump and compare what
 * comes back packet by packet (sequence ids, event bytes, errors). Logs in with either password plugin, over TLS
 * when asked (caching_sha2_password's full path then sends the password in clear over TLS). Not thread-safe.
 */
final class DumpClient implements AutoCloseable {

    /** One logical packet: the first frame's sequence id and the joined payload. */
    record Packet(int sequenceId, byte[] payload) {
        boolean isEvent() {
            return payload.length > 0 && payload[0] == 0;
        }

        boolean isError() {
            return payload.length > 0 && (payload[0] & 0xff) == 0xff;
        }

        boolean isEof() {
            return payload.length > 0 && payload.length < 9 && (payload[0] & 0xff) == 0xfe;
        }

        byte[] event() {
            return Arrays.copyOfRange(payload, 1, payload.length);
        }

        int eventType() {
            return payload[1 + 4] & 0xff;
        }

        ErrPacket error() {
            return ErrPacket.decode(payload);
        }
    }

    private static final int MAX_FRAME = 0xFFFFFF;
    private static final int CAPABILITIES = CapabilityFlags.CLIENT_PROTOCOL_41
            | CapabilityFlags.CLIENT_SECURE_CONNECTION | CapabilityFlags.CLIENT_PLUGIN_AUTH
            | CapabilityFlags.CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA | CapabilityFlags.CLIENT_LONG_PASSWORD
            | CapabilityFlags.CLIENT_TRANSACTIONS;

    private Socket socket;
    private InputStream in;
    private OutputStream out;
    private int sequence;

    private DumpClient(HostAndPort address, Credentials credentials, boolean tls, int receiveBufferBytes)
            throws IOException {
        socket = new Socket();
        if (receiveBufferBytes > 0) {
            socket.setReceiveBufferSize(receiveBufferBytes);
        }
        socket.connect(new InetSocketAddress(address.host(), address.port()), 30_000);
        socket.setSoTimeout(30_000);
        in = socket.getInputStream();
        out = socket.getOutputStream();
        HandshakeV10 greeting = HandshakeV10.decode(read().payload());
        int capabilities = CAPABILITIES | (tls ? CapabilityFlags.CLIENT_SSL : 0);
        if (tls) {
            send(new SslRequest(capabilities, 1 << 30, 255).encode());
            upgrade(address);
        }
        String plugin = greeting.authPluginName();
        send(new HandshakeResponse41(capabilities, 1 << 30, 255, credentials.user(),
                respond(plugin, credentials.password(), greeting.scramble()), null, plugin, Map.of()).encode());
        while (true) {
            byte[] p = read().payload();
            if (p[0] == 0) {
                return;
            }
            if ((p[0] & 0xff) == 0xff) {
                throw new IOException("login to " + address + " refused: " + ErrPacket.decode(p));
            }
            if ((p[0] & 0xff) == AuthSwitchRequest.HEADER) {
                AuthSwitchRequest s = AuthSwitchRequest.decode(p);
                send(respond(s.pluginName(), credentials.password(), Arrays.copyOf(s.pluginData(), 20)));
            } else if (p[0] == 1 && p.length == 2 && p[1] == 4) {
                if (!tls) {
                    throw new IOException("caching_sha2_password full authentication needs TLS in this client");
                }
                byte[] clear = credentials.password().getBytes(StandardCharsets.UTF_8);
                send(Arrays.copyOf(clear, clear.length + 1));
            }
        }
    }

    static DumpClient connect(HostAndPort address, Credentials credentials, boolean tls) {
        return connect(address, credentials, tls, 0);
    }

    /** With a socket receive buffer of {@code receiveBufferBytes} (set before connecting), 0 for the default. */
    static DumpClient connect(HostAndPort address, Credentials credentials, boolean tls, int receiveBufferBytes) {
        try {
            return new DumpClient(address, credentials, tls, receiveBufferBytes);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot log in to " + address, e);
        }
    }

    private static byte[] respond(String plugin, String password, byte[] scramble) {
        return plugin.equals(NativePasswordHash.PLUGIN) ? NativePasswordHash.scramble(password, scramble)
                : CachingSha2Hash.scramble(password, scramble);
    }

    /** Runs statements that return OK (SET ...); fails on ERR. */
    DumpClient execute(String... statements) {
        for (String sql : statements) {
            try {
                sendQuery(sql);
                Packet answer = read();
                if (answer.payload()[0] != 0) {
                    throw new AssertionError(sql + " answered " + (answer.isError() ? answer.error() : "a result set"));
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return this;
    }

    /** The first column of the single row {@code sql} returns (e.g. {@code SELECT @@global.gtid_purged}). */
    String queryValue(String sql) {
        try {
            sendQuery(sql);
            QueryResponseReader reader = new QueryResponseReader(false, 16, 2);
            while (!reader.accept(read().payload())) {
                // column definitions, EOF, rows
            }
            QueryResponse answer = reader.response();
            if (!(answer instanceof QueryResponse.Rows rows) || rows.resultSet().rows().size() != 1) {
                throw new AssertionError(sql + " answered " + answer);
            }
            return rows.resultSet().rows().get(0).get(0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Sends COM_QUERY {@code sql} as a new command. */
    private void sendQuery(String sql) throws IOException {
        sequence = 0;
        byte[] text = sql.getBytes(StandardCharsets.UTF_8);
        byte[] payload = new byte[text.length + 1];
        payload[0] = 0x03;
        System.arraycopy(text, 0, payload, 1, text.length);
        send(payload);
    }

    /** Sends COM_PING and returns the answer (OK, or ERR if the server refuses it). */
    Packet ping() throws IOException {
        sequence = 0;
        send(new byte[] {0x0e});
        return read();
    }

    /**
     * Sends a dump request and reads the answer until EOF, ERR, the server closing, {@code maxPackets} packets, or
     * {@code idle} without a packet (a blocking dump that caught up).
     */
    List<Packet> dump(byte[] request, int maxPackets, Duration idle) {
        List<Packet> packets = new ArrayList<>();
        try {
            sequence = 0;
            send(request);
            socket.setSoTimeout((int) idle.toMillis());
            while (packets.size() < maxPackets) {
                Packet p;
                try {
                    p = read();
                } catch (SocketTimeoutException | EOFException end) {
                    return packets;
                }
                packets.add(p);
                if (p.isEof() || p.isError()) {
                    return packets;
                }
            }
            return packets;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Sends a dump request; read the stream with {@link #next()}. */
    void startDump(byte[] request, Duration readTimeout) throws IOException {
        sequence = 0;
        send(request);
        socket.setSoTimeout((int) readTimeout.toMillis());
    }

    /** The next packet of a stream started with {@link #startDump}. */
    Packet next() throws IOException {
        return read();
    }

    private Packet read() throws IOException {
        ByteArrayOutputStream payload = new ByteArrayOutputStream();
        int first = -1;
        while (true) {
            byte[] header = readFully(4);
            int length = (header[0] & 0xff) | (header[1] & 0xff) << 8 | (header[2] & 0xff) << 16;
            if (first < 0) {
                first = header[3] & 0xff;
            }
            sequence = (header[3] + 1) & 0xff;
            payload.write(readFully(length));
            if (length < MAX_FRAME) {
                return new Packet(first, payload.toByteArray());
            }
        }
    }

    private void send(byte[] payload) throws IOException {
        out.write(new byte[] {(byte) payload.length, (byte) (payload.length >> 8), (byte) (payload.length >> 16),
            (byte) sequence});
        out.write(payload);
        out.flush();
        sequence = (sequence + 1) & 0xff;
    }

    private byte[] readFully(int n) throws IOException {
        byte[] b = new byte[n];
        int at = 0;
        while (at < n) {
            int r = in.read(b, at, n - at);
            if (r < 0) {
                throw new EOFException("server closed the connection");
            }
            at += r;
        }
        return b;
    }

    private void upgrade(HostAndPort address) throws IOException {
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, new TrustManager[] {new X509TrustManager() {
                @Override
                public void checkClientTrusted(X509Certificate[] chain, String authType) {
                }

                @Override
                public void checkServerTrusted(X509Certificate[] chain, String authType) {
                }

                @Override
                public X509Certificate[] getAcceptedIssuers() {
                    return new X509Certificate[0];
                }
            }}, null);
            SSLSocket tls = (SSLSocket) context.getSocketFactory().createSocket(socket, address.host(), address.port(),
                    true);
            tls.setUseClientMode(true);
            tls.startHandshake();
            socket = tls;
            in = tls.getInputStream();
            out = tls.getOutputStream();
        } catch (GeneralSecurityException e) {
            throw new IOException("TLS with " + address + " failed", e);
        }
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException e) {
            // already closed
        }
    }
}
