package org.binlogrelay.e2e.downstream;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.protocol.handshake.AuthSwitchRequest;
import org.binlogrelay.protocol.handshake.CapabilityFlags;
import org.binlogrelay.protocol.handshake.HandshakeLimits;
import org.binlogrelay.protocol.handshake.HandshakeResponse41;
import org.binlogrelay.protocol.handshake.HandshakeV10;
import org.binlogrelay.protocol.handshake.SslRequest;
import org.binlogrelay.protocol.packet.EofPacket;
import org.binlogrelay.protocol.packet.ErrPacket;
import org.binlogrelay.protocol.packet.OkPacket;
import org.binlogrelay.protocol.query.ColumnDefinition;
import org.binlogrelay.protocol.query.QueryResponse;
import org.binlogrelay.protocol.query.QueryResponseReader;
import org.binlogrelay.server.downstream.Command;
import org.binlogrelay.server.downstream.DumpRequest;
import org.binlogrelay.server.downstream.ReplicaRegistration;

/**
 * Turns the packets of one client connection, seen from both sides, into {@link Transcript}
 * exchanges. A state machine over the connection's phases: greeting, handshake response,
 * authentication, commands, and a binlog dump (of which only the first {@link
 * #DUMP_EVENTS_RECORDED} packets are recorded).
 *
 * <p>A packet it cannot parse is recorded as {@code UNPARSED} with its first bytes in hex, never
 * dropped.
 *
 * <p>Thread-safe: the two directions of a connection call in from two threads.
 */
final class ConnectionTranscriber {

  static final int DUMP_EVENTS_RECORDED = 12;

  private enum Phase {
    GREETING,
    HANDSHAKE_RESPONSE,
    AUTH,
    COMMAND,
    DUMP,
    CLOSED
  }

  private final List<Transcript.Exchange> exchanges = new ArrayList<>();
  private Phase phase = Phase.GREETING;
  private int serverCapabilities;
  private int clientCapabilities;
  private String request;
  private List<String> response = new ArrayList<>();
  private Command pending;
  private QueryResponseReader reader;
  private int dumpPackets;
  private boolean extendedMetadata;

  /** Records a packet from the server; returns the bytes to forward (unchanged). */
  synchronized byte[] fromServer(byte[] payload) {
    try {
      switch (phase) {
        case GREETING -> greeting(payload);
        case AUTH -> authFromServer(payload);
        case COMMAND -> commandResponse(payload);
        case DUMP -> dumpPacket(payload);
        default -> respond("PACKET " + payload.length + " bytes (phase " + phase + ")");
      }
    } catch (RuntimeException e) {
      reader = null;
      respond("UNPARSED " + hex(payload) + " (" + e.getMessage() + ")");
    }
    return payload;
  }

  synchronized void fromClient(byte[] payload) {
    try {
      switch (phase) {
        case HANDSHAKE_RESPONSE -> handshakeResponse(payload);
        case AUTH -> startExchange("AUTH " + describeAuthData(payload));
        case COMMAND -> command(payload);
        case DUMP -> startExchange("PACKET_DURING_DUMP " + payload.length + " bytes");
        default -> startExchange("PACKET " + payload.length + " bytes (phase " + phase + ")");
      }
    } catch (RuntimeException e) {
      startExchange("UNPARSED " + hex(payload) + " (" + e.getMessage() + ")");
    }
  }

  private static String hex(byte[] payload) {
    return HexFormat.of().formatHex(payload, 0, Math.min(payload.length, 64));
  }

  synchronized List<Transcript.Exchange> exchanges() {
    List<Transcript.Exchange> all = new ArrayList<>(exchanges);
    if (request != null) {
      all.add(new Transcript.Exchange(request, response));
    }
    return all;
  }

  private void greeting(byte[] payload) {
    startExchange("CONNECT");
    phase = Phase.HANDSHAKE_RESPONSE;
    if (ErrPacket.isErr(payload)) {
      respond(err(ErrPacket.decode(payload)));
      phase = Phase.CLOSED;
      return;
    }
    HandshakeV10 greeting = HandshakeV10.decode(payload);
    serverCapabilities = greeting.capabilities();
    respond(
        "GREETING plugin="
            + greeting.authPluginName()
            + " scramble="
            + greeting.scramble().length
            + " charset="
            + greeting.characterSet()
            + " status=0x"
            + Integer.toHexString(greeting.statusFlags())
            + " capabilities="
            + String.join(",", CapabilityFlags.names(greeting.capabilities())));
  }

