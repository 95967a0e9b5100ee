package org.binlogrelay.server.downstream.sql;

/**
 * How a system variable's value is typed: what column type {@code SELECT @@x} returns and which
 * values {@code SET} accepts. Booleans read as 0/1 in {@code SELECT} and as OFF/ON in {@code SHOW
 * VARIABLES}, as on MySQL.
 */
public enum VariableType {
  UNSIGNED,
  SIGNED,
  BOOLEAN,
  STRING
}
