/**
 * The store's view of a second tier of binlog files (an object-storage archive, implemented in
 * {@code archive/}): small interfaces only, so that storage stays free of sockets and SDKs.
 */
package org.binlogrelay.storage.tier;
