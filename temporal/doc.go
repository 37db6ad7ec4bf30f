// Package temporal finds the relative temporal expressions of a chat message
// ("yesterday", "last Saturday", "two weeks ago", "next month", "by
// Friday", "March 14") and resolves them against the message's own
// timestamp, so that a memory written on 8 May 2023 that says "last
// Saturday" can later be shown and searched as 6 May 2023.
//
// Matching is a hand-written word scanner over a fixed table of phrases
// rather than a general date parser: every expression in the text is found
// (not only the first), the results never depend on the wall clock, and a
// message with no temporal word costs one pass over its bytes with no
// allocation, which matters because every ingested message is resolved.
// Dates with their year ("7 May 2023") are left alone; they need no
// resolving (Absolute reads them).
//
// # Direction
//
// Some expressions say which way they point: "yesterday", "last Friday",
// "two weeks ago" and "last month" lie behind the message; "tomorrow",
// "next Tuesday", "this coming Friday", "in two weeks" and "10 days from
// now" ahead. The others take their direction from the words around them
// (see scanner.direction): a future or plan word in the clause (will, 'll,
// going, plan, scheduled, due, deadline, until, want, need, won't ...)
// points ahead, a past-tense verb (was, did, went, visited ...) or a word
// of the past (ago, last, recently) behind, the nearest one winning; then
// a "by", "for" or "before" right before the date points ahead (a
// deadline, a target) and "since" behind; then a cue elsewhere in the
// sentence; then a present tense in the clause ("the party is on
// Friday") ahead. Verbs that report or arrange (said, told, promised,
// booked, moved) are not cues. So:
//
//   - a weekday ("Friday", "on Friday") ahead is the reference day or the
//     next such day, behind the reference day or the last one; with no cue
//     it is behind, the day most recently past;
//   - "this Friday" is ahead unless the clause tells of the past;
//   - a day of a month without its year ("March 14", "14th of March",
//     "Friday, March 14") takes, of the reference's year and the years on
//     either side, the one that puts it nearest the reference on the side
//     the cue gives, or on either side without a cue; a weekday named with
//     it prefers the years in which the day falls on that weekday;
//   - "in two weeks" in a clause of the past is a duration ("I read it in
//     two days"), consumed without a date.
//
// # Precision and range
//
// Resolved dates are calendar dates: the reference's date in its own
// location, expressed at 00:00 UTC, with a granularity of day, week (dated
// by its Monday), month (its first day) or year (1 January); the
// granularity is the date's precision (tenure.Precision). A date outside
// the calendar every store holds (years 1 to 9999, tenure.InCalendar),
// such as "6000 years ago", is never listed: its expression stays text.
package temporal