  private void handshakeResponse(byte[] payload) {
    if (SslRequest.matches(payload)) {
      startExchange(
          "SSL_REQUEST capabilities="
              + String.join(",", CapabilityFlags.names(SslRequest.decode(payload).capabilities())));
      respond("TLS");
      return;
    }
    HandshakeResponse41 r = HandshakeResponse41.decode(payload, HandshakeLimits.DEFAULT);
    clientCapabilities = r.capabilities();
    // MariaDB: without CLIENT_MYSQL (= LONG_PASSWORD) in the greeting, the last 4 filler bytes are
    // extended
    // capabilities; bit 3 is MARIADB_CLIENT_EXTENDED_METADATA, which adds a field to column
    // definitions.
    if (!CapabilityFlags.has(serverCapabilities, CapabilityFlags.CLIENT_LONG_PASSWORD)
        && payload.length > 32) {
      int extended =
          (payload[28] & 0xff)
              | (payload[29] & 0xff) << 8
              | (payload[30] & 0xff) << 16
              | (payload[31] & 0xff) << 24;
      extendedMetadata = (extended & 0x08) != 0;
    }
    StringJoiner attributes = new StringJoiner(",");
    for (Map.Entry<String, String> a : r.connectAttributes().entrySet()) {
      boolean stable =
          a.getKey().equals("_client_name")
              || a.getKey().equals("program_name")
              || a.getKey().equals("_client_version");
      attributes.add(stable ? a.getKey() + "=" + a.getValue() : a.getKey());
    }
    startExchange(
        "HANDSHAKE_RESPONSE user="
            + r.user()
            + " plugin="
            + r.authPluginName()
            + " auth="
            + r.authResponse().length
            + " database="
            + (r.database() == null ? "-" : r.database())
            + " charset="
            + r.characterSet()
            + " capabilities="
            + String.join(",", CapabilityFlags.names(r.capabilities()))
            + " attributes="
            + Transcript.escape(attributes.toString()));
    phase = Phase.AUTH;
  }

  private void authFromServer(byte[] payload) {
    int header = payload.length == 0 ? -1 : payload[0] & 0xff;
    if (header == OkPacket.HEADER) {
      respond("OK");
      phase = Phase.COMMAND;
    } else if (header == ErrPacket.HEADER) {
      respond(err(ErrPacket.decode(payload)));
      phase = Phase.CLOSED;
    } else if (AuthSwitchRequest.isAuthSwitch(payload)) {
      AuthSwitchRequest s = AuthSwitchRequest.decode(payload);
      respond("AUTH_SWITCH plugin=" + s.pluginName() + " data=" + s.pluginData().length);
    } else if (header == 0x01) {
      respond("AUTH_MORE_DATA " + describeAuthData(Arrays.copyOfRange(payload, 1, payload.length)));
    } else {
      respond("AUTH_PACKET " + payload.length + " bytes");
    }
  }

  private static String describeAuthData(byte[] data) {
    String text = new String(data, StandardCharsets.US_ASCII);
    if (text.startsWith("-----BEGIN PUBLIC KEY-----")) {
      return "public-key-pem";
    }
    if (data.length <= 1) {
      return "0x" + HexFormat.of().formatHex(data);
    }
    return data.length + " bytes";
  }

