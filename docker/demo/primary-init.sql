-- Run once by the mysql:9.7 image when the primary's data directory is created (docker/compose.yaml).
-- Demo only: the password is the one in docker/demo/secrets/primary-password.
CREATE USER 'repl'@'%' IDENTIFIED WITH caching_sha2_password BY 'demo-primary-pass';
GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO 'repl'@'%';
CREATE DATABASE demo;
CREATE TABLE demo.events (id BIGINT AUTO_INCREMENT PRIMARY KEY, at TIMESTAMP(6) DEFAULT CURRENT_TIMESTAMP(6),
  payload VARCHAR(255) NOT NULL);
