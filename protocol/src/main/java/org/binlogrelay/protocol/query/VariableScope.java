package org.binlogrelay.protocol.query;

/**
 * Which value of a system variable a statement names: {@code @@global.x} / {@code SHOW GLOBAL
 * VARIABLES}, {@code @@session.x} / {@code @@local.x} / {@code SET SESSION}, or no prefix at all.
 * MySQL resolves an unqualified {@code @@x} to the session value if the variable has one, else the
 * global value; an unqualified {@code SET x} is a session assignment.
 */
public enum VariableScope {
  GLOBAL,
  SESSION,
  DEFAULT
}
