// Package temporal finds the relative temporal expressions of a chat message
// ("yesterday", "last Saturday", "two weeks ago", "next month") and resolves
// them against the message's own timestamp, so that a memory written on
// 8 May 2023 that says "last Saturday" can later be shown and searched as
// 6 May 2023.
//
// Matching is a hand-written word scanner over a fixed table of phrases
// rather than a general date parser: every expression in the text is found
// (not only the first), the results never depend on the wall clock, and a
// message with no temporal word costs one pass over its bytes with no
// allocation, which matters because every ingested message is resolved.
// Absolute dates ("7 May 2023") are left alone; they need no resolving.
//
// Resolved dates are calendar dates: the reference's date in its own
// location, expressed at 00:00 UTC, with a granularity of day, week (dated
// by its Monday), month (its first day) or year (1 January).
package temporal
