package org.binlogrelay.server.admin;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpChunkedInput;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerKeepAliveHandler;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.stream.ChunkedWriteHandler;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin HTTP server: HTTP/1.1 on Netty, one I/O thread. {@code /health} and {@code /ready} are
 * answered on the I/O thread (they read a few volatile fields, so a probe never waits behind a
 * command); other reads ({@code GET}, {@code HEAD}: {@code /metrics}, views) on a pool of their
 * own, and commands ({@code POST}, which may wait for the primary or the disk up to {@link
 * AdminConfig#commandTimeout()}) on another, so that a slow command never delays a scrape.
 *
 * <pre>
 *   IdleStateHandler(idle timeout) -> HttpServerCodec(4 KiB line, 8 KiB headers)
 *     -> HttpServerKeepAliveHandler -> HttpObjectAggregator(max request bytes) -> handler
 * </pre>
 *
 * Limits: a request line, header block or body beyond its limit is answered 413/414/431 (as JSON)
 * and the connection closed; a connection idle for the timeout is closed, but never while its
 * request is being answered; at most {@value #MAX_QUEUED} requests per pool wait for a worker, more
 * are answered 503. A connection has one request in work at a time: it is not read while its answer
 * is pending, and pipelined requests already read are answered in order (at most {@value
 * #MAX_PIPELINED} of them; more close the connection). Errors are JSON and never carry a stack
 * trace.
 *
 * <p>Thread-safe: {@link #start} once, {@link #close} from any thread.
 */
public final class AdminServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(AdminServer.class);
  private static final int MAX_INITIAL_LINE = 4096;
  private static final int MAX_HEADERS = 8192;
  private static final int WORKERS = 2;
  private static final int MAX_QUEUED = 32;
  private static final int MAX_PIPELINED = 16;
  private static final long WORKER_STOP_SECONDS = 10;

  private final EventLoopGroup group;
  private final Channel listener;
  private final ExecutorService commands;
  private final ExecutorService reads;

  private AdminServer(
      EventLoopGroup group, Channel listener, ExecutorService commands, ExecutorService reads) {
    this.group = group;
    this.listener = listener;
    this.commands = commands;
    this.reads = reads;
  }

  /**
   * Listens on {@link AdminConfig#bind()}.
   *
   * @throws UncheckedIOException if the address cannot be bound (port taken, address not of this
   *     host)
   */
  public static AdminServer start(AdminConfig config, AdminApi api) {
    ExecutorService commands = pool("admin-command");
    ExecutorService reads = pool("admin-read");
    EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    ChannelFuture bound =
        new ServerBootstrap()
            .group(group)
            .channel(NioServerSocketChannel.class)
            .option(ChannelOption.SO_BACKLOG, 64)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    ch.pipeline()
                        .addLast(
                            "idle",
                            new IdleStateHandler(
                                0, 0, config.idleTimeout().toMillis(), TimeUnit.MILLISECONDS))
                        .addLast("http", new HttpServerCodec(MAX_INITIAL_LINE, MAX_HEADERS, 8192))
                        .addLast("keep-alive", new HttpServerKeepAliveHandler())
                        .addLast("aggregate", new LimitedAggregator(config.maxRequestBytes()))
                        .addLast("chunked", new ChunkedWriteHandler())
                        .addLast("api", new Handler(api, commands, reads));
                  }
                })
            .bind(config.bind())
            .awaitUninterruptibly();
    if (!bound.isSuccess()) {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      commands.shutdownNow();
      reads.shutdownNow();
      throw new UncheckedIOException(
          new IOException(
              "cannot listen on "
                  + config.bind()
                  + " for the admin API: "
                  + bound.cause().getMessage()
                  + " (is another process using the port?)",
              bound.cause()));
    }
    LOG.info(
        "admin API and /metrics on http://{}{}",
        address(bound.channel()),
        config.token() == null ? " (no token: loopback only)" : " (bearer token required)");
    return new AdminServer(group, bound.channel(), commands, reads);
  }

  private static ExecutorService pool(String name) {
    return new ThreadPoolExecutor(
        WORKERS,
        WORKERS,
        60,
        TimeUnit.SECONDS,
        new LinkedBlockingQueue<>(MAX_QUEUED),
        r -> {
          Thread t = new Thread(r, name);
          t.setDaemon(true);
          return t;
        });
  }

  private static String address(Channel channel) {
    InetSocketAddress a = (InetSocketAddress) channel.localAddress();
    String host = a.getAddress().getHostAddress();
    return (host.contains(":") ? "[" + host + "]" : host) + ":" + a.getPort();
  }

  /** The address it listens on (with the port chosen for port 0). */
  public InetSocketAddress address() {
    return (InetSocketAddress) listener.localAddress();
  }

  /**
   * Stops listening, interrupts the requests in work and waits (up to {@value #WORKER_STOP_SECONDS}
   * s) until no worker runs any more, so that no command acts on the relay after this returns; then
   * closes the connections.
   */
  @Override
  public void close() {
    listener.close().awaitUninterruptibly();
    commands.shutdownNow();
    reads.shutdownNow();
    boolean interrupted = false;
    for (ExecutorService pool : new ExecutorService[] {commands, reads}) {
      try {
        if (!pool.awaitTermination(WORKER_STOP_SECONDS, TimeUnit.SECONDS)) {
          LOG.warn("an admin request did not end within {} s of the shutdown", WORKER_STOP_SECONDS);
        }
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly();
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /** One request as read, without its Netty buffers. */
  private record Request(
      String method,
      String path,
      String authorization,
      Map<String, List<String>> query,
      byte[] body,
      boolean keepAlive,
      boolean head) {}

  /**
   * Answers a connection's requests one at a time: the probes at once, the others on a worker;
   * reading stops while one is in work. One per connection; every field is used on the connection's
   * I/O thread only.
   */
  private static final class Handler extends SimpleChannelInboundHandler<FullHttpRequest> {
    private final AdminApi api;
    private final Executor commands;
    private final Executor reads;
    private final Queue<Request> pipelined = new ArrayDeque<>();
    private boolean inFlight;

    Handler(AdminApi api, Executor commands, Executor reads) {
      this.api = api;
      this.commands = commands;
      this.reads = reads;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
      if (!request.decoderResult().isSuccess()) {
        Throwable cause = request.decoderResult().cause();
        boolean tooLong = cause instanceof TooLongFrameException;
        String what =
            cause != null && cause.getMessage() != null && cause.getMessage().contains("header")
                ? "header"
                : "line";
        pipelined.clear();
        write(
            ctx,
            errorAnswer(
                tooLong ? (what.equals("header") ? 431 : 414) : 400,
                tooLong ? "request " + what + " too large" : "malformed HTTP request"),
            false);
        return;
      }
      QueryStringDecoder uri = new QueryStringDecoder(request.uri());
      Request r =
          new Request(
              request.method().name(),
              uri.path(),
              request.headers().get(HttpHeaderNames.AUTHORIZATION),
              uri.parameters(),
              ByteBufUtil.getBytes(request.content()),
              HttpUtil.isKeepAlive(request),
              request.method().equals(HttpMethod.HEAD));
      if (inFlight) {
        if (pipelined.size() >= MAX_PIPELINED) {
          LOG.debug(
              "admin connection {}: more than {} pipelined requests; closing",
              ctx.channel().remoteAddress(),
              MAX_PIPELINED);
          ctx.close();
          return;
        }
        pipelined.add(r);
        return;
      }
      answer(ctx, r);
    }

    /**
     * Answers {@code r}: on this thread for the probes, else on a worker; reading pauses meanwhile.
     */
    private void answer(ChannelHandlerContext ctx, Request r) {
      String method = r.head() ? "GET" : r.method();
      if (r.path().equals("/health") || r.path().equals("/ready")) {
        respond(ctx, r, api.handle(method, r.path(), r.authorization(), r.body()));
        return;
      }
      inFlight = true;
      ctx.channel().config().setAutoRead(false);
      Executor pool = r.method().equals("GET") || r.head() ? reads : commands;
      if (r.path().equals(PitrDownload.PATH) && method.equals("GET")) {
        download(ctx, r);
        return;
      }
      try {
        pool.execute(
            () -> {
              Answer a;
              try {
                a = api.handle(method, r.path(), r.query(), r.authorization(), r.body());
              } catch (Throwable e) {
                LOG.error("admin API: {} {} failed", r.method(), r.path(), e);
                a = errorAnswer(500, "the relay failed to answer " + r.method() + " " + r.path());
              }
              Answer done = a;
              try {
                ctx.executor().execute(() -> respond(ctx, r, done));
              } catch (RejectedExecutionException e) {
                LOG.debug(
                    "admin connection {} closed before its answer", ctx.channel().remoteAddress());
              }
            });
      } catch (RejectedExecutionException e) {
        respond(ctx, r, errorAnswer(503, "the admin API is busy; retry in a moment"));
      }
    }

    /**
     * {@code GET /api/v1/pitr/binlog}: opens the file on a read worker (an archived file may have
     * to be fetched), then streams it from the I/O thread in chunks as the socket takes them.
     */
    private void download(ChannelHandlerContext ctx, Request r) {
      try {
        reads.execute(
            () -> {
              PitrDownload.Outcome o = api.pitrDownload(r.authorization(), r.query());
              try {
                ctx.executor()
                    .execute(
                        () -> {
                          if (o.error() != null) {
                            respond(ctx, r, o.error());
                          } else {
                            stream(ctx, r, o.download());
                          }
                        });
              } catch (RejectedExecutionException e) {
                if (o.download() != null) {
                  closeQuietly(o.download());
                }
              }
            });
      } catch (RejectedExecutionException e) {
        respond(ctx, r, errorAnswer(503, "the admin API is busy; retry in a moment"));
      }
    }

    private void stream(ChannelHandlerContext ctx, Request r, PitrDownload d) {
      if (!ctx.channel().isActive()) {
        closeQuietly(d);
        return;
      }
      HttpResponse response = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
      response
          .headers()
          .set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_OCTET_STREAM);
      response.headers().set(HttpHeaderNames.CONTENT_LENGTH, d.length());
      response.headers().set(HttpHeaderNames.CACHE_CONTROL, "no-store");
      response
          .headers()
          .set(HttpHeaderNames.CONTENT_DISPOSITION, "attachment; filename=\"" + d.name() + "\"");
      if (r.keepAlive()) {
        HttpUtil.setKeepAlive(response, true);
      } else {
        response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
      }
      ctx.write(response);
      ctx.writeAndFlush(new HttpChunkedInput(d))
          .addListener(
              (ChannelFutureListener)
                  f -> {
                    if (!f.isSuccess()) {
                      LOG.debug(
                          "admin connection {}: download of {} failed: {}",
                          ctx.channel().remoteAddress(),
                          d.name(),
                          String.valueOf(f.cause()));
                      ctx.close();
                      return;
                    }
                    if (!r.keepAlive()) {
                      ctx.close();
                    }
                    readOn(ctx, r);
                  });
    }

    private static void closeQuietly(PitrDownload d) {
      try {
        d.close();
      } catch (IOException e) {
        LOG.debug("closing {}: {}", d.name(), e.toString());
      }
    }

    /** Writes the answer, then reads on: the next pipelined request, or the socket. */
    private void respond(ChannelHandlerContext ctx, Request r, Answer a) {
      write(ctx, a, r.keepAlive(), r.head());
      readOn(ctx, r);
    }

    /** After an answer: the next pipelined request, or the socket (or nothing once closing). */
    private void readOn(ChannelHandlerContext ctx, Request r) {
      inFlight = false;
      if (!ctx.channel().isActive() || !r.keepAlive()) {
        pipelined.clear();
        return;
      }
      Request next = pipelined.poll();
      if (next != null) {
        answer(ctx, next);
      } else {
        ctx.channel().config().setAutoRead(true);
      }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
      if (evt instanceof IdleStateEvent) {
        if (!inFlight) {
          ctx.close();
        }
        return;
      }
      super.userEventTriggered(ctx, evt);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      if (cause instanceof TooLongFrameException) {
        write(ctx, errorAnswer(413, "request body too large"), false);
        return;
      }
      LOG.debug("admin connection {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
      ctx.close();
    }

    private static Answer errorAnswer(int status, String message) {
      String code =
          switch (status) {
            case 400 -> "bad_request";
            case 500 -> "internal";
            case 503 -> "unavailable";
            default -> "too_large";
          };
      return Answer.text(
          status, Answer.JSON, "{\"error\":\"" + message + "\",\"code\":\"" + code + "\"}");
    }

    private static void write(ChannelHandlerContext ctx, Answer answer, boolean keepAlive) {
      write(ctx, answer, keepAlive, false);
    }

    /** Writes {@code answer}; for HEAD without the body but with the GET's Content-Length. */
    private static void write(
        ChannelHandlerContext ctx, Answer answer, boolean keepAlive, boolean head) {
      FullHttpResponse response =
          new DefaultFullHttpResponse(
              HttpVersion.HTTP_1_1,
              HttpResponseStatus.valueOf(answer.status()),
              head ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(answer.body()));
      response.headers().set(HttpHeaderNames.CONTENT_TYPE, answer.contentType());
      response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, answer.body().length);
      response.headers().set(HttpHeaderNames.CACHE_CONTROL, "no-store");
      if (answer.status() == 401) {
        response.headers().set(HttpHeaderNames.WWW_AUTHENTICATE, "Bearer realm=\"binlog-relay\"");
      }
      if (keepAlive) {
        HttpUtil.setKeepAlive(response, true);
        ctx.writeAndFlush(response);
      } else {
        response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
      }
    }
  }

  /** Answers a request whose body is over the limit with a JSON 413 and closes the connection. */
  private static final class LimitedAggregator extends HttpObjectAggregator {
    LimitedAggregator(int maxContentLength) {
      super(maxContentLength);
    }

    @Override
    protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage m) {
      Handler.write(
          ctx,
          Handler.errorAnswer(413, "request body over " + maxContentLength() + " bytes"),
          false);
    }
  }
}
