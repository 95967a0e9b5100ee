/**
 * Closed binlog files tiered to S3-compatible object storage: upload once and verify, the catalog
 * of archived files, fetching them back for readers, and the archive's own retention. The only
 * package that talks to an object store; {@code storage/} sees archived files through its small
 * tier interfaces only (docs/archive.md).
 */
package org.binlogrelay.archive;
