package org.binlogrelay.e2e.servers;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.LifecycleMethodExecutionExceptionHandler;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;

/**
 * Gives tests a {@link ServerFarm} and makes sure its servers go away, whatever the outcome.
 *
 * <p>A {@code ServerFarm} parameter of a test method gets a farm closed after that test; one of a
 * {@code @BeforeAll} method gets a farm shared by the class and closed after it (a test method of
 * that class asking for one gets the same farm). When a test or lifecycle method fails, the tail of
 * every server's error log is added to the failure as a suppressed exception, so it shows in the
 * report.
 *
 * <pre>{@code
 * @ExtendWith(ServerFarmExtension.class)
 * class MyIT {
 *     @Test
 *     void replicates(ServerFarm farm) { ... }
 * }
 * }</pre>
 */
public final class ServerFarmExtension
    implements ParameterResolver,
        AfterEachCallback,
        AfterAllCallback,
        TestExecutionExceptionHandler,
        LifecycleMethodExecutionExceptionHandler {

  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(ServerFarmExtension.class);
  private static final String FARM = "farm";
  private static final int LOG_LINES = 40;

  @Override
  public boolean supportsParameter(
      ParameterContext parameterContext, ExtensionContext extensionContext) {
    return parameterContext.getParameter().getType() == ServerFarm.class;
  }

  @Override
  public Object resolveParameter(
      ParameterContext parameterContext, ExtensionContext extensionContext) {
    ServerFarm existing = extensionContext.getStore(NAMESPACE).get(FARM, ServerFarm.class);
    if (existing != null) {
      return existing;
    }
    ServerFarm farm = ServerFarm.create();
    extensionContext.getStore(NAMESPACE).put(FARM, farm);
    return farm;
  }

  @Override
  public void afterEach(ExtensionContext context) {
    closeOwnFarm(context);
  }

  @Override
  public void afterAll(ExtensionContext context) {
    closeOwnFarm(context);
  }

  /** Closes the farm stored in this very context (not an ancestor's). */
  private static void closeOwnFarm(ExtensionContext context) {
    ServerFarm farm = context.getStore(NAMESPACE).remove(FARM, ServerFarm.class);
    if (farm != null) {
      farm.close();
    }
  }

  @Override
  public void handleTestExecutionException(ExtensionContext context, Throwable throwable)
      throws Throwable {
    throw withServerLogs(context, throwable);
  }

  @Override
  public void handleBeforeAllMethodExecutionException(ExtensionContext context, Throwable throwable)
      throws Throwable {
    throw withServerLogs(context, throwable);
  }

  @Override
  public void handleBeforeEachMethodExecutionException(
      ExtensionContext context, Throwable throwable) throws Throwable {
    throw withServerLogs(context, throwable);
  }

  @Override
  public void handleAfterEachMethodExecutionException(ExtensionContext context, Throwable throwable)
      throws Throwable {
    throw withServerLogs(context, throwable);
  }

  @Override
  public void handleAfterAllMethodExecutionException(ExtensionContext context, Throwable throwable)
      throws Throwable {
    throw withServerLogs(context, throwable);
  }

  private static Throwable withServerLogs(ExtensionContext context, Throwable throwable) {
    ServerFarm farm = context.getStore(NAMESPACE).get(FARM, ServerFarm.class);
    if (farm != null && !farm.servers().isEmpty()) {
      try {
        throwable.addSuppressed(new ServerLogs(farm.errorLogTails(LOG_LINES)));
      } catch (RuntimeException e) {
        throwable.addSuppressed(e);
      }
    }
    return throwable;
  }

  /** The servers' error logs at the time of a failure; carries no stack trace of its own. */
  private static final class ServerLogs extends RuntimeException {

    private static final long serialVersionUID = 1L;

    ServerLogs(String logs) {
      super("Server logs at the time of the failure:\n" + logs, null, false, false);
    }
  }
}
