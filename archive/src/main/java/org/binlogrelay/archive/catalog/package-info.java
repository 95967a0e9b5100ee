/**
 * The list of archived files: {@link org.binlogrelay.archive.catalog.ArchiveCatalog} (the metadata
 * objects, their local copies and the contiguous view) and {@link
 * org.binlogrelay.archive.catalog.CatalogRefresher} (its background refresh). Only the {@link
 * org.binlogrelay.archive.objectstore.ObjectStore} interface is used, never the SDK.
 */
package org.binlogrelay.archive.catalog;
