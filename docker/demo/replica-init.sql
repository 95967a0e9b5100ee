-- Run once by the mysql:9.7 image when a replica's data directory is created (docker/compose.yaml): replicate
-- from the relay by GTID, over TLS (the relay's self-signed certificate). The account is in docker/demo/accounts.
CHANGE REPLICATION SOURCE TO SOURCE_HOST='relay', SOURCE_PORT=3307, SOURCE_USER='repl',
  SOURCE_PASSWORD='demo-replica-pass', SOURCE_AUTO_POSITION=1, SOURCE_SSL=1,
  SOURCE_CONNECT_RETRY=5, SOURCE_RETRY_COUNT=1000;
START REPLICA;
