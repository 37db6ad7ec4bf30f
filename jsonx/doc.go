// Package jsonx decodes JSON input strictly, with errors that say what is
// wrong and where: unknown, wrongly cased and repeated field names are
// rejected at any depth; a value of the wrong type is reported with its
// field path ("objects[2].decay_rule.half_life_days") and what was wanted;
// malformed JSON is reported by line and column. Every error is a
// *tenure.Error with code invalid.
//
// The CLI (files and standard input) and the HTTP server (request bodies)
// decode through this package, so that the same bad input gets the same
// answer everywhere.
package jsonx
