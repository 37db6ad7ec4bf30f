// Package sqlite is Tenure's embedded store: one SQLite file in WAL mode,
// pure Go (modernc.org/sqlite), schema applied from embedded numbered
// migrations when the store is opened.
//
// Writes go through a single connection with BEGIN IMMEDIATE, so writers
// are serialized within and across processes; reads use a separate pool
// and never block on writers, with one exception: messages are full-text
// indexed after their append commits, in the background, and a full-text
// search of messages that finds some not yet indexed indexes them first,
// which takes the write lock.
package sqlite
