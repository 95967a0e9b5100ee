/**
 * JMH benchmarks of binlog-relay's hot paths; results and how to run them are in
 * docs/benchmarks.md.
 */
package org.binlogrelay.benchmarks;
