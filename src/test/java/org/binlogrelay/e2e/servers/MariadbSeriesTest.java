package org.binlogrelay.e2e.servers;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A test run once per MariaDB series of the version matrix ({@link ServerVersion#mariadbSeries()}:
 * 10.11 and 11.8), with that {@link ServerVersion} as its first parameter; each run is named after
 * the series ("MariaDB 11.8"). A scenario that runs for MariaDB runs this way for every series,
 * rather than in a copy of its class per series.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@ParameterizedTest(name = "{0}")
@MethodSource("org.binlogrelay.e2e.servers.ServerVersion#mariadbSeries")
public @interface MariadbSeriesTest {}
