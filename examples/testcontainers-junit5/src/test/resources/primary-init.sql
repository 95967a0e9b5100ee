-- Run on the primary once it is up (MySQLContainer.withInitScript): the account the relay replicates with.
CREATE USER 'repl'@'%' IDENTIFIED BY 'repl-pass';
GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO 'repl'@'%';
CREATE DATABASE shop;
