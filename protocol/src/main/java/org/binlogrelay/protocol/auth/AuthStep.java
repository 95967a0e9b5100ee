package org.binlogrelay.protocol.auth;

/**
 * What the server does next in an authentication exchange ({@link AuthExchange#next}). Immutable.
 */
public sealed interface AuthStep {

  /**
   * Send {@code data} as an AuthMoreData packet (0x01 + data) and wait for the client's next
   * packet.
   */
  record MoreData(byte[] data) implements AuthStep {
    public MoreData {
      data = data.clone();
    }

    @Override
    public byte[] data() {
      return data.clone();
    }
  }

  /**
   * The client proved the password. If {@code moreDataBeforeOk} is not null it goes out as
   * AuthMoreData before the OK (caching_sha2_password's 0x03 "fast auth success").
   */
  record Accept(byte[] moreDataBeforeOk) implements AuthStep {
    public Accept {
      moreDataBeforeOk = moreDataBeforeOk == null ? null : moreDataBeforeOk.clone();
    }

    @Override
    public byte[] moreDataBeforeOk() {
      return moreDataBeforeOk == null ? null : moreDataBeforeOk.clone();
    }

    public static Accept plain() {
      return new Accept(null);
    }
  }

  /**
   * The client failed: the server answers ER_ACCESS_DENIED_ERROR with "(using password: YES|NO)"
   * from {@code passwordUsed}. {@code reason} is for the server's log only, never for the client.
   */
  record Reject(boolean passwordUsed, String reason) implements AuthStep {}
}