  private void command(byte[] payload) {
    if (payload.length == 0) {
      startExchange("EMPTY_PACKET");
      return;
    }
    int code = payload[0] & 0xff;
    pending = Command.of(code);
    reader = null;
    String rest = new String(payload, 1, payload.length - 1, StandardCharsets.UTF_8);
    boolean queryAttributes =
        CapabilityFlags.has(
            clientCapabilities & serverCapabilities, CapabilityFlags.CLIENT_QUERY_ATTRIBUTES);
    if (pending == Command.COM_QUERY && queryAttributes) {
      // CLIENT_QUERY_ATTRIBUTES: lenenc parameter count, lenenc parameter set count (1), then the
      // text.
      if (payload.length < 3 || payload[1] != 0) {
        throw new IllegalStateException("COM_QUERY with query attributes is not transcribed");
      }
      rest = new String(payload, 3, payload.length - 3, StandardCharsets.UTF_8);
    }
    if (pending == Command.COM_QUERY) {
      startExchange("COM_QUERY " + Transcript.escape(rest));
      int both = clientCapabilities & serverCapabilities;
      reader =
          new QueryResponseReader(
              CapabilityFlags.has(both, CapabilityFlags.CLIENT_DEPRECATE_EOF),
              extendedMetadata,
              4096,
              100_000);
    } else if (pending == Command.COM_REGISTER_SLAVE) {
      ReplicaRegistration r = ReplicaRegistration.decode(payload);
      startExchange(
          "COM_REGISTER_SLAVE server_id="
              + r.serverId()
              + " host="
              + quote(r.host())
              + " user="
              + quote(r.user())
              + " password="
              + (r.passwordSent() ? "yes" : "no")
              + " port="
              + r.port()
              + " rank="
              + r.rank()
              + " source_id="
              + r.sourceId());
    } else if (pending == Command.COM_BINLOG_DUMP || pending == Command.COM_BINLOG_DUMP_GTID) {
      DumpRequest d = DumpRequest.decode(payload);
      startExchange(
          pending
              + " flags=0x"
              + Integer.toHexString(d.flags())
              + " server_id="
              + d.serverId()
              + " file="
              + quote(d.binlogFile())
              + " position="
              + d.position()
              + (d.startGtids() == null
                  ? ""
                  : " gtids=" + quote(d.startGtids().toString().replace("\n", ""))));
      phase = Phase.DUMP;
      dumpPackets = 0;
    } else if (pending == Command.COM_INIT_DB) {
      startExchange("COM_INIT_DB " + Transcript.escape(rest));
    } else {
      startExchange(
          Command.nameOf(code) + (payload.length > 1 ? " " + (payload.length - 1) + " bytes" : ""));
    }
  }

  private void commandResponse(byte[] payload) {
    if (reader != null) {
      if (reader.accept(payload)) {
        QueryResponse r = reader.response();
        reader = null;
        if (r instanceof QueryResponse.Ok) {
          respond("OK");
        } else if (r instanceof QueryResponse.Err e) {
          respond(err(e.err()));
        } else if (r instanceof QueryResponse.Rows rows) {
          StringJoiner columns = new StringJoiner("\t");
          for (ColumnDefinition c : rows.resultSet().columns()) {
            columns.add(
                Transcript.escape(c.name())
                    + ":"
                    + c.type()
                    + ":"
                    + c.characterSet()
                    + ":"
                    + c.columnLength()
                    + ":0x"
                    + String.format(Locale.ROOT, "%04x", c.flags())
                    + ":"
                    + c.decimals());
          }
          respond("RESULT " + columns);
          for (List<String> row : rows.resultSet().rows()) {
            StringJoiner values = new StringJoiner("\t");
            row.forEach(v -> values.add(Transcript.escape(v)));
            respond("ROW " + values);
          }
          respond("END");
        }
      }
      return;
    }
    int header = payload.length == 0 ? -1 : payload[0] & 0xff;
    if (header == ErrPacket.HEADER) {
      respond(err(ErrPacket.decode(payload)));
    } else if (header == OkPacket.HEADER && OkPacket.isOk(payload)) {
      respond("OK");
    } else if (EofPacket.isEof(payload)) {
      respond("EOF");
    } else {
      respond("TEXT " + Transcript.escape(new String(payload, StandardCharsets.UTF_8)));
    }
  }

  private void dumpPacket(byte[] payload) {
    int header = payload.length == 0 ? -1 : payload[0] & 0xff;
    if (header == ErrPacket.HEADER) {
      respond(err(ErrPacket.decode(payload)));
      phase = Phase.CLOSED;
      return;
    }
    if (EofPacket.isEof(payload)) {
      respond("EOF");
      return;
    }
    dumpPackets++;
    if (dumpPackets <= DUMP_EVENTS_RECORDED) {
      String type = payload.length > 5 ? EventType.forCode(payload[5] & 0xff).name() : "?";
      respond("EVENT " + type);
    } else if (dumpPackets == DUMP_EVENTS_RECORDED + 1) {
      respond("EVENTS_CONTINUE");
    }
  }

  private void startExchange(String line) {
    if (request != null) {
      exchanges.add(new Transcript.Exchange(request, response));
    }
    request = line;
    response = new ArrayList<>();
  }

  private void respond(String line) {
    if (request == null) {
      request = "(unsolicited)";
    }
    response.add(line);
  }

  private static String err(ErrPacket e) {
    return "ERR " + e.code() + " " + e.sqlState() + " " + Transcript.escape(e.message());
  }

  private static String quote(String s) {
    return "'" + Transcript.escape(s) + "'";
  }
}
