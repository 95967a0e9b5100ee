package org.binlogrelay.e2e.serving;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.binlogrelay.protocol.bytes.LittleEndian;
import org.binlogrelay.protocol.event.BinlogChecksum;
import org.binlogrelay.protocol.event.EventHeader;
import org.binlogrelay.protocol.packet.ErrPacket;
import org.binlogrelay.protocol.testing.WireClient;

/**
 * Test side: compares the answer of a real server to a dump request with the relay's answer to the
 * same request, packet by packet. The only bytes allowed to differ are the server_id of the events
 * a dump thread makes up (artificial ROTATE and GTID_LIST, HEARTBEAT, HEARTBEAT_V2: each server
 * puts its own id there) and, with it, their CRC32; and, in error texts, the directory MySQL
 * prefixes to file names ({@code '/path/binlog.000001'} against the relay's {@code
 * './binlog.000001'}).
 */
final class DumpComparison {
  private static final int HEARTBEAT = 27;
  private static final int HEARTBEAT_V2 = 41;

  private DumpComparison() {}

  /** Human-readable differences; empty when the answers are the same. */
  static List<String> differences(List<WireClient.Packet> server, List<WireClient.Packet> relay) {
    List<String> out = new ArrayList<>();
    if (server.size() != relay.size()) {
      out.add(
          "server sent "
              + server.size()
              + " packets, relay "
              + relay.size()
              + ": server "
              + describe(server)
              + ", relay "
              + describe(relay));
    }
    for (int i = 0; i < Math.min(server.size(), relay.size()); i++) {
      WireClient.Packet s = server.get(i);
      WireClient.Packet r = relay.get(i);
      if (s.sequenceId() != r.sequenceId()) {
        out.add("packet " + i + ": sequence id " + s.sequenceId() + " against " + r.sequenceId());
      }
      byte[] a = normalized(s);
      byte[] b = normalized(r);
      if (!Arrays.equals(a, b)) {
        out.add(
            "packet "
                + i
                + " ("
                + describe(s)
                + " / "
                + describe(r)
                + ") differs:\n  server "
                + text(s, a)
                + "\n  relay  "
                + text(r, b));
      }
      if (out.size() > 10) {
        break;
      }
    }
    return out;
  }

  static byte[] normalized(WireClient.Packet p) {
    if (p.isErr()) {
      ErrPacket err = p.err();
      return new ErrPacket(err.code(), err.sqlState(), normalizePaths(err.message())).encode();
    }
    if (!p.isEvent() || p.payload().length < 1 + EventHeader.SIZE) {
      return p.payload();
    }
    byte[] event = p.event();
    int type = event[EventHeader.TYPE_OFFSET] & 0xff;
    int flags = LittleEndian.u16(event, EventHeader.FLAGS_OFFSET);
    boolean madeUp =
        type == HEARTBEAT
            || type == HEARTBEAT_V2
            || (flags & EventHeader.LOG_EVENT_ARTIFICIAL_F) != 0;
    if (madeUp) {
      boolean checksummed =
          event.length >= EventHeader.SIZE + 4 && BinlogChecksum.verify(event, 0, event.length);
      LittleEndian.put32(event, EventHeader.SERVER_ID_OFFSET, 0);
      if (checksummed) {
        BinlogChecksum.patch(event, 0, event.length);
      }
    }
    byte[] out = new byte[event.length + 1];
    System.arraycopy(event, 0, out, 1, event.length);
    return out;
  }

  /**
   * {@code '/any/dir/binlog.000001'} and {@code './binlog.000001'} become {@code 'binlog.000001'}.
   */
  static String normalizePaths(String message) {
    return message.replaceAll("'[^' ]*/([^'/]+\\.[0-9]+)'", "'$1'");
  }

  private static String describe(List<WireClient.Packet> packets) {
    List<String> kinds = new ArrayList<>();
    for (WireClient.Packet p : packets) {
      kinds.add(describe(p));
    }
    return kinds.size() > 40 ? kinds.subList(0, 40) + "..." : kinds.toString();
  }

  private static String describe(WireClient.Packet p) {
    if (p.isEvent()) {
      return "event " + p.eventType();
    }
    if (p.isErr()) {
      return "ERR " + p.err().code();
    }
    return p.isEof() ? "EOF" : "packet 0x" + Integer.toHexString(p.payload()[0] & 0xff);
  }

  private static String text(WireClient.Packet p, byte[] normalized) {
    if (p.isErr()) {
      return p.err().toString();
    }
    String hex = HexFormat.of().formatHex(normalized);
    return hex.length() > 400 ? hex.substring(0, 400) + "..." : hex;
  }
}
