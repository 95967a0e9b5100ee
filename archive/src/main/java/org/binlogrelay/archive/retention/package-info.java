/**
 * The archive's own retention ({@code --archive-retention}): {@link
 * org.binlogrelay.archive.retention.ArchiveRetention} deletes archived files older than it.
 */
package org.binlogrelay.archive.retention;
