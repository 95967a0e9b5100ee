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
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerKeepAliveHandler;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin HTTP server: HTTP/1.1 on Netty, one I/O thread, requests answered by {@link AdminApi} on a small
 * pool of worker threads (commands may wait for the primary or the disk; the I/O thread never does).
 *
 * <pre>
 *   IdleStateHandler(idle timeout) -> HttpServerCodec(4 KiB line, 8 KiB headers)
 *     -> HttpServerKeepAliveHandler -> HttpObjectAggregator(max request bytes) -> handler
 * </pre>
 *
 * Limits: a request line, header block or body beyond its limit is answered 413/431 (as JSON) and the connection
 * closed; a connection idle for the timeout is closed; at most {@value #MAX_QUEUED} requests wait for a worker,
 * more are answered 503. Errors are JSON and never carry a stack trace.
 *
 * <p>Thread-safe: {@link #start} once, {@link #close} from any thread.
 */
public final class AdminServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(AdminServer.class);
  private static final int MAX_INITIAL_LINE = 4096;
  private static final int MAX_HEADERS = 8192;
  private static final int WORKERS = 2;
  private static final int MAX_QUEUED = 32;

  private final EventLoopGroup group;
  private final Channel listener;
  private final ExecutorService workers;

  private AdminServer(EventLoopGroup group, Channel listener, ExecutorService workers) {
    this.group = group;
    this.listener = listener;
    this.workers = workers;
  }

  /**
   * Listens on {@link AdminConfig#bind()}.
   *
   * @throws UncheckedIOException if the address cannot be bound (port taken, address not of this host)
   */
  public static AdminServer start(AdminConfig config, AdminApi api) {
    ThreadPoolExecutor workers = new ThreadPoolExecutor(WORKERS, WORKERS, 60, TimeUnit.SECONDS,
        new LinkedBlockingQueue<>(MAX_QUEUED), r -> {
          Thread t = new Thread(r, "admin-worker");
          t.setDaemon(true);
          return t;
        });
    EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    ChannelFuture bound = new ServerBootstrap()
        .group(group)
        .channel(NioServerSocketChannel.class)
        .option(ChannelOption.SO_BACKLOG, 64)
        .childOption(ChannelOption.TCP_NODELAY, true)
        .childHandler(new ChannelInitializer<SocketChannel>() {
          @Override
          protected void initChannel(SocketChannel ch) {
            ch.pipeline()
                .addLast("idle", new IdleStateHandler(0, 0, config.idleTimeout().toMillis(), TimeUnit.MILLISECONDS))
                .addLast("http", new HttpServerCodec(MAX_INITIAL_LINE, MAX_HEADERS, 8192))
                .addLast("keep-alive", new HttpServerKeepAliveHandler())
                .addLast("aggregate", new LimitedAggregator(config.maxRequestBytes()))
                .addLast("api", new Handler(api, workers));
          }
        })
        .bind(config.bind())
        .awaitUninterruptibly();
    if (!bound.isSuccess()) {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      workers.shutdownNow();
      throw new UncheckedIOException(new IOException("cannot listen on " + config.bind() + " for the admin API: "
          + bound.cause().getMessage() + " (is another process using the port?)", bound.cause()));
    }
    log.info("admin API and /metrics on http://{}{}", address(bound.channel()), config.token() == null
        ? " (no token: loopback only)" : " (bearer token required)");
    return new AdminServer(group, bound.channel(), workers);
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

  @Override
  public void close() {
    listener.close().awaitUninterruptibly();
    group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly();
    workers.shutdownNow();
  }

  /** Hands each whole request to a worker and writes its answer back. */
  private static final class Handler extends SimpleChannelInboundHandler<FullHttpRequest> {
    private final AdminApi api;
    private final ExecutorService workers;

    Handler(AdminApi api, ExecutorService workers) {
      this.api = api;
      this.workers = workers;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
      if (!request.decoderResult().isSuccess()) {
        Throwable cause = request.decoderResult().cause();
        boolean tooLong = cause instanceof TooLongFrameException;
        String what = cause != null && cause.getMessage() != null && cause.getMessage().contains("header")
            ? "header" : "line";
        write(ctx, errorAnswer(tooLong ? (what.equals("header") ? 431 : 414) : 400,
            tooLong ? "request " + what + " too large" : "malformed HTTP request"), false);
        return;
      }
      String method = request.method().name();
      String path = new QueryStringDecoder(request.uri()).path();
      String authorization = request.headers().get(HttpHeaderNames.AUTHORIZATION);
      byte[] body = ByteBufUtil.getBytes(request.content());
      boolean keepAlive = HttpUtil.isKeepAlive(request);
      boolean head = request.method().equals(HttpMethod.HEAD);
      try {
        workers.execute(() -> {
          Answer answer = api.handle(head ? "GET" : method, path, authorization, body);
          ctx.executor().execute(() -> write(ctx, head ? new Answer(answer.status(), answer.contentType(),
              new byte[0]) : answer, keepAlive));
        });
      } catch (RejectedExecutionException e) {
        write(ctx, errorAnswer(503, "the admin API is busy; retry in a moment"), false);
      }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
      if (evt instanceof IdleStateEvent) {
        ctx.close();
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
      log.debug("admin connection {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
      ctx.close();
    }

    private static Answer errorAnswer(int status, String message) {
      String code = status == 400 ? "bad_request" : status == 503 ? "unavailable" : "too_large";
      return Answer.text(status, Answer.JSON, "{\"error\":\"" + message + "\",\"code\":\"" + code + "\"}");
    }

    private static void write(ChannelHandlerContext ctx, Answer answer, boolean keepAlive) {
      FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
          HttpResponseStatus.valueOf(answer.status()), Unpooled.wrappedBuffer(answer.body()));
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
    protected void handleOversizedMessage(ChannelHandlerContext ctx, io.netty.handler.codec.http.HttpMessage m) {
      Handler.write(ctx, Handler.errorAnswer(413, "request body over " + maxContentLength() + " bytes"), false);
    }
  }
}
