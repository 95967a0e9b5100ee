/**
 * Archived files served back to readers: {@link org.binlogrelay.archive.fetch.ArchiveFetcher}, the
 * storage's {@link org.binlogrelay.storage.tier.ArchiveTier} over the catalog, with verified
 * downloads into a bounded local cache.
 */
package org.binlogrelay.archive.fetch;
