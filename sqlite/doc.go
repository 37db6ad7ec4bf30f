// Package sqlite is Tenure's embedded store: one SQLite file in WAL mode,
// pure Go (modernc.org/sqlite), schema applied from embedded numbered
// migrations when the store is opened. A database file the store creates
// is a copy of an empty database the process migrated once (see
// fresh.go), with the migrations stamped at the store's time.
//
// Queries run through statements prepared once per connection (see
// statements.go): on the read pool when first seen, on the writer before
// the write transaction after the one that first ran them.
//
// Writes go through a single connection with BEGIN IMMEDIATE, so writers
// are serialized within and across processes; reads use a separate pool
// and never block on writers, with one exception: messages are full-text
// indexed after their append commits, in the background, and a full-text
// search of messages that finds some not yet indexed indexes them first,
// which takes the write lock.
package sqlite
